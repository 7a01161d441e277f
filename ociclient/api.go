// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package ociclient is the one door to OCI. It wraps the oci-go-sdk clients behind narrow
// interfaces and adds what every caller needs once: client-side rate limiting, a single retry
// layer, error classification, work-request waiting, read caches and per-operation metrics.
//
// Consumers (lb, seclist, instances) declare the subset of methods they call as their own
// interfaces; the types here satisfy them.
//
// Build a Client with New (or NewFromConfig). Every call waits for a token from the read or
// write bucket (work-request polls, and writes made with YieldWrites, yield to the others of
// their bucket), is retried on transient failures (429, 5xx except 501, 409 IncorrectState, a
// busy network load balancer's 409 Conflict, timeouts, broken connections) with backoff that
// honours Retry-After, and fails with an *OperationError that wraps OCI's last error;
// IsNotFound, IsConflict, the other Is* functions and IsInvalidatedRetryToken
// classify it. Instance, VNIC-attachment, VNIC and subnet reads are cached for
// Options.CacheTTL, and concurrent identical reads make one call. README.md has the defaults,
// metrics and log keys.
package ociclient

import (
	"context"

	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/identity"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	"github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// LoadBalancers is the part of the Load Balancer API (20170115) the project calls.
//
// Every mutating method returns the OCID of the work request OCI started for it; pass it to
// WaitForWorkRequest. Create methods take an opc-retry-token: the same token on a repeated call
// makes OCI return the first call's result instead of creating twice. An empty token makes the
// client generate one per call, reused across its own retries.
type LoadBalancers interface {
	GetLoadBalancer(ctx context.Context, id string) (loadbalancer.LoadBalancer, error)
	// ListLoadBalancers returns every load balancer in the compartment (all pages). A non-empty
	// displayName filters by exact name.
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

	// WaitForWorkRequest polls a load balancer work request until it ends. It returns nil on
	// SUCCEEDED and a *WorkRequestError carrying OCI's messages on FAILED.
	WaitForWorkRequest(ctx context.Context, workRequestID string) error
	// WaitForWorkRequestResource is WaitForWorkRequest that also returns the OCID of the load
	// balancer the work request acted on (for a create, the new one).
	WaitForWorkRequestResource(ctx context.Context, workRequestID string) (string, error)
}

// RuleSets is the part of the Load Balancer API (20170115) that manages a load balancer's rule
// sets. It is separate from LoadBalancers so that implementations of LoadBalancers written before
// it keep compiling; *LoadBalancerClient implements both. The same work-request and retry-token
// rules apply.
type RuleSets interface {
	CreateRuleSet(ctx context.Context, lbID string, details loadbalancer.CreateRuleSetDetails, retryToken string) (workRequestID string, err error)
	UpdateRuleSet(ctx context.Context, lbID, name string, details loadbalancer.UpdateRuleSetDetails) (workRequestID string, err error)
	DeleteRuleSet(ctx context.Context, lbID, name string) (workRequestID string, err error)
}

// NetworkLoadBalancers is the part of the Network Load Balancer API (20200501) the project calls.
// The same work-request and retry-token rules as LoadBalancers apply.
type NetworkLoadBalancers interface {
	GetNetworkLoadBalancer(ctx context.Context, id string) (networkloadbalancer.NetworkLoadBalancer, error)
	ListNetworkLoadBalancers(ctx context.Context, compartmentID, displayName string) ([]networkloadbalancer.NetworkLoadBalancerSummary, error)
	CreateNetworkLoadBalancer(ctx context.Context, details networkloadbalancer.CreateNetworkLoadBalancerDetails, retryToken string) (nlb networkloadbalancer.NetworkLoadBalancer, workRequestID string, err error)
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
	// WaitForWorkRequestResource is WaitForWorkRequest that also returns the OCID of the network
	// load balancer the work request acted on.
	WaitForWorkRequestResource(ctx context.Context, workRequestID string) (string, error)
}

// Compute is the part of the Core Compute API the project calls. Reads go through caches
// (see the package documentation); a 404 invalidates the entry.
type Compute interface {
	GetInstance(ctx context.Context, id string) (core.Instance, error)
	// ListInstances returns every instance in the compartment (all pages).
	ListInstances(ctx context.Context, compartmentID string) ([]core.Instance, error)
	// ListInstancesFresh is ListInstances from a listing that began after the call did: the
	// only listing whose lack of an instance may be taken as the instance's absence.
	ListInstancesFresh(ctx context.Context, compartmentID string) ([]core.Instance, error)
	// ListVnicAttachments returns the VNIC attachments in the compartment (all pages); a
	// non-empty instanceID narrows them to one instance.
	ListVnicAttachments(ctx context.Context, compartmentID, instanceID string) ([]core.VnicAttachment, error)
}

// VirtualNetwork is the part of the Core Networking API the project calls. GetVnic, GetSubnet
// and ListSubnets are cached like Compute's reads; security lists and public IPs never are.
type VirtualNetwork interface {
	GetVnic(ctx context.Context, id string) (core.Vnic, error)
	GetSubnet(ctx context.Context, id string) (core.Subnet, error)
	// ListSubnets returns every subnet of the VCN in the compartment (all pages); an empty vcnID
	// lists all of the compartment's subnets.
	ListSubnets(ctx context.Context, compartmentID, vcnID string) ([]core.Subnet, error)
	// GetSecurityList returns the list and its ETag. Never cached: the ETag must be current.
	GetSecurityList(ctx context.Context, id string) (list core.SecurityList, etag string, err error)
	// UpdateSecurityList replaces the list's rules if its ETag still equals ifMatch, and returns
	// the updated list and its new ETag. A stale ifMatch fails with an error for which
	// IsPreconditionFailed is true; it is never retried here, because the caller must re-read.
	UpdateSecurityList(ctx context.Context, id string, ingress []core.IngressSecurityRule, egress []core.EgressSecurityRule, ifMatch string) (list core.SecurityList, etag string, err error)
	// GetPublicIPByIPAddress finds a public IP (e.g. a reserved one) by its address.
	GetPublicIPByIPAddress(ctx context.Context, ipAddress string) (core.PublicIp, error)
	// ListNetworkSecurityGroups returns the compartment's NSGs in the VCN (all pages; every VCN
	// when vcnID is empty). Never cached.
	ListNetworkSecurityGroups(ctx context.Context, compartmentID, vcnID string) ([]core.NetworkSecurityGroup, error)
	// CreateNetworkSecurityGroup creates an NSG; the retry token (fresh when empty) makes a
	// retried create answer the first attempt's group.
	CreateNetworkSecurityGroup(ctx context.Context, details core.CreateNetworkSecurityGroupDetails, retryToken string) (core.NetworkSecurityGroup, error)
	// DeleteNetworkSecurityGroup deletes an NSG no VNIC is in.
	DeleteNetworkSecurityGroup(ctx context.Context, id string) error
	// ListNetworkSecurityGroupSecurityRules returns every rule of the NSG. Never cached.
	ListNetworkSecurityGroupSecurityRules(ctx context.Context, id string) ([]core.SecurityRule, error)
	// AddNetworkSecurityGroupSecurityRules adds at most MaxNetworkSecurityGroupRulesPerAdd rules
	// and returns them with their IDs.
	AddNetworkSecurityGroupSecurityRules(ctx context.Context, id string, rules []core.AddSecurityRuleDetails) ([]core.SecurityRule, error)
	// RemoveNetworkSecurityGroupSecurityRules removes rules by ID.
	RemoveNetworkSecurityGroupSecurityRules(ctx context.Context, id string, ruleIDs []string) error
}

// Identity is the part of the Identity API the project calls.
type Identity interface {
	ListAvailabilityDomains(ctx context.Context, compartmentID string) ([]identity.AvailabilityDomain, error)
}
