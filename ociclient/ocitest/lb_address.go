// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// This file hands out the addresses of load balancers and network load balancers. The subnets and
// reserved IPs a create names are ones the VCN API knows (the create is refused otherwise,
// related.go), and the address comes from there, as in OCI: a load balancer holds an address in
// each subnet until it is deleted, and a full subnet fails its create's work request. Only a
// load balancer seeded by hand (AddLoadBalancer) may name a subnet nobody seeded; its address
// then comes from a pool. Addresses never repeat across both APIs.

// lbIPAllocator is the pools' state. Guarded by Server.mu.
type lbIPAllocator struct {
	public, private, reservedSeq int
	held                         map[string]map[string]string // known subnet → address → resource holding it ("" for seeded ones)
	reservedAddr                 map[string]string            // unknown reserved IP OCID → its pool address
	reservedUser                 map[string]string            // reserved IP OCID → resource using it
}

func newLBIPAllocator() lbIPAllocator {
	return lbIPAllocator{held: map[string]map[string]string{}, reservedAddr: map[string]string{}, reservedUser: map[string]string{}}
}

// nextPublic hands out 203.0.113.0/24 (TEST-NET-3), then 198.18.0.0/15 (benchmarking). The
// VCN API's own public IPs come from 198.51.100.0/24, so the two never meet.
func (a *lbIPAllocator) nextPublic() string {
	n := a.public
	a.public++
	if n < 254 {
		return fmt.Sprintf("203.0.113.%d", n+1)
	}
	n -= 254
	return fmt.Sprintf("198.%d.%d.%d", 18+(n/254/256)%2, (n/254)%256, n%254+1)
}

func (a *lbIPAllocator) nextPrivate() string {
	n := a.private
	a.private++
	return fmt.Sprintf("10.%d.%d.%d", (n/254/256)%256, (n/254)%256, n%254+1)
}

// lbPublicAddress allocates a fresh public address. Caller holds s.mu.
func (s *Server) lbPublicAddress() string { return s.lb.ips.nextPublic() }

// lbPrivateAddress allocates a private address in the subnet for a seeded load balancer: from
// its top down when the VCN API knows the subnet and it has room (instances take addresses from
// the bottom up), else from 10.0.0.0/8. Caller holds s.mu.
func (s *Server) lbPrivateAddress(subnetID string) string {
	addrs, err := s.lbHoldSubnetAddresses("", []string{subnetID})
	if err != nil || addrs[0] == "" {
		return s.lb.ips.nextPrivate()
	}
	return addrs[0]
}

// lbAddressesPerSubnet is how many private addresses a (network) load balancer takes in each of
// its subnets: the one it shows and two it does not, for the primary and standby nodes OCI runs
// it on ("Overview of Load Balancing": a primary and a standby load balancer). OCI does not
// document the count; three is the harder guess than one, so a subnet fills up no later in
// ocitest than it could in OCI.
const lbAddressesPerSubnet = 3

// lbHoldSubnetAddresses takes lbAddressesPerSubnet private addresses in each subnet for the
// (network) load balancer holder, as OCI places a load balancer's nodes in its subnets, and
// returns the first of each subnet, the one the load balancer shows, in order. A subnet the VCN
// API does not know (only a hand-seeded load balancer's) gives "" (the caller takes a pool
// address if it needs one). When a known subnet has too few free addresses it takes nothing and
// returns OCI's error, which fails the create's work request. Caller holds s.mu.
func (s *Server) lbHoldSubnetAddresses(holder string, subnetIDs []string) ([]string, error) {
	out := make([]string, len(subnetIDs))
	var taken [][2]string // subnet, address: released if a later subnet is full
	for i, id := range subnetIDs {
		sn, ok := s.vcn.subnets.get(id)
		if !ok || sn.CidrBlock == nil {
			continue
		}
		prefix, err := netip.ParsePrefix(*sn.CidrBlock)
		if err != nil || !prefix.Addr().Is4() {
			continue
		}
		for n := range lbAddressesPerSubnet {
			addr, ok := s.lbFreeSubnetAddress(id, prefix.Masked())
			if !ok {
				for _, t := range taken {
					delete(s.lb.ips.held[t[0]], t[1])
				}
				// OCI's words, from its list of work request errors; the size is the subnet's less
				// the network address, the virtual router's and the broadcast address.
				return nil, wrBadInput("All %d non-reserved IP addresses of the %s for %s have already been allocated.",
					(1<<(32-prefix.Bits()))-3, prefix.Masked(), id)
			}
			if s.lb.ips.held[id] == nil {
				s.lb.ips.held[id] = map[string]string{}
			}
			s.lb.ips.held[id][addr] = holder
			taken = append(taken, [2]string{id, addr})
			if n == 0 {
				out[i] = addr
			}
		}
	}
	return out, nil
}

