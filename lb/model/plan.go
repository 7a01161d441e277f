// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package model

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
)

// Action is what a Change does. The set is closed: lb.Reconciler.Ensure knows how to carry out each one.
type Action int

// The actions.
const (
	ActionCreateLoadBalancer Action = iota + 1
	ActionDeleteLoadBalancer
	// ActionUpdateLoadBalancer changes the display name and freeform tags (renaming after a
	// naming-scheme switch, adding ownership tags on adoption).
	ActionUpdateLoadBalancer
	ActionUpdateShape
	ActionUpdateNetworkSecurityGroups
	ActionCreateCertificate
	ActionDeleteCertificate
	ActionCreateBackendSet
	ActionUpdateBackendSet
	ActionDeleteBackendSet
	ActionCreateListener
	ActionUpdateListener
	ActionDeleteListener
	ActionCreateRuleSet
	ActionUpdateRuleSet
	ActionDeleteRuleSet
)

var actionNames = map[Action]string{
	ActionCreateLoadBalancer:          "create load balancer",
	ActionDeleteLoadBalancer:          "delete load balancer",
	ActionUpdateLoadBalancer:          "update load balancer",
	ActionUpdateShape:                 "update shape",
	ActionUpdateNetworkSecurityGroups: "update network security groups",
	ActionCreateCertificate:           "create certificate",
	ActionDeleteCertificate:           "delete certificate",
	ActionCreateBackendSet:            "create backend set",
	ActionUpdateBackendSet:            "update backend set",
	ActionDeleteBackendSet:            "delete backend set",
	ActionCreateListener:              "create listener",
	ActionUpdateListener:              "update listener",
	ActionDeleteListener:              "delete listener",
	ActionCreateRuleSet:               "create rule set",
	ActionUpdateRuleSet:               "update rule set",
	ActionDeleteRuleSet:               "delete rule set",
}

// String returns e.g. "create listener".
func (a Action) String() string {
	if s, ok := actionNames[a]; ok {
		return s
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Symbol returns "+", "~" or "-", as a diff would show the action.
func (a Action) Symbol() string {
	switch a {
	case ActionCreateLoadBalancer, ActionCreateCertificate, ActionCreateBackendSet, ActionCreateListener, ActionCreateRuleSet:
		return "+"
	case ActionDeleteLoadBalancer, ActionDeleteCertificate, ActionDeleteBackendSet, ActionDeleteListener, ActionDeleteRuleSet:
		return "-"
	}
	return "~"
}

// Object is what the action acts on, e.g. "listener".
func (a Action) Object() string {
	switch a {
	case ActionCreateCertificate, ActionDeleteCertificate:
		return "certificate"
	case ActionCreateBackendSet, ActionUpdateBackendSet, ActionDeleteBackendSet:
		return "backend set"
	case ActionCreateListener, ActionUpdateListener, ActionDeleteListener:
		return "listener"
	case ActionCreateRuleSet, ActionUpdateRuleSet, ActionDeleteRuleSet:
		return "rule set"
	case ActionUpdateShape:
		return "shape of"
	case ActionUpdateNetworkSecurityGroups:
		return "network security groups of"
	}
	return "load balancer"
}

// Change is one step of a Plan.
//
// Before and After hold the values on each side, by action: *Spec for create/delete load
// balancer; Settings for update load balancer; Shape for update shape; []string for network
// security groups; Certificate, BackendSet, Listener or RuleSet for the rest. Before is nil for creates,
// After is nil for deletes.
type Change struct {
	Action Action
	// Name is the listener, backend set, certificate or rule set name, or the load balancer
	// display name.
	Name   string
	Before any
	After  any
	// Requires are the positions in Plan.Changes of the changes that must complete first.
	Requires []int
}

// Settings are the load balancer attributes ActionUpdateLoadBalancer changes.
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
	return fmt.Sprintf("%s %s %q", c.Action.Symbol(), c.Action.Object(), c.Name)
}

// Plan is an ordered set of changes that turns an observed load balancer into the desired one.
// Changes are in an order that satisfies every Requires edge; lb.Reconciler.Ensure runs changes whose
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
