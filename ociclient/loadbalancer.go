// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"

	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

// LoadBalancerClient implements LoadBalancers on the Load Balancer API. Reads are never cached:
// callers diff against them and need the current state.
type LoadBalancerClient struct {
	sdk loadbalancer.LoadBalancerClient
	c   *caller
}

func (l *LoadBalancerClient) op(name string, class callClass, resource string) operation {
	return operation{service: serviceLB, name: name, class: class, resource: resource}
}

// GetLoadBalancer returns the load balancer with the given OCID.
func (l *LoadBalancerClient) GetLoadBalancer(ctx context.Context, id string) (loadbalancer.LoadBalancer, error) {
	req := loadbalancer.GetLoadBalancerRequest{LoadBalancerId: &id}
	resp, err := call(ctx, l.c, l.op("GetLoadBalancer", classRead, id), l.sdk.GetLoadBalancer, req)
	return resp.LoadBalancer, err
}

// ListLoadBalancers returns every load balancer in the compartment, following all pages. A
// non-empty displayName filters by exact name.
func (l *LoadBalancerClient) ListLoadBalancers(ctx context.Context, compartmentID, displayName string) ([]loadbalancer.LoadBalancer, error) {
	return pages(ctx, func(ctx context.Context, page *string) ([]loadbalancer.LoadBalancer, *string, error) {
		req := loadbalancer.ListLoadBalancersRequest{CompartmentId: &compartmentID, Page: page}
		if displayName != "" {
			req.DisplayName = &displayName
		}
		resp, err := call(ctx, l.c, l.op("ListLoadBalancers", classRead, compartmentID), l.sdk.ListLoadBalancers, req)
		return resp.Items, resp.OpcNextPage, err
	})
}

// CreateLoadBalancer starts creating a load balancer with everything in details (listeners,
// backend sets, certificates) and returns the work request's OCID. The retry token (generated
// when empty) is sent on every attempt, so a retry after a lost response returns the first
// attempt's work request instead of creating a second load balancer.
func (l *LoadBalancerClient) CreateLoadBalancer(ctx context.Context, details loadbalancer.CreateLoadBalancerDetails, retryToken string) (string, error) {
	req := loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: details, OpcRetryToken: retryTokenOr(retryToken)}
	resp, err := call(ctx, l.c, l.op("CreateLoadBalancer", classWrite, deref(details.DisplayName)), l.sdk.CreateLoadBalancer, req)
	return deref(resp.OpcWorkRequestId), err
}

// UpdateLoadBalancer changes a load balancer's settings (display name, tags, ...).
func (l *LoadBalancerClient) UpdateLoadBalancer(ctx context.Context, id string, details loadbalancer.UpdateLoadBalancerDetails) (string, error) {
	req := loadbalancer.UpdateLoadBalancerRequest{LoadBalancerId: &id, UpdateLoadBalancerDetails: details, OpcRetryToken: retryTokenOr("")}
	resp, err := call(ctx, l.c, l.op("UpdateLoadBalancer", classWrite, id), l.sdk.UpdateLoadBalancer, req)
	return deref(resp.OpcWorkRequestId), err
}

// UpdateLoadBalancerShape changes a load balancer's shape or flexible bandwidth.
func (l *LoadBalancerClient) UpdateLoadBalancerShape(ctx context.Context, id string, details loadbalancer.UpdateLoadBalancerShapeDetails) (string, error) {
	req := loadbalancer.UpdateLoadBalancerShapeRequest{LoadBalancerId: &id, UpdateLoadBalancerShapeDetails: details, OpcRetryToken: retryTokenOr("")}
	resp, err := call(ctx, l.c, l.op("UpdateLoadBalancerShape", classWrite, id), l.sdk.UpdateLoadBalancerShape, req)
	return deref(resp.OpcWorkRequestId), err
}

