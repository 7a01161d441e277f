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

// Desired computes the rules every security list must hold for the given claims: the union of
// what each claim needs, however many Services need a rule, with adjacent and overlapping port
// ranges of the same list, direction, CIDR and protocol merged into one rule (ports 8080 and
// 8081 make one rule 8080-8081). Lists that no claim needs a rule in are absent from the map.
//
// Per claim, by mode:
//   - All and Frontend: on each LB subnet's list, ingress from every source CIDR to every
//     listener port.
//   - All and Backend: on each LB subnet's list, egress to every node subnet CIDR on every node
//     port and the health-check port; on each node subnet's list, ingress from every LB subnet
//     CIDR to the same ports. With Policy.NodePortRange set, a port inside that range is
//     covered by one rule for the whole range per pair of subnets instead of a rule of its own.
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
		front := mode == config.SecurityListModeAll || mode == config.SecurityListModeFrontend
		back := mode == config.SecurityListModeAll || mode == config.SecurityListModeBackend
		if !front && !back {
			continue
		}
		backendPorts := c.backendPorts()
		for _, lb := range c.LBSubnets {
			list, ok := listOf(lb)
			if !ok {
				continue
			}
			if front {
				for _, src := range p.sources(*c) {
					for _, port := range c.ListenerPorts {
						emit(list, tcp(Ingress, src, port), false, c)
					}
				}
			}
			if back {
				for _, node := range c.NodeSubnets {
					if cidr, ok := cidrOf(node); ok {
						for _, port := range backendPorts {
							emit(list, tcp(Egress, cidr, port), true, c)
						}
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
					for _, port := range backendPorts {
						emit(list, tcp(Ingress, cidr, port), true, c)
					}
				}
			}
		}
	}

	var errs []error
	for _, id := range slices.Sorted(maps.Keys(problems)) {
		errs = append(errs, problems[id])
	}
	return errors.Join(errs...)
}

// ListsOf returns the security lists the claim's rules live in under its mode: for Frontend the
// LB subnets' lists, for All and Backend the LB and node subnets' lists, for None none. These
// are the lists to rewrite when the claim appears, changes or goes away.
func ListsOf(c Claim, subnets map[string]Subnet, p Policy) ([]string, error) {
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
// none for None, the LB subnets for Frontend, all of them otherwise.
func (p Policy) subnetsUsed(c Claim) []string {
	switch p.mode(c) {
	case config.SecurityListModeNone:
		return nil
	case config.SecurityListModeFrontend:
		return slices.Clone(c.LBSubnets)
	default:
		return c.subnetIDs()
	}
}

// backendPorts returns the node ports and the health-check port, without duplicates.
func (c Claim) backendPorts() []int {
	ports := slices.Clone(c.NodePorts)
	if c.HealthCheckPort > 0 {
		ports = append(ports, c.HealthCheckPort)
	}
	slices.Sort(ports)
	return slices.Compact(ports)
}

func tcp(d Direction, cidr string, port int) Rule {
	return Rule{Direction: d, CIDR: cidr, Protocol: ProtocolTCP, Ports: PortRange{Min: port, Max: port}}
}
