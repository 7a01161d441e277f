// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"

	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/internal/lookup"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// subnetReader reads a subnet: what a network load balancer Service that prefers or requires
// dual stack needs to know, whether its subnet has an IPv6 prefix. Options.PublicIPs provides it
// when it can (an *ociclient.VirtualNetworkClient does); it is not a separate option, so lb's
// public surface does not grow for it.
type subnetReader interface {
	GetSubnet(ctx context.Context, id string) (core.Subnet, error)
}

// also is p as T when p implements T as well (an *ociclient.VirtualNetworkClient reads subnets
// and network security groups besides public IPs), else nil.
func also[T any](p PublicIPs) T {
	t, _ := p.(T)
	return t
}

// knownOf reads what Desired needs to know of svc besides its Nodes (Known), before the Spec is
// built: its TLS Secrets as given; the Nodes that run its endpoints (Options.EndpointNodes), for
// externalTrafficPolicy Local; and, for a network load balancer Service that prefers or requires
// dual stack, whether its subnet has an IPv6 prefix: one GetSubnet (ociclient caches subnets).
// A subnet that cannot be read is left unknown (logged): PreferDualStack stays single-stack,
// RequireDualStack is left to OCI.
func (r *Reconciler) knownOf(ctx context.Context, svc *v1.Service, secrets lb.Secrets) lb.Known {
	known := lb.Known{Secrets: secrets}
	if r.endpoints != nil && svc.Spec.ExternalTrafficPolicy == v1.ServiceExternalTrafficPolicyLocal {
		if running, ok := r.endpoints(svc); ok {
			if running == nil {
				running = map[string]bool{} // known: no endpoint
			}
			known.EndpointNodes = running
		}
	}
	policy := svc.Spec.IPFamilyPolicy
	if lookup.Kind(svc) != model.KindNetworkLoadBalancer || policy == nil || *policy == v1.IPFamilyPolicySingleStack {
		return known
	}
	subnets := r.Subnets(svc, secrets)
	if len(subnets) == 0 {
		return known
	}
	logger := klog.FromContext(ctx).WithValues("service", klog.KObj(svc))
	if r.subnets == nil {
		logger.V(2).Info("Cannot read the subnet's IPv6 prefix (Options.PublicIPs does not read subnets): serving single-stack unless dual stack is required",
			"policy", *policy)
		return known
	}
	subnet, err := r.subnets.GetSubnet(ctx, subnets[0])
	if err != nil {
		logger.Info("Cannot read the network load balancer's subnet for its IPv6 prefix; serving single-stack unless dual stack is required",
			"subnet", subnets[0], "policy", *policy, "err", err)
		return known
	}
	known.SubnetIPv6 = map[string]bool{subnets[0]: subnet.Ipv6CidrBlock != nil || len(subnet.Ipv6CidrBlocks) > 0}
	return known
}
