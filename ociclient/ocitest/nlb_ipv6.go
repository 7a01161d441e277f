// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// This file gives network load balancers their IP versions: IPV4 (the default), IPV4_AND_IPV6
// (dual-stack) and IPV6, as the SDK's NlbIpVersionEnum lists them. An IPv6 address comes from the
// IPv6 prefix of the network load balancer's subnet, so the subnet must be IPv6-enabled (seed it
// with Ipv6CidrBlock); a create naming a subnet the VCN API does not know is refused (related.go). Listeners and backend sets carry an ipVersion of their own,
// which the network load balancer must serve.

// nlbIPv6Pool gives IPv6 addresses in subnets the VCN API does not know, which only a network
// load balancer's subnet could be if the VCN API lost it (a documentation prefix, RFC 3849).
var nlbIPv6Pool = netip.MustParsePrefix("2001:db8:ffff:ffff::/64")

// nlbIPv6FirstHost is the first host number handed out in a /64 (OCI picks addresses it does not
// document; low numbers are left to the virtual router and to instances seeded by hand).
const nlbIPv6FirstHost = 0x100

var nlbIPVersions = []string{string(nlbapi.NlbIpVersionIpv4), string(nlbapi.NlbIpVersionIpv4AndIpv6), string(nlbapi.NlbIpVersionIpv6)}

// nlbVersionOf is a network load balancer's IP version, IPV4 when unset as OCI defaults it.
func nlbVersionOf(v nlbapi.NlbIpVersionEnum) nlbapi.NlbIpVersionEnum {
	if v == "" {
		return nlbapi.NlbIpVersionIpv4
	}
	return v
}

// nlbServes reports whether a network load balancer of version v has addresses of family ip.
func nlbServes(v nlbapi.NlbIpVersionEnum, ip nlbapi.IpVersionEnum) bool {
	switch nlbVersionOf(v) {
	case nlbapi.NlbIpVersionIpv4AndIpv6:
		return ip == nlbapi.IpVersionIpv4 || ip == nlbapi.IpVersionIpv6
	case nlbapi.NlbIpVersionIpv6:
		return ip == nlbapi.IpVersionIpv6
	default:
		return ip == nlbapi.IpVersionIpv4
	}
}

// nlbPartVersion is a listener's or backend set's IP version, IPV4 when unset.
func nlbPartVersion(v nlbapi.IpVersionEnum) nlbapi.IpVersionEnum {
	if v == "" {
		return nlbapi.IpVersionIpv4
	}
	return v
}

// nlbCheckFamily refuses a listener or backend set whose IP version the network load balancer
// does not serve: the upstream CCM converts an NLB to dual-stack before it creates IPv6 listeners
// and backend sets, and removes them before converting back, because OCI refuses them otherwise.
func nlbCheckFamily(what string, v nlbapi.IpVersionEnum, nlbVersion nlbapi.NlbIpVersionEnum) error {
	if !nlbServes(nlbVersion, nlbPartVersion(v)) {
		return lbInvalid("%s has ipVersion %s, but the network load balancer's nlbIpVersion is %s", what, nlbPartVersion(v), nlbVersionOf(nlbVersion))
	}
	return nil
}

// nlbCheckIPVersionRequest checks the IP version fields of a create (or of an update that sets
// nlbIpVersion to version) on their own: the version is one OCI has; subnetIpv6Cidr and
// assignedIpv6 need an IPv6 version ("NLB has to be dual or single stack ipv6 to support this",
// the SDK's doc comment) and are an IPv6 prefix and address; an IPv6-only one takes no IPv4
// address.
func nlbCheckIPVersionRequest(version nlbapi.NlbIpVersionEnum, subnetIpv6Cidr, assignedIpv6, assignedIPv4 *string) error {
	v := string(nlbVersionOf(version))
	if err := lbCheckOneOf("nlbIpVersion", &v, nlbIPVersions); err != nil {
		return err
	}
	hasV6 := nlbServes(version, nlbapi.IpVersionIpv6)
	if subnetIpv6Cidr != nil {
		if !hasV6 {
			return lbInvalid("subnetIpv6Cidr needs nlbIpVersion IPV4_AND_IPV6 or IPV6, not %s", v)
		}
		if p, err := netip.ParsePrefix(*subnetIpv6Cidr); err != nil || !p.Addr().Is6() {
			return lbInvalid("subnetIpv6Cidr %s is not an IPv6 prefix", *subnetIpv6Cidr)
		}
	}
	if assignedIpv6 != nil {
		if !hasV6 {
			return lbInvalid("assignedIpv6 needs nlbIpVersion IPV4_AND_IPV6 or IPV6, not %s", v)
		}
		if a, err := netip.ParseAddr(*assignedIpv6); err != nil || !a.Is6() || a.Is4In6() {
			return lbInvalid("assignedIpv6 %s is not an IPv6 address", *assignedIpv6)
		}
	}
	if assignedIPv4 != nil && !nlbServes(version, nlbapi.IpVersionIpv4) {
		return lbInvalid("assignedPrivateIpv4 needs nlbIpVersion IPV4 or IPV4_AND_IPV6, not %s", v)
	}
	return nil
}