// UpdateNetworkSecurityGroups replaces the load balancer's NSGs with nsgIDs; an empty list
// removes them all.
func (l *LoadBalancerClient) UpdateNetworkSecurityGroups(ctx context.Context, id string, nsgIDs []string) (string, error) {
	req := loadbalancer.UpdateNetworkSecurityGroupsRequest{
		LoadBalancerId: &id,
		// The SDK leaves a nil slice out of the body; send [] so "no NSGs" is explicit.
		UpdateNetworkSecurityGroupsDetails: loadbalancer.UpdateNetworkSecurityGroupsDetails{NetworkSecurityGroupIds: nonNil(nsgIDs)},
		OpcRetryToken:                      retryTokenOr(""),
	}
	resp, err := call(ctx, l.c, l.op("UpdateNetworkSecurityGroups", classWrite, id), l.sdk.UpdateNetworkSecurityGroups, req)
	return deref(resp.OpcWorkRequestId), err
}

// DeleteLoadBalancer starts deleting a load balancer.
func (l *LoadBalancerClient) DeleteLoadBalancer(ctx context.Context, id string) (string, error) {
	req := loadbalancer.DeleteLoadBalancerRequest{LoadBalancerId: &id}
	resp, err := call(ctx, l.c, l.op("DeleteLoadBalancer", classWrite, id), l.sdk.DeleteLoadBalancer, req)
	return deref(resp.OpcWorkRequestId), err
}

// CreateBackendSet adds a backend set to a load balancer.
func (l *LoadBalancerClient) CreateBackendSet(ctx context.Context, lbID string, details loadbalancer.CreateBackendSetDetails, retryToken string) (string, error) {
	req := loadbalancer.CreateBackendSetRequest{LoadBalancerId: &lbID, CreateBackendSetDetails: details, OpcRetryToken: retryTokenOr(retryToken)}
	resp, err := call(ctx, l.c, l.op("CreateBackendSet", classWrite, lbID), l.sdk.CreateBackendSet, req)
	return deref(resp.OpcWorkRequestId), err
}

// UpdateBackendSet replaces a backend set's policy, health checker and backends.
func (l *LoadBalancerClient) UpdateBackendSet(ctx context.Context, lbID, name string, details loadbalancer.UpdateBackendSetDetails) (string, error) {
	req := loadbalancer.UpdateBackendSetRequest{LoadBalancerId: &lbID, BackendSetName: &name, UpdateBackendSetDetails: details, OpcRetryToken: retryTokenOr("")}
	resp, err := call(ctx, l.c, l.op("UpdateBackendSet", classWrite, lbID), l.updateBackendSet, req) // the SDK's, with a cheaper body encoder
	return deref(resp.OpcWorkRequestId), err
}

// DeleteBackendSet removes a backend set; no listener may still use it.
func (l *LoadBalancerClient) DeleteBackendSet(ctx context.Context, lbID, name string) (string, error) {
	req := loadbalancer.DeleteBackendSetRequest{LoadBalancerId: &lbID, BackendSetName: &name}
	resp, err := call(ctx, l.c, l.op("DeleteBackendSet", classWrite, lbID), l.sdk.DeleteBackendSet, req)
	return deref(resp.OpcWorkRequestId), err
}

// CreateListener adds a listener to a load balancer.
func (l *LoadBalancerClient) CreateListener(ctx context.Context, lbID string, details loadbalancer.CreateListenerDetails, retryToken string) (string, error) {
	req := loadbalancer.CreateListenerRequest{LoadBalancerId: &lbID, CreateListenerDetails: details, OpcRetryToken: retryTokenOr(retryToken)}
	resp, err := call(ctx, l.c, l.op("CreateListener", classWrite, lbID), l.sdk.CreateListener, req)
	return deref(resp.OpcWorkRequestId), err
}

// UpdateListener replaces a listener's settings.
func (l *LoadBalancerClient) UpdateListener(ctx context.Context, lbID, name string, details loadbalancer.UpdateListenerDetails) (string, error) {
	req := loadbalancer.UpdateListenerRequest{LoadBalancerId: &lbID, ListenerName: &name, UpdateListenerDetails: details, OpcRetryToken: retryTokenOr("")}
	resp, err := call(ctx, l.c, l.op("UpdateListener", classWrite, lbID), l.sdk.UpdateListener, req)
	return deref(resp.OpcWorkRequestId), err
}

