// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"context"
	"fmt"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
	v1 "k8s.io/api/core/v1"
)

// NetworkLoadBalancers is the part of the OCI Network Load Balancer API lb calls so far: a
// listing. oci-ccm does not manage network load balancers yet, but the upstream CCM did, so a
// migrated cluster has Services whose load balancer is one; deleting such a Service must not
// release it while its network load balancer may still exist. An *ociclient.Client's
// NetworkLoadBalancers satisfies it.
type NetworkLoadBalancers interface {
	ListNetworkLoadBalancers(ctx context.Context, compartmentID, displayName string) ([]networkloadbalancer.NetworkLoadBalancerSummary, error)
}

// asksForNLB reports whether svc asks for a network load balancer (load-balancer-type nlb).
func asksForNLB(svc *v1.Service) bool {
	v, err := AnnotationLoadBalancerType.Value(svc.Annotations)
	return err == nil && strings.EqualFold(strings.TrimSpace(v), string(KindNetworkLoadBalancer))
}

// guardNLB returns an error while a Service that asks for a network load balancer may still have
// one: oci-ccm cannot delete it, and releasing the Service would leave it running, unowned. Only
// a successful listing of the compartment by every name the Service's load balancer may have
// proves there is none; without a NetworkLoadBalancers client, or when the listing fails, the
// Service is kept.
func (r *Reconciler) guardNLB(ctx context.Context, svc *v1.Service) error {
	if !asksForNLB(svc) {
		return nil
	}
	key := svc.Namespace + "/" + svc.Name
	if r.nlbs == nil {
		return fmt.Errorf("service %s asks for a network load balancer (%s: nlb), which oci-ccm does not manage yet, "+
			"and no NetworkLoadBalancers client was given to check that none exists: keeping the Service", key, AnnotationLoadBalancerType)
	}
	for _, name := range r.namer.Candidates(svc) {
		found, err := r.nlbs.ListNetworkLoadBalancers(ctx, r.cfg.CompartmentID, name)
		if err != nil {
			return fmt.Errorf("service %s asks for a network load balancer; listing network load balancers named %q "+
				"(IAM: inspect network-load-balancers) to prove it has none: %w", key, name, err)
		}
		for _, n := range found {
			if n.LifecycleState == networkloadbalancer.LifecycleStateDeleted {
				continue
			}
			return fmt.Errorf("service %s asks for a network load balancer, and %s (%q, %s) may be it: oci-ccm does not "+
				"delete network load balancers yet; delete it in OCI and the Service's deletion completes",
				key, deref(n.Id), name, n.LifecycleState)
		}
	}
	return nil
}
