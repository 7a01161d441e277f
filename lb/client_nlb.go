// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"context"

	"github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// NetworkLoadBalancers is the part of the OCI Network Load Balancer API this package calls, and
// nothing more: lb owns this interface, ociclient satisfies it (see the assertions in client.go).
// Pass an *ociclient.Client's NetworkLoadBalancers. Without it, a Service asking for a network
// load balancer (oci.oraclecloud.com/load-balancer-type: nlb) gets an error, and deleting one is
// never confirmed, so the Service keeps its finalizer.
//
// Like Client, its methods take and return oci-go-sdk types; lb's Network Load Balancer product
// (lb/oci/nlb) converts them, and declares the same interface as its nlb.Client (see the
// assertions in client.go).
type NetworkLoadBalancers interface {
	GetNetworkLoadBalancer(ctx context.Context, id string) (networkloadbalancer.NetworkLoadBalancer, error)
	ListNetworkLoadBalancers(ctx context.Context, compartmentID, displayName string) ([]networkloadbalancer.NetworkLoadBalancerSummary, error)
	CreateNetworkLoadBalancer(ctx context.Context, details networkloadbalancer.CreateNetworkLoadBalancerDetails, retryToken string) (networkloadbalancer.NetworkLoadBalancer, string, error)
	UpdateNetworkLoadBalancer(ctx context.Context, id string, details networkloadbalancer.UpdateNetworkLoadBalancerDetails) (workRequestID string, err error)
	UpdateNetworkSecurityGroups(ctx context.Context, id string, nsgIDs []string) (workRequestID string, err error)
	DeleteNetworkLoadBalancer(ctx context.Context, id string) (workRequestID string, err error)

	CreateBackendSet(ctx context.Context, nlbID string, details networkloadbalancer.CreateBackendSetDetails, retryToken string) (workRequestID string, err error)
	UpdateBackendSet(ctx context.Context, nlbID, name string, details networkloadbalancer.UpdateBackendSetDetails) (workRequestID string, err error)
	DeleteBackendSet(ctx context.Context, nlbID, name string) (workRequestID string, err error)

	CreateListener(ctx context.Context, nlbID string, details networkloadbalancer.CreateListenerDetails, retryToken string) (workRequestID string, err error)
	UpdateListener(ctx context.Context, nlbID, name string, details networkloadbalancer.UpdateListenerDetails) (workRequestID string, err error)
	DeleteListener(ctx context.Context, nlbID, name string) (workRequestID string, err error)

	WaitForWorkRequest(ctx context.Context, workRequestID string) error
}