// nlbIPv6Prefixes are the prefixes an IPv6 address of a network load balancer in the subnet may
// come from: the known subnet's IPv6 prefixes (400 when it has none, or when cidr is not one of
// them), narrowed to cidr when given; for an unknown subnet, cidr or the pool. Caller holds s.mu.
func (s *Server) nlbIPv6Prefixes(subnetID string, cidr *string) ([]netip.Prefix, error) {
	sn, known := s.vcn.subnets.get(subnetID)
	var want netip.Prefix
	if cidr != nil {
		p, err := netip.ParsePrefix(*cidr)
		if err != nil || !p.Addr().Is6() {
			return nil, lbInvalid("subnetIpv6Cidr %s is not an IPv6 prefix", *cidr)
		}
		want = p.Masked()
	}
	if !known {
		if want.IsValid() {
			return []netip.Prefix{want}, nil
		}
		return []netip.Prefix{nlbIPv6Pool}, nil
	}
	prefixes := subnetIPv6Prefixes(sn)
	if len(prefixes) == 0 {
		// Wording assumed; the upstream CCM checks the same before it asks ("subnet with id %s does
		// not have an ipv6 cidr block").
		return nil, lbInvalid("Subnet %s does not have an IPv6 CIDR block; a network load balancer with IPv6 needs an IPv6-enabled subnet", subnetID)
	}
	if !want.IsValid() {
		return prefixes, nil
	}
	for _, p := range prefixes {
		if p == want {
			return []netip.Prefix{p}, nil
		}
	}
	return nil, lbInvalid("subnetIpv6Cidr %s is not an IPv6 prefix of subnet %s (%v)", want, subnetID, prefixes)
}

// nlbCheckIPv6Placement checks, at acceptance, that an IPv6 address can be given in the subnet:
// it has an IPv6 prefix (matching cidr), an assigned address lies in one and is free, and a
// reserved IPv6 is not another resource's. Caller holds s.mu.
func (s *Server) nlbCheckIPv6Placement(holder, subnetID string, cidr, assigned *string, reservedID string) error {
	prefixes, err := s.nlbIPv6Prefixes(subnetID, cidr)
	if err != nil {
		return err
	}
	if assigned != nil {
		if reservedID != "" {
			return lbInvalid("assignedIpv6 and the reserved IPv6 %s both set the IPv6 address; give one", reservedID)
		}
		a, err := netip.ParseAddr(*assigned)
		if err != nil || !a.Is6() {
			return lbInvalid("assignedIpv6 %s is not an IPv6 address", *assigned)
		}
		if _, known := s.vcn.subnets.get(subnetID); known && !prefixesContain(prefixes, a) {
			return lbInvalid("assignedIpv6 %s is not in the IPv6 prefixes of subnet %s (%v)", a, subnetID, prefixes)
		}
		if s.nlbIPv6InUse(subnetID, a.String(), holder) {
			return lbConflict("IPv6 address %s is already in use in subnet %s", a, subnetID)
		}
	}
	if reservedID != "" {
		if other, ok := s.lb.ips.reservedUser[reservedID]; ok && other != holder {
			return lbConflict("Reserved IPv6 %s is already assigned to %s", reservedID, other)
		}
		if v6, known := s.vcn.ipv6s.get(reservedID); known {
			a := netip.MustParseAddr(*v6.IpAddress)
			switch {
			case v6.VnicId != nil:
				return lbConflict("Reserved IPv6 %s is already assigned to %s", reservedID, *v6.VnicId)
			case deref(v6.SubnetId) != subnetID:
				return lbInvalid("Reserved IPv6 %s is in subnet %s, not in the network load balancer's subnet %s", reservedID, deref(v6.SubnetId), subnetID)
			case !prefixesContain(prefixes, a):
				return lbInvalid("Reserved IPv6 %s (%s) is not in the IPv6 prefixes %v", reservedID, a, prefixes)
			}
		}
	}
	return nil
}

