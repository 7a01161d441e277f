// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"cmp"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/core"
)

// computeStore holds the emulated Compute state. Guarded by Server.mu.
type computeStore struct {
	instances   ordered[core.Instance]
	attachments ordered[core.VnicAttachment]
}

func newComputeStore() *computeStore { return &computeStore{} }

func (s *Server) registerCompute() {
	const v = "/20160918"
	s.handle("GetInstance", ClassRead, "GET "+v+"/instances/{instanceId}", func(w http.ResponseWriter, r *http.Request) {
		serveGet(s, w, r, "instance", r.PathValue("instanceId"), s.compute.instances.get)
	})
	s.handle("ListInstances", ClassRead, "GET "+v+"/instances", s.listInstances)
	s.handle("ListVnicAttachments", ClassRead, "GET "+v+"/vnicAttachments", s.listVnicAttachments)
}

func (s *Server) listInstances(w http.ResponseWriter, r *http.Request) {
	serveCompartmentList(s, w, r, &s.compute.instances, func(comp string, i core.Instance) bool {
		return deref(i.CompartmentId) == comp && queryMatches(r, "displayName", deref(i.DisplayName)) &&
			queryMatches(r, "lifecycleState", string(i.LifecycleState)) &&
			queryMatches(r, "availabilityDomain", deref(i.AvailabilityDomain))
	})
}

func (s *Server) listVnicAttachments(w http.ResponseWriter, r *http.Request) {
	serveCompartmentList(s, w, r, &s.compute.attachments, func(comp string, a core.VnicAttachment) bool {
		return deref(a.CompartmentId) == comp && queryMatches(r, "instanceId", deref(a.InstanceId)) &&
			queryMatches(r, "vnicId", deref(a.VnicId)) &&
			queryMatches(r, "availabilityDomain", deref(a.AvailabilityDomain))
	})
}

// Instance is an instance to seed, with its VNICs.
type Instance struct {
	core.Instance
	// VNICs are the instance's VNICs, the first one primary; each needs a SubnetId. PrivateIp
	// defaults to the subnet's lowest free address. A non-nil PublicIp gives the VNIC an
	// ephemeral public IP: that address, or the pool's next one when it is "". Ipv6Addresses
	// are kept as given. HostnameLabel defaults, on the primary VNIC, to the lower-cased display
	// name.
	VNICs []core.Vnic
}

// AddInstance adds an instance with its VNICs, VNIC attachments, private IPs and public IPs,
// and returns the instance as stored. Defaults: a new OCID, the tenancy as compartment, the first
// availability domain (one is created if there is none), FAULT-DOMAIN-1, state RUNNING, shape
// VM.Standard.E4.Flex. It panics on invalid input (unknown subnet or AD, an address outside its
// subnet or already in use).
func (s *Server) AddInstance(in Instance) core.Instance {
	inst, vnics := jsonClone(in.Instance), jsonClone(in.VNICs)
	s.mu.Lock()
	defer s.mu.Unlock()
	created, err := s.addInstanceLocked(inst, vnics)
	if err != nil {
		panic(fmt.Sprintf("ocitest: AddInstance: %v", err))
	}
	return jsonClone(created)
}

func (s *Server) addInstanceLocked(inst core.Instance, vnics []core.Vnic) (core.Instance, error) {
	ad, ok := s.availabilityDomainLocked(deref(inst.AvailabilityDomain))
	if !ok {
		return inst, fmt.Errorf("no availability domain %q", ad)
	}
	inst.AvailabilityDomain = &ad
	if err := s.checkVNICsLocked(ad, vnics); err != nil {
		return inst, err
	}

	inst.Id = new(s.NewID("instance"))
	s.defaultCompartment(&inst.CompartmentId)
	orDefault(&inst.DisplayName, new(fmt.Sprintf("instance-%d", len(s.compute.instances.ids)+1)))
	orDefault(&inst.FaultDomain, new("FAULT-DOMAIN-1"))
	inst.LifecycleState = cmp.Or(inst.LifecycleState, core.InstanceLifecycleStateRunning)
	orDefault(&inst.Shape, new("VM.Standard.E4.Flex"))
	inst.Region = new(shortRegion(s.opts.Region))
	inst.TimeCreated = timeCreatedNow()
	s.compute.instances.put(*inst.Id, inst)

	for i, v := range vnics {
		if err := s.attachVNICLocked(inst, i, v); err != nil {
			return inst, err // checkVNICsLocked makes this unreachable short of address exhaustion
		}
	}
	return inst, nil
}

