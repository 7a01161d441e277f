// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"

	"github.com/oci-ccm/oci-ccm/lb/internal/freeform"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// createdByID reads the load balancer a create's work request named and returns it if it is
// spec's owner's and not being deleted; nil (and no error) sends the caller to a listing, which
// also settles what a 404 means.
func (a *applier) createdByID(ctx context.Context, spec *model.Spec, id string) (*found, error) {
	if id == "" {
		return nil, nil
	}
	lb, err := a.p.Get(ctx, id)
	switch {
	case ociclient.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	if o, ok := freeform.Owner(lb.FreeformTags); !ok || o.UID != spec.Owner.UID || lb.Gone() {
		return nil, nil
	}
	return lb, nil
}