// lbFreeSubnetAddress is the highest address of the subnet that no private IP (VNIC or reserved)
// and no load balancer holds; ok is false when the subnet is full. OCI reserves the network
// address, the first host (the virtual router) and the broadcast address.
func (s *Server) lbFreeSubnetAddress(subnetID string, prefix netip.Prefix) (string, bool) {
	base := prefix.Addr().As4()
	network := binary.BigEndian.Uint32(base[:])
	size := uint32(1) << (32 - prefix.Bits())
	if size < 4 {
		return "", false
	}
	used := map[string]bool{}
	for _, p := range s.vcn.privateIPs.filter(func(p core.PrivateIp) bool { return deref(p.SubnetId) == subnetID }) {
		used[deref(p.IpAddress)] = true
	}
	for n := size - 2; n >= 2; n-- {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], network+n)
		addr := netip.AddrFrom4(b).String()
		if _, held := s.lb.ips.held[subnetID][addr]; !held && !used[addr] {
			return addr, true
		}
	}
	return "", false
}

// lbClaimReserved assigns the reserved public IP with this OCID to a resource and returns its
// address. A reserved IP the VCN API knows gives its own address and turns ASSIGNED, to a private
// IP of the load balancer (lbAssignPublicIP); the APIs refuse one it does not know (related.go),
// so only a load balancer seeded by hand gets one nobody seeded, with a stable address from
// 192.0.2.0/24 onwards. A reserved IP assigned to another resource gives a *wrFailure: the create
// is accepted and its work request fails (assumed, see lbReservedAssigned). Caller holds s.mu.
func (s *Server) lbClaimReserved(id, user string) (string, error) {
	if other, ok := s.lb.ips.reservedUser[id]; ok && other != user {
		if p, known := s.vcn.publicIPs.get(id); known && p.AssignedEntityId != nil {
			other = *p.AssignedEntityId // what the Networking API shows as its holder
		}
		return "", lbReservedAssigned(id, other)
	}
	addr, err := s.lbReservedAddress(id)
	if err != nil {
		return "", err
	}
	s.lb.ips.reservedUser[id] = user
	s.lbAssignPublicIP(id)
	return addr, nil
}

// lbReservedAssigned is the failure of a create that asks for a reserved public IP another
// resource holds. OCI documents neither the stage nor the words; ocitest fails the create's work
// request (the load balancer is left FAILED without an address), which is harder on a client than
// a synchronous 409: it must check the IP itself first, or clean up a FAILED load balancer.
func lbReservedAssigned(id, holder string) error {
	return wrBadInput("Reserved public IP %s is already assigned to %s", id, holder)
}

