// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"context"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
)

// loadBalancers is cloudprovider.LoadBalancer: each call is one Service's, and goes to the
// Service orchestrator (ccm/service). The clusterName arguments are ignored: the Cloud has one
// identity.
type loadBalancers struct{ c *Cloud }

var _ cloudprovider.LoadBalancer = (*loadBalancers)(nil)

// GetLoadBalancer reports the status of the Service's load balancer, if it exists.
func (l *loadBalancers) GetLoadBalancer(ctx context.Context, _ string, svc *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	return l.c.svc.Get(ctx, svc)
}

// GetLoadBalancerName returns the load balancer's OCI display name.
func (l *loadBalancers) GetLoadBalancerName(_ context.Context, _ string, svc *v1.Service) string {
	return l.c.svc.Name(svc)
}

// EnsureLoadBalancer creates or updates the load balancer, then its security rules.
func (l *loadBalancers) EnsureLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) (*v1.LoadBalancerStatus, error) {
	return l.c.svc.Ensure(ctx, svc, nodes)
}

// UpdateLoadBalancer is EnsureLoadBalancer for a node-set change: a plan of backend changes
// alone returns once OCI accepted it (service.Reconciler.Update).
func (l *loadBalancers) UpdateLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) error {
	return l.c.svc.Update(ctx, svc, nodes)
}

// EnsureLoadBalancerDeleted deletes the load balancer the Service owns, then its security rules.
func (l *loadBalancers) EnsureLoadBalancerDeleted(ctx context.Context, _ string, svc *v1.Service) error {
	return l.c.svc.Delete(ctx, svc)
}
