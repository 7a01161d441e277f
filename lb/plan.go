// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"cmp"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
)

// Action is what a Change does. The set is closed: Reconciler.Ensure knows how to carry out each one.
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
	case ActionCreateLoadBalancer, ActionCreateCertificate, ActionCreateBackendSet, ActionCreateListener:
		return "+"
	case ActionDeleteLoadBalancer, ActionDeleteCertificate, ActionDeleteBackendSet, ActionDeleteListener:
		return "-"
	}
	return "~"
}

// object is what the action acts on, e.g. "listener".
func (a Action) object() string {
	switch a {
	case ActionCreateCertificate, ActionDeleteCertificate:
		return "certificate"
	case ActionCreateBackendSet, ActionUpdateBackendSet, ActionDeleteBackendSet:
		return "backend set"
	case ActionCreateListener, ActionUpdateListener, ActionDeleteListener:
		return "listener"
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
// security groups; Certificate, BackendSet or Listener for the rest. Before is nil for creates,
// After is nil for deletes.
type Change struct {
	Action Action
	// Name is the listener, backend set or certificate name, or the load balancer display name.
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
	return fmt.Sprintf("%s %s %q", c.Action.Symbol(), c.Action.object(), c.Name)
}

// Plan is an ordered set of changes that turns an observed load balancer into the desired one.
// Changes are in an order that satisfies every Requires edge; Ensure runs changes whose
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

// order sorts changes into a dependency-respecting order and fills in their Requires.
//
// The rules, each preventing a state OCI rejects or a dangling reference:
//   - a listener is created or updated after the backend set it points at is created, and after
//     the certificate it presents is created;
//   - a backend set is created or updated after the certificate it uses is created;
//   - a listener is created or updated after any other listener on the same port is deleted
//     (a protocol change renames TCP-80 to HTTP-80 on the same port);
//   - a backend set is deleted after every listener that pointed at it is updated or deleted;
//   - a certificate is deleted after every listener and backend set that used it is updated or
//     deleted.
//
// Ties are broken by a fixed phase order and then by name, so a plan prints the same every time.
// It returns an error only if the rules form a cycle, which the rules above cannot.
func order(changes []Change, observed *Spec) ([]Change, error) {
	cs := slices.Clone(changes)
	slices.SortStableFunc(cs, func(a, b Change) int {
		return cmp.Or(cmp.Compare(phase(a.Action), phase(b.Action)), cmp.Compare(a.Name, b.Name))
	})
	find := func(a Action, name string) int {
		for i, c := range cs {
			if c.Action == a && c.Name == name {
				return i
			}
		}
		return -1
	}
	// touched returns the change that updates or deletes the named listener or backend set.
	touched := func(update, del Action, name string) int {
		if i := find(update, name); i >= 0 {
			return i
		}
		return find(del, name)
	}
	deps := make([][]int, len(cs))
	need := func(i, j int) {
		if j >= 0 && j != i && !slices.Contains(deps[i], j) {
			deps[i] = append(deps[i], j)
		}
	}
	var obs Spec
	if observed != nil {
		obs = *observed
	}
	// A network load balancer serves a listener or backend set of a family only while its IP
	// version includes it: one of a family being added waits for the version change, and the
	// version change that drops a family waits for that family's deletions.
	famChange := -1
	var famAfter []v1.IPFamily
	for j, c := range cs {
		if after, ok := c.After.(Settings); ok && c.Action == ActionUpdateLoadBalancer && after.IPFamilies != nil {
			famChange, famAfter = j, after.IPFamilies
		}
	}
	for i, c := range cs {
		if famChange < 0 {
			break
		}
		switch c.Action {
		case ActionCreateListener, ActionCreateBackendSet:
			l, _ := c.After.(Listener)
			b, _ := c.After.(BackendSet)
			if !serves(obs.IPFamilies, familyOf(l.IPv6 || b.IPv6)) {
				need(i, famChange)
			}
		case ActionUpdateLoadBalancer:
			for _, o := range sortedValues(obs.Listeners) {
				if !serves(famAfter, familyOf(o.IPv6)) {
					need(i, find(ActionDeleteListener, o.Name))
				}
			}
			for _, o := range sortedValues(obs.BackendSets) {
				if !serves(famAfter, familyOf(o.IPv6)) {
					need(i, find(ActionDeleteBackendSet, o.Name))
				}
			}
		}
	}
	for i, c := range cs {
		switch c.Action {
		case ActionCreateListener, ActionUpdateListener:
			l, _ := c.After.(Listener)
			need(i, find(ActionCreateBackendSet, l.BackendSet))
			if l.TLS != nil {
				need(i, find(ActionCreateCertificate, l.TLS.Certificate))
			}
			for _, o := range sortedValues(obs.Listeners) {
				if o.Port == l.Port && o.Name != l.Name {
					need(i, find(ActionDeleteListener, o.Name))
				}
			}
		case ActionCreateBackendSet, ActionUpdateBackendSet:
			if b, _ := c.After.(BackendSet); b.TLS != nil {
				need(i, find(ActionCreateCertificate, b.TLS.Certificate))
			}
		case ActionDeleteBackendSet:
			for _, o := range sortedValues(obs.Listeners) {
				if o.BackendSet == c.Name {
					need(i, touched(ActionUpdateListener, ActionDeleteListener, o.Name))
				}
			}
		case ActionDeleteCertificate:
			for _, o := range sortedValues(obs.Listeners) {
				if o.TLS != nil && o.TLS.Certificate == c.Name {
					need(i, touched(ActionUpdateListener, ActionDeleteListener, o.Name))
				}
			}
			for _, o := range sortedValues(obs.BackendSets) {
				if o.TLS != nil && o.TLS.Certificate == c.Name {
					need(i, touched(ActionUpdateBackendSet, ActionDeleteBackendSet, o.Name))
				}
			}
		}
	}
	return topoSort(cs, deps)
}

// phase is the tie-break order: what is usually needed first comes first, and deletions come
// after the additions they make way for, so a port change opens the new listener before closing
// the old one. Where a deletion must come first (a protocol change reuses the port), order adds
// the dependency explicitly.
func phase(a Action) int {
	return slices.Index([]Action{
		ActionCreateLoadBalancer, ActionUpdateLoadBalancer, ActionUpdateShape, ActionUpdateNetworkSecurityGroups,
		ActionCreateCertificate, ActionCreateBackendSet, ActionUpdateBackendSet,
		ActionCreateListener, ActionUpdateListener, ActionDeleteListener, ActionDeleteBackendSet, ActionDeleteCertificate,
		ActionDeleteLoadBalancer,
	}, a)
}

// topoSort orders cs so every change comes after its deps (Kahn's algorithm, always taking the
// lowest-numbered ready change) and rewrites the deps as Requires positions in the result.
func topoSort(cs []Change, deps [][]int) ([]Change, error) {
	n := len(cs)
	indegree := make([]int, n)
	dependents := make([][]int, n)
	for i, ds := range deps {
		indegree[i] = len(ds)
		for _, d := range ds {
			dependents[d] = append(dependents[d], i)
		}
	}
	pos := make([]int, n)
	done := make([]bool, n)
	out := make([]Change, 0, n)
	for len(out) < n {
		next := -1
		for i := range n {
			if !done[i] && indegree[i] == 0 {
				next = i
				break
			}
		}
		if next < 0 {
			return nil, fmt.Errorf("lb: plan has a dependency cycle among %d changes", n-len(out))
		}
		done[next] = true
		pos[next] = len(out)
		out = append(out, cs[next])
		for _, d := range dependents[next] {
			indegree[d]--
		}
	}
	for i := range cs {
		var req []int
		for _, d := range deps[i] {
			req = append(req, pos[d])
		}
		slices.Sort(req)
		out[pos[i]].Requires = req
	}
	return out, nil
}

// sortedValues returns a map's values ordered by key, for deterministic iteration.
func sortedValues[V any](m map[string]V) []V {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]V, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}
