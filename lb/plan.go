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
		return cmp.Or(cmp.Compare(phase(a), phase(b)), cmp.Compare(a.Name, b.Name))
	})
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
		if after, ok := c.After.(model.Settings); ok && after.IPFamilies != nil {
			famChange, famAfter = j, after.IPFamilies
		}
	}
	for i, c := range cs {
		if famChange < 0 {
			break
		}
		switch after := c.After.(type) {
		case model.Listener:
			if c.Op == model.OpCreate && !serves(obs.IPFamilies, familyOf(after.IPv6)) {
				need(i, famChange)
			}
		case model.BackendSet:
			if c.Op == model.OpCreate && !serves(obs.IPFamilies, familyOf(after.IPv6)) {
				need(i, famChange)
			}
		case model.Settings:
			for _, o := range sortedValues(obs.Listeners) {
				if !serves(famAfter, familyOf(o.IPv6)) {
					need(i, find[model.Listener](cs, model.OpDelete, o.Name))
				}
			}
			for _, o := range sortedValues(obs.BackendSets) {
				if !serves(famAfter, familyOf(o.IPv6)) {
					need(i, find[model.BackendSet](cs, model.OpDelete, o.Name))
				}
			}
		}
	}
	if u := slices.IndexFunc(cs, attachesNSG); u >= 0 {
		for i, c := range cs {
			if _, settings := c.Object().(model.Settings); !settings {
				need(i, u)
			}
		}
	}
	for i, c := range cs {
		switch o := c.Object().(type) {
		case model.Listener:
			if c.Op == model.OpDelete {
				break
			}
			need(i, find[model.BackendSet](cs, model.OpCreate, o.BackendSet))
			if o.TLS != nil {
				need(i, find[model.Certificate](cs, model.OpCreate, o.TLS.Certificate))
			}
			for _, rs := range o.Routing.RuleSets {
				need(i, find[model.RuleSet](cs, model.OpCreate, rs))
				need(i, find[model.RuleSet](cs, model.OpUpdate, rs))
			}
			for _, ol := range sortedValues(obs.Listeners) {
				if ol.Port == o.Port && ol.Name != o.Name {
					need(i, find[model.Listener](cs, model.OpDelete, ol.Name))
				}
			}
		case model.Settings:
			if slices.IndexFunc(cs, attachesNSG) >= 0 {
				break
			}
			for _, rs := range sortedValues(obs.RuleSets) {
				need(i, find[model.RuleSet](cs, model.OpDelete, rs.Name))
			}
		case model.RuleSet:
			if c.Op != model.OpDelete {
				break
			}
			for _, ol := range sortedValues(obs.Listeners) {
				if slices.Contains(ol.Routing.RuleSets, c.Name) {
					need(i, touched[model.Listener](cs, ol.Name))
				}
			}
		case model.BackendSet:
			if c.Op != model.OpDelete {
				if o.TLS != nil {
					need(i, find[model.Certificate](cs, model.OpCreate, o.TLS.Certificate))
				}
				break
			}
			for _, ol := range sortedValues(obs.Listeners) {
				if ol.BackendSet == c.Name {
					need(i, touched[model.Listener](cs, ol.Name))
				}
			}
		case model.Certificate:
			if c.Op != model.OpDelete {
				break
			}
			for _, ol := range sortedValues(obs.Listeners) {
				if ol.TLS != nil && ol.TLS.Certificate == c.Name {
					need(i, touched[model.Listener](cs, ol.Name))
				}
			}
			for _, ob := range sortedValues(obs.BackendSets) {
				if ob.TLS != nil && ob.TLS.Certificate == c.Name {
					need(i, touched[model.BackendSet](cs, ob.Name))
				}
			}
		}
	}
	return topoSort(cs, deps)
}

// find returns the position in cs of the change that applies op to the object of type T named
// name, or -1.
func find[T model.Object](cs []model.Change, op model.Op, name string) int {
	return slices.IndexFunc(cs, func(c model.Change) bool {
		_, ok := c.Object().(T)
		return ok && c.Op == op && c.Name == name
	})
}

// touched returns the change that updates or deletes the named listener or backend set.
func touched[T model.Object](cs []model.Change, name string) int {
	if i := find[T](cs, model.OpUpdate, name); i >= 0 {
		return i
	}
	return find[T](cs, model.OpDelete, name)
}

// attachesNSG reports whether c is an NSG update that adds a group the load balancer is not in.
func attachesNSG(c model.Change) bool {
	before, _ := c.Before.(model.NSGs)
	after, ok := c.After.(model.NSGs)
	return ok && slices.ContainsFunc(after, func(id string) bool { return !slices.Contains(before, id) })
}

// phase is the tie-break order: what is usually needed first comes first, and deletions come
// after the additions they make way for, so a port change opens the new listener before closing
// the old one. Where a deletion must come first (a protocol change reuses the port), order adds
// the dependency explicitly.
func phase(c model.Change) int {
	// byOp gives the phases of a create, an update and a delete of one kind of object.
	byOp := func(create, update, del int) int {
		switch c.Op {
		case model.OpCreate:
			return create
		case model.OpDelete:
			return del
		}
		return update
	}
	switch c.Object().(type) {
	case *model.Spec:
		return byOp(0, 0, 15)
	case model.Settings:
		return 1
	case model.Shape:
		return 2
	case model.NSGs:
		return 3
	case model.Certificate:
		return byOp(4, 4, 14)
	case model.RuleSet:
		return byOp(5, 6, 12)
	case model.BackendSet:
		return byOp(7, 8, 13)
	case model.Listener:
		return byOp(9, 10, 11)
	}
	return 16
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
