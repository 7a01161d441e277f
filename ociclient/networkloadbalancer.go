// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"strings"
	"time"

	nlb "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// NetworkLoadBalancerClient implements NetworkLoadBalancers on the Network Load Balancer API.
// Reads are never cached.
type NetworkLoadBalancerClient struct {
	sdk nlb.NetworkLoadBalancerClient
	c   *caller
}

func (n *NetworkLoadBalancerClient) op(name string, class callClass, resource string) operation {
	return operation{service: serviceNLB, name: name, class: class, resource: resource}
}

// GetNetworkLoadBalancer returns the network load balancer with the given OCID.
func (n *NetworkLoadBalancerClient) GetNetworkLoadBalancer(ctx context.Context, id string) (nlb.NetworkLoadBalancer, error) {
	req := nlb.GetNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id}
	resp, err := call(ctx, n.c, n.op("GetNetworkLoadBalancer", classRead, id), n.sdk.GetNetworkLoadBalancer, req)
	return resp.NetworkLoadBalancer, err
}

// ListNetworkLoadBalancers returns every network load balancer in the compartment, following all
// pages. A non-empty displayName filters by exact name.
func (n *NetworkLoadBalancerClient) ListNetworkLoadBalancers(ctx context.Context, compartmentID, displayName string) ([]nlb.NetworkLoadBalancerSummary, error) {
	return pages(ctx, func(ctx context.Context, page *string) ([]nlb.NetworkLoadBalancerSummary, *string, error) {
		req := nlb.ListNetworkLoadBalancersRequest{CompartmentId: &compartmentID, Page: page}
		if displayName != "" {
			req.DisplayName = &displayName
		}
		resp, err := call(ctx, n.c, n.op("ListNetworkLoadBalancers", classRead, compartmentID), n.sdk.ListNetworkLoadBalancers, req)
		return resp.Items, resp.OpcNextPage, err
	})
}

// CreateNetworkLoadBalancer starts creating a network load balancer and returns it as OCI
// accepted it, with the work request's OCID. The retry token (generated when empty) is sent on
// every attempt, so a retry after a lost response never creates a second one.
func (n *NetworkLoadBalancerClient) CreateNetworkLoadBalancer(ctx context.Context, details nlb.CreateNetworkLoadBalancerDetails, retryToken string) (nlb.NetworkLoadBalancer, string, error) {
	req := nlb.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: details, OpcRetryToken: retryTokenOr(retryToken)}
	resp, err := call(ctx, n.c, n.op("CreateNetworkLoadBalancer", classWrite, deref(details.DisplayName)), n.sdk.CreateNetworkLoadBalancer, req)
	return resp.NetworkLoadBalancer, deref(resp.OpcWorkRequestId), err
}

// UpdateNetworkLoadBalancer changes a network load balancer's settings.
func (n *NetworkLoadBalancerClient) UpdateNetworkLoadBalancer(ctx context.Context, id string, details nlb.UpdateNetworkLoadBalancerDetails) (string, error) {
	req := nlb.UpdateNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id, UpdateNetworkLoadBalancerDetails: details}
	resp, err := call(ctx, n.c, n.op("UpdateNetworkLoadBalancer", classWrite, id), n.sdk.UpdateNetworkLoadBalancer, req)
	return deref(resp.OpcWorkRequestId), err
}

// UpdateNetworkSecurityGroups replaces the network load balancer's NSGs with nsgIDs; an empty
// list removes them all.
func (n *NetworkLoadBalancerClient) UpdateNetworkSecurityGroups(ctx context.Context, id string, nsgIDs []string) (string, error) {
	req := nlb.UpdateNetworkSecurityGroupsRequest{
		NetworkLoadBalancerId: &id,
		// The SDK leaves a nil slice out of the body; send [] so "no NSGs" is explicit.
		UpdateNetworkSecurityGroupsDetails: nlb.UpdateNetworkSecurityGroupsDetails{NetworkSecurityGroupIds: nonNil(nsgIDs)},
		OpcRetryToken:                      retryTokenOr(""),
	}
	resp, err := call(ctx, n.c, n.op("UpdateNetworkSecurityGroups", classWrite, id), n.sdk.UpdateNetworkSecurityGroups, req)
	return deref(resp.OpcWorkRequestId), err
}

