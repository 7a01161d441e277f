// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/oci-ccm/oci-ccm/config"
)

// Errors about where rules go. Callers tell them apart with errors.Is; each is wrapped with the
// subnet it concerns.
var (
	// ErrNoSecurityList means a subnet has no security list attached, so there is nowhere to
	// put its rules.
	ErrNoSecurityList = errors.New("subnet has no security list attached")
	// ErrListNotAttached means the configuration maps a subnet to a list that is not attached
	// to it. Rules in a detached list would have no effect, and writing to another list would
	// ignore the configuration, so neither is done.
	ErrListNotAttached = errors.New("configured security list is not attached to the subnet")
	// ErrUnknownSubnet means a claim names a subnet whose details were not supplied.
	ErrUnknownSubnet = errors.New("subnet details unknown")
	// ErrNoFrontendNSG means a claim in mode NSG has no frontend network security group: none
	// was created for its Service (Manager.FrontendNSG, through engine.Options.FrontendNSG), and
	// none is found by its tags.
	ErrNoFrontendNSG = errors.New("no frontend network security group")
)

// ListFor returns the security list oci-ccm manages for subnet s.
//
// The configured list (Policy.SecurityLists) wins when it is attached to the subnet. Otherwise it
// is the first of the subnet's lists in the order OCI returns them. That order is the order the
// lists were given when the subnet was created or last updated, so the choice is the same on
// every reconcile and in every CCM replica, it changes only when someone re-attaches lists, and
// it is where the upstream OCI CCM put its rules, so a migrated cluster finds them in place.
func (p Policy) ListFor(s Subnet) (string, error) {
	if id, ok := p.SecurityLists[s.ID]; ok {
		if !slices.Contains(s.SecurityListIDs, id) {
			return "", fmt.Errorf("subnet %s, list %s: %w", s.ID, id, ErrListNotAttached)
		}
		return id, nil
	}
	if len(s.SecurityListIDs) == 0 {
		return "", fmt.Errorf("subnet %s: %w", s.ID, ErrNoSecurityList)
	}
	return s.SecurityListIDs[0], nil
}

// Desired computes the rules every security list and network security group (the targets,
// keyed by OCID) must hold for the given claims: the union of what each claim needs, however
// many Services need a rule, with adjacent and overlapping port ranges of the same target,
// direction, peer and protocol merged into one rule (ports 8080 and 8081 make one rule
// 8080-8081). Targets that no claim needs a rule in are absent from the map.
//
// Per claim, by mode (TCP ports as TCP rules, a network load balancer's UDP ports as UDP rules;
// the health-check port is TCP):
//   - All and Frontend: on each LB subnet's list, ingress from every source CIDR to every
//     listener port.
//   - All and Backend: on each LB subnet's list, egress to every node subnet CIDR on every node
//     port and the health-check port; on each node subnet's list, ingress from every LB subnet
//     CIDR to the same ports. With Policy.NodePortRange set, a port inside that range is
//     covered by one rule for the whole range per pair of subnets instead of a rule of its own.
//     With Claim.PreserveSource the node subnet's ingress from the LB subnets is the
//     health-check port only, and the node ports are opened from the source CIDRs instead.
//   - NSG: rules in the frontend NSG and the backend NSGs (see nsgRules), none in lists.
//   - None: nothing.
//
// A subnet that cannot be placed (unknown, no list, configured list not attached) contributes
// no rules to its own list; every other rule is still computed, because each rule's list is
// decided on its own. The returned error joins one problem per such subnet.
func Desired(claims []Claim, subnets map[string]Subnet, p Policy) (map[string]RuleSet, error) {
	out := map[string]RuleSet{}
	err := walk(claims, subnets, p, func(list string, r Rule, backend bool, _ *Claim) {
		if backend && p.NodePortRange.covers(r.Ports) {
			r.Ports = p.NodePortRange
		}
		if out[list] == nil {
			out[list] = RuleSet{}
		}
		out[list].Add(r)
	})
	for list, rules := range out {
		out[list] = coalesce(rules)
	}
	return out, err
}

