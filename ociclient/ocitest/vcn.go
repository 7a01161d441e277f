// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
)

// corePageLimit is the page size of Core Services list operations when the caller sets no
// limit (OCI does not document one; clients must follow opc-next-page either way).
const corePageLimit = 100

// vcnStore holds the emulated Core networking state. Guarded by Server.mu.
type vcnStore struct {
	vcns       ordered[core.Vcn]
	subnets    ordered[core.Subnet]
	secLists   ordered[secList]
	nsgs       ordered[nsgState]
	nsgTokens  map[string]nsgToken // opc-retry-token of a CreateNetworkSecurityGroup → what it created
	vnics      ordered[core.Vnic]
	privateIPs ordered[core.PrivateIp]
	publicIPs  ordered[core.PublicIp]
	ipv6s      ordered[core.Ipv6] // reserved IPv6s (AddIPv6), for a network load balancer's reservedIps

	publicIPsHandedOut uint32 // addresses taken from the public pool, including skipped ones
	macs               uint32 // MAC addresses handed out
}

func newVCNStore() *vcnStore { return &vcnStore{} }

func (s *Server) registerVCN() {
	const v = "/20160918"
	s.handle("GetVcn", ClassRead, "GET "+v+"/vcns/{vcnId}", func(w http.ResponseWriter, r *http.Request) {
		serveGet(s, w, r, "vcn", r.PathValue("vcnId"), s.vcn.vcns.get)
	})
	s.handle("ListVcns", ClassRead, "GET "+v+"/vcns", s.listVcns)
	s.handle("GetSubnet", ClassRead, "GET "+v+"/subnets/{subnetId}", func(w http.ResponseWriter, r *http.Request) {
		serveGet(s, w, r, "subnet", r.PathValue("subnetId"), s.vcn.subnets.get)
	})
	s.handle("ListSubnets", ClassRead, "GET "+v+"/subnets", s.listSubnets)
	s.handle("GetVnic", ClassRead, "GET "+v+"/vnics/{vnicId}", func(w http.ResponseWriter, r *http.Request) {
		serveGet(s, w, r, "vnic", r.PathValue("vnicId"), s.vcn.vnics.get)
	})
	s.handle("GetPrivateIp", ClassRead, "GET "+v+"/privateIps/{privateIpId}", func(w http.ResponseWriter, r *http.Request) {
		serveGet(s, w, r, "private IP", r.PathValue("privateIpId"), s.vcn.privateIPs.get)
	})
	s.handle("ListPrivateIps", ClassRead, "GET "+v+"/privateIps", s.listPrivateIPs)
	s.handle("GetPublicIp", ClassRead, "GET "+v+"/publicIps/{publicIpId}", func(w http.ResponseWriter, r *http.Request) {
		serveGet(s, w, r, "public IP", r.PathValue("publicIpId"), s.vcn.publicIPs.get)
	})
	// A POST only because the address travels in a body; it changes nothing.
	s.handle("GetPublicIpByIpAddress", ClassRead, "POST "+v+"/publicIps/actions/getByIpAddress", withBody(s.getPublicIPByIPAddress))
	s.handle("ListPublicIps", ClassRead, "GET "+v+"/publicIps", s.listPublicIPs)
	s.registerSecurityLists()
	s.registerNSGs()
}

// serveGet answers a Get operation from one of the stores.
func serveGet[T any](s *Server, w http.ResponseWriter, r *http.Request, what, id string, lookup func(string) (T, bool)) {
	if v, ok := lookupOrNotFound(s, w, r, what, id, lookup); ok {
		writeJSON(w, r, http.StatusOK, v)
	}
}

// lookupOrNotFound looks id up in one of the stores under Server.mu and answers 404 naming what
// when it is not there.
func lookupOrNotFound[T any](s *Server, w http.ResponseWriter, r *http.Request, what, id string, lookup func(string) (T, bool)) (T, bool) {
	var v T
	ok := underLock(s, func() (ok bool) { v, ok = lookup(id); return ok })
	if !ok {
		notFound(w, r, what, id)
	}
	return v, ok
}

