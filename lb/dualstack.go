// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"context"
	"fmt"

	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb/model"
)

// subnetReader reads a subnet: what a network load balancer Service that prefers or requires
// dual stack needs to know, whether its subnet has an IPv6 prefix. Options.PublicIPs provides it
// when it can (an *ociclient.VirtualNetworkClient does); it is not a separate option, so lb's
// public surface does not grow for it.
type subnetReader interface {
	GetSubnet(ctx context.Context, id string) (core.Subnet, error)
}

func subnetReaderOf(p PublicIPs) subnetReader {
	s, _ := p.(subnetReader)
	return s
}

// dualStack settles a network load balancer's IP families against its subnet: PreferDualStack
// gets both families when the subnet has an IPv6 prefix (Desired, not knowing, gave it one);
// RequireDualStack in a subnet without one is a validation error naming the subnet, rather than
// OCI's create failing. A subnet that cannot be read changes nothing: PreferDualStack stays
// single-stack (logged), RequireDualStack is left to OCI.
func (r *Reconciler) dualStack(ctx context.Context, svc *v1.Service, nodes []*v1.Node, secrets Secrets, spec *model.Spec) (*model.Spec, error) {
	policy := svc.Spec.IPFamilyPolicy
	if spec.Kind != model.KindNetworkLoadBalancer || policy == nil || *policy == v1.IPFamilyPolicySingleStack || len(spec.Subnets) == 0 {
		return spec, nil
	}
	logger := klog.FromContext(ctx).WithValues("service", klog.KObj(svc))
	if r.subnets == nil {
		logger.V(2).Info("Cannot read the subnet's IPv6 prefix (Options.PublicIPs does not read subnets): serving single-stack unless dual stack is required",
			"policy", *policy)
		return spec, nil
	}
	subnet, err := r.subnets.GetSubnet(ctx, spec.Subnets[0])
	if err != nil {
		logger.Info("Cannot read the network load balancer's subnet for its IPv6 prefix; serving single-stack unless dual stack is required",
			"subnet", spec.Subnets[0], "policy", *policy, "err", err)
		return spec, nil
	}
	hasIPv6 := subnet.Ipv6CidrBlock != nil || len(subnet.Ipv6CidrBlocks) > 0
	switch {
	case *policy == v1.IPFamilyPolicyRequireDualStack && !hasIPv6:
		return nil, &ValidationError{Service: svc.Namespace + "/" + svc.Name, Problems: []*Problem{{
			Field: "spec.ipFamilyPolicy", Value: string(*policy),
			Allowed: fmt.Sprintf("PreferDualStack or SingleStack: the network load balancer's subnet %s has no IPv6 prefix", spec.Subnets[0])}}}
	case *policy == v1.IPFamilyPolicyPreferDualStack && hasIPv6:
		dual, err := desired(svc, nodes, r.cfg, secrets, true)
		if err != nil {
			return nil, err
		}
		dual.Owner = spec.Owner
		return dual, nil
	}
	return spec, nil
}
