// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/core"
	"k8s.io/apimachinery/pkg/types"
)

// This file is the migration takeover: rules with no description (the upstream OCI CCM's) that
// are exactly what a Service of this cluster needs become this cluster's (Policy.
// AdoptUndescribed), and a dry run lists the undescribed rules and what they match.

// Adopted is an undescribed rule the Manager took over: rewritten with this cluster's
// description, or dropped because a rule of ours already covers it. From then on it is removed
// with the last Service that needs it, like every rule of ours.
type Adopted struct {
	ListID string
	Rule   Rule
	// Services are the Services that need the rule, sorted as "namespace/name".
	Services []types.NamespacedName
}

// ErrNotPrimed means the Manager does not know every Service's claim yet (see Manager.Prime),
// so it cannot say which rules no Service needs.
var ErrNotPrimed = errors.New("security rules: the Manager has not been primed with the claims of every Service")

// needs returns, for one list, every single-port rule the claims need in it (before the open
// node port range and merging) with the Services that need each.
func needs(claims []Claim, subnets map[string]Subnet, p Policy, list string) map[Rule][]types.NamespacedName {
	out := map[Rule][]types.NamespacedName{}
	_ = walk(claims, subnets, p, func(l string, r Rule, _ bool, c *Claim) { // unplaceable subnets need nothing here
		if l == list && !slices.Contains(out[r], c.Service) {
			out[r] = append(out[r], c.Service)
		}
	})
	return out
}

// servicesFor returns the Services whose needs r covers: those needing r itself, or a port of
// the same direction, CIDR and protocol within r's range, sorted as "namespace/name" (the order
// reports have always had).
func servicesFor(r Rule, need map[Rule][]types.NamespacedName) []types.NamespacedName {
	var out []types.NamespacedName
	for n, services := range need {
		if n.Direction == r.Direction && n.CIDR == r.CIDR && n.Protocol == r.Protocol && r.Ports.covers(n.Ports) {
			out = append(out, services...)
		}
	}
	slices.SortFunc(out, func(a, b types.NamespacedName) int { return strings.Compare(a.String(), b.String()) })
	return slices.Compact(out)
}

// keysOf returns the rules of need as a set.
func keysOf(need map[Rule][]types.NamespacedName) RuleSet {
	s := make(RuleSet, len(need))
	for r := range need {
		s.Add(r)
	}
	return s
}

// hasUndescribed reports whether cur holds an undescribed rule in oci-ccm's form, the only kind
// adopt may take over.
func hasUndescribed(cur Current) bool {
	for _, o := range slices.Concat(cur.Ingress, cur.Egress) {
		if o.Undescribed && o.Canonical {
			return true
		}
	}
	return false
}

// UndescribedRule is a rule with no description in a security list of this cluster's Services,
// as UndescribedRules reports it.
type UndescribedRule struct {
	ListID    string
	Direction Direction
	// Index is the rule's position among the list's rules of its direction, as read.
	Index int
	// Text describes the rule as OCI holds it, e.g. "ingress 6 from 0.0.0.0/0 to port 80" or
	// "egress all to 0.0.0.0/0".
	Text string
	// Services are the Services whose needs the rule exactly matches (see Policy.
	// AdoptUndescribed): with the takeover on, it is adopted at the next write to its list.
	// Empty when it matches no Service: a rule oci-ccm will never touch — yours, or one the
	// upstream CCM left behind for a Service that is gone (remove those by hand).
	Services []types.NamespacedName
}

// String renders the rule for a report: its list, text and what it matches.
func (u UndescribedRule) String() string {
	match := "matches no Service"
	if len(u.Services) > 0 {
		match = "matches " + strings.Join(keys(u.Services), ", ")
	}
	return fmt.Sprintf("%s %s[%d]: %s: %s", u.ListID, u.Direction, u.Index, u.Text, match)
}