func prefixesContain(ps []netip.Prefix, a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// nlbIPv6InUse reports whether another resource holds the address in the subnet: a load
// balancer, a reserved IPv6, or a VNIC. Caller holds s.mu.
func (s *Server) nlbIPv6InUse(subnetID, addr, holder string) bool {
	if h, ok := s.lb.ips.held[subnetID][addr]; ok && h != holder {
		return true
	}
	for id, a := range s.lb.ips.reservedAddr {
		if a == addr && s.lb.ips.reservedUser[id] != holder && s.lb.ips.reservedUser[id] != "" {
			return true
		}
	}
	for _, v6 := range s.vcn.ipv6s.filter(func(v6 core.Ipv6) bool { return deref(v6.SubnetId) == subnetID }) {
		// A seeded reserved IPv6 holds its address even while nothing uses it.
		if *v6.IpAddress == addr && (holder == "" || s.lb.ips.reservedUser[*v6.Id] != holder) {
			return true
		}
	}
	for _, v := range s.vcn.vnics.filter(func(v core.Vnic) bool { return deref(v.SubnetId) == subnetID }) {
		for _, a := range v.Ipv6Addresses {
			if a == addr {
				return true
			}
		}
	}
	return false
}

// nlbTakeIPv6 gives the network load balancer holder its IPv6 address in the subnet, as checked
// by nlbCheckIPv6Placement: the reserved IPv6's (AddIPv6; only an NLB seeded by hand may name one
// nobody seeded, which gets a stable address per OCID), the assigned one, or the lowest free host from
// nlbIPv6FirstHost of the first prefix. public says whether it is listed as public (a public
// network load balancer's is). Caller holds s.mu.
func (s *Server) nlbTakeIPv6(holder, subnetID string, public bool, cidr, assigned *string, reservedID string) (nlbapi.IpAddress, error) {
	if err := s.nlbCheckIPv6Placement(holder, subnetID, cidr, assigned, reservedID); err != nil {
		return nlbapi.IpAddress{}, err
	}
	prefixes, _ := s.nlbIPv6Prefixes(subnetID, cidr)
	addr := ""
	switch {
	case reservedID != "":
		addr = s.lb.ips.reservedAddr[reservedID]
		if v6, known := s.vcn.ipv6s.get(reservedID); known {
			addr = *v6.IpAddress
		} else if addr == "" {
			addr = s.nlbFreeIPv6(subnetID, prefixes[0])
			s.lb.ips.reservedAddr[reservedID] = addr
		}
		s.lb.ips.reservedUser[reservedID] = holder
	case assigned != nil:
		addr = netip.MustParseAddr(*assigned).String()
	default:
		addr = s.nlbFreeIPv6(subnetID, prefixes[0])
	}
	if reservedID == "" {
		if s.lb.ips.held[subnetID] == nil {
			s.lb.ips.held[subnetID] = map[string]string{}
		}
		s.lb.ips.held[subnetID][addr] = holder
	}
	out := nlbapi.IpAddress{IpAddress: common.String(addr), IsPublic: common.Bool(public), IpVersion: nlbapi.IpVersionIpv6}
	if reservedID != "" {
		out.ReservedIp = &nlbapi.ReservedIp{Id: common.String(reservedID)}
	}
	return out, nil
}

// nlbFreeIPv6 is the lowest free host of the prefix from nlbIPv6FirstHost. A /64 never fills up
// in a test. Caller holds s.mu.
func (s *Server) nlbFreeIPv6(subnetID string, p netip.Prefix) string {
	base := p.Masked().Addr().As16()
	hi := binary.BigEndian.Uint64(base[:8])
	for n := uint64(nlbIPv6FirstHost); ; n++ {
		var b [16]byte
		binary.BigEndian.PutUint64(b[:8], hi)
		binary.BigEndian.PutUint64(b[8:], n)
		a := netip.AddrFrom16(b).String()
		if _, held := s.lb.ips.held[subnetID][a]; !held && !s.nlbIPv6InUse(subnetID, a, "") {
			return a
		}
	}
}

// nlbReleaseAddress frees one address of a network load balancer (when an update drops an IP
// version): its reserved IP claim or its hold in the subnet. Caller holds s.mu.
func (s *Server) nlbReleaseAddress(holder string, a nlbapi.IpAddress) {
	if a.ReservedIp != nil && a.ReservedIp.Id != nil {
		if s.lb.ips.reservedUser[*a.ReservedIp.Id] == holder {
			delete(s.lb.ips.reservedUser, *a.ReservedIp.Id)
		}
	}
	for _, held := range s.lb.ips.held {
		if held[deref(a.IpAddress)] == holder {
			delete(held, deref(a.IpAddress))
		}
	}
}

// nlbAddressFamily is the family of an address in ipAddresses.
func nlbAddressFamily(a nlbapi.IpAddress) nlbapi.IpVersionEnum {
	if a.IpVersion != "" {
		return a.IpVersion
	}
	if strings.Contains(deref(a.IpAddress), ":") {
		return nlbapi.IpVersionIpv6
	}
	return nlbapi.IpVersionIpv4
}

// nlbCheckVersionChange checks an UpdateNetworkLoadBalancer that changes nlbIpVersion from
// "from" to "to" against the network load balancer as it is: only a change between single stack
// and dual-stack (IPV4 or IPV6 <-> IPV4_AND_IPV6, as the upstream CCM makes them; IPV4 <-> IPV6 in
// one step assumed refused); no listener or backend set of the family being dropped may remain
// (the upstream CCM removes them first); an added IPv6 address must fit the subnet; a reserved
// IPv6 only when going from IPV4 to dual-stack (the SDK's doc comment of reservedIpv6Id).
func (s *Server) nlbCheckVersionChange(n *nlbapi.NetworkLoadBalancer, d nlbapi.UpdateNetworkLoadBalancerDetails) error {
	from, to := nlbVersionOf(n.NlbIpVersion), nlbVersionOf(d.NlbIpVersion)
	if d.NlbIpVersion == "" {
		to = from
	}
	addsV6 := !nlbServes(from, nlbapi.IpVersionIpv6) && nlbServes(to, nlbapi.IpVersionIpv6)
	if d.ReservedIpv6Id != nil && !(from == nlbapi.NlbIpVersionIpv4 && to == nlbapi.NlbIpVersionIpv4AndIpv6) {
		return lbInvalid("reservedIpv6Id is only used when updating a network load balancer from IPV4 to IPV4_AND_IPV6, not from %s to %s", from, to)
	}
	if (d.SubnetIpv6Cidr != nil || d.AssignedIpv6 != nil) && !addsV6 {
		return lbInvalid("subnetIpv6Cidr and assignedIpv6 apply only when an update adds IPv6 (from %s to %s)", from, to)
	}
	if from == to {
		return nil
	}
	if to != nlbapi.NlbIpVersionIpv4AndIpv6 && from != nlbapi.NlbIpVersionIpv4AndIpv6 {
		return lbInvalid("nlbIpVersion cannot change from %s to %s; go through IPV4_AND_IPV6", from, to)
	}
	for _, name := range lbSortedKeys(n.Listeners) {
		if err := nlbCheckFamily(fmt.Sprintf("Listener '%s'", name), n.Listeners[name].IpVersion, to); err != nil {
			return err
		}
	}
	for _, name := range lbSortedKeys(n.BackendSets) {
		if err := nlbCheckFamily(fmt.Sprintf("Backend set '%s'", name), n.BackendSets[name].IpVersion, to); err != nil {
			return err
		}
	}
	if addsV6 {
		rid := deref(d.ReservedIpv6Id)
		if rid != "" && nlbReservedKind(rid) != nlbReservedIPv6 {
			return lbInvalid("reservedIpv6Id %s is not the OCID of an IPv6 address", rid)
		}
		if rid != "" {
			if err := s.checkRelatedLocked(nil, nil, []string{rid}); err != nil {
				return err
			}
		}
		return s.nlbCheckIPv6Placement(*n.Id, *n.SubnetId, d.SubnetIpv6Cidr, d.AssignedIpv6, rid)
	}
	return nil
}

// nlbApplyVersionChange moves a network load balancer to the IP version of the update, giving
// or freeing addresses, when its work request runs. Caller holds s.mu.
func (s *Server) nlbApplyVersionChange(n *nlbapi.NetworkLoadBalancer, d nlbapi.UpdateNetworkLoadBalancerDetails) error {
	from, to := nlbVersionOf(n.NlbIpVersion), nlbVersionOf(d.NlbIpVersion)
	if d.NlbIpVersion == "" || from == to {
		return nil
	}
	id, subnet, private := *n.Id, *n.SubnetId, deref(n.IsPrivate)
	var kept []nlbapi.IpAddress
	for _, a := range n.IpAddresses {
		if nlbServes(to, nlbAddressFamily(a)) {
			kept = append(kept, a)
		} else {
			s.nlbReleaseAddress(id, a)
		}
	}
	switch {
	case !nlbServes(from, nlbapi.IpVersionIpv6):
		a, err := s.nlbTakeIPv6(id, subnet, !private, d.SubnetIpv6Cidr, d.AssignedIpv6, deref(d.ReservedIpv6Id))
		if err != nil {
			return wrBadInput("%s", err.Error())
		}
		kept = append(kept, a)
	case !nlbServes(from, nlbapi.IpVersionIpv4):
		v4, full, err := s.nlbIPv4Addresses(id, private, subnet, nil, nil)
		if err == nil {
			err = full
		}
		if err != nil {
			return wrBadInput("%s", err.Error())
		}
		kept = append(v4, kept...)
	}
	if kept == nil {
		kept = []nlbapi.IpAddress{}
	}
	n.IpAddresses = kept
	n.NlbIpVersion = to
	return nil
}
