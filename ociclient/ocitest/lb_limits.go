// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

// This file holds the service limits and placement rules the Load Balancer and Network Load
// Balancer APIs share: per-load-balancer counts, the tenancy's limits on fixed shapes, and which
// subnets a load balancer may go in. README.md cites the evidence for each.

// LBLimits are the service limits the server enforces. A zero field means OCI's default. The two
// APIs have their own per-load-balancer counts: the fields that name the NLB are the Network Load
// Balancer API's (OCI's "Introduction to Network Load Balancer", "Limits on Network Load
// Balancers"), the others and FixedShapes the Load Balancer API's.
type LBLimits struct {
	// ListenersPerLB caps listeners on one load balancer (OCI default 16).
	ListenersPerLB int
	// BackendSetsPerLB caps backend sets on one load balancer (OCI default 16).
	BackendSetsPerLB int
	// BackendsPerSet caps backends in one backend set of a load balancer (OCI default 512).
	BackendsPerSet int
	// BackendsPerLB caps backends over all backend sets of one load balancer. Default 512:
	// sources differ (a 2017 quote of OCI's overview says 1,024 in total), and the lower figure
	// is the harder one to test against.
	BackendsPerLB int
	// ListenersPerNLB caps listeners on one network load balancer (OCI default 50).
	ListenersPerNLB int
	// BackendSetsPerNLB caps backend sets on one network load balancer (OCI default 50).
	BackendSetsPerNLB int
	// BackendsPerNLBSet caps backends in one backend set of a network load balancer (OCI
	// default 512).
	BackendsPerNLBSet int
	// BackendsPerNLB caps backends over all backend sets of one network load balancer (OCI
	// default 1,024).
	BackendsPerNLB int
	// FixedShapes is the tenancy's limit on load balancers of each fixed shape ("10Mbps",
	// "10Mbps-Micro", "100Mbps", "400Mbps", "8000Mbps"), counted over the load balancers that
	// exist. A shape not listed has limit 0, as in a new tenancy (OCI is retiring fixed shapes):
	// creating such a load balancer fails with 400 LimitExceeded.
	FixedShapes map[string]int
}

func (l LBLimits) withDefaults() LBLimits {
	for _, f := range []struct {
		field *int
		def   int
	}{
		{&l.ListenersPerLB, 16}, {&l.BackendSetsPerLB, 16}, {&l.BackendsPerSet, 512}, {&l.BackendsPerLB, 512},
		{&l.ListenersPerNLB, 50}, {&l.BackendSetsPerNLB, 50}, {&l.BackendsPerNLBSet, 512}, {&l.BackendsPerNLB, 1024},
	} {
		if *f.field <= 0 {
			*f.field = f.def
		}
	}
	l.FixedShapes = maps.Clone(l.FixedShapes)
	return l
}

// SetLBLimits replaces the service limits (Options.LBLimits sets them at start). Changes already
// accepted are not checked again.
func (s *Server) SetLBLimits(l LBLimits) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lb.limits = l.withDefaults()
}

// lbCaps are one API's limits on the parts of one load balancer: the checks of both APIs take
// them, so the Load Balancer and Network Load Balancer handlers count alike.
type lbCaps struct {
	of                                               string // "load balancer" or "network load balancer"
	listeners, backendSets, backendsPerSet, backends int
}

// classic are the Load Balancer API's caps.
func (l LBLimits) classic() lbCaps {
	return lbCaps{"load balancer", l.ListenersPerLB, l.BackendSetsPerLB, l.BackendsPerSet, l.BackendsPerLB}
}

// network are the Network Load Balancer API's caps.
func (l LBLimits) network() lbCaps {
	return lbCaps{"network load balancer", l.ListenersPerNLB, l.BackendSetsPerNLB, l.BackendsPerNLBSet, l.BackendsPerNLB}
}

func lbCheckCount(what string, n, limit int) error {
	if n > limit {
		return lbLimitExceeded("%d %s exceed the limit of %d", n, what, limit)
	}
	return nil
}

// checkListeners refuses a load balancer that would have n listeners, beyond the cap.
func (c lbCaps) checkListeners(n int) error { return lbCheckCount("listeners", n, c.listeners) }

// checkBackendSets refuses a load balancer that would have n backend sets, beyond the cap.
func (c lbCaps) checkBackendSets(n int) error { return lbCheckCount("backend sets", n, c.backendSets) }

// checkSet refuses backend set set holding n backends, beyond the cap of one set.
func (c lbCaps) checkSet(set string, n int) error {
	return lbCheckCount(fmt.Sprintf("backends in backend set '%s'", set), n, c.backendsPerSet)
}

// checkTotal refuses a load balancer holding n backends over all its sets, beyond the cap.
func (c lbCaps) checkTotal(n int) error {
	return lbCheckCount("backends on the "+c.of, n, c.backends)
}

