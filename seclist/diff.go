// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist

import (
	"fmt"
	"slices"
)

// Observed is one rule of a security list as read from OCI, reduced to what the diff needs.
// The SDK value itself stays at the edge (oci.go); the diff refers to it by position.
type Observed struct {
	// Owned is true when the rule's description marks it as this cluster's (see Owner).
	Owned bool
	// Canonical is true when an owned rule has exactly the form oci-ccm writes. An owned rule
	// that does not (someone made it stateless, added a source port range, changed the
	// protocol) cannot be trusted to mean what Rule says, so it is replaced.
	Canonical bool
	// Rule is the rule in normalised form; for a non-canonical rule, as far as it could be read.
	// Unused for rules that are neither owned nor undescribed.
	Rule Rule
	// Undescribed is true for a rule with no description: nobody's mark, which is how the
	// upstream OCI CCM wrote its rules. It is not owned unless adopted.
	Undescribed bool
	// Adopted is true for an undescribed rule taken over by this cluster (see Policy.
	// AdoptUndescribed): it counts as owned, and is rewritten with this cluster's description.
	Adopted bool
}

// adopt takes over the undescribed rules of cur that exactly match a rule the claims need, and
// returns cur with them marked Owned and Adopted. Exactly means: the rule has oci-ccm's form
// (stateful TCP, a CIDR source or destination, a destination port range, no source port range
// and no other options), and its direction, canonical CIDR and destination ports equal either a
// single-port rule some claim needs in this list (need; the form the upstream CCM wrote) or a
// rule of the desired set (desired; a merged range or the open node port range). Anything
// else — another protocol, a wider or narrower range, another CIDR — stays the user's.
func adopt(cur Current, need, desired RuleSet) Current {
	mark := func(rules []Observed) []Observed {
		out := slices.Clone(rules)
		for i, o := range out {
			if o.Undescribed && o.Canonical && (need.Has(o.Rule) || desired.Has(o.Rule)) {
				out[i].Owned, out[i].Adopted = true, true
			}
		}
		return out
	}
	cur.Ingress, cur.Egress = mark(cur.Ingress), mark(cur.Egress)
	return cur
}

// Current is a security list's rules as read, in the list's order.
type Current struct {
	ListID  string
	Ingress []Observed
	Egress  []Observed
}

// Limits caps how many rules a target may hold in each direction, and in both together.
type Limits struct {
	Ingress int
	Egress  int
	// Total caps ingress and egress rules together; zero means no such cap.
	Total int
}

// DefaultLimits are OCI's limits per security list.
var DefaultLimits = Limits{Ingress: 200, Egress: 200}

// DefaultNSGLimits are OCI's limits per network security group: 120 rules, ingress and egress
// together.
var DefaultNSGLimits = Limits{Total: 120}

// Update says how to turn a list's current rules into the desired ones. Rules not owned by this
// cluster are always kept, in place; owned rules that are still wanted are kept in place too, so
// a write changes as little of the list as it can.
type Update struct {
	ListID string
	// KeepIngress[i] and KeepEgress[i] say whether the i-th current rule stays.
	KeepIngress []bool
	KeepEgress  []bool
	// AdoptIngress[i] and AdoptEgress[i] say whether the i-th current rule, which stays, is an
	// adopted one to rewrite with this cluster's description. Nil when none is.
	AdoptIngress []bool
	AdoptEgress  []bool
	// Adopted are the undescribed rules taken over in this update, kept (with this cluster's
	// description) or removed (a duplicate, or covered by a wider rule of ours).
	Adopted []Rule
	// Add are the owned rules to append after the kept ones, in a deterministic order.
	Add []Rule
	// Remove are the owned rules dropped: no longer wanted, duplicated, or not canonical.
	Remove []Rule
	// Before and After are the owned rules before and after the update, sorted, for logs.
	Before []Rule
	After  []Rule
}

// Empty reports whether the update changes nothing, in which case nothing is written.
func (u Update) Empty() bool { return len(u.Add) == 0 && len(u.Remove) == 0 && len(u.Adopted) == 0 }

// CapacityError says an update would take a security list or network security group over its
// rule limit. Nothing is written.
type CapacityError struct {
	// ListID is the OCID of the security list or network security group.
	ListID string
	// Direction is the direction over its limit; empty when the limit is of both directions
	// together (Limits.Total: a network security group).
	Direction Direction
	// Count is how many rules of Direction the list would hold, counting rules not owned by
	// this cluster.
	Count int
	Limit int
	// Option is the configuration option that would make the rules fit, or "" when none
	// would: OptionOpenNodePortRange when node ports fill the list and that option is off.
	Option string
}

