// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package model

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// Op is what a Change does to its object: create, update or delete it.
type Op int

// The operations.
const (
	OpCreate Op = iota + 1
	OpUpdate
	OpDelete
)

// String returns "create", "update" or "delete".
func (o Op) String() string {
	switch o {
	case OpCreate:
		return "create"
	case OpUpdate:
		return "update"
	case OpDelete:
		return "delete"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Symbol returns "+", "~" or "-", as a diff shows the operation.
func (o Op) Symbol() string {
	switch o {
	case OpCreate:
		return "+"
	case OpDelete:
		return "-"
	}
	return "~"
}

// Object is one of the closed set of things a Plan changes: the load balancer itself (*Spec,
// created or deleted whole), its Settings, Shape and NSGs (updated only), and its named parts,
// Certificate, BackendSet, Listener and RuleSet. Only this package's types implement it, so an
// executor or a printer that handles each of them handles every change a Plan can hold.
type Object interface {
	// noun names the kind of object in a printed plan, e.g. "listener".
	noun() string
}

func (*Spec) noun() string       { return "load balancer" }
func (Settings) noun() string    { return "load balancer" }
func (Shape) noun() string       { return "shape of" }
func (NSGs) noun() string        { return "network security groups of" }
func (Certificate) noun() string { return "certificate" }
func (BackendSet) noun() string  { return "backend set" }
func (Listener) noun() string    { return "listener" }
func (RuleSet) noun() string     { return "rule set" }

// NSGs are the OCIDs of the network security groups a load balancer is in: the Object of a
// change of Spec.NetworkSecurityGroups.
type NSGs []string

// Change is one step of a Plan: Op applied to an Object. Before is the object as it is (nil for
// a create) and After as it will be (nil for a delete); both hold the same type.
type Change struct {
	Op Op
	// Name is the listener, backend set, certificate or rule set name, or the load balancer
	// display name.
	Name   string
	Before Object
	After  Object
	// Requires are the positions in Plan.Changes of the changes that must complete first.
	Requires []int
}

// Object returns what the change acts on: After, or Before for a delete.
func (c Change) Object() Object {
	if c.After != nil {
		return c.After
	}
	return c.Before
}

// Noun names the kind of object the change acts on, e.g. "backend set".
func (c Change) Noun() string {
	if o := c.Object(); o != nil {
		return o.noun()
	}
	return "nothing"
}

// Verb returns e.g. "create listener" or "update shape", for logs and errors.
func (c Change) Verb() string { return c.Op.String() + " " + strings.TrimSuffix(c.Noun(), " of") }

// Settings are the load balancer attributes an update of the load balancer changes.
type Settings struct {
	Name         string
	FreeformTags map[string]string
	// IPFamilies are a network load balancer's IP families (its IP version), set on both sides
	// when they change: a Service moving between SingleStack and dual stack. nil for a load
	// balancer, and when they stay.
	IPFamilies []v1.IPFamily
}

// String returns e.g. `+ listener "TCP-80"`.
func (c Change) String() string {
	return fmt.Sprintf("%s %s %q", c.Op.Symbol(), c.Noun(), c.Name)
}

// Plan is an ordered set of changes that turns an observed load balancer into the desired one.
// Changes are in an order that satisfies every Requires edge; engine.Reconciler.Ensure runs changes whose
// requirements are met concurrently.
type Plan struct {
	// LoadBalancerID is empty when the plan creates the load balancer.
	LoadBalancerID string
	// Name is the load balancer's display name.
	Name    string
	Changes []Change
	// Target is the load balancer as it will be once the plan is applied: the desired Spec with
	// defaulted fields taken from the existing load balancer. Security rules are computed from it.
	Target *Spec
}

// Empty reports whether there is nothing to do.
func (p *Plan) Empty() bool { return p == nil || len(p.Changes) == 0 }
