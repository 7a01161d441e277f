// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// rule is one security rule, as the demo shows it.
type rule struct {
	List      string    // the security list's name in the tenancy
	Direction string    // ingress or egress
	Peer      string    // "from <source CIDR>" or "to <destination CIDR>"
	Protocol  string    // "tcp", "udp", or OCI's protocol number
	Ports     portRange // destination ports
}

// portRange is a rule's destination ports; the zero value is all ports.
type portRange struct{ Min, Max int }

// String returns "80", "30080-30082" or "all".
func (p portRange) String() string {
	switch {
	case p == portRange{}:
		return "all"
	case p.Min == p.Max:
		return fmt.Sprint(p.Min)
	}
	return fmt.Sprintf("%d-%d", p.Min, p.Max)
}

// overlaps reports whether p and q share a port.
func (p portRange) overlaps(q portRange) bool {
	if p == (portRange{}) || q == (portRange{}) {
		return true
	}
	return p.Min <= q.Max && q.Min <= p.Max
}

// ownedRules reads every seeded security list and returns the rules this cluster wrote (their
// description is seclist.Owner).
func ownedRules(srv *ocitest.Server, seeded ocitest.Seeded) []rule {
	owner := seclist.Owner(clusterName)
	var out []rule
	for _, name := range slices.Sorted(maps.Keys(seeded.SecurityLists)) {
		list, ok := srv.SecurityList(seeded.SecurityLists[name])
		if !ok {
			continue
		}
		for _, r := range list.IngressSecurityRules {
			if deref(r.Description) == owner {
				out = append(out, rule{name, "ingress", "from " + deref(r.Source), protocolName(r.Protocol), destinationPorts(r.TcpOptions, r.UdpOptions)})
			}
		}
		for _, r := range list.EgressSecurityRules {
			if deref(r.Description) == owner {
				out = append(out, rule{name, "egress", "to " + deref(r.Destination), protocolName(r.Protocol), destinationPorts(r.TcpOptions, r.UdpOptions)})
			}
		}
	}
	return out
}

// ruleChanges returns what changed between two readings of the rules, as table rows: sign, list,
// direction, peer, ports. A rule whose ports were narrowed, widened or split (the same list,
// direction, peer and protocol, overlapping ports) is one "~" row, "tcp 30080-30083 → 30080-30082",
// as a reader thinks of it, though the provider writes a list as a whole. The rest are "+" (added)
// and "-" (removed) rows, one per list, direction and peer with the ports together:
// "+ lb-1 egress to 10.0.10.0/24 tcp 10256, 30080". Rows are in list order, ingress first.
func ruleChanges(before, after []rule) [][]string {
	// where is the part of a rule that a change of ports keeps.
	type where struct{ list, direction, peer, protocol string }
	added, removed := map[where][]portRange{}, map[where][]portRange{}
	for _, r := range after {
		if !slices.Contains(before, r) {
			w := where{r.List, r.Direction, r.Peer, r.Protocol}
			added[w] = append(added[w], r.Ports)
		}
	}
	for _, r := range before {
		if !slices.Contains(after, r) {
			w := where{r.List, r.Direction, r.Peer, r.Protocol}
			removed[w] = append(removed[w], r.Ports)
		}
	}
	places := slices.Collect(maps.Keys(added))
	for w := range removed {
		if _, ok := added[w]; !ok {
			places = append(places, w)
		}
	}
	slices.SortFunc(places, func(a, b where) int {
		return cmp.Or(cmp.Compare(a.list, b.list), cmp.Compare(directionOrder(a.direction), directionOrder(b.direction)),
			cmp.Compare(a.peer, b.peer), cmp.Compare(a.protocol, b.protocol))
	})
	var rows [][]string
	for _, w := range places {
		row := func(sign, ports string) []string {
			return []string{sign, w.list, w.direction, w.peer, w.protocol + " " + ports}
		}
		changed, plus, minus := pairRanges(removed[w], added[w])
		for _, c := range changed {
			rows = append(rows, row("~", joinRanges(c.before)+" → "+joinRanges(c.after)))
		}
		if len(plus) > 0 {
			rows = append(rows, row("+", joinRanges(plus)))
		}
		if len(minus) > 0 {
			rows = append(rows, row("-", joinRanges(minus)))
		}
	}
	return rows
}

// rangeChange is a set of removed port ranges replaced by added ones that overlap them.
type rangeChange struct{ before, after []portRange }

// pairRanges groups removed and added port ranges of one place into changes: each group of ranges
// connected by overlaps that holds ranges from both sides is one change (a narrowing, a widening,
// a split or a merge). What overlaps nothing on the other side is returned as plus and minus.
func pairRanges(removed, added []portRange) (changed []rangeChange, plus, minus []portRange) {
	// Union-find over removed (0..len(removed)-1) then added.
	parent := make([]int, len(removed)+len(added))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	for i, r := range removed {
		for j, a := range added {
			if r.overlaps(a) {
				parent[find(len(removed)+j)] = find(i)
			}
		}
	}
	groups := map[int]*rangeChange{}
	var order []int
	at := func(i int) *rangeChange {
		root := find(i)
		if groups[root] == nil {
			groups[root] = &rangeChange{}
			order = append(order, root)
		}
		return groups[root]
	}
	for i, r := range removed {
		g := at(i)
		g.before = append(g.before, r)
	}
	for j, a := range added {
		g := at(len(removed) + j)
		g.after = append(g.after, a)
	}
	for _, root := range order {
		g := groups[root]
		switch {
		case len(g.before) == 0:
			plus = append(plus, g.after...)
		case len(g.after) == 0:
			minus = append(minus, g.before...)
		default:
			changed = append(changed, *g)
		}
	}
	slices.SortFunc(changed, func(a, b rangeChange) int {
		return compareRanges(slices.MinFunc(a.before, compareRanges), slices.MinFunc(b.before, compareRanges))
	})
	return changed, plus, minus
}

func compareRanges(a, b portRange) int {
	return cmp.Or(cmp.Compare(a.Min, b.Min), cmp.Compare(a.Max, b.Max))
}

// joinRanges turns [443, 30080-30082, 80] into "80, 443, 30080-30082".
func joinRanges(rs []portRange) string {
	rs = slices.SortedFunc(slices.Values(rs), compareRanges)
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}

func directionOrder(d string) int { return slices.Index([]string{"ingress", "egress"}, d) }

// protocolName names OCI's protocol numbers for TCP and UDP; others stay numbers ("all" too).
func protocolName(protocol *string) string {
	switch p := deref(protocol); p {
	case "6":
		return "tcp"
	case "17":
		return "udp"
	default:
		return p
	}
}

// destinationPorts returns a rule's destination ports; all ports when it names none.
func destinationPorts(tcp *core.TcpOptions, udp *core.UdpOptions) portRange {
	var pr *core.PortRange
	switch {
	case tcp != nil:
		pr = tcp.DestinationPortRange
	case udp != nil:
		pr = udp.DestinationPortRange
	}
	if pr == nil || pr.Min == nil || pr.Max == nil {
		return portRange{}
	}
	return portRange{*pr.Min, *pr.Max}
}

// ports renders a rule's protocol and destination ports, e.g. "tcp 80" or "tcp 30000-32767".
func ports(protocol *string, tcp *core.TcpOptions, udp *core.UdpOptions) string {
	return protocolName(protocol) + " " + destinationPorts(tcp, udp).String()
}
