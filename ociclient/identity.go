// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"

	"github.com/oracle/oci-go-sdk/v65/identity"
)

// IdentityClient implements Identity on the Identity API.
type IdentityClient struct {
	sdk identity.IdentityClient
	c   *caller
}

// ListAvailabilityDomains returns the availability domains visible in the compartment. The
// operation is not paged: OCI returns every domain in one response.
func (i *IdentityClient) ListAvailabilityDomains(ctx context.Context, compartmentID string) ([]identity.AvailabilityDomain, error) {
	req := identity.ListAvailabilityDomainsRequest{CompartmentId: &compartmentID}
	resp, err := call(ctx, i.c, operation{service: serviceIdentity, name: "ListAvailabilityDomains", class: classRead, resource: compartmentID}, i.sdk.ListAvailabilityDomains, req)
	return resp.Items, err
}