func (s *Server) lbReservedAddress(id string) (string, error) {
	if p, ok := s.vcn.publicIPs.get(id); ok {
		switch {
		case p.Lifetime != core.PublicIpLifetimeReserved:
			return "", lbInvalid("Public IP %s is not a reserved public IP", id)
		case p.AssignedEntityId != nil:
			return "", lbReservedAssigned(id, *p.AssignedEntityId)
		}
		return deref(p.IpAddress), nil
	}
	a := &s.lb.ips
	if addr, ok := a.reservedAddr[id]; ok {
		return addr, nil
	}
	n := a.reservedSeq
	a.reservedSeq++
	addr := fmt.Sprintf("192.0.%d.%d", 2+n/254, n%254+1)
	a.reservedAddr[id] = addr
	return addr, nil
}

// lbAssignPublicIP shows a reserved public IP the VCN API knows as ASSIGNED, as OCI does once a
// load balancer takes it: assignedEntityType PRIVATE_IP (the SDK's PublicIpAssignedEntityTypeEnum
// has only PRIVATE_IP and NAT_GATEWAY) and assignedEntityId a private IP of the load balancer's,
// which lives in Oracle's tenancy and is not the load balancer's OCID, so GetPrivateIp does not
// find it (assumed). privateIpId, deprecated, carries the same OCID.
func (s *Server) lbAssignPublicIP(id string) {
	p, ok := s.vcn.publicIPs.get(id)
	if !ok {
		return
	}
	entity := s.NewID("privateip")
	p.LifecycleState = core.PublicIpLifecycleStateAssigned
	p.AssignedEntityId, p.PrivateIpId = &entity, &entity
	p.AssignedEntityType = core.PublicIpAssignedEntityTypePrivateIp
	s.vcn.publicIPs.put(id, p)
}

// lbReleaseReserved frees every address the deleted resource holds: its reserved IPs (a reserved
// public IP the VCN API knows is AVAILABLE again: the SDK's doc comment of ReservedIp, "Reserved
// IPs will not be deleted when the Load balancer is deleted. They will be unattached") and the
// private addresses it took in its subnets. Caller holds s.mu.
func (s *Server) lbReleaseReserved(user string) {
	for id, u := range s.lb.ips.reservedUser {
		if u != user {
			continue
		}
		delete(s.lb.ips.reservedUser, id)
		if p, ok := s.vcn.publicIPs.get(id); ok {
			p.LifecycleState = core.PublicIpLifecycleStateAvailable
			p.AssignedEntityId, p.PrivateIpId, p.AssignedEntityType = nil, nil, ""
			s.vcn.publicIPs.put(id, p)
		}
	}
	for _, held := range s.lb.ips.held {
		for addr, u := range held {
			if u == user {
				delete(held, addr)
			}
		}
	}
}

// nlbAddresses are the addresses of a new network load balancer: for IPv4 (nlbIPv4Addresses),
// then for IPv6 (nlbTakeIPv6), as its nlbIpVersion asks. full is the work-request failure of a
// subnet without a free address; err refuses the request. Caller holds s.mu.
func (s *Server) nlbAddresses(id string, d nlbapi.CreateNetworkLoadBalancerDetails) (addrs []nlbapi.IpAddress, full, err error) {
	private, subnet := deref(d.IsPrivate), deref(d.SubnetId)
	if err := s.lbCheckPublicSubnet(private, subnet); err != nil {
		return nil, nil, err
	}
	byKind, err := nlbCheckReservedIPs(d.ReservedIps, private, d.NlbIpVersion)
	if err != nil {
		return nil, nil, err
	}
	if nlbServes(d.NlbIpVersion, nlbapi.IpVersionIpv4) {
		if addrs, full, err = s.nlbIPv4Addresses(id, private, subnet, byKind, d.AssignedPrivateIpv4); err != nil {
			return nil, nil, err
		}
	}
	if nlbServes(d.NlbIpVersion, nlbapi.IpVersionIpv6) {
		a, err := s.nlbTakeIPv6(id, subnet, !private, d.SubnetIpv6Cidr, d.AssignedIpv6, byKind[nlbReservedIPv6])
		if err != nil {
			s.lbReleaseReserved(id)
			return nil, nil, err
		}
		addrs = append(addrs, a)
	}
	if addrs == nil {
		addrs = []nlbapi.IpAddress{}
	}
	return addrs, full, nil
}