// serveList answers a List operation with one page of what items returns under Server.mu.
func serveList[T any](s *Server, w http.ResponseWriter, r *http.Request, items func() []T) {
	all := underLock(s, items)
	writeJSON(w, r, http.StatusOK, pageOf(s, w, r, all, corePageLimit))
}

// serveCompartmentList answers a List operation that requires compartmentId with one page of the
// items of store that keep accepts for that compartment.
func serveCompartmentList[T any](s *Server, w http.ResponseWriter, r *http.Request, store *ordered[T],
	keep func(compartment string, item T) bool) {
	comp, ok := requiredQuery(w, r, "compartmentId")
	if !ok {
		return
	}
	serveList(s, w, r, func() []T {
		return store.filter(func(item T) bool { return keep(comp, item) })
	})
}

// queryMatches reports whether an optional query filter is absent or equals value.
func queryMatches(r *http.Request, param, value string) bool {
	q := r.URL.Query().Get(param)
	return q == "" || q == value
}

func (s *Server) listVcns(w http.ResponseWriter, r *http.Request) {
	serveCompartmentList(s, w, r, &s.vcn.vcns, func(comp string, v core.Vcn) bool {
		return deref(v.CompartmentId) == comp && queryMatches(r, "displayName", deref(v.DisplayName)) &&
			queryMatches(r, "lifecycleState", string(v.LifecycleState))
	})
}

func (s *Server) listSubnets(w http.ResponseWriter, r *http.Request) {
	serveCompartmentList(s, w, r, &s.vcn.subnets, func(comp string, sn core.Subnet) bool {
		return deref(sn.CompartmentId) == comp && queryMatches(r, "vcnId", deref(sn.VcnId)) &&
			queryMatches(r, "displayName", deref(sn.DisplayName)) &&
			queryMatches(r, "lifecycleState", string(sn.LifecycleState))
	})
}

// listPrivateIPs needs a subnet or a VNIC, as OCI does; an address narrows a subnet's list.
func (s *Server) listPrivateIPs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("subnetId") == "" && q.Get("vnicId") == "" {
		writeError(w, r, http.StatusBadRequest, "MissingParameter", "one of the query parameters subnetId or vnicId is required")
		return
	}
	serveList(s, w, r, func() []core.PrivateIp {
		return s.vcn.privateIPs.filter(func(p core.PrivateIp) bool {
			return queryMatches(r, "subnetId", deref(p.SubnetId)) && queryMatches(r, "vnicId", deref(p.VnicId)) &&
				queryMatches(r, "ipAddress", deref(p.IpAddress))
		})
	})
}

func (s *Server) listPublicIPs(w http.ResponseWriter, r *http.Request) {
	scope, ok := requiredQuery(w, r, "scope")
	if !ok {
		return
	}
	comp, ok := requiredQuery(w, r, "compartmentId")
	if !ok {
		return
	}
	switch core.PublicIpScopeEnum(scope) {
	case core.PublicIpScopeRegion:
	case core.PublicIpScopeAvailabilityDomain:
		if _, ok := requiredQuery(w, r, "availabilityDomain"); !ok {
			return
		}
	default:
		writeError(w, r, http.StatusBadRequest, "InvalidParameter", "scope must be REGION or AVAILABILITY_DOMAIN")
		return
	}
	serveList(s, w, r, func() []core.PublicIp {
		return s.vcn.publicIPs.filter(func(p core.PublicIp) bool {
			return string(p.Scope) == scope && deref(p.CompartmentId) == comp &&
				queryMatches(r, "availabilityDomain", deref(p.AvailabilityDomain)) &&
				queryMatches(r, "lifetime", string(p.Lifetime))
		})
	})
}

func (s *Server) getPublicIPByIPAddress(w http.ResponseWriter, r *http.Request, d core.GetPublicIpByIpAddressDetails) {
	addr := deref(d.IpAddress)
	found := underLock(s, func() []core.PublicIp {
		return s.vcn.publicIPs.filter(func(p core.PublicIp) bool { return deref(p.IpAddress) == addr })
	})
	if len(found) == 0 {
		notFound(w, r, "public IP", addr)
		return
	}
	writeJSON(w, r, http.StatusOK, found[0])
}