// walk calls emit for every rule each claim needs, one port per rule, in the claim's mode;
// backend says the rule is one between LB and node subnets (node ports and health-check port).
// Desired and the takeover of undescribed rules both start from it.
func walk(claims []Claim, subnets map[string]Subnet, p Policy, emit func(list string, r Rule, backend bool, c *Claim)) error {
	problems := map[string]error{}
	cidrOf := func(id string) (string, bool) {
		s, ok := subnets[id]
		if !ok {
			problems[id] = fmt.Errorf("subnet %s: %w", id, ErrUnknownSubnet)
			return "", false
		}
		cidr, err := canonicalCIDR(s.CIDR)
		if err != nil {
			problems[id] = fmt.Errorf("subnet %s: %w", id, err)
			return "", false
		}
		return cidr, true
	}
	listOf := func(id string) (string, bool) {
		s, ok := subnets[id]
		if !ok {
			problems[id] = fmt.Errorf("subnet %s: %w", id, ErrUnknownSubnet)
			return "", false
		}
		list, err := p.ListFor(s)
		if err != nil {
			problems[id] = err
			return "", false
		}
		return list, true
	}

	for i := range claims {
		c := &claims[i]
		mode := p.mode(*c)
		if mode == config.SecurityListModeNSG {
			nsgRules(c, p, problems, emit)
			continue
		}
		front := mode == config.SecurityListModeAll || mode == config.SecurityListModeFrontend
		back := mode == config.SecurityListModeAll || mode == config.SecurityListModeBackend
		if !front && !back {
			continue
		}
		for _, lb := range c.LBSubnets {
			list, ok := listOf(lb)
			if !ok {
				continue
			}
			if front {
				for _, src := range p.sources(*c) {
					c.listenerRules(Ingress, src, "", func(r Rule) { emit(list, r, false, c) })
				}
			}
			if back {
				for _, node := range c.NodeSubnets {
					if cidr, ok := cidrOf(node); ok {
						c.backendRules(Egress, cidr, "", false, func(r Rule) { emit(list, r, true, c) })
					}
				}
			}
		}
		if !back {
			continue
		}
		for _, node := range c.NodeSubnets {
			list, ok := listOf(node)
			if !ok {
				continue
			}
			for _, lb := range c.LBSubnets {
				if cidr, ok := cidrOf(lb); ok {
					c.backendRules(Ingress, cidr, "", c.PreserveSource, func(r Rule) { emit(list, r, true, c) })
				}
			}
			if c.PreserveSource {
				c.preservedSourceRules(p, func(r Rule) { emit(list, r, false, c) })
			}
		}
	}

	var errs []error
	for _, id := range slices.Sorted(maps.Keys(problems)) {
		errs = append(errs, problems[id])
	}
	return errors.Join(errs...)
}