// DeleteListener removes a listener.
func (l *LoadBalancerClient) DeleteListener(ctx context.Context, lbID, name string) (string, error) {
	req := loadbalancer.DeleteListenerRequest{LoadBalancerId: &lbID, ListenerName: &name}
	resp, err := call(ctx, l.c, l.op("DeleteListener", classWrite, lbID), l.sdk.DeleteListener, req)
	return deref(resp.OpcWorkRequestId), err
}

// CreateCertificate adds a certificate bundle to a load balancer. The private key in details
// is sent to OCI only; it never appears in logs or errors.
func (l *LoadBalancerClient) CreateCertificate(ctx context.Context, lbID string, details loadbalancer.CreateCertificateDetails, retryToken string) (string, error) {
	req := loadbalancer.CreateCertificateRequest{LoadBalancerId: &lbID, CreateCertificateDetails: details, OpcRetryToken: retryTokenOr(retryToken)}
	resp, err := call(ctx, l.c, l.op("CreateCertificate", classWrite, lbID), l.sdk.CreateCertificate, req)
	return deref(resp.OpcWorkRequestId), err
}

// DeleteCertificate removes a certificate bundle; no listener may still use it.
func (l *LoadBalancerClient) DeleteCertificate(ctx context.Context, lbID, name string) (string, error) {
	req := loadbalancer.DeleteCertificateRequest{LoadBalancerId: &lbID, CertificateName: &name}
	resp, err := call(ctx, l.c, l.op("DeleteCertificate", classWrite, lbID), l.sdk.DeleteCertificate, req)
	return deref(resp.OpcWorkRequestId), err
}

// CreateRuleSet adds a rule set (named rules its listeners may apply) to a load balancer.
func (l *LoadBalancerClient) CreateRuleSet(ctx context.Context, lbID string, details loadbalancer.CreateRuleSetDetails, retryToken string) (string, error) {
	req := loadbalancer.CreateRuleSetRequest{LoadBalancerId: &lbID, CreateRuleSetDetails: details, OpcRetryToken: retryTokenOr(retryToken)}
	resp, err := call(ctx, l.c, l.op("CreateRuleSet", classWrite, lbID), l.sdk.CreateRuleSet, req)
	return deref(resp.OpcWorkRequestId), err
}

// UpdateRuleSet replaces the rules of a rule set.
func (l *LoadBalancerClient) UpdateRuleSet(ctx context.Context, lbID, name string, details loadbalancer.UpdateRuleSetDetails) (string, error) {
	req := loadbalancer.UpdateRuleSetRequest{LoadBalancerId: &lbID, RuleSetName: &name, UpdateRuleSetDetails: details}
	resp, err := call(ctx, l.c, l.op("UpdateRuleSet", classWrite, lbID), l.sdk.UpdateRuleSet, req)
	return deref(resp.OpcWorkRequestId), err
}

// DeleteRuleSet removes a rule set; no listener may still name it.
func (l *LoadBalancerClient) DeleteRuleSet(ctx context.Context, lbID, name string) (string, error) {
	req := loadbalancer.DeleteRuleSetRequest{LoadBalancerId: &lbID, RuleSetName: &name}
	resp, err := call(ctx, l.c, l.op("DeleteRuleSet", classWrite, lbID), l.sdk.DeleteRuleSet, req)
	return deref(resp.OpcWorkRequestId), err
}

// WaitForWorkRequest polls a load balancer work request until it ends (see PollPolicy). It
// returns nil on SUCCEEDED, a *WorkRequestError with OCI's error details on FAILED, and the
// context's error, wrapped, if ctx ends first.
func (l *LoadBalancerClient) WaitForWorkRequest(ctx context.Context, workRequestID string) error {
	_, err := l.WaitForWorkRequestResource(ctx, workRequestID)
	return err
}

// lbWorkRequestMessages takes a failed work request's error details, or its workflow message
// when OCI gave no details.
func lbWorkRequestMessages(wr loadbalancer.WorkRequest) []string {
	var msgs []string
	for _, d := range wr.ErrorDetails {
		if m := deref(d.Message); m != "" {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 0 && deref(wr.Message) != "" {
		msgs = append(msgs, deref(wr.Message))
	}
	return msgs
}