// AddVCN adds a virtual cloud network and returns it as stored. Defaults: a new OCID, the
// tenancy as compartment, CIDR 10.0.0.0/16, state AVAILABLE. Ipv6CidrBlocks (OCI allocates a
// /56; any IPv6 prefix up to /64 is taken) make it IPv6-enabled, so its subnets may have IPv6
// prefixes.
//
// Like every Add method, it panics on invalid input, as regexp.MustCompile does: seeding is test
// setup written by hand, where a panic points at the mistake. Seed validates a Tenancy read from
// a file and returns errors instead.
func (s *Server) AddVCN(v core.Vcn) core.Vcn {
	return seed(s, "AddVCN", v, s.addVCNLocked)
}

func (s *Server) addVCNLocked(v core.Vcn) (core.Vcn, error) {
	orDefault(&v.CidrBlock, new("10.0.0.0/16"))
	if len(v.CidrBlocks) == 0 {
		v.CidrBlocks = []string{*v.CidrBlock}
	}
	for _, c := range v.CidrBlocks {
		if _, err := netip.ParsePrefix(c); err != nil {
			return v, fmt.Errorf("cidrBlocks: %w", err)
		}
	}
	for _, c := range v.Ipv6CidrBlocks {
		if p, err := netip.ParsePrefix(c); err != nil || !p.Addr().Is6() || p.Bits() > 64 {
			return v, fmt.Errorf("ipv6CidrBlocks: %q is not an IPv6 prefix of /64 or shorter", c)
		}
	}
	v.Id = new(s.NewID("vcn"))
	s.defaultCompartment(&v.CompartmentId)
	v.LifecycleState = core.VcnLifecycleStateAvailable
	orDefault(&v.DisplayName, new(fmt.Sprintf("vcn-%d", len(s.vcn.vcns.ids)+1)))
	v.TimeCreated = timeCreatedNow()
	s.vcn.vcns.put(*v.Id, v)
	return v, nil
}

// underLock runs f with Server.mu held and returns what it returns. The lock is released even if
// f panics: net/http recovers a handler's panic, and a lock left held would hang every later call
// of the test rather than fail it. A handler whose answer depends on the state returns it as a
// func from f and calls it after, so no response is written under the lock.
func underLock[T any](s *Server, f func() T) T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return f()
}

// seed is an Add method around its locked half add: add gets a copy of v under Server.mu, the
// caller a copy of what it stored, and invalid input panics naming the method (see AddVCN).
func seed[T any](s *Server, method string, v T, add func(T) (T, error)) T {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := add(jsonClone(v))
	if err != nil {
		panic(fmt.Sprintf("ocitest: %s: %v", method, err))
	}
	return jsonClone(v)
}

// seededSubnetLocked is the subnet a resource being seeded names in its subnetId. Caller holds
// s.mu.
func (s *Server) seededSubnetLocked(id *string) (core.Subnet, error) {
	sn, ok := s.vcn.subnets.get(deref(id))
	if !ok {
		return sn, fmt.Errorf("no subnet %q", deref(id))
	}
	return sn, nil
}

// seededVCNLocked is the VCN a resource being seeded names in its vcnId, which must be given.
// Caller holds s.mu.
func (s *Server) seededVCNLocked(id *string) (core.Vcn, error) {
	if id == nil {
		return core.Vcn{}, fmt.Errorf("vcnId is required")
	}
	vcn, ok := s.vcn.vcns.get(*id)
	if !ok {
		return vcn, fmt.Errorf("no VCN %s", *id)
	}
	return vcn, nil
}