// OptionOpenNodePortRange is the configuration key that CapacityError.Option names when one rule
// for the whole node port range would replace the per-node-port rules that fill a list.
const OptionOpenNodePortRange = "loadBalancer.openNodePortRange"

func (e *CapacityError) Error() string {
	if isNSG(e.ListID) {
		msg := fmt.Sprintf("network security group %s would hold %d rules, more than OCI's limit of %d per group; nothing was written",
			e.ListID, e.Count, e.Limit)
		if e.Option != "" {
			msg += fmt.Sprintf(": node ports have a rule each; set %s: true (and loadBalancer.nodePortRange) to open the node port range with one rule per pair of NSGs", e.Option)
		}
		return msg + ": each listener port, source range and backend NSG needs rules of its own; use fewer distinct ports, loadBalancerSourceRanges or backend NSGs per Service, or spread Services over more backend NSGs (see seclist/README.md, \"NSG mode\")"
	}
	msg := fmt.Sprintf("security list %s would hold %d %s rules, more than its limit of %d; nothing was written",
		e.ListID, e.Count, e.Direction, e.Limit)
	if e.Option != "" {
		return msg + fmt.Sprintf(": node ports have a rule each; set %s: true (and loadBalancer.nodePortRange to the cluster's --service-node-port-range) to open the node port range with one rule per pair of subnets (see seclist/README.md, \"Past 200 rules\")", e.Option)
	}
	return msg + ": each listener port, source range and node port outside the open node port range needs a rule of its own; use fewer distinct ports or loadBalancerSourceRanges per subnet, or spread the load balancers over more subnets (see seclist/README.md, \"Past 200 rules\")"
}

// Diff compares a list's current rules with the owned rules it should hold, as set arithmetic on
// normalised rules: add = desired − owned, remove = owned − desired.
//
// When prune is false nothing is removed except exact duplicates: the caller does not yet know
// every Service's claim (just after a restart), so a rule missing from desired may still be
// needed by a Service it has not heard from.
func Diff(cur Current, desired RuleSet, prune bool, limits Limits) (Update, error) {
	u := Update{ListID: cur.ListID}
	kept := RuleSet{}
	before := RuleSet{}
	keep := func(rules []Observed) (keep, adopted []bool) {
		keep = make([]bool, len(rules))
		for i, o := range rules {
			if !o.Owned {
				keep[i] = true
				continue
			}
			if o.Adopted {
				u.Adopted = append(u.Adopted, o.Rule)
			} else {
				before.Add(o.Rule)
			}
			switch {
			case kept.Has(o.Rule) && o.Canonical:
				u.Remove = append(u.Remove, o.Rule) // a duplicate never adds anything
			case !o.Canonical && prune:
				u.Remove = append(u.Remove, o.Rule)
			case !o.Canonical:
				keep[i] = true
			case desired.Has(o.Rule) || !prune:
				keep[i] = true
				kept.Add(o.Rule)
			default:
				u.Remove = append(u.Remove, o.Rule)
			}
			if keep[i] && o.Adopted {
				if adopted == nil {
					adopted = make([]bool, len(rules))
				}
				adopted[i] = true
			}
		}
		return keep, adopted
	}
	u.KeepIngress, u.AdoptIngress = keep(cur.Ingress)
	u.KeepEgress, u.AdoptEgress = keep(cur.Egress)

	for _, r := range desired.Sorted() {
		if !kept.Has(r) {
			u.Add = append(u.Add, r)
		}
	}
	slices.SortFunc(u.Remove, compareRules)
	slices.SortFunc(u.Adopted, compareRules)
	u.Before = before.Sorted()
	after := RuleSet{}
	for r := range kept {
		after.Add(r)
	}
	for _, r := range u.Add {
		after.Add(r)
	}
	u.After = after.Sorted()
	if u.Empty() {
		return u, nil
	}

	for _, c := range []struct {
		d     Direction
		keep  []bool
		limit int
	}{{Ingress, u.KeepIngress, limits.Ingress}, {Egress, u.KeepEgress, limits.Egress}} {
		n := countTrue(c.keep)
		for _, r := range u.Add {
			if r.Direction == c.d {
				n++
			}
		}
		if c.limit > 0 && n > c.limit {
			return Update{}, &CapacityError{ListID: cur.ListID, Direction: c.d, Count: n, Limit: c.limit}
		}
	}
	if n := countTrue(u.KeepIngress) + countTrue(u.KeepEgress) + len(u.Add); limits.Total > 0 && n > limits.Total {
		return Update{}, &CapacityError{ListID: cur.ListID, Count: n, Limit: limits.Total}
	}
	return u, nil
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