// checkVNICsLocked validates VNICs before anything is created, so a bad one leaves no trace.
func (s *Server) checkVNICsLocked(ad string, vnics []core.Vnic) error {
	privateSeen, publicSeen := map[string]bool{}, map[string]bool{}
	for i, v := range vnics {
		if v.SubnetId == nil {
			return fmt.Errorf("VNICs[%d]: subnetId is required", i)
		}
		sn, ok := s.vcn.subnets.get(*v.SubnetId)
		if !ok {
			return fmt.Errorf("VNICs[%d]: no subnet %s", i, *v.SubnetId)
		}
		if sn.AvailabilityDomain != nil && *sn.AvailabilityDomain != ad {
			return fmt.Errorf("VNICs[%d]: subnet %s is in %s, the instance in %s", i, *sn.Id, *sn.AvailabilityDomain, ad)
		}
		if a := deref(v.PrivateIp); a != "" {
			addr, err := netip.ParseAddr(a)
			if err != nil {
				return fmt.Errorf("VNICs[%d]: privateIp: %w", i, err)
			}
			if !netip.MustParsePrefix(*sn.CidrBlock).Contains(addr) {
				return fmt.Errorf("VNICs[%d]: privateIp %s is outside subnet %s", i, a, *sn.CidrBlock)
			}
			key := *sn.Id + "/" + a
			inUse := len(s.vcn.privateIPs.filter(func(p core.PrivateIp) bool { return deref(p.SubnetId) == *sn.Id && *p.IpAddress == a })) > 0
			if inUse || privateSeen[key] {
				return fmt.Errorf("VNICs[%d]: privateIp %s is already in use in subnet %s", i, a, *sn.Id)
			}
			privateSeen[key] = true
		}
		if a := deref(v.PublicIp); a != "" {
			if _, err := netip.ParseAddr(a); err != nil {
				return fmt.Errorf("VNICs[%d]: publicIp: %w", i, err)
			}
			if s.publicAddressInUseLocked(a) || publicSeen[a] {
				return fmt.Errorf("VNICs[%d]: publicIp %s is already in use", i, a)
			}
			publicSeen[a] = true
		}
		for _, a := range v.Ipv6Addresses {
			if addr, err := netip.ParseAddr(a); err != nil || !addr.Is6() {
				return fmt.Errorf("VNICs[%d]: ipv6Addresses: %q is not an IPv6 address", i, a)
			}
		}
	}
	return nil
}

// attachVNICLocked creates the VNIC, its primary private IP, its attachment and its ephemeral
// public IP.
func (s *Server) attachVNICLocked(inst core.Instance, index int, v core.Vnic) error {
	sn, _ := s.vcn.subnets.get(*v.SubnetId)
	if deref(v.PrivateIp) == "" {
		a, err := s.nextPrivateAddressLocked(sn)
		if err != nil {
			return err
		}
		v.PrivateIp = &a
	}
	if v.HostnameLabel == nil && index == 0 {
		v.HostnameLabel = new(strings.ToLower(*inst.DisplayName))
	}
	v.Id = new(s.NewID("vnic"))
	v.AvailabilityDomain = inst.AvailabilityDomain
	v.CompartmentId = inst.CompartmentId
	v.LifecycleState = core.VnicLifecycleStateAvailable
	v.IsPrimary = new(index == 0)
	orDefault(&v.DisplayName, new(fmt.Sprintf("%s-vnic-%d", *inst.DisplayName, index)))
	s.vcn.macs++
	m := s.vcn.macs
	v.MacAddress = new(fmt.Sprintf("02:00:17:%02X:%02X:%02X", byte(m>>16), byte(m>>8), byte(m)))
	v.TimeCreated = timeCreatedNow()

	priv := core.PrivateIp{
		Id:                 new(s.NewID("privateip")),
		AvailabilityDomain: inst.AvailabilityDomain,
		CompartmentId:      inst.CompartmentId,
		DisplayName:        v.PrivateIp,
		HostnameLabel:      v.HostnameLabel,
		IpAddress:          v.PrivateIp,
		IsPrimary:          new(true),
		SubnetId:           v.SubnetId,
		VnicId:             v.Id,
		TimeCreated:        v.TimeCreated,
	}
	s.vcn.privateIPs.put(*priv.Id, priv)

	if v.PublicIp != nil {
		pub, err := s.addPublicIPLocked(core.PublicIp{
			IpAddress:          v.PublicIp,
			Lifetime:           core.PublicIpLifetimeEphemeral,
			Scope:              core.PublicIpScopeAvailabilityDomain,
			AvailabilityDomain: inst.AvailabilityDomain,
			CompartmentId:      inst.CompartmentId,
			PrivateIpId:        priv.Id,
		})
		if err != nil {
			return err
		}
		v.PublicIp = pub.IpAddress
	}
	s.vcn.vnics.put(*v.Id, v)

	att := core.VnicAttachment{
		Id:                 new(s.NewID("vnicattachment")),
		AvailabilityDomain: inst.AvailabilityDomain,
		CompartmentId:      inst.CompartmentId,
		InstanceId:         inst.Id,
		LifecycleState:     core.VnicAttachmentLifecycleStateAttached,
		TimeCreated:        v.TimeCreated,
		DisplayName:        v.DisplayName,
		NicIndex:           new(index),
		SubnetId:           v.SubnetId,
		VnicId:             v.Id,
	}
	s.compute.attachments.put(*att.Id, att)
	return nil
}

