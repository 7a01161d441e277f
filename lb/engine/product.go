// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/internal/ipaddr"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/lb/oci"
	"github.com/oci-ccm/oci-ccm/lb/oci/loadbalancer"
)

// A Service's load balancer is one of two OCI products: a Load Balancer (KindLoadBalancer) or a
// Network Load Balancer (KindNetworkLoadBalancer). They share everything above the API: one
// Spec, one Diff and ordering, one Reconciler with one name index, one absence rule and one
// applier. What differs is behind oci.Product, in the products' own packages: how a load
// balancer is read, listed, created and changed, and how its SDK values become an oci.Found
// (lb/oci/loadbalancer and lb/oci/nlb). This package names what it uses of them here.

// product is what the Reconciler needs from one OCI load-balancing service.
type product = oci.Product

// found is a load balancer of either product as OCI reports it.
type found = oci.Found

// address is one IP address of a load balancer.
type address = oci.Address

// The lifecycle states the engine decides on, the same for both products.
const (
	lifecycleCreating = oci.LifecycleCreating
	lifecycleActive   = oci.LifecycleActive
	lifecycleUpdating = oci.LifecycleUpdating
	lifecycleFailed   = oci.LifecycleFailed
)

// canChangeRuleSets refuses, before anything of plan is applied, a plan that changes rule sets
// one by one on a product whose Client does not implement RuleSets: found in the middle of
// applying, it would leave the plan half done. (A create carries its rule sets itself.) Only the
// Load Balancer API has rule sets.
func canChangeRuleSets(p product, plan *model.Plan) error {
	lp, ok := p.(loadbalancer.Product)
	if !ok {
		return nil
	}
	return lp.CanChangeRuleSets(plan)
}

// statusOf lists the load balancer's addresses for the Service status. A load balancer reports
// its public addresses when public, its private ones when internal. A network load balancer
// reports every address, as the upstream CCM does, or only the public ones with publicOnly
// (annotation.NLBExternalIPOnly).
func statusOf(f *found, ipMode *v1.LoadBalancerIPMode, publicOnly bool) *v1.LoadBalancerStatus {
	var ips []string
	for _, a := range f.Addresses {
		keep := a.Public != f.Internal
		if f.Kind == model.KindNetworkLoadBalancer {
			keep = a.Public || !publicOnly
		}
		if a.IP != "" && keep {
			ips = append(ips, a.IP)
		}
	}
	ipaddr.Sort(ips)
	st := &v1.LoadBalancerStatus{}
	for _, ip := range slices.Compact(ips) {
		ing := v1.LoadBalancerIngress{IP: ip}
		if ipMode != nil {
			m := *ipMode
			ing.IPMode = &m
		}
		st.Ingress = append(st.Ingress, ing)
	}
	return st
}