// DeleteNetworkLoadBalancer starts deleting a network load balancer.
func (n *NetworkLoadBalancerClient) DeleteNetworkLoadBalancer(ctx context.Context, id string) (string, error) {
	req := nlb.DeleteNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id}
	resp, err := call(ctx, n.c, n.op("DeleteNetworkLoadBalancer", classWrite, id), n.sdk.DeleteNetworkLoadBalancer, req)
	return deref(resp.OpcWorkRequestId), err
}

// CreateBackendSet adds a backend set to a network load balancer.
func (n *NetworkLoadBalancerClient) CreateBackendSet(ctx context.Context, nlbID string, details nlb.CreateBackendSetDetails, retryToken string) (string, error) {
	req := nlb.CreateBackendSetRequest{NetworkLoadBalancerId: &nlbID, CreateBackendSetDetails: details, OpcRetryToken: retryTokenOr(retryToken)}
	resp, err := call(ctx, n.c, n.op("CreateBackendSet", classWrite, nlbID), n.sdk.CreateBackendSet, req)
	return deref(resp.OpcWorkRequestId), err
}

// UpdateBackendSet replaces a backend set's policy, health checker and backends.
func (n *NetworkLoadBalancerClient) UpdateBackendSet(ctx context.Context, nlbID, name string, details nlb.UpdateBackendSetDetails) (string, error) {
	req := nlb.UpdateBackendSetRequest{NetworkLoadBalancerId: &nlbID, BackendSetName: &name, UpdateBackendSetDetails: details, OpcRetryToken: retryTokenOr("")}
	resp, err := call(ctx, n.c, n.op("UpdateBackendSet", classWrite, nlbID), n.updateBackendSet, req) // the SDK's, with a cheaper body encoder
	return deref(resp.OpcWorkRequestId), err
}

// DeleteBackendSet removes a backend set; no listener may still use it.
func (n *NetworkLoadBalancerClient) DeleteBackendSet(ctx context.Context, nlbID, name string) (string, error) {
	req := nlb.DeleteBackendSetRequest{NetworkLoadBalancerId: &nlbID, BackendSetName: &name}
	resp, err := call(ctx, n.c, n.op("DeleteBackendSet", classWrite, nlbID), n.sdk.DeleteBackendSet, req)
	return deref(resp.OpcWorkRequestId), err
}

// CreateListener adds a listener to a network load balancer.
func (n *NetworkLoadBalancerClient) CreateListener(ctx context.Context, nlbID string, details nlb.CreateListenerDetails, retryToken string) (string, error) {
	req := nlb.CreateListenerRequest{NetworkLoadBalancerId: &nlbID, CreateListenerDetails: details, OpcRetryToken: retryTokenOr(retryToken)}
	resp, err := call(ctx, n.c, n.op("CreateListener", classWrite, nlbID), n.sdk.CreateListener, req)
	return deref(resp.OpcWorkRequestId), err
}

// UpdateListener replaces a listener's settings.
func (n *NetworkLoadBalancerClient) UpdateListener(ctx context.Context, nlbID, name string, details nlb.UpdateListenerDetails) (string, error) {
	req := nlb.UpdateListenerRequest{NetworkLoadBalancerId: &nlbID, ListenerName: &name, UpdateListenerDetails: details, OpcRetryToken: retryTokenOr("")}
	resp, err := call(ctx, n.c, n.op("UpdateListener", classWrite, nlbID), n.sdk.UpdateListener, req)
	return deref(resp.OpcWorkRequestId), err
}

// DeleteListener removes a listener.
func (n *NetworkLoadBalancerClient) DeleteListener(ctx context.Context, nlbID, name string) (string, error) {
	req := nlb.DeleteListenerRequest{NetworkLoadBalancerId: &nlbID, ListenerName: &name}
	resp, err := call(ctx, n.c, n.op("DeleteListener", classWrite, nlbID), n.sdk.DeleteListener, req)
	return deref(resp.OpcWorkRequestId), err
}

