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