// AddSubnet adds a subnet and returns it as stored. VcnId and CidrBlock are required; the CIDR
// must lie inside the VCN's and overlap no other subnet of it; SecurityListIds must name lists of
// the same VCN. An IPv6-enabled subnet gives Ipv6CidrBlock or Ipv6CidrBlocks: /64 prefixes inside
// the VCN's Ipv6CidrBlocks (so AddVCN needs them first), overlapping no other subnet; both fields
// are filled in. Defaults: the VCN's compartment, a regional subnet (no AvailabilityDomain), state
// AVAILABLE, the CIDR's first address as virtual router (and the IPv6 prefix's, for IPv6). It
// panics on invalid input.
func (s *Server) AddSubnet(sn core.Subnet) core.Subnet {
	return seed(s, "AddSubnet", sn, s.addSubnetLocked)
}

func (s *Server) addSubnetLocked(sn core.Subnet) (core.Subnet, error) {
	if err := s.checkSubnetLocked(sn); err != nil {
		return sn, err
	}
	vcn, _ := s.vcn.vcns.get(*sn.VcnId)
	prefix := netip.MustParsePrefix(*sn.CidrBlock).Masked()
	sn.CidrBlock = new(prefix.String())
	sn.Id = new(s.NewID("subnet"))
	orDefault(&sn.CompartmentId, vcn.CompartmentId)
	sn.LifecycleState = core.SubnetLifecycleStateAvailable
	if sn.RouteTableId == nil {
		sn.RouteTableId = new(s.NewID("routetable"))
	}
	sn.VirtualRouterIp = new(prefix.Addr().Next().String())
	if v6 := subnetIPv6Prefixes(sn); len(v6) > 0 {
		sn.Ipv6CidrBlocks = make([]string, len(v6))
		for i, p := range v6 {
			sn.Ipv6CidrBlocks[i] = p.String()
		}
		sn.Ipv6CidrBlock = new(sn.Ipv6CidrBlocks[0])
		sn.Ipv6VirtualRouterIp = new(v6[0].Addr().Next().String()) // assumed, as for IPv4
	}
	sn.VirtualRouterMac = new("00:00:17:00:00:01")
	orDefault(&sn.DisplayName, new(fmt.Sprintf("subnet-%d", len(s.vcn.subnets.ids)+1)))
	orDefault(&sn.ProhibitPublicIpOnVnic, new(false))
	sn.ProhibitInternetIngress = sn.ProhibitPublicIpOnVnic
	sn.TimeCreated = timeCreatedNow()
	s.vcn.subnets.put(*sn.Id, sn)
	return sn, nil
}

func (s *Server) checkSubnetLocked(sn core.Subnet) error {
	vcn, err := s.seededVCNLocked(sn.VcnId)
	if err != nil {
		return err
	}
	if sn.CidrBlock == nil {
		return fmt.Errorf("cidrBlock is required")
	}
	if sn.AvailabilityDomain != nil {
		if _, ok := s.availabilityDomainLocked(*sn.AvailabilityDomain); !ok {
			return fmt.Errorf("no availability domain %q", *sn.AvailabilityDomain)
		}
	}
	prefix, err := netip.ParsePrefix(*sn.CidrBlock)
	if err != nil {
		return fmt.Errorf("cidrBlock: %w", err)
	}
	inVCN := false
	for _, c := range vcn.CidrBlocks {
		if p, err := netip.ParsePrefix(c); err == nil && p.Bits() <= prefix.Bits() && p.Contains(prefix.Addr()) {
			inVCN = true
		}
	}
	if !inVCN {
		return fmt.Errorf("cidrBlock %s is outside the VCN's %v", prefix, vcn.CidrBlocks)
	}
	for _, other := range s.vcn.subnets.filter(func(o core.Subnet) bool { return *o.VcnId == *sn.VcnId }) {
		if netip.MustParsePrefix(*other.CidrBlock).Overlaps(prefix) {
			return fmt.Errorf("cidrBlock %s overlaps subnet %s (%s)", prefix, *other.Id, *other.CidrBlock)
		}
	}
	if err := checkSubnetIPv6(vcn, sn, s.vcn.subnets.filter(func(o core.Subnet) bool { return *o.VcnId == *sn.VcnId })); err != nil {
		return err
	}
	for _, id := range sn.SecurityListIds {
		l, ok := s.vcn.secLists.get(id)
		if !ok || *l.list.VcnId != *sn.VcnId {
			return fmt.Errorf("no security list %s in VCN %s", id, *sn.VcnId)
		}
	}
	return nil
}

