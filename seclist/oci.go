// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist

import (
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
)

// This file is the edge between OCI's SDK types and the pure rule types: reading a security list
// into a Current, and writing an Update back as the rule slices UpdateSecurityList takes.

// subnetFromOCI keeps what rule computation needs from an OCI subnet.
func subnetFromOCI(s core.Subnet) Subnet {
	return Subnet{
		ID:              deref(s.Id),
		CIDR:            deref(s.CidrBlock),
		SecurityListIDs: append([]string(nil), s.SecurityListIds...),
	}
}

// observe reads a list's rules. Only rules whose description equals owner are owned; rules with
// no description are marked Undescribed and normalised as far as they can be, so that a
// takeover (adopt) can tell whether one is exactly a rule a Service needs.
func observe(list core.SecurityList, owner string) Current {
	cur := Current{
		ListID:  deref(list.Id),
		Ingress: make([]Observed, len(list.IngressSecurityRules)),
		Egress:  make([]Observed, len(list.EgressSecurityRules)),
	}
	for i, r := range list.IngressSecurityRules {
		cur.Ingress[i] = claimed(deref(r.Description), owner, observed(Ingress, deref(r.Source), "",
			r.SourceType == "" || r.SourceType == core.IngressSecurityRuleSourceTypeCidrBlock,
			deref(r.Protocol), r.IsStateless, r.TcpOptions, r.UdpOptions, r.IcmpOptions != nil))
	}
	for i, r := range list.EgressSecurityRules {
		cur.Egress[i] = claimed(deref(r.Description), owner, observed(Egress, deref(r.Destination), "",
			r.DestinationType == "" || r.DestinationType == core.EgressSecurityRuleDestinationTypeCidrBlock,
			deref(r.Protocol), r.IsStateless, r.TcpOptions, r.UdpOptions, r.IcmpOptions != nil))
	}
	return cur
}

// claimed is o, the rule of a list with description desc, as this cluster sees it: nothing
// (the zero Observed) when another owner's description marks it, and one nobody claims when it
// has no description.
func claimed(desc, owner string, o Observed) Observed {
	switch desc {
	case "":
		o.Owned, o.Undescribed = false, true
		return o
	case owner:
		return o
	}
	return Observed{}
}

// observed normalises an owned rule and says whether it has exactly the form oci-ccm writes
// (toIngress, toEgress, toNSGRule): stateful, TCP with tcpOptions or UDP with udpOptions, a
// destination port range and nothing else. peerNSG is set for an NSG rule whose source or
// destination is a group (then cidr is empty and cidrType false). Every kind of rule shares
// these fields, so one function reads them all.
func observed(d Direction, cidr, peerNSG string, cidrType bool, protocol string, stateless *bool, tcp *core.TcpOptions, udp *core.UdpOptions, icmp bool) Observed {
	o := Observed{Owned: true, Canonical: true, Rule: Rule{Direction: d, CIDR: cidr, PeerNSG: peerNSG, Protocol: protocol}}
	switch {
	case peerNSG != "":
	case !cidrType:
		o.Canonical = false
	default:
		if c, err := canonicalCIDR(cidr); err == nil {
			o.Rule.CIDR = c
		} else {
			o.Canonical = false
		}
	}
	if (stateless != nil && *stateless) || icmp {
		o.Canonical = false
	}
	var dst, src *core.PortRange
	switch {
	case protocol == ProtocolTCP && tcp != nil && udp == nil:
		dst, src = tcp.DestinationPortRange, tcp.SourcePortRange
	case protocol == ProtocolUDP && udp != nil && tcp == nil:
		dst, src = udp.DestinationPortRange, udp.SourcePortRange
	default:
		o.Canonical = false
		return o
	}
	if dst == nil || dst.Min == nil || dst.Max == nil {
		o.Canonical = false
		return o
	}
	o.Rule.Ports = PortRange{Min: *dst.Min, Max: *dst.Max}
	if src != nil {
		o.Canonical = false
	}
	return o
}

// apply returns the list's rules after u: the kept rules in their original order and form (an
// adopted one with this cluster's description), then the added ones. The slices are never nil,
// because the SDK omits a nil slice from the request body and OCI would then leave that
// direction unchanged instead of emptying it.
func apply(list core.SecurityList, u Update, owner string) ([]core.IngressSecurityRule, []core.EgressSecurityRule) {
	ingress := kept(list.IngressSecurityRules, u.KeepIngress, u.AdoptIngress, len(u.Add),
		func(r *core.IngressSecurityRule) { r.Description = common.String(owner) })
	egress := kept(list.EgressSecurityRules, u.KeepEgress, u.AdoptEgress, len(u.Add),
		func(r *core.EgressSecurityRule) { r.Description = common.String(owner) })
	for _, r := range u.Add {
		switch r.Direction {
		case Ingress:
			ingress = append(ingress, toIngress(r, owner))
		case Egress:
			egress = append(egress, toEgress(r, owner))
		}
	}
	return ingress, egress
}

// kept is the rules of one direction that keep marks, in their order, with room for more; adopt
// marks those that describe gives this cluster's description.
func kept[R any](rules []R, keep, adopt []bool, room int, describe func(*R)) []R {
	out := make([]R, 0, len(rules)+room)
	for i, r := range rules {
		if keep[i] {
			if i < len(adopt) && adopt[i] {
				describe(&r)
			}
			out = append(out, r)
		}
	}
	return out
}

func toIngress(r Rule, owner string) core.IngressSecurityRule {
	tcp, udp := portOptions(r)
	return core.IngressSecurityRule{
		Protocol:    common.String(r.Protocol),
		Source:      common.String(r.CIDR),
		SourceType:  core.IngressSecurityRuleSourceTypeCidrBlock,
		IsStateless: common.Bool(false),
		TcpOptions:  tcp,
		UdpOptions:  udp,
		Description: common.String(owner),
	}
}

func toEgress(r Rule, owner string) core.EgressSecurityRule {
	tcp, udp := portOptions(r)
	return core.EgressSecurityRule{
		Protocol:        common.String(r.Protocol),
		Destination:     common.String(r.CIDR),
		DestinationType: core.EgressSecurityRuleDestinationTypeCidrBlock,
		IsStateless:     common.Bool(false),
		TcpOptions:      tcp,
		UdpOptions:      udp,
		Description:     common.String(owner),
	}
}

// portOptions are the TCP or UDP options (the other nil) that carry r's destination ports.
func portOptions(r Rule) (*core.TcpOptions, *core.UdpOptions) {
	ports := &core.PortRange{Min: common.Int(r.Ports.Min), Max: common.Int(r.Ports.Max)}
	if r.Protocol == ProtocolUDP {
		return nil, &core.UdpOptions{DestinationPortRange: ports}
	}
	return &core.TcpOptions{DestinationPortRange: ports}, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
