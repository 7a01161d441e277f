package ocitest

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/oracle/oci-go-sdk/v65/core"
)

// This file hands out the addresses of load balancers and network load balancers. Where the
// VCN API's state knows the subnet or the reserved public IP a request names, the address comes
// from there, as in OCI; otherwise it comes from a pool, so tests that never seed a VCN still
// work. Addresses never repeat across both APIs.

// lbIPAllocator is the pools' state. Guarded by Server.mu.
type lbIPAllocator struct {
	public, private, reservedSeq int
	bySubnet                     map[string]uint32 // addresses handed out per known subnet
	reservedAddr                 map[string]string // unknown reserved public IP OCID → its pool address
	reservedUser                 map[string]string // reserved public IP OCID → resource using it
}

func newLBIPAllocator() lbIPAllocator {
	return lbIPAllocator{bySubnet: map[string]uint32{}, reservedAddr: map[string]string{}, reservedUser: map[string]string{}}
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

// lbPrivateAddress allocates a private address in the subnet: from its top down when the VCN
// API knows the subnet (instances take addresses from the bottom up), else from 10.0.0.0/8.
// Caller holds s.mu.
func (s *Server) lbPrivateAddress(subnetID string) string {
	sn, ok := s.vcn.subnets.get(subnetID)
	if !ok || sn.CidrBlock == nil {
		return s.lb.ips.nextPrivate()
	}
	prefix, err := netip.ParsePrefix(*sn.CidrBlock)
	if err != nil || !prefix.Addr().Is4() {
		return s.lb.ips.nextPrivate()
	}
	base := prefix.Masked().Addr().As4()
	network := binary.BigEndian.Uint32(base[:])
	size := uint32(1) << (32 - prefix.Bits())
	for {
		s.lb.ips.bySubnet[subnetID]++
		n := s.lb.ips.bySubnet[subnetID]
		if n+2 >= size { // only the network address and the router's are left: the subnet is full
			return s.lb.ips.nextPrivate()
		}
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], network+size-1-n) // size-1 is the broadcast address
		addr := netip.AddrFrom4(b).String()
		used := s.vcn.privateIPs.filter(func(p core.PrivateIp) bool { return lbDeref(p.IpAddress) == addr })
		if len(used) == 0 {
			return addr
		}
	}
}

// lbClaimReserved assigns the reserved public IP with this OCID to a resource and returns its
// address. A reserved IP the VCN API knows gives its own address; one it does not know gets a
// stable address from 192.0.2.0/24 onwards. Caller holds s.mu.
func (s *Server) lbClaimReserved(id, user string) (string, error) {
	if other, ok := s.lb.ips.reservedUser[id]; ok && other != user {
		return "", lbConflict("Reserved public IP %s is already assigned to %s", id, other)
	}
	addr, err := s.lbReservedAddress(id)
	if err != nil {
		return "", err
	}
	s.lb.ips.reservedUser[id] = user
	return addr, nil
}

func (s *Server) lbReservedAddress(id string) (string, error) {
	if p, ok := s.vcn.publicIPs.get(id); ok {
		switch {
		case p.Lifetime != core.PublicIpLifetimeReserved:
			return "", lbInvalid("Public IP %s is not a reserved public IP", id)
		case p.AssignedEntityId != nil:
			return "", lbConflict("Reserved public IP %s is already assigned to %s", id, *p.AssignedEntityId)
		}
		return lbDeref(p.IpAddress), nil
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

// lbReleaseReserved frees every reserved IP the resource holds. Caller holds s.mu.
func (s *Server) lbReleaseReserved(user string) {
	for id, u := range s.lb.ips.reservedUser {
		if u == user {
			delete(s.lb.ips.reservedUser, id)
		}
	}
}