// Instance returns a copy of an instance as stored now, for assertions.
func (s *Server) Instance(id string) (core.Instance, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	inst, ok := s.compute.instances.get(id)
	return jsonClone(inst), ok
}

// InstanceVNICs returns copies of an instance's VNICs, primary first.
func (s *Server) InstanceVNICs(id string) []core.Vnic {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.Vnic
	for _, att := range s.attachmentsOfLocked(id) {
		if v, ok := s.vcn.vnics.get(*att.VnicId); ok {
			out = append(out, jsonClone(v))
		}
	}
	return out
}

// attachmentsOfLocked returns an instance's VNIC attachments in NIC order.
func (s *Server) attachmentsOfLocked(instanceID string) []core.VnicAttachment {
	atts := s.compute.attachments.filter(func(a core.VnicAttachment) bool { return deref(a.InstanceId) == instanceID })
	slices.SortFunc(atts, func(a, b core.VnicAttachment) int { return deref(a.NicIndex) - deref(b.NicIndex) })
	return atts
}

// hostnameLocked is the instance's host name: the primary VNIC's hostname label, or the
// lower-cased display name.
func (s *Server) hostnameLocked(inst core.Instance) string {
	for _, att := range s.attachmentsOfLocked(*inst.Id) {
		if v, ok := s.vcn.vnics.get(*att.VnicId); ok && deref(v.HostnameLabel) != "" {
			return *v.HostnameLabel
		}
	}
	return strings.ToLower(deref(inst.DisplayName))
}

// SetInstanceState sets an instance's lifecycle state, as a stop, start or termination in the
// console would; its VNICs stay. It reports whether the instance exists.
func (s *Server) SetInstanceState(id string, state core.InstanceLifecycleStateEnum) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	inst, ok := s.compute.instances.get(id)
	if !ok {
		return false
	}
	inst.LifecycleState = state
	s.compute.instances.put(id, inst)
	return true
}

// RemoveInstance deletes an instance and everything attached to it (VNICs, attachments, private
// and ephemeral public IPs; reserved public IPs assigned to it become unassigned), so every read
// of it answers 404 from then on, as a terminated instance eventually does. It reports whether
// the instance existed.
func (s *Server) RemoveInstance(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.compute.instances.get(id); !ok {
		return false
	}
	for _, att := range s.attachmentsOfLocked(id) {
		vnicID := deref(att.VnicId)
		for _, priv := range s.vcn.privateIPs.filter(func(p core.PrivateIp) bool { return deref(p.VnicId) == vnicID }) {
			s.releasePublicIPsLocked(*priv.Id)
			s.vcn.privateIPs.remove(*priv.Id)
		}
		s.vcn.vnics.remove(vnicID)
		s.compute.attachments.remove(*att.Id)
	}
	s.compute.instances.remove(id)
	if s.meta.self == id {
		s.meta.self = ""
	}
	return true
}

// releasePublicIPsLocked deletes the ephemeral public IPs of a private IP and unassigns the
// reserved ones.
func (s *Server) releasePublicIPsLocked(privateIPID string) {
	for _, p := range s.vcn.publicIPs.filter(func(p core.PublicIp) bool { return deref(p.PrivateIpId) == privateIPID }) {
		if p.Lifetime == core.PublicIpLifetimeEphemeral {
			s.vcn.publicIPs.remove(*p.Id)
			continue
		}
		p.PrivateIpId, p.AssignedEntityId, p.AssignedEntityType = nil, nil, ""
		p.LifecycleState = core.PublicIpLifecycleStateAvailable
		s.vcn.publicIPs.put(*p.Id, p)
	}
}
