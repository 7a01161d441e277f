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
		desc := deref(r.Description)
		if desc != owner && desc != "" {
			continue
		}
		cur.Ingress[i] = observed(Ingress, deref(r.Source),
			r.SourceType == "" || r.SourceType == core.IngressSecurityRuleSourceTypeCidrBlock,
			deref(r.Protocol), r.IsStateless, r.TcpOptions, r.UdpOptions != nil || r.IcmpOptions != nil)
		cur.Ingress[i].markUndescribed(desc == "")
	}
	for i, r := range list.EgressSecurityRules {
		desc := deref(r.Description)
		if desc != owner && desc != "" {
			continue
		}
		cur.Egress[i] = observed(Egress, deref(r.Destination),
			r.DestinationType == "" || r.DestinationType == core.EgressSecurityRuleDestinationTypeCidrBlock,
			deref(r.Protocol), r.IsStateless, r.TcpOptions, r.UdpOptions != nil || r.IcmpOptions != nil)
		cur.Egress[i].markUndescribed(desc == "")
	}
	return cur
}

// markUndescribed turns an observed rule of ours into one nobody claims, when it has no
// description.
func (o *Observed) markUndescribed(undescribed bool) {
	if undescribed {
		o.Owned, o.Undescribed = false, true
	}
}

// observed normalises an owned rule and says whether it has exactly the form toIngress and
// toEgress write. Both directions share the fields that matter, so one function reads both.
func observed(d Direction, cidr string, cidrType bool, protocol string, stateless *bool, tcp *core.TcpOptions, otherOptions bool) Observed {
	o := Observed{Owned: true, Canonical: true, Rule: Rule{Direction: d, CIDR: cidr, Protocol: protocol}}
	if c, err := canonicalCIDR(cidr); err == nil {
		o.Rule.CIDR = c
	} else {
		o.Canonical = false
	}
	if !cidrType || protocol != ProtocolTCP || (stateless != nil && *stateless) || otherOptions {
		o.Canonical = false
	}
	if tcp == nil || tcp.DestinationPortRange == nil || tcp.DestinationPortRange.Min == nil || tcp.DestinationPortRange.Max == nil {
		o.Canonical = false
		return o
	}
	o.Rule.Ports = PortRange{Min: *tcp.DestinationPortRange.Min, Max: *tcp.DestinationPortRange.Max}
	if tcp.SourcePortRange != nil {
		o.Canonical = false
	}
	return o
}

// apply returns the list's rules after u: the kept rules in their original order and form (an
// adopted one with this cluster's description), then the added ones. The slices are never nil, because the SDK omits a nil slice from the request
// body and OCI would then leave that direction unchanged instead of emptying it.
func apply(list core.SecurityList, u Update, owner string) ([]core.IngressSecurityRule, []core.EgressSecurityRule) {
	ingress := make([]core.IngressSecurityRule, 0, len(list.IngressSecurityRules)+len(u.Add))
	for i, r := range list.IngressSecurityRules {
		if u.KeepIngress[i] {
			if i < len(u.AdoptIngress) && u.AdoptIngress[i] {
				r.Description = common.String(owner)
			}
			ingress = append(ingress, r)
		}
	}
	egress := make([]core.EgressSecurityRule, 0, len(list.EgressSecurityRules)+len(u.Add))
	for i, r := range list.EgressSecurityRules {
		if u.KeepEgress[i] {
			if i < len(u.AdoptEgress) && u.AdoptEgress[i] {
				r.Description = common.String(owner)
			}
			egress = append(egress, r)
		}
	}
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

func toIngress(r Rule, owner string) core.IngressSecurityRule {
	return core.IngressSecurityRule{
		Protocol:    common.String(r.Protocol),
		Source:      common.String(r.CIDR),
		SourceType:  core.IngressSecurityRuleSourceTypeCidrBlock,
		IsStateless: common.Bool(false),
		TcpOptions:  tcpOptions(r.Ports),
		Description: common.String(owner),
	}
}

func toEgress(r Rule, owner string) core.EgressSecurityRule {
	return core.EgressSecurityRule{
		Protocol:        common.String(r.Protocol),
		Destination:     common.String(r.CIDR),
		DestinationType: core.EgressSecurityRuleDestinationTypeCidrBlock,
		IsStateless:     common.Bool(false),
		TcpOptions:      tcpOptions(r.Ports),
		Description:     common.String(owner),
	}
}

func tcpOptions(p PortRange) *core.TcpOptions {
	return &core.TcpOptions{DestinationPortRange: &core.PortRange{Min: common.Int(p.Min), Max: common.Int(p.Max)}}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