// subnetIPv6Prefixes are the subnet's IPv6 prefixes, masked: ipv6CidrBlocks, or else
// ipv6CidrBlock, as the SDK's Subnet carries both. Unparsable ones are left out (checkSubnetIPv6
// refuses them at seeding).
func subnetIPv6Prefixes(sn core.Subnet) []netip.Prefix {
	blocks := sn.Ipv6CidrBlocks
	if len(blocks) == 0 && sn.Ipv6CidrBlock != nil {
		blocks = []string{*sn.Ipv6CidrBlock}
	}
	var out []netip.Prefix
	for _, b := range blocks {
		if p, err := netip.ParsePrefix(b); err == nil && p.Addr().Is6() {
			out = append(out, p.Masked())
		}
	}
	return out
}

// checkSubnetIPv6 checks an IPv6-enabled subnet as OCI does: each prefix is a /64 ("The subnet
// size is always /64", the SDK's Subnet.Ipv6CidrBlock) inside one of the VCN's IPv6 prefixes,
// overlapping no other subnet's; ipv6CidrBlock, when given with ipv6CidrBlocks, is one of them.
func checkSubnetIPv6(vcn core.Vcn, sn core.Subnet, others []core.Subnet) error {
	blocks := sn.Ipv6CidrBlocks
	if len(blocks) == 0 && sn.Ipv6CidrBlock != nil {
		blocks = []string{*sn.Ipv6CidrBlock}
	}
	if sn.Ipv6CidrBlock != nil && !slices.Contains(blocks, *sn.Ipv6CidrBlock) {
		return fmt.Errorf("ipv6CidrBlock %s is not one of ipv6CidrBlocks %v", *sn.Ipv6CidrBlock, blocks)
	}
	for _, b := range blocks {
		p, err := netip.ParsePrefix(b)
		if err != nil || !p.Addr().Is6() || p.Bits() != 64 {
			return fmt.Errorf("ipv6CidrBlocks: %q is not an IPv6 /64 prefix (an OCI subnet's IPv6 prefix is always /64)", b)
		}
		inVCN := false
		for _, c := range append(slices.Clone(vcn.Ipv6CidrBlocks), vcn.Ipv6PrivateCidrBlocks...) {
			if vp, err := netip.ParsePrefix(c); err == nil && vp.Bits() <= p.Bits() && vp.Contains(p.Addr()) {
				inVCN = true
			}
		}
		if !inVCN {
			return fmt.Errorf("ipv6CidrBlocks: %s is outside the VCN's IPv6 prefixes %v", p, vcn.Ipv6CidrBlocks)
		}
		for _, o := range others {
			for _, op := range subnetIPv6Prefixes(o) {
				if op.Overlaps(p) {
					return fmt.Errorf("ipv6CidrBlocks: %s overlaps subnet %s (%s)", p, *o.Id, op)
				}
			}
		}
	}
	return nil
}

// AddPublicIP adds a public IP, by default a reserved one (lifetime RESERVED, scope REGION) with
// the next free address of the pool 198.51.100.0/24 onwards, in the tenancy's compartment. A set
// PrivateIpId assigns it to that private IP. It panics on an address already in use or an
// unknown private IP.
func (s *Server) AddPublicIP(p core.PublicIp) core.PublicIp {
	return seed(s, "AddPublicIP", p, s.addPublicIPLocked)
}

