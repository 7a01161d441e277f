// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package nlb

import (
	"context"

	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// Client is the part of the OCI Network Load Balancer API this product calls, and nothing more:
// what lb/engine's Options.NetworkLoadBalancers must provide. Pass an *ociclient.Client's
// NetworkLoadBalancers (the engine proves at compile time that it satisfies Client).
//
// Like loadbalancer.Client, its methods take and return oci-go-sdk types; this package converts
// them (sdk.go).
type Client interface {
	GetNetworkLoadBalancer(ctx context.Context, id string) (nlbapi.NetworkLoadBalancer, error)
	ListNetworkLoadBalancers(ctx context.Context, compartmentID, displayName string) ([]nlbapi.NetworkLoadBalancerSummary, error)
	CreateNetworkLoadBalancer(ctx context.Context, details nlbapi.CreateNetworkLoadBalancerDetails, retryToken string) (nlbapi.NetworkLoadBalancer, string, error)
	UpdateNetworkLoadBalancer(ctx context.Context, id string, details nlbapi.UpdateNetworkLoadBalancerDetails) (workRequestID string, err error)
	UpdateNetworkSecurityGroups(ctx context.Context, id string, nsgIDs []string) (workRequestID string, err error)
	DeleteNetworkLoadBalancer(ctx context.Context, id string) (workRequestID string, err error)

	CreateBackendSet(ctx context.Context, nlbID string, details nlbapi.CreateBackendSetDetails, retryToken string) (workRequestID string, err error)
	UpdateBackendSet(ctx context.Context, nlbID, name string, details nlbapi.UpdateBackendSetDetails) (workRequestID string, err error)
	DeleteBackendSet(ctx context.Context, nlbID, name string) (workRequestID string, err error)

	CreateListener(ctx context.Context, nlbID string, details nlbapi.CreateListenerDetails, retryToken string) (workRequestID string, err error)
	UpdateListener(ctx context.Context, nlbID, name string, details nlbapi.UpdateListenerDetails) (workRequestID string, err error)
	DeleteListener(ctx context.Context, nlbID, name string) (workRequestID string, err error)

	WaitForWorkRequest(ctx context.Context, workRequestID string) error
}
