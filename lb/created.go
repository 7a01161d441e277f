// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"context"

	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient"
)

// awaitCreate waits for a create's work request and returns the OCID it names ("" when OCI
// did not say).
func (a *applier) awaitCreate(ctx context.Context, wr string) (string, error) {
	return a.Client.WaitForWorkRequestResource(ctx, wr)
}

// createdByID reads the load balancer a create's work request named and returns it if it is
// spec's owner's and not being deleted; nil (and no error) sends the caller to a listing, which
// also settles what a 404 means.
func (a *applier) createdByID(ctx context.Context, spec *Spec, id string) (*loadbalancer.LoadBalancer, error) {
	if id == "" {
		return nil, nil
	}
	lb, err := a.Client.GetLoadBalancer(ctx, id)
	switch {
	case ociclient.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	if o, ok := ownerFromTags(lb.FreeformTags); !ok || o.UID != spec.Owner.UID || gone(lb.LifecycleState) {
		return nil, nil
	}
	return &lb, nil
}
