// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package oci

import (
	"maps"

	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Lifecycle is a load balancer's lifecycle state, the same for both products.
type Lifecycle int

// The states; LifecycleOther is anything OCI may add.
const (
	LifecycleOther Lifecycle = iota
	LifecycleCreating
	LifecycleActive
	LifecycleUpdating
	LifecycleFailed
	LifecycleDeleting
	LifecycleDeleted
)

// LifecycleOf reads the lifecycle state both APIs report, by its name: the Load Balancer API's
// LoadBalancerLifecycleStateEnum and the Network Load Balancer API's LifecycleStateEnum spell
// their states alike (CREATING, ACTIVE, UPDATING, FAILED, DELETING, DELETED). A name it does not
// know is LifecycleOther.
func LifecycleOf(state string) Lifecycle {
	switch state {
	case "CREATING":
		return LifecycleCreating
	case "ACTIVE":
		return LifecycleActive
	case "UPDATING":
		return LifecycleUpdating
	case "FAILED":
		return LifecycleFailed
	case "DELETING":
		return LifecycleDeleting
	case "DELETED":
		return LifecycleDeleted
	}
	return LifecycleOther
}

// Found is a load balancer of either product as OCI reports it.
type Found struct {
	Kind          model.Kind
	ID            string
	Name          string
	CompartmentID string
	State         Lifecycle
	// StateName is OCI's word for State, for errors and logs.
	StateName    string
	FreeformTags map[string]string
	// Internal means private addresses only.
	Internal bool
	// Addresses are the load balancer's IP addresses.
	Addresses []Address
	// Observe reads the SDK value the product made this Found from into a Spec, on demand
	// (Spec): most reads need only the fields above. Nil in a Found made by hand.
	Observe func() *model.Spec
}

// Address is one IP address of a load balancer.
type Address struct {
	IP     string
	Public bool
}

// Gone reports whether OCI shows the load balancer deleted or being deleted.
func (f *Found) Gone() bool { return f.State == LifecycleDeleting || f.State == LifecycleDeleted }

// Spec observes the load balancer into a Spec. Without Observe it has the fields Found has.
func (f *Found) Spec() *model.Spec {
	if f.Observe != nil {
		return f.Observe()
	}
	return &model.Spec{Kind: f.Kind, ID: f.ID, Name: f.Name, CompartmentID: f.CompartmentID, FreeformTags: maps.Clone(f.FreeformTags)}
}
