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

// LBLimits are the service limits the server enforces, for both APIs. A zero field means OCI's
// default.
type LBLimits struct {
	// ListenersPerLB caps listeners on one load balancer (OCI default 16).
	ListenersPerLB int
	// BackendSetsPerLB caps backend sets on one load balancer (OCI default 16).
	BackendSetsPerLB int
	// BackendsPerSet caps backends in one backend set (OCI default 512).
	BackendsPerSet int
	// BackendsPerLB caps backends over all backend sets of one load balancer (the Load Balancer
	// API only). Default 512: sources differ (a 2017 quote of OCI's overview says 1,024 in
	// total), and the lower figure is the harder one to test against.
	BackendsPerLB int
	// FixedShapes is the tenancy's limit on load balancers of each fixed shape ("10Mbps",
	// "10Mbps-Micro", "100Mbps", "400Mbps", "8000Mbps"), counted over the load balancers that
	// exist. A shape not listed has limit 0, as in a new tenancy (OCI is retiring fixed shapes):
	// creating such a load balancer fails with 400 LimitExceeded.
	FixedShapes map[string]int
}

func (l LBLimits) withDefaults() LBLimits {
	if l.ListenersPerLB <= 0 {
		l.ListenersPerLB = 16
	}
	if l.BackendSetsPerLB <= 0 {
		l.BackendSetsPerLB = 16
	}
	if l.BackendsPerSet <= 0 {
		l.BackendsPerSet = 512
	}
	if l.BackendsPerLB <= 0 {
		l.BackendsPerLB = 512
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

func lbCheckCount(what string, n, limit int) error {
	if n > limit {
		return lbLimitExceeded("%d %s exceed the limit of %d", n, what, limit)
	}
	return nil
}

// lbCheckTotalBackends refuses a change that would leave more backends on the load balancer,
// over all its backend sets, than the limit: backend set set gets n backends, the others keep
// theirs.
func lbCheckTotalBackends(lb *loadbalancer.LoadBalancer, set string, n int, limits LBLimits) error {
	total := n
	for name, bs := range lb.BackendSets {
		if name != set {
			total += len(bs.Backends)
		}
	}
	return lbCheckCount("backends on the load balancer", total, limits.BackendsPerLB)
}

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
		if lbDeref(e.lb.ShapeName) == shape {
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
	if sn, ok := s.vcn.subnets.get(subnetID); ok && !private && lbDeref(sn.ProhibitPublicIpOnVnic) {
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
