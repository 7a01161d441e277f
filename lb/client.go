// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"context"

	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	lbproduct "github.com/oci-ccm/oci-ccm/lb/oci/loadbalancer"
	"github.com/oci-ccm/oci-ccm/lb/oci/nlb"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// Client is the part of the OCI Load Balancer API this package calls, and nothing more: lb owns
// this interface, ociclient satisfies it (see the assertions below). Pass an *ociclient.Client's
// LoadBalancers; a test or a decorator (metrics, tracing) may pass anything else that does.
//
// Its methods take and return oci-go-sdk types because they are OCI's; lb's Load Balancer product
// (lb/oci/loadbalancer) converts them to and from Spec, and nothing else in lb's API exposes
// them. That package declares the same interface as its Client (see the assertions below).
type Client interface {
	GetLoadBalancer(ctx context.Context, id string) (loadbalancer.LoadBalancer, error)
	ListLoadBalancers(ctx context.Context, compartmentID, displayName string) ([]loadbalancer.LoadBalancer, error)
	CreateLoadBalancer(ctx context.Context, details loadbalancer.CreateLoadBalancerDetails, retryToken string) (workRequestID string, err error)
	UpdateLoadBalancer(ctx context.Context, id string, details loadbalancer.UpdateLoadBalancerDetails) (workRequestID string, err error)
	UpdateLoadBalancerShape(ctx context.Context, id string, details loadbalancer.UpdateLoadBalancerShapeDetails) (workRequestID string, err error)
	UpdateNetworkSecurityGroups(ctx context.Context, id string, nsgIDs []string) (workRequestID string, err error)
	DeleteLoadBalancer(ctx context.Context, id string) (workRequestID string, err error)

	CreateBackendSet(ctx context.Context, lbID string, details loadbalancer.CreateBackendSetDetails, retryToken string) (workRequestID string, err error)
	UpdateBackendSet(ctx context.Context, lbID, name string, details loadbalancer.UpdateBackendSetDetails) (workRequestID string, err error)
	DeleteBackendSet(ctx context.Context, lbID, name string) (workRequestID string, err error)

	CreateListener(ctx context.Context, lbID string, details loadbalancer.CreateListenerDetails, retryToken string) (workRequestID string, err error)
	UpdateListener(ctx context.Context, lbID, name string, details loadbalancer.UpdateListenerDetails) (workRequestID string, err error)
	DeleteListener(ctx context.Context, lbID, name string) (workRequestID string, err error)

	CreateCertificate(ctx context.Context, lbID string, details loadbalancer.CreateCertificateDetails, retryToken string) (workRequestID string, err error)
	DeleteCertificate(ctx context.Context, lbID, name string) (workRequestID string, err error)

	WaitForWorkRequest(ctx context.Context, workRequestID string) error
	// WaitForWorkRequestResource waits like WaitForWorkRequest and returns the OCID of the load
	// balancer the work request acted on: a create reads its new load balancer by it instead of
	// listing the compartment.
	WaitForWorkRequestResource(ctx context.Context, workRequestID string) (string, error)
}

// RuleSets is the part of the OCI Load Balancer API that manages a load balancer's rule sets
// (annotation.RuleSets). It is not in Client, so that Clients written before it keep compiling: a
// Client that also implements RuleSets (an *ociclient.Client's LoadBalancers does) can apply
// rule sets; with any other, a plan that creates, updates or deletes one fails, saying so.
type RuleSets interface {
	CreateRuleSet(ctx context.Context, lbID string, details loadbalancer.CreateRuleSetDetails, retryToken string) (workRequestID string, err error)
	UpdateRuleSet(ctx context.Context, lbID, name string, details loadbalancer.UpdateRuleSetDetails) (workRequestID string, err error)
	DeleteRuleSet(ctx context.Context, lbID, name string) (workRequestID string, err error)
}

// PublicIPs is the part of the OCI Networking API this package calls, to check a reserved public
// IP before creating a load balancer with it. An *ociclient.Client's VirtualNetwork satisfies it.
type PublicIPs interface {
	GetPublicIPByIPAddress(ctx context.Context, ipAddress string) (core.PublicIp, error)
}

// The ociclient types satisfy what lb calls; a change on either side fails the build here.
var (
	_ Client    = (*ociclient.LoadBalancerClient)(nil)
	_ Client    = ociclient.LoadBalancers(nil)
	_ RuleSets  = (*ociclient.LoadBalancerClient)(nil)
	_ RuleSets  = ociclient.RuleSets(nil)
	_ PublicIPs = (*ociclient.VirtualNetworkClient)(nil)

	_ NetworkLoadBalancers = (*ociclient.NetworkLoadBalancerClient)(nil)

	// The products declare the same interfaces again (they cannot import lb, and aliases here
	// would change lb's API): what lb is given is what they call.
	_ lbproduct.Client     = Client(nil)
	_ Client               = lbproduct.Client(nil)
	_ lbproduct.RuleSets   = RuleSets(nil)
	_ RuleSets             = lbproduct.RuleSets(nil)
	_ nlb.Client           = NetworkLoadBalancers(nil)
	_ NetworkLoadBalancers = nlb.Client(nil)
)