// UndescribedRules is the dry run of the takeover: it reads every security list the claims of
// this cluster's Services have rules in and returns each rule with no description, saying which
// Services' needs it exactly matches (those the takeover adopts) or that it matches none. It
// changes nothing, whatever Policy.AdoptUndescribed says, and needs Prime first (ErrNotPrimed):
// before, a rule may match a Service the Manager has not heard of.
func (m *Manager) UndescribedRules(ctx context.Context) ([]UndescribedRule, error) {
	m.mu.Lock()
	primed := m.mayPruneLocked()
	claims := m.snapshotLocked()
	m.mu.Unlock()
	if !primed {
		return nil, ErrNotPrimed
	}
	if _, err := m.knowSubnets(ctx, subnetsOf(claims, m.opts.Policy)); err != nil {
		return nil, err
	}
	m.mu.Lock()
	var lists []string
	for _, c := range claims {
		l, _ := ListsOf(c, m.subnets, m.opts.Policy) // a subnet without a list has no rules to report
		lists = union(lists, l)
	}
	lists = slices.DeleteFunc(lists, isNSG) // rules in NSGs are never adopted
	desired, _ := Desired(claims, m.subnets, m.opts.Policy)
	need := map[string]map[Rule][]types.NamespacedName{}
	for _, id := range lists {
		need[id] = needs(claims, m.subnets, m.opts.Policy, id)
	}
	m.mu.Unlock()
	slices.Sort(lists)

	var out []UndescribedRule
	for _, id := range lists {
		list, _, err := m.vn.GetSecurityList(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("reading security list %s: %w", id, err)
		}
		cur := adopt(observe(list, m.owner), keysOf(need[id]), desired[id])
		report := func(d Direction, obs []Observed, text func(int) string) {
			for i, o := range obs {
				if !o.Undescribed {
					continue
				}
				u := UndescribedRule{ListID: id, Direction: d, Index: i, Text: text(i)}
				if o.Adopted {
					u.Services = servicesFor(o.Rule, need[id])
				}
				out = append(out, u)
			}
		}
		report(Ingress, cur.Ingress, func(i int) string { return ingressText(list.IngressSecurityRules[i]) })
		report(Egress, cur.Egress, func(i int) string { return egressText(list.EgressSecurityRules[i]) })
	}
	return out, nil
}

// adoptedIn lists the rules u adopted with the Services that need them, for logs and OnAdopt.
func adoptedIn(u Update, need map[Rule][]types.NamespacedName) []Adopted {
	out := make([]Adopted, 0, len(u.Adopted))
	for _, r := range u.Adopted {
		out = append(out, Adopted{ListID: u.ListID, Rule: r, Services: servicesFor(r, need)})
	}
	return out
}

// servicesOf returns every Service named in adopted, sorted, for logs.
func servicesOf(adopted []Adopted) []string {
	set := map[string]bool{}
	for _, a := range adopted {
		for _, s := range a.Services {
			set[s.String()] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// keys writes services as "namespace/name", for reports.
func keys(services []types.NamespacedName) []string {
	out := make([]string, len(services))
	for i, s := range services {
		out[i] = s.String()
	}
	return out
}

func ingressText(r core.IngressSecurityRule) string {
	return ruleText(Ingress, "from", deref(r.Source), deref(r.Protocol), r.TcpOptions, r.UdpOptions, r.IsStateless)
}

func egressText(r core.EgressSecurityRule) string {
	return ruleText(Egress, "to", deref(r.Destination), deref(r.Protocol), r.TcpOptions, r.UdpOptions, r.IsStateless)
}

func ruleText(d Direction, prep, cidr, protocol string, tcp *core.TcpOptions, udp *core.UdpOptions, stateless *bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s %s", d, protocol, prep, cidr)
	var dst, src *core.PortRange
	switch {
	case tcp != nil:
		dst, src = tcp.DestinationPortRange, tcp.SourcePortRange
	case udp != nil:
		dst, src = udp.DestinationPortRange, udp.SourcePortRange
	}
	if dst != nil && dst.Min != nil && dst.Max != nil {
		fmt.Fprintf(&b, " to port %s", PortRange{Min: *dst.Min, Max: *dst.Max})
	}
	if src != nil && src.Min != nil && src.Max != nil {
		fmt.Fprintf(&b, " from port %s", PortRange{Min: *src.Min, Max: *src.Max})
	}
	if stateless != nil && *stateless {
		b.WriteString(" (stateless)")
	}
	return b.String()
}