// ListsOf returns the targets the claim's rules live in under its mode: for Frontend the LB
// subnets' security lists, for All and Backend the LB and node subnets' lists, for NSG its
// frontend NSG (when known) and backend NSGs, for None none. These are the targets to rewrite
// when the claim appears, changes or goes away.
func ListsOf(c Claim, subnets map[string]Subnet, p Policy) ([]string, error) {
	if p.mode(c) == config.SecurityListModeNSG {
		var targets []string
		if c.FrontendNSG != "" {
			targets = append(targets, c.FrontendNSG)
		}
		return union(targets, c.BackendNSGs), nil
	}
	var lists []string
	var errs []error
	for _, id := range p.subnetsUsed(c) {
		s, ok := subnets[id]
		if !ok {
			errs = append(errs, fmt.Errorf("subnet %s: %w", id, ErrUnknownSubnet))
			continue
		}
		list, err := p.ListFor(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !slices.Contains(lists, list) {
			lists = append(lists, list)
		}
	}
	return lists, errors.Join(errs...)
}

// subnetsUsed returns the subnets whose details the claim's rules depend on under its mode:
// none for None and NSG (its rules name NSGs and source ranges), the LB subnets for Frontend,
// all of them otherwise.
func (p Policy) subnetsUsed(c Claim) []string {
	switch p.mode(c) {
	case config.SecurityListModeNone, config.SecurityListModeNSG:
		return nil
	case config.SecurityListModeFrontend:
		return slices.Clone(c.LBSubnets)
	default:
		return c.subnetIDs()
	}
}

// backendPorts returns the TCP node ports and the health-check port, without duplicates.
func (c Claim) backendPorts() []int {
	ports := slices.Clone(c.NodePorts)
	if c.HealthCheckPort > 0 {
		ports = append(ports, c.HealthCheckPort)
	}
	slices.Sort(ports)
	return slices.Compact(ports)
}

// listenerRules emits a rule of direction d with peer cidr (or NSG peer) for every listener
// port, TCP and UDP.
func (c Claim) listenerRules(d Direction, cidr, peer string, emit func(Rule)) {
	for _, port := range c.ListenerPorts {
		emit(rule(d, cidr, peer, ProtocolTCP, port))
	}
	for _, port := range c.UDPListenerPorts {
		emit(rule(d, cidr, peer, ProtocolUDP, port))
	}
}

// backendRules emits the rules between the load balancer and the backends with peer cidr (or
// NSG peer): the TCP node ports and the health-check port, and the UDP node ports. With
// healthOnly (the client source is preserved, so node ports are reached from the clients, not
// from the load balancer) only the health-check port.
func (c Claim) backendRules(d Direction, cidr, peer string, healthOnly bool, emit func(Rule)) {
	if healthOnly {
		if c.HealthCheckPort > 0 {
			emit(rule(d, cidr, peer, ProtocolTCP, c.HealthCheckPort))
		}
		return
	}
	for _, port := range c.backendPorts() {
		emit(rule(d, cidr, peer, ProtocolTCP, port))
	}
	for _, port := range c.UDPNodePorts {
		emit(rule(d, cidr, peer, ProtocolUDP, port))
	}
}

// preservedSourceRules emits the backends' ingress from every client source range on every node
// port, TCP and UDP: with the client source preserved, that is where the packets come from.
func (c Claim) preservedSourceRules(p Policy, emit func(Rule)) {
	for _, src := range p.sources(c) {
		for _, port := range c.NodePorts {
			emit(rule(Ingress, src, "", ProtocolTCP, port))
		}
		for _, port := range c.UDPNodePorts {
			emit(rule(Ingress, src, "", ProtocolUDP, port))
		}
	}
}

// nsgRules emits the rules of a claim in mode NSG:
//   - the frontend NSG: ingress from every client source range on the listener ports, and
//     egress to every backend NSG on the node ports and the health-check port;
//   - each backend NSG: ingress from the frontend NSG on the same ports (with the source
//     preserved: from the frontend NSG on the health-check port and from the client source
//     ranges on the node ports).
//
// Without a known frontend NSG nothing is emitted and the claim is recorded as a problem: every
// rule of the claim names the frontend NSG or lives in it.
func nsgRules(c *Claim, p Policy, problems map[string]error, emit func(string, Rule, bool, *Claim)) {
	front := c.FrontendNSG
	if front == "" {
		problems["service "+c.key()] = fmt.Errorf("service %s: %w", c.key(), ErrNoFrontendNSG)
		return
	}
	for _, src := range p.sources(*c) {
		c.listenerRules(Ingress, src, "", func(r Rule) { emit(front, r, false, c) })
	}
	for _, back := range c.BackendNSGs {
		c.backendRules(Egress, "", back, false, func(r Rule) { emit(front, r, true, c) })
		c.backendRules(Ingress, "", front, c.PreserveSource, func(r Rule) { emit(back, r, true, c) })
		if c.PreserveSource {
			c.preservedSourceRules(p, func(r Rule) { emit(back, r, false, c) })
		}
	}
}

// rule is a single-port rule with a CIDR or an NSG peer.
func rule(d Direction, cidr, peer, protocol string, port int) Rule {
	return Rule{Direction: d, CIDR: cidr, PeerNSG: peer, Protocol: protocol, Ports: PortRange{Min: port, Max: port}}
}

// tcp is a single-port TCP rule with a CIDR peer.
func tcp(d Direction, cidr string, port int) Rule { return rule(d, cidr, "", ProtocolTCP, port) }
