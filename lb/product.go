// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"context"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// A Service's load balancer is one of two OCI products: a Load Balancer (KindLoadBalancer) or a
// Network Load Balancer (KindNetworkLoadBalancer). They share everything above the API: one
// Spec, one Diff and ordering, one Reconciler with one name index, one absence rule and one
// applier. What differs is behind product: how a load balancer is read, listed, created and
// changed, and how its SDK values become a found (lbProduct in sdk.go, nlbProduct in sdk_nlb.go).

// product is what the Reconciler needs from one OCI load-balancing service.
type product interface {
	// kind is the product's Kind.
	kind() model.Kind
	// get reads one load balancer; OCI's errors are returned as they are (see ociclient's
	// error kinds), so a 404 is decided by the caller (absence.go).
	get(ctx context.Context, id string) (*found, error)
	// list returns a compartment's load balancers, all pages; displayName filters by exact name
	// when not empty.
	list(ctx context.Context, compartmentID, displayName string) ([]found, error)
	// create starts creating spec with one call carrying every part, and returns the work
	// request and, when OCI says at once, the new load balancer's OCID.
	create(ctx context.Context, spec *model.Spec, reservedIPID, retryToken string) (workRequestID, id string, err error)
	// awaitCreate waits for a create's work request and returns the OCID of the new load
	// balancer ("" when OCI did not say); id is what create returned.
	awaitCreate(ctx context.Context, workRequestID, id string) (string, error)
	// change starts one change of a plan on load balancer id and returns its work request.
	change(ctx context.Context, id string, c model.Change) (workRequestID string, err error)
	// wait waits for a work request of this product.
	wait(ctx context.Context, workRequestID string) error
	// words names the product's operations and IAM resource type in errors.
	words() productWords
}

// productWords are the names errors use for one product.
type productWords struct {
	// noun is what users call it, e.g. "network load balancer".
	noun string
	// get and delete are the OCI operations, e.g. "GetNetworkLoadBalancer".
	get, delete string
	// resource is the IAM resource type, e.g. "network-load-balancers".
	resource string
}

// lifecycle is a load balancer's lifecycle state, the same for both products.
type lifecycle int

// The states; lifecycleOther is anything OCI may add.
const (
	lifecycleOther lifecycle = iota
	lifecycleCreating
	lifecycleActive
	lifecycleUpdating
	lifecycleFailed
	lifecycleDeleting
	lifecycleDeleted
)

// found is a load balancer of either product as OCI reports it.
type found struct {
	Kind          model.Kind
	ID            string
	Name          string
	CompartmentID string
	State         lifecycle
	// StateName is OCI's word for State, for errors and logs.
	StateName    string
	FreeformTags map[string]string
	// Internal means private addresses only.
	Internal bool
	// Addresses are the load balancer's IP addresses.
	Addresses []address
	// raw is the SDK value, observed into a Spec on demand (observeFound).
	raw any
}

// address is one IP address of a load balancer.
type address struct {
	IP     string
	Public bool
}

// gone reports whether OCI shows the load balancer deleted or being deleted.
func (f *found) gone() bool { return f.State == lifecycleDeleting || f.State == lifecycleDeleted }

// spec observes the load balancer into a Spec.
func (f *found) spec() *model.Spec { return observeFound(f) }

// externalIPOnly reports whether svc asks a network load balancer to report only its public
// addresses (annotation.NLBExternalIPOnly).
func externalIPOnly(svc *v1.Service) bool {
	v, err := annotationBool(annotation.NLBExternalIPOnly, svc.Annotations)
	return err == nil && v
}