// WaitForWorkRequest polls a network load balancer work request until it ends (see
// PollPolicy). It returns nil on SUCCEEDED; on FAILED or CANCELED a *WorkRequestError with the
// messages from ListWorkRequestErrors; the context's error, wrapped, if ctx ends first.
func (n *NetworkLoadBalancerClient) WaitForWorkRequest(ctx context.Context, workRequestID string) error {
	_, err := n.WaitForWorkRequestResource(ctx, workRequestID)
	return err
}

// WaitForWorkRequestResource is WaitForWorkRequest that also returns the OCID of the network
// load balancer the work request acted on (its resource of entity type NetworkLoadBalancer, or
// else its first resource), for a caller that kept only the work request's OCID. Unlike the Load
// Balancer API's, CreateNetworkLoadBalancer itself already answers with the new OCID.
func (n *NetworkLoadBalancerClient) WaitForWorkRequestResource(ctx context.Context, workRequestID string) (string, error) {
	return n.c.awaitWorkRequest(ctx, serviceNLB, workRequestID, func(ctx context.Context) (workRequestStatus, error) {
		req := nlb.GetWorkRequestRequest{WorkRequestId: &workRequestID}
		resp, err := call(ctx, n.c, n.op("GetWorkRequest", classPoll, workRequestID), n.sdk.GetWorkRequest, req)
		if err != nil {
			return workRequestStatus{}, err
		}
		wr := resp.WorkRequest
		st := workRequestStatus{
			state:      string(wr.Status),
			operation:  string(wr.OperationType),
			succeeded:  wr.Status == nlb.OperationStatusSucceeded,
			failed:     wr.Status == nlb.OperationStatusFailed || wr.Status == nlb.OperationStatusCanceled,
			canceled:   wr.Status == nlb.OperationStatusCanceled,
			resourceID: nlbWorkRequestResource(wr.Resources),
			percent:    percentOf(wr.PercentComplete),
		}
		if wr.TimeAccepted != nil && wr.TimeFinished != nil {
			st.accepted, st.finished = wr.TimeAccepted.Time, wr.TimeFinished.Time
		}
		if resp.RetryAfter != nil && *resp.RetryAfter > 0 {
			st.pollAfter = time.Duration(float64(*resp.RetryAfter) * float64(time.Second))
		}
		if st.failed {
			compartmentID := deref(wr.CompartmentId)
			st.messages = func(ctx context.Context) ([]string, error) {
				return n.workRequestMessages(ctx, workRequestID, compartmentID)
			}
		}
		return st, nil
	})
}

// nlbWorkRequestResource is the OCID of the network load balancer among a work request's
// resources: the one whose entity type names it (OCI spells it "NetworkLoadBalancer"; compared
// without case), else the first.
func nlbWorkRequestResource(rs []nlb.WorkRequestResource) string {
	for _, r := range rs {
		if strings.EqualFold(deref(r.EntityType), "NetworkLoadBalancer") {
			return deref(r.Identifier)
		}
	}
	if len(rs) > 0 {
		return deref(rs[0].Identifier)
	}
	return ""
}

// workRequestMessages lists a work request's errors (all pages) as messages.
func (n *NetworkLoadBalancerClient) workRequestMessages(ctx context.Context, workRequestID, compartmentID string) ([]string, error) {
	errs, err := pages(ctx, func(ctx context.Context, page *string) ([]nlb.WorkRequestError, *string, error) {
		req := nlb.ListWorkRequestErrorsRequest{WorkRequestId: &workRequestID, CompartmentId: &compartmentID, Page: page}
		resp, err := call(ctx, n.c, n.op("ListWorkRequestErrors", classPoll, workRequestID), n.sdk.ListWorkRequestErrors, req)
		return resp.Items, resp.OpcNextPage, err
	})
	var msgs []string
	for _, e := range errs {
		if m := deref(e.Message); m != "" {
			msgs = append(msgs, m)
		}
	}
	return msgs, err
}