func (s *Server) addPublicIPLocked(p core.PublicIp) (core.PublicIp, error) {
	p.Lifetime = cmp.Or(p.Lifetime, core.PublicIpLifetimeReserved)
	if p.Scope == "" {
		p.Scope = core.PublicIpScopeRegion
		if p.Lifetime == core.PublicIpLifetimeEphemeral {
			p.Scope = core.PublicIpScopeAvailabilityDomain
		}
	}
	if p.Scope == core.PublicIpScopeAvailabilityDomain {
		ad, ok := s.availabilityDomainLocked(deref(p.AvailabilityDomain))
		if !ok {
			return p, fmt.Errorf("no availability domain %s", ad)
		}
		p.AvailabilityDomain = &ad
	}
	if deref(p.IpAddress) == "" {
		p.IpAddress = new(s.nextPublicAddressLocked())
	} else if _, err := netip.ParseAddr(*p.IpAddress); err != nil {
		return p, fmt.Errorf("ipAddress: %w", err)
	} else if s.publicAddressInUseLocked(*p.IpAddress) {
		return p, fmt.Errorf("public IP %s is already in use", *p.IpAddress)
	}
	p.LifecycleState = core.PublicIpLifecycleStateAvailable
	if p.PrivateIpId != nil {
		if _, ok := s.vcn.privateIPs.get(*p.PrivateIpId); !ok {
			return p, fmt.Errorf("no private IP %s", *p.PrivateIpId)
		}
		p.AssignedEntityId = p.PrivateIpId
		p.AssignedEntityType = core.PublicIpAssignedEntityTypePrivateIp
		p.LifecycleState = core.PublicIpLifecycleStateAssigned
	}
	p.Id = new(s.NewID("publicip"))
	s.defaultCompartment(&p.CompartmentId)
	orDefault(&p.DisplayName, new("publicip-"+*p.IpAddress))
	p.TimeCreated = timeCreatedNow()
	s.vcn.publicIPs.put(*p.Id, p)
	return p, nil
}

// AddIPv6 adds a reserved IPv6 (lifetime RESERVED, on no VNIC), as a network load balancer's
// reservedIps (an ocid1.ipv6. OCID) or UpdateNetworkLoadBalancer's reservedIpv6Id may name one;
// an IPv6 OCID the server does not know is refused there, as an unknown reserved public IP is.
// SubnetId is required and must name an IPv6-enabled subnet; the address defaults to the lowest
// free one from <prefix>::100 of its first prefix; the compartment to the subnet's. It panics on
// an unknown subnet, one without IPv6, or an address outside its prefixes or in use.
func (s *Server) AddIPv6(p core.Ipv6) core.Ipv6 {
	return seed(s, "AddIPv6", p, s.addIPv6Locked)
}

func (s *Server) addIPv6Locked(p core.Ipv6) (core.Ipv6, error) {
	sn, err := s.seededSubnetLocked(p.SubnetId)
	if err != nil {
		return p, err
	}
	prefixes := subnetIPv6Prefixes(sn)
	if len(prefixes) == 0 {
		return p, fmt.Errorf("subnet %s has no IPv6 prefix", *sn.Id)
	}
	if deref(p.IpAddress) == "" {
		p.IpAddress = new(s.nlbFreeIPv6(*sn.Id, prefixes[0]))
	} else if a, err := netip.ParseAddr(*p.IpAddress); err != nil || !a.Is6() || !prefixesContain(prefixes, a) ||
		s.nlbIPv6InUse(*sn.Id, a.String(), "") {
		return p, fmt.Errorf("%s is not a free address in the IPv6 prefixes of subnet %s (%v)", *p.IpAddress, *sn.Id, prefixes)
	} else {
		p.IpAddress = new(a.String())
	}
	p.Id = new(s.NewID("ipv6"))
	p.Lifetime = core.Ipv6LifetimeReserved
	p.LifecycleState = core.Ipv6LifecycleStateAvailable
	p.IpState = core.Ipv6IpStateAvailable
	p.VnicId = nil
	orDefault(&p.CompartmentId, sn.CompartmentId)
	orDefault(&p.DisplayName, p.IpAddress)
	p.TimeCreated = timeCreatedNow()
	s.vcn.ipv6s.put(*p.Id, p)
	return p, nil
}

