// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"context"

	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient"
)

// LoadBalancers is the part of the classic Load Balancer API a Syncer calls, and nothing more;
// *ociclient.LoadBalancerClient implements it. Its methods take and return oci-go-sdk types
// because they are OCI's; nothing in this package's other API exposes them.
type LoadBalancers interface {
	// GetLoadBalancerWithETag returns the load balancer and its ETag, which guards a write to
	// any of its parts.
	GetLoadBalancerWithETag(ctx context.Context, id string) (loadbalancer.LoadBalancer, string, error)
	// GetBackendSet returns one backend set and the load balancer's ETag.
	GetBackendSet(ctx context.Context, lbID, name string) (loadbalancer.BackendSet, string, error)
	// UpdateBackendSetIfMatch replaces the backend set if the load balancer's ETag is still
	// ifMatch (412 otherwise) and returns the work request's OCID.
	UpdateBackendSetIfMatch(ctx context.Context, lbID, name string, details loadbalancer.UpdateBackendSetDetails, ifMatch string) (string, error)
	// GetBackendSetHealth returns the set's health: the backends not OK, by status, and the
	// number of backends.
	GetBackendSetHealth(ctx context.Context, lbID, name string) (loadbalancer.BackendSetHealth, error)
	// WaitForWorkRequest waits for a work request to end; an error when it does not succeed.
	WaitForWorkRequest(ctx context.Context, workRequestID string) error
}

// NetworkLoadBalancers is the part of the Network Load Balancer API a Syncer calls;
// *ociclient.NetworkLoadBalancerClient implements it.
type NetworkLoadBalancers interface {
	// GetNetworkLoadBalancer returns the network load balancer (its tags, state and sets).
	GetNetworkLoadBalancer(ctx context.Context, id string) (nlbapi.NetworkLoadBalancer, error)
	// GetBackendSet returns one backend set and its ETag.
	GetBackendSet(ctx context.Context, nlbID, name string) (nlbapi.BackendSet, string, error)
	// UpdateBackendSetIfMatch changes the backend set if its ETag is still ifMatch (412
	// otherwise) and returns the work request's OCID.
	UpdateBackendSetIfMatch(ctx context.Context, nlbID, name string, details nlbapi.UpdateBackendSetDetails, ifMatch string) (string, error)
	// GetBackendSetHealth returns the set's health: the backends not OK, by status, and the
	// number of backends.
	GetBackendSetHealth(ctx context.Context, nlbID, name string) (nlbapi.BackendSetHealth, error)
	// WaitForWorkRequest waits for a work request to end; an error when it does not succeed.
	WaitForWorkRequest(ctx context.Context, workRequestID string) error
}

// ociclient's clients are what a Syncer is given in production.
var (
	_ LoadBalancers        = (*ociclient.LoadBalancerClient)(nil)
	_ NetworkLoadBalancers = (*ociclient.NetworkLoadBalancerClient)(nil)
)

// observed is what a product read of a load balancer and the bound set.
type observed struct {
	noun string // "load balancer", "network load balancer"
	tags map[string]string
	// setNames are the load balancer's backend sets, sorted; found says whether the bound one is
	// among them.
	setNames []string
	found    bool
	backends []Backend
	etag     string
	// busy is set when the load balancer was busy with another change (a network load balancer
	// UPDATING): a write now would be refused.
	busy bool
	// others is the number of backends in the other sets; perSet and total are OCI's limits.
	others, perSet, total int
	// raw is the product's own copy of the bound set, for its write.
	raw any
	// subnets are the load balancer's subnets; healthPort is the port the set's health checker
	// probes (0: each backend's own).
	subnets    []string
	healthPort int
}

// product is what differs between the two APIs: how a set is read, written, waited for and
// checked.
type product interface {
	noun() string
	// read reads the load balancer and the bound set.
	read(ctx context.Context, b Binding) (observed, error)
	// write writes c's backends to the set read as obs, guarded by obs.etag.
	write(ctx context.Context, b Binding, obs observed, c Change) (workRequestID string, err error)
	wait(ctx context.Context, workRequestID string) error
	// busy reports whether err refuses a change because another one runs.
	busy(err error) bool
	// idle reports whether the load balancer takes a change now.
	idle(ctx context.Context, b Binding) (bool, error)
	// health returns the backends not OK by name, and the number of backends.
	health(ctx context.Context, b Binding) (map[string]Health, int, error)
	// names returns the names of the set's backends.
	names(ctx context.Context, b Binding) ([]string, error)
}

// healthByName gathers a set's health lists, which name only the backends that are not OK.
func healthByName(warning, critical, unknown []string) map[string]Health {
	out := make(map[string]Health, len(warning)+len(critical)+len(unknown))
	for _, l := range []struct {
		names []string
		h     Health
	}{{warning, HealthWarning}, {critical, HealthCritical}, {unknown, HealthUnknown}} {
		for _, n := range l.names {
			out[n] = l.h
		}
	}
	return out
}

// ownedAfter is the set of c.Owned: the backends a write builds from the plan; the others it
// carries over as read.
func ownedAfter(c Change) map[string]bool {
	m := make(map[string]bool, len(c.Owned))
	for _, n := range c.Owned {
		m[n] = true
	}
	return m
}
