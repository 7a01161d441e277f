// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package loadbalancer

import (
	"context"

	lbapi "github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

// Client is the part of the OCI Load Balancer API this product calls, and nothing more: what
// lb/engine's Options.Client must provide. Pass an *ociclient.Client's LoadBalancers (the engine
// proves at compile time that it satisfies Client); a test or a decorator (metrics, tracing) may
// pass anything else that does.
//
// Its methods take and return oci-go-sdk types because they are OCI's; this package converts
// them to and from Spec (sdk.go), and nothing in lb's or lb/engine's API exposes them.
type Client interface {
	GetLoadBalancer(ctx context.Context, id string) (lbapi.LoadBalancer, error)
	ListLoadBalancers(ctx context.Context, compartmentID, displayName string) ([]lbapi.LoadBalancer, error)
	CreateLoadBalancer(ctx context.Context, details lbapi.CreateLoadBalancerDetails, retryToken string) (workRequestID string, err error)
	UpdateLoadBalancer(ctx context.Context, id string, details lbapi.UpdateLoadBalancerDetails) (workRequestID string, err error)
	UpdateLoadBalancerShape(ctx context.Context, id string, details lbapi.UpdateLoadBalancerShapeDetails) (workRequestID string, err error)
	UpdateNetworkSecurityGroups(ctx context.Context, id string, nsgIDs []string) (workRequestID string, err error)
	DeleteLoadBalancer(ctx context.Context, id string) (workRequestID string, err error)

	CreateBackendSet(ctx context.Context, lbID string, details lbapi.CreateBackendSetDetails, retryToken string) (workRequestID string, err error)
	UpdateBackendSet(ctx context.Context, lbID, name string, details lbapi.UpdateBackendSetDetails) (workRequestID string, err error)
	DeleteBackendSet(ctx context.Context, lbID, name string) (workRequestID string, err error)

	CreateListener(ctx context.Context, lbID string, details lbapi.CreateListenerDetails, retryToken string) (workRequestID string, err error)
	UpdateListener(ctx context.Context, lbID, name string, details lbapi.UpdateListenerDetails) (workRequestID string, err error)
	DeleteListener(ctx context.Context, lbID, name string) (workRequestID string, err error)

	CreateCertificate(ctx context.Context, lbID string, details lbapi.CreateCertificateDetails, retryToken string) (workRequestID string, err error)
	DeleteCertificate(ctx context.Context, lbID, name string) (workRequestID string, err error)

	WaitForWorkRequest(ctx context.Context, workRequestID string) error
	// WaitForWorkRequestResource waits like WaitForWorkRequest and returns the OCID of the load
	// balancer the work request acted on: a create reads its new load balancer by it instead of
	// listing the compartment.
	WaitForWorkRequestResource(ctx context.Context, workRequestID string) (string, error)
}

// RuleSets is the part of the OCI Load Balancer API that manages a load balancer's rule sets
// (annotation.RuleSets). It is not in Client,
// so that Clients written before it keep compiling: a Client that also implements RuleSets (an
// *ociclient.Client's LoadBalancers does) can apply rule sets; with any other, a plan that
// creates, updates or deletes one fails, saying so (CanChangeRuleSets).
type RuleSets interface {
	CreateRuleSet(ctx context.Context, lbID string, details lbapi.CreateRuleSetDetails, retryToken string) (workRequestID string, err error)
	UpdateRuleSet(ctx context.Context, lbID, name string, details lbapi.UpdateRuleSetDetails) (workRequestID string, err error)
	DeleteRuleSet(ctx context.Context, lbID, name string) (workRequestID string, err error)
}