// AddPrivateIP adds a reserved private IP (lifetime RESERVED, on no VNIC), as a network load
// balancer's reservedIps may name one. SubnetId is required; the address defaults to the
// subnet's lowest free one; the compartment to the subnet's. It panics on an unknown subnet or an
// address outside it or in use.
func (s *Server) AddPrivateIP(p core.PrivateIp) core.PrivateIp {
	return seed(s, "AddPrivateIP", p, s.addPrivateIPLocked)
}

func (s *Server) addPrivateIPLocked(p core.PrivateIp) (core.PrivateIp, error) {
	sn, err := s.seededSubnetLocked(p.SubnetId)
	if err != nil {
		return p, err
	}
	if deref(p.IpAddress) == "" {
		addr, err := s.nextPrivateAddressLocked(sn)
		if err != nil {
			return p, err
		}
		p.IpAddress = &addr
	} else if a, err := netip.ParseAddr(*p.IpAddress); err != nil || !netip.MustParsePrefix(*sn.CidrBlock).Contains(a) ||
		len(s.vcn.privateIPs.filter(func(o core.PrivateIp) bool {
			return deref(o.SubnetId) == *sn.Id && deref(o.IpAddress) == *p.IpAddress
		})) > 0 {
		return p, fmt.Errorf("%s is not a free address of subnet %s (%s)", *p.IpAddress, *sn.Id, *sn.CidrBlock)
	}
	p.Id = new(s.NewID("privateip"))
	p.Lifetime = core.PrivateIpLifetimeReserved
	p.VnicId = nil
	orDefault(&p.CompartmentId, sn.CompartmentId)
	orDefault(&p.DisplayName, p.IpAddress)
	p.IsPrimary = new(false)
	p.TimeCreated = timeCreatedNow()
	s.vcn.privateIPs.put(*p.Id, p)
	return p, nil
}

// nextPublicAddressLocked hands out addresses from 198.51.100.1 (TEST-NET-2, reserved for
// documentation) upwards, skipping network and broadcast-looking ones and any a test assigned
// by hand. Load balancer addresses come from other ranges, so the two never meet.
func (s *Server) nextPublicAddressLocked() string {
	base := binary.BigEndian.Uint32([]byte{198, 51, 100, 0})
	for {
		s.vcn.publicIPsHandedOut++
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], base+s.vcn.publicIPsHandedOut)
		if b[3] == 0 || b[3] == 255 {
			continue
		}
		if a := netip.AddrFrom4(b).String(); !s.publicAddressInUseLocked(a) {
			return a
		}
	}
}

func (s *Server) publicAddressInUseLocked(addr string) bool {
	return len(s.vcn.publicIPs.filter(func(p core.PublicIp) bool { return deref(p.IpAddress) == addr })) > 0
}

// nextPrivateAddressLocked returns the lowest free address of a subnet, skipping the network
// address, the virtual router (first host) and the broadcast address, as OCI reserves them.
func (s *Server) nextPrivateAddressLocked(sn core.Subnet) (string, error) {
	prefix := netip.MustParsePrefix(*sn.CidrBlock)
	used := map[string]bool{}
	for _, p := range s.vcn.privateIPs.filter(func(p core.PrivateIp) bool { return deref(p.SubnetId) == *sn.Id }) {
		used[*p.IpAddress] = true
	}
	for a := prefix.Addr().Next().Next(); prefix.Contains(a) && prefix.Contains(a.Next()); a = a.Next() {
		if !used[a.String()] {
			return a.String(), nil
		}
	}
	return "", fmt.Errorf("subnet %s (%s) has no free address", *sn.Id, *sn.CidrBlock)
}

// defaultCompartment fills an unset compartment with the compartment of the tenancy the server
// started with, or with the tenancy (the root compartment) when it started empty.
func (s *Server) defaultCompartment(p **string) {
	switch {
	case *p != nil:
	case s.seeded.Compartment != "":
		*p = new(s.seeded.Compartment)
	default:
		*p = new(s.opts.TenancyID)
	}
}

// timeCreatedNow is the creation time stamped on seeded resources.
func timeCreatedNow() *common.SDKTime {
	return &common.SDKTime{Time: time.Now().UTC().Truncate(time.Millisecond)}
}
