// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"

	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlb "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// The reads and the guarded write of one backend set, in both APIs, for a caller that changes
// the backends of a set it shares with others (lb/binding) and so must not lose their changes:
// it reads the set with its ETag and writes with If-Match. They are methods of the clients, not
// of the LoadBalancers and NetworkLoadBalancers interfaces, so that implementations of those
// written before them keep compiling.
//
// The ETag differs between the APIs. The Load Balancer API has one ETag for a load balancer and
// everything in it: "set the if-match parameter to the value of the ETag for the load balancer.
// This value can be obtained from a GET or POST response for any resource of that load balancer"
// (oci-go-sdk v65.130.0, loadbalancer.UpdateBackendSetRequest.IfMatch), and it "only changes when
// the load balancer or an associated resource is created, updated, or deleted"
// (GetLoadBalancerResponse.ETag). The Network Load Balancer API asks for "the etag from a previous
// GET or POST response for that resource" (networkloadbalancer.UpdateBackendSetRequest.IfMatch):
// the backend set's own GetBackendSet.

// GetLoadBalancerWithETag is GetLoadBalancer that also returns the load balancer's ETag, which
// guards a write to any of its parts (UpdateBackendSetIfMatch): one read gives a backend set, the
// load balancer's tags and the ETag.
func (l *LoadBalancerClient) GetLoadBalancerWithETag(ctx context.Context, id string) (loadbalancer.LoadBalancer, string, error) {
	req := loadbalancer.GetLoadBalancerRequest{LoadBalancerId: &id}
	resp, err := call(ctx, l.c, l.op("GetLoadBalancer", classRead, id), l.sdk.GetLoadBalancer, req)
	return resp.LoadBalancer, deref(resp.ETag), err
}

// GetBackendSet returns one backend set of a load balancer and the load balancer's ETag.
func (l *LoadBalancerClient) GetBackendSet(ctx context.Context, lbID, name string) (loadbalancer.BackendSet, string, error) {
	req := loadbalancer.GetBackendSetRequest{LoadBalancerId: &lbID, BackendSetName: &name}
	resp, err := call(ctx, l.c, l.op("GetBackendSet", classRead, lbID), l.sdk.GetBackendSet, req)
	return resp.BackendSet, deref(resp.ETag), err
}

// UpdateBackendSetIfMatch is UpdateBackendSet guarded by the load balancer's ETag: OCI applies it
// only if ifMatch is still the ETag (an empty ifMatch updates unconditionally). A stale ETag
// fails with an error for which IsPreconditionFailed is true; the retry layer never retries 412,
// because the caller must read again. The body replaces the whole set (policy, health checker,
// backends and the optional settings: a field left out is cleared), so carry over what is not
// being changed.
func (l *LoadBalancerClient) UpdateBackendSetIfMatch(ctx context.Context, lbID, name string, details loadbalancer.UpdateBackendSetDetails, ifMatch string) (string, error) {
	req := loadbalancer.UpdateBackendSetRequest{LoadBalancerId: &lbID, BackendSetName: &name, UpdateBackendSetDetails: details, OpcRetryToken: retryTokenOr("")}
	if ifMatch != "" {
		req.IfMatch = &ifMatch
	}
	resp, err := call(ctx, l.c, l.op("UpdateBackendSet", classWrite, lbID), l.updateBackendSet, req)
	return deref(resp.OpcWorkRequestId), err
}

// GetBackendSetHealth returns the health of a load balancer's backend set: its status, the
// names of the backends that are not OK by status, and the number of backends. OK backends are
// not named.
func (l *LoadBalancerClient) GetBackendSetHealth(ctx context.Context, lbID, name string) (loadbalancer.BackendSetHealth, error) {
	req := loadbalancer.GetBackendSetHealthRequest{LoadBalancerId: &lbID, BackendSetName: &name}
	resp, err := call(ctx, l.c, l.op("GetBackendSetHealth", classRead, lbID), l.sdk.GetBackendSetHealth, req)
	return resp.BackendSetHealth, err
}

// GetBackendSet returns one backend set of a network load balancer and the set's ETag.
func (n *NetworkLoadBalancerClient) GetBackendSet(ctx context.Context, nlbID, name string) (nlb.BackendSet, string, error) {
	req := nlb.GetBackendSetRequest{NetworkLoadBalancerId: &nlbID, BackendSetName: &name}
	resp, err := call(ctx, n.c, n.op("GetBackendSet", classRead, nlbID), n.sdk.GetBackendSet, req)
	return resp.BackendSet, deref(resp.Etag), err
}

// UpdateBackendSetIfMatch is UpdateBackendSet guarded by the backend set's ETag (GetBackendSet):
// OCI applies it only if ifMatch is still the ETag (an empty ifMatch updates unconditionally). A
// stale ETag fails with an error for which IsPreconditionFailed is true, never retried here. The
// Network Load Balancer API's fields are all optional: send only what changes.
func (n *NetworkLoadBalancerClient) UpdateBackendSetIfMatch(ctx context.Context, nlbID, name string, details nlb.UpdateBackendSetDetails, ifMatch string) (string, error) {
	req := nlb.UpdateBackendSetRequest{NetworkLoadBalancerId: &nlbID, BackendSetName: &name, UpdateBackendSetDetails: details, OpcRetryToken: retryTokenOr("")}
	if ifMatch != "" {
		req.IfMatch = &ifMatch
	}
	resp, err := call(ctx, n.c, n.op("UpdateBackendSet", classWrite, nlbID), n.updateBackendSet, req)
	return deref(resp.OpcWorkRequestId), err
}

// GetBackendSetHealth returns the health of a network load balancer's backend set: its status,
// the names of the backends that are not OK by status, and the number of backends.
func (n *NetworkLoadBalancerClient) GetBackendSetHealth(ctx context.Context, nlbID, name string) (nlb.BackendSetHealth, error) {
	req := nlb.GetBackendSetHealthRequest{NetworkLoadBalancerId: &nlbID, BackendSetName: &name}
	resp, err := call(ctx, n.c, n.op("GetBackendSetHealth", classRead, nlbID), n.sdk.GetBackendSetHealth, req)
	return resp.BackendSetHealth, err
}
