// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/common"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// This file resolves network load balancer backends given by targetId ("The IP OCID/Instance
// OCID associated with the backend server", the SDK's doc comment): the target must exist, and
// the backend is shown with the target's address, as OCI shows it (the upstream CCM reads
// ipAddress of every backend it gets back, including those it sent by targetId).

// nlbTargetAddresses are the addresses of a backend target, primary first: an instance's VNICs'
// private IPs then IPv6 addresses, or a private IP's address. ok is false when the VCN and
// Compute APIs know no such target. Caller holds s.mu.
func (s *Server) nlbTargetAddresses(id string) (addrs []string, ok bool) {
	if strings.HasPrefix(id, "ocid1.privateip.") {
		p, ok := s.vcn.privateIPs.get(id)
		if !ok {
			return nil, false
		}
		return []string{deref(p.IpAddress)}, true
	}
	if _, ok := s.compute.instances.get(id); !ok {
		return nil, false
	}
	var v6 []string
	for _, att := range s.attachmentsOfLocked(id) {
		v, ok := s.vcn.vnics.get(deref(att.VnicId))
		if !ok {
			continue
		}
		if a := deref(v.PrivateIp); a != "" {
			addrs = append(addrs, a)
		}
		v6 = append(v6, v.Ipv6Addresses...)
	}
	return append(addrs, v6...), true
}

// nlbResolveBackends checks the backends of a backend set of IP version v that are given by
// targetId and fills in their ipAddress: the target's first address of that version. A target
// that does not exist, one without an address of the set's version, or an ipAddress that is not
// one of the target's, is 400 InvalidParameter (assumed: OCI documents no message). The target
// may be in any compartment and needs no permission of the caller (assumed). Caller holds s.mu.
func (s *Server) nlbResolveBackends(set string, v nlbapi.IpVersionEnum, backends []nlbapi.Backend) ([]nlbapi.Backend, error) {
	out := slices.Clone(backends)
	for i, b := range out {
		target := deref(b.TargetId)
		if target == "" {
			continue
		}
		addrs, ok := s.nlbTargetAddresses(target)
		if !ok {
			return nil, lbInvalid("backend set '%s': targetId %s is not an instance or private IP that exists", set, target)
		}
		var family []string
		for _, a := range addrs {
			if ip, err := netip.ParseAddr(a); err == nil && ip.Is6() == (nlbPartVersion(v) == nlbapi.IpVersionIpv6) {
				family = append(family, ip.String())
			}
		}
		if b.IpAddress == nil {
			if len(family) == 0 {
				return nil, lbInvalid("backend set '%s': target %s has no %s address", set, target, nlbPartVersion(v))
			}
			out[i].IpAddress = common.String(family[0])
			continue
		}
		ip, err := netip.ParseAddr(*b.IpAddress)
		if err != nil || !slices.Contains(family, ip.String()) {
			return nil, lbInvalid("backend set '%s': ipAddress %s is not an address of target %s (%v)", set, *b.IpAddress, target, addrs)
		}
	}
	return out, nil
}

// nlbResolveSet resolves the targets of a whole backend set's details.
func (s *Server) nlbResolveSet(name string, d nlbapi.BackendSetDetails) (nlbapi.BackendSetDetails, error) {
	backends, err := s.nlbResolveBackends(name, d.IpVersion, d.Backends)
	if err != nil {
		return d, err
	}
	d.Backends = backends
	return d, nil
}

// nlbResolveCreate resolves the targets of every backend set of a create. Caller holds s.mu.
func (s *Server) nlbResolveCreate(d *nlbapi.CreateNetworkLoadBalancerDetails) error {
	sets := make(map[string]nlbapi.BackendSetDetails, len(d.BackendSets))
	for _, name := range lbSortedKeys(d.BackendSets) {
		bs, err := s.nlbResolveSet(name, d.BackendSets[name])
		if err != nil {
			return err
		}
		sets[name] = bs
	}
	d.BackendSets = sets
	return nil
}