// nlbIPv4Addresses are the IPv4 addresses of a network load balancer: its reserved IPs (at most
// one of each kind, checked by nlbCheckReservedIPs), else an ephemeral public address for a
// public one, and a private address in its subnet for every one (public first).
func (s *Server) nlbIPv4Addresses(id string, private bool, subnet string, byKind map[string]string, assigned *string) (addrs []nlbapi.IpAddress, full, err error) {
	v4 := func(ip string, public bool, reserved string) nlbapi.IpAddress {
		a := nlbapi.IpAddress{IpAddress: common.String(ip), IsPublic: common.Bool(public), IpVersion: nlbapi.IpVersionIpv4}
		if reserved != "" {
			a.ReservedIp = &nlbapi.ReservedIp{Id: common.String(reserved)}
		}
		return a
	}
	if rid := byKind[nlbReservedPublic]; rid != "" {
		ip, err := s.lbClaimReserved(rid, id)
		var taken *wrFailure
		switch {
		case errors.As(err, &taken):
			return nil, err, nil // held by another resource: the work request fails
		case err != nil:
			return nil, nil, err
		}
		addrs = append(addrs, v4(ip, true, rid))
	} else if !private {
		addrs = append(addrs, v4(s.lbPublicAddress(), true, ""))
	}
	if rid := byKind[nlbReservedPrivate]; rid != "" {
		if assigned != nil {
			s.lbReleaseReserved(id)
			return nil, nil, lbInvalid("assignedPrivateIpv4 and the reserved private IP %s both set the private address; give one", rid)
		}
		ip, err := s.nlbClaimReservedPrivate(rid, id, subnet)
		if err != nil {
			s.lbReleaseReserved(id)
			return nil, nil, err
		}
		return append(addrs, v4(ip, false, rid)), nil, nil
	}
	// A public network load balancer lists its private address too: the upstream CCM's
	// external-ip-only annotation exists to leave it out of a Service's status.
	held, full := s.lbHoldSubnetAddresses(id, []string{subnet})
	switch {
	case full != nil:
	case assigned != nil:
		addrs = append(addrs, v4(*assigned, false, ""))
	case held[0] != "":
		addrs = append(addrs, v4(held[0], false, ""))
	default:
		addrs = append(addrs, v4(s.lb.ips.nextPrivate(), false, ""))
	}
	return addrs, full, nil
}

// nlbClaimReservedPrivate assigns a reserved private IP to a network load balancer and returns
// its address. One the VCN API knows must be RESERVED, unassigned and in the load balancer's
// subnet; one it does not know gets a stable pool address. Caller holds s.mu.
func (s *Server) nlbClaimReservedPrivate(id, user, subnet string) (string, error) {
	if other, ok := s.lb.ips.reservedUser[id]; ok && other != user {
		return "", lbConflict("Reserved private IP %s is already assigned to %s", id, other)
	}
	addr := ""
	if p, ok := s.vcn.privateIPs.get(id); ok {
		switch {
		case p.Lifetime != core.PrivateIpLifetimeReserved:
			return "", lbInvalid("Private IP %s is not a reserved private IP", id)
		case p.VnicId != nil:
			return "", lbConflict("Reserved private IP %s is already assigned to %s", id, *p.VnicId)
		case deref(p.SubnetId) != subnet:
			return "", lbInvalid("Reserved private IP %s is in subnet %s, not in the network load balancer's subnet %s", id, deref(p.SubnetId), subnet)
		}
		addr = deref(p.IpAddress)
	} else if a, ok := s.lb.ips.reservedAddr[id]; ok {
		addr = a
	} else {
		addr = s.lb.ips.nextPrivate()
		s.lb.ips.reservedAddr[id] = addr
	}
	s.lb.ips.reservedUser[id] = user
	return addr, nil
}