// checkCreate refuses a create's counts: listeners, backend sets, and backends over all sets
// (each set's own count is checked with its details).
func (c lbCaps) checkCreate(listeners, sets, backends int) error {
	if err := c.checkListeners(listeners); err != nil {
		return err
	}
	if err := c.checkBackendSets(sets); err != nil {
		return err
	}
	return c.checkTotal(backends)
}

// checkBackends refuses a change that leaves backend set set with n backends: over the cap of
// one set, or, with others (the backends of the load balancer's other sets), over its total.
func (c lbCaps) checkBackends(set string, n, others int) error {
	if err := c.checkSet(set, n); err != nil {
		return err
	}
	return c.checkTotal(n + others)
}

// lbBackendCount counts the backends of every set in sets but the one named except ("" counts
// them all); size gives one set's count.
func lbBackendCount[S any](sets map[string]S, except string, size func(S) int) int {
	n := 0
	for name, bs := range sets {
		if name != except {
			n += size(bs)
		}
	}
	return n
}

// lbSetSize is the number of backends in a load balancer's backend set.
func lbSetSize(bs loadbalancer.BackendSet) int { return len(bs.Backends) }

// lbShapeLimitName is the name of a fixed shape's tenancy limit, as OCI's LimitExceeded message
// spells it: "lb-100mbps-count", "lb-10mbps-micro-count".
func lbShapeLimitName(shape string) string { return "lb-" + strings.ToLower(shape) + "-count" }

// lbCheckShapeLimit refuses one more load balancer of a fixed shape when the tenancy's limit for
// it is used up. Caller holds s.mu.
func (s *Server) lbCheckShapeLimit(shape string) error {
	if shape == "" || shape == "flexible" {
		return nil
	}
	used := 0
	for _, e := range s.lb.lbs {
		if deref(e.lb.ShapeName) == shape {
			used++
		}
	}
	if used+1 > s.lb.limits.FixedShapes[shape] {
		return lbLimitExceeded("The following service limits were exceeded: %s. Request a service limit increase from the service limits page in the console.",
			lbShapeLimitName(shape))
	}
	return nil
}

// lbCheckPlacement applies OCI's rules for the subnets of a load balancer (the create has made
// sure the VCN API knows them, related.go): a public load balancer never goes in a private subnet (prohibitPublicIpOnVnic), and in a region with several
// availability domains it needs a regional subnet or two AD-specific subnets in different ADs.
// Caller holds s.mu.
func (s *Server) lbCheckPlacement(private bool, subnetIDs []string) error {
	if private {
		return nil
	}
	var known []core.Subnet
	for _, id := range subnetIDs {
		if err := s.lbCheckPublicSubnet(private, id); err != nil {
			return err
		}
		if sn, ok := s.vcn.subnets.get(id); ok {
			known = append(known, sn)
		}
	}
	if len(known) != len(subnetIDs) || len(s.ident.ads) < 2 {
		return nil
	}
	var ads []string
	for _, sn := range known {
		if sn.AvailabilityDomain == nil {
			return nil // a regional subnet hosts both the primary and the standby
		}
		ads = append(ads, *sn.AvailabilityDomain)
	}
	if len(ads) == 1 {
		return lbInvalid("Subnet %s is specific to %s: a public load balancer needs a regional subnet or two subnets in different availability domains",
			subnetIDs[0], ads[0])
	}
	if ads[0] == ads[1] {
		return lbInvalid("Subnets %s and %s are both in %s: a public load balancer needs two subnets in different availability domains",
			subnetIDs[0], subnetIDs[1], ads[0])
	}
	return nil
}

// lbCheckTenancy is what a create is checked against beyond its own details: placement in the
// known subnets and the tenancy's limit for a fixed shape. Caller holds s.mu.
func (s *Server) lbCheckTenancy(private bool, subnetIDs []string, shape string) error {
	if err := s.lbCheckPlacement(private, subnetIDs); err != nil {
		return err
	}
	return s.lbCheckShapeLimit(shape)
}

// lbCheckPublicSubnet refuses a public (network) load balancer in a known private subnet.
// Caller holds s.mu.
func (s *Server) lbCheckPublicSubnet(private bool, subnetID string) error {
	if sn, ok := s.vcn.subnets.get(subnetID); ok && !private && deref(sn.ProhibitPublicIpOnVnic) {
		return lbInvalid("Subnet %s is a private subnet (prohibitPublicIpOnVnic): a public load balancer needs a public subnet", subnetID)
	}
	return nil
}

// lbCheckShapeLimits validates fixed-shape limits from a Tenancy: known fixed shapes, counts
// not negative.
func lbCheckShapeLimits(m map[string]int) error {
	for _, shape := range slices.Sorted(maps.Keys(m)) {
		if shape == "flexible" || !slices.Contains(lbShapes, shape) {
			return fmt.Errorf("%q is not a fixed shape (%s)", shape, strings.Join(lbShapes[1:], ", "))
		}
		if m[shape] < 0 {
			return fmt.Errorf("%s: limit %d is negative", shape, m[shape])
		}
	}
	return nil
}
