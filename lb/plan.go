// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"cmp"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/model"
)

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
//     deleted;
//   - a listener is created or updated after the rule sets it names are created or updated, and
//     a rule set is deleted after every listener that named it is updated or deleted;
//   - unless an NSG is attached (below), the settings update comes after the rule-set
//     deletions, since it stops recording the deleted rule sets as oci-ccm's: were a deletion
//     to fail, the next reconcile must still know to retry it (recordedRuleSets);
//   - when the NSG update attaches a group, every change but the settings update (which records
//     the groups oci-ccm attached first) comes after it: OCI refuses a group the policy does not
//     let the CCM use (400 RelatedResourceNotAuthorizedOrNotFound), and no read can prove that
//     grant before, so the refusal must come before the plan changes anything a user sees.
//
// Ties are broken by a fixed phase order and then by name, so a plan prints the same every time.
// It returns an error only if the rules form a cycle, which the rules above cannot.
func order(changes []model.Change, observed *model.Spec) ([]model.Change, error) {
	cs := slices.Clone(changes)
	slices.SortStableFunc(cs, func(a, b model.Change) int {
		return cmp.Or(cmp.Compare(phase(a.Action), phase(b.Action)), cmp.Compare(a.Name, b.Name))
	})
	find := func(a model.Action, name string) int {
		for i, c := range cs {
			if c.Action == a && c.Name == name {
				return i
			}
		}
		return -1
	}
	// touched returns the change that updates or deletes the named listener or backend set.
	touched := func(update, del model.Action, name string) int {
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
	var obs model.Spec
	if observed != nil {
		obs = *observed
	}
	// A network load balancer serves a listener or backend set of a family only while its IP
	// version includes it: one of a family being added waits for the version change, and the
	// version change that drops a family waits for that family's deletions.
	famChange := -1
	var famAfter []v1.IPFamily
	for j, c := range cs {
		if after, ok := c.After.(model.Settings); ok && c.Action == model.ActionUpdateLoadBalancer && after.IPFamilies != nil {
			famChange, famAfter = j, after.IPFamilies
		}
	}
	for i, c := range cs {
		if famChange < 0 {
			break
		}
		switch c.Action {
		case model.ActionCreateListener, model.ActionCreateBackendSet:
			l, _ := c.After.(model.Listener)
			b, _ := c.After.(model.BackendSet)
			if !serves(obs.IPFamilies, familyOf(l.IPv6 || b.IPv6)) {
				need(i, famChange)
			}
		case model.ActionUpdateLoadBalancer:
			for _, o := range sortedValues(obs.Listeners) {
				if !serves(famAfter, familyOf(o.IPv6)) {
					need(i, find(model.ActionDeleteListener, o.Name))
				}
			}
			for _, o := range sortedValues(obs.BackendSets) {
				if !serves(famAfter, familyOf(o.IPv6)) {
					need(i, find(model.ActionDeleteBackendSet, o.Name))
				}
			}
		}
	}
	if u := slices.IndexFunc(cs, attachesNSG); u >= 0 {
		for i, c := range cs {
			if c.Action != model.ActionUpdateLoadBalancer {
				need(i, u)
			}
		}
	}
	for i, c := range cs {
		switch c.Action {
		case model.ActionCreateListener, model.ActionUpdateListener:
			l, _ := c.After.(model.Listener)
			need(i, find(model.ActionCreateBackendSet, l.BackendSet))
			if l.TLS != nil {
				need(i, find(model.ActionCreateCertificate, l.TLS.Certificate))
			}
			for _, rs := range l.Routing.RuleSets {
				need(i, find(model.ActionCreateRuleSet, rs))
				need(i, find(model.ActionUpdateRuleSet, rs))
			}
			for _, o := range sortedValues(obs.Listeners) {
				if o.Port == l.Port && o.Name != l.Name {
					need(i, find(model.ActionDeleteListener, o.Name))
				}
			}
		case model.ActionUpdateLoadBalancer:
			if slices.IndexFunc(cs, attachesNSG) >= 0 {
				break
			}
			for _, o := range sortedValues(obs.RuleSets) {
				need(i, find(model.ActionDeleteRuleSet, o.Name))
			}
		case model.ActionDeleteRuleSet:
			for _, o := range sortedValues(obs.Listeners) {
				if slices.Contains(o.Routing.RuleSets, c.Name) {
					need(i, touched(model.ActionUpdateListener, model.ActionDeleteListener, o.Name))
				}
			}
		case model.ActionCreateBackendSet, model.ActionUpdateBackendSet:
			if b, _ := c.After.(model.BackendSet); b.TLS != nil {
				need(i, find(model.ActionCreateCertificate, b.TLS.Certificate))
			}
		case model.ActionDeleteBackendSet:
			for _, o := range sortedValues(obs.Listeners) {
				if o.BackendSet == c.Name {
					need(i, touched(model.ActionUpdateListener, model.ActionDeleteListener, o.Name))
				}
			}
		case model.ActionDeleteCertificate:
			for _, o := range sortedValues(obs.Listeners) {
				if o.TLS != nil && o.TLS.Certificate == c.Name {
					need(i, touched(model.ActionUpdateListener, model.ActionDeleteListener, o.Name))
				}
			}
			for _, o := range sortedValues(obs.BackendSets) {
				if o.TLS != nil && o.TLS.Certificate == c.Name {
					need(i, touched(model.ActionUpdateBackendSet, model.ActionDeleteBackendSet, o.Name))
				}
			}
		}
	}
	return topoSort(cs, deps)
}

// attachesNSG reports whether c is an NSG update that adds a group the load balancer is not in.
func attachesNSG(c model.Change) bool {
	before, _ := c.Before.([]string)
	after, _ := c.After.([]string)
	return c.Action == model.ActionUpdateNetworkSecurityGroups &&
		slices.ContainsFunc(after, func(id string) bool { return !slices.Contains(before, id) })
}

// phase is the tie-break order: what is usually needed first comes first, and deletions come
// after the additions they make way for, so a port change opens the new listener before closing
// the old one. Where a deletion must come first (a protocol change reuses the port), order adds
// the dependency explicitly.
func phase(a model.Action) int {
	return slices.Index([]model.Action{
		model.ActionCreateLoadBalancer, model.ActionUpdateLoadBalancer, model.ActionUpdateShape, model.ActionUpdateNetworkSecurityGroups,
		model.ActionCreateCertificate, model.ActionCreateRuleSet, model.ActionUpdateRuleSet, model.ActionCreateBackendSet, model.ActionUpdateBackendSet,
		model.ActionCreateListener, model.ActionUpdateListener, model.ActionDeleteListener, model.ActionDeleteRuleSet, model.ActionDeleteBackendSet, model.ActionDeleteCertificate,
		model.ActionDeleteLoadBalancer,
	}, a)
}

// topoSort orders cs so every change comes after its deps (Kahn's algorithm, always taking the
// lowest-numbered ready change) and rewrites the deps as Requires positions in the result.
func topoSort(cs []model.Change, deps [][]int) ([]model.Change, error) {
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
	out := make([]model.Change, 0, n)
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
