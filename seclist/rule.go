// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Direction is the direction of a security rule.
type Direction string

// The two directions a security list holds rules for.
const (
	// Ingress rules admit traffic from a source CIDR.
	Ingress Direction = "ingress"
	// Egress rules admit traffic to a destination CIDR.
	Egress Direction = "egress"
)

// OCI's protocol values (IANA protocol numbers, as strings) of the rules managed here.
const (
	// ProtocolTCP is TCP: every listener, node port and health check of a load balancer, and the
	// TCP ports of a network load balancer.
	ProtocolTCP = "6"
	// ProtocolUDP is UDP: the UDP ports of a network load balancer.
	ProtocolUDP = "17"
)

// PortRange is an inclusive range of destination ports.
type PortRange struct {
	Min, Max int
}

// String renders the range as "80" or "30000-30010".
func (p PortRange) String() string {
	if p.Min == p.Max {
		return strconv.Itoa(p.Min)
	}
	return fmt.Sprintf("%d-%d", p.Min, p.Max)
}

// set reports whether the range names any port (the zero PortRange names none).
func (p PortRange) set() bool { return p.Max > 0 }

// covers reports whether p is set and holds every port of q.
func (p PortRange) covers(q PortRange) bool { return p.set() && p.Min <= q.Min && q.Max <= p.Max }

// Rule is one managed security rule in normalised form: the CIDR is canonical (masked), the
// protocol is OCI's protocol number and the ports are a destination range. Two rules that mean
// the same thing compare equal with ==, which is what makes the diff plain set arithmetic. The
// rule does not say which list or NSG it belongs to; rules are grouped per target in a map.
type Rule struct {
	Direction Direction
	// CIDR is the source of an ingress rule or the destination of an egress rule; empty when
	// PeerNSG is set.
	CIDR string
	// PeerNSG, only in a network security group's rules, is the OCID of the group traffic comes
	// from (ingress) or goes to (egress), in place of a CIDR (OCI's source or destination type
	// NETWORK_SECURITY_GROUP).
	PeerNSG  string
	Protocol string
	Ports    PortRange
}

// peer is the rule's source or destination as written in logs.
func (r Rule) peer() string {
	if r.PeerNSG != "" {
		return r.PeerNSG
	}
	return r.CIDR
}

// String renders the rule for logs, e.g. "ingress 6 from 0.0.0.0/0 to port 80".
func (r Rule) String() string {
	if r.Direction == Egress {
		return fmt.Sprintf("egress %s to %s port %s", r.Protocol, r.peer(), r.Ports)
	}
	return fmt.Sprintf("ingress %s from %s to port %s", r.Protocol, r.peer(), r.Ports)
}

// compareRules orders rules by direction, CIDR, protocol and ports. The order only makes
// output deterministic (logs, the order new rules are appended in); no decision depends on it.
func compareRules(a, b Rule) int {
	return cmp.Or(
		cmp.Compare(a.Direction, b.Direction),
		cmp.Compare(a.CIDR, b.CIDR),
		cmp.Compare(a.PeerNSG, b.PeerNSG),
		cmp.Compare(a.Protocol, b.Protocol),
		cmp.Compare(a.Ports.Min, b.Ports.Min),
		cmp.Compare(a.Ports.Max, b.Ports.Max),
	)
}

// RuleSet is a set of rules. Adding a rule twice keeps one: rules that several Services need
// (a shared port, the kube-proxy health port) appear once.
type RuleSet map[Rule]struct{}

// NewRuleSet returns a set holding rules.
func NewRuleSet(rules ...Rule) RuleSet {
	s := make(RuleSet, len(rules))
	for _, r := range rules {
		s.Add(r)
	}
	return s
}

// Add puts r in the set.
func (s RuleSet) Add(r Rule) { s[r] = struct{}{} }

// Has reports whether r is in the set.
func (s RuleSet) Has(r Rule) bool {
	_, ok := s[r]
	return ok
}

// Sorted returns the rules in a deterministic order.
func (s RuleSet) Sorted() []Rule {
	return slices.SortedFunc(maps.Keys(s), compareRules)
}

// Count returns how many rules of direction d the set holds.
func (s RuleSet) Count(d Direction) int {
	n := 0
	for r := range s {
		if r.Direction == d {
			n++
		}
	}
	return n
}

// coalesce returns the rules of s with the port ranges of rules that differ only in their ports
// merged where they touch or overlap: 80, 81 and 82-90 become 80-90. Fewer rules mean more
// Services fit in OCI's 200 rules per list, and the traffic allowed is exactly the same.
func coalesce(s RuleSet) RuleSet {
	out := make(RuleSet, len(s))
	var run Rule
	open := false
	for _, r := range s.Sorted() { // sorted by direction, CIDR, peer NSG, protocol, then ports
		same := open && r.Direction == run.Direction && r.CIDR == run.CIDR && r.PeerNSG == run.PeerNSG && r.Protocol == run.Protocol
		if same && r.Ports.Min <= run.Ports.Max+1 {
			run.Ports.Max = max(run.Ports.Max, r.Ports.Max)
			continue
		}
		if open {
			out.Add(run)
		}
		run, open = r, true
	}
	if open {
		out.Add(run)
	}
	return out
}

// ownerPrefix starts every description oci-ccm writes. It names the manager so a person reading
// the list in the console knows who wrote the rule.
const ownerPrefix = "oci-ccm cluster="

// maxDescription is OCI's limit on a security rule's description.
const maxDescription = 255

// Owner returns the description that marks a rule as managed by oci-ccm for the named cluster,
// e.g. "oci-ccm cluster=prod". A rule is owned only when its description equals this string
// exactly, so cluster "a" never claims the rules of cluster "ab", and a rule a person copied and
// then annotated is theirs.
func Owner(cluster string) string { return ownerPrefix + cluster }
