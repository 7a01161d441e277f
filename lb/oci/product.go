// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package oci is what the two OCI load-balancing products share. A Service's load balancer is
// one of two OCI products: a Load Balancer (model.KindLoadBalancer, package
// lb/oci/loadbalancer) or a Network Load Balancer (model.KindNetworkLoadBalancer, package
// lb/oci/nlb). They share everything above the API (package lb): one Spec, one Diff and
// ordering, one Reconciler with one name index, one absence rule and one applier. What differs
// is behind Product: how a load balancer is read, listed, created and changed, and how its SDK
// values become a Found. Of lb and its packages, the product packages are the only ones that use
// the SDK's loadbalancer and networkloadbalancer types (lb names them only in the declarations
// of the Client interfaces it is given).
package oci

import (
	"context"
	"fmt"

	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Product is what the Reconciler needs from one OCI load-balancing service.
type Product interface {
	// Kind is the product's Kind.
	Kind() model.Kind
	// Get reads one load balancer; OCI's errors are returned as they are (see ociclient's
	// error kinds), so a 404 is decided by the caller (lb's absence.go).
	Get(ctx context.Context, id string) (*Found, error)
	// List returns a compartment's load balancers, all pages; displayName filters by exact name
	// when not empty.
	List(ctx context.Context, compartmentID, displayName string) ([]Found, error)
	// Create starts creating spec with one call carrying every part, and returns the work
	// request and, when OCI says at once, the new load balancer's OCID.
	Create(ctx context.Context, spec *model.Spec, reservedIPID, retryToken string) (workRequestID, id string, err error)
	// AwaitCreate waits for a create's work request and returns the OCID of the new load
	// balancer ("" when OCI did not say); id is what Create returned.
	AwaitCreate(ctx context.Context, workRequestID, id string) (string, error)
	// Change starts one change of a plan on load balancer id and returns its work request.
	Change(ctx context.Context, id string, c model.Change) (workRequestID string, err error)
	// Wait waits for a work request of this product.
	Wait(ctx context.Context, workRequestID string) error
	// Words names the product's operations and IAM resource type in errors.
	Words() Words
}

// Words are the names errors use for one product.
type Words struct {
	// Noun is what users call it, e.g. "network load balancer".
	Noun string
	// Get and Delete are the OCI operations, e.g. "GetNetworkLoadBalancer".
	Get, Delete string
	// Resource is the IAM resource type, e.g. "network-load-balancers".
	Resource string
}

// BadChange is the error a Product's Change returns for a change it does not carry out (an
// operation its object does not have in this product, or an object of the wrong type): Diff never
// plans one, so it is a bug, never a user's mistake.
func BadChange(c model.Change) error {
	return fmt.Errorf("lb: change %s: %s of %T is not something this product does", c, c.Op, c.Object())
}
