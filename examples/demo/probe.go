// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"context"
	"sync"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
)

// probedCloud is the provider as the controllers see it, with one addition: it records every
// load balancer call the service controller makes and how it ended. The demo waits on those
// records, so a step ends when the controller has finished with a Service, not after a guessed
// delay. Everything else is the provider itself.
type probedCloud struct {
	cloudprovider.Interface
	calls *lbCalls
}

// LoadBalancer wraps the provider's load balancer implementation.
func (p probedCloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) {
	inner, ok := p.Interface.LoadBalancer()
	if !ok {
		return nil, false
	}
	return probedLB{inner: inner, calls: p.calls}, true
}

// lbCall is one finished call of the service controller into the provider.
type lbCall struct {
	// Method is "EnsureLoadBalancer", "UpdateLoadBalancer" or "EnsureLoadBalancerDeleted".
	Method  string
	Service string // namespace/name
	// Initialised are the Nodes passed in that had a provider ID.
	Initialised []string
	Err         error
}

// lbCalls is the log of finished calls, safe for concurrent use.
type lbCalls struct {
	mu       sync.Mutex
	calls    []lbCall
	inFlight int
}

// start records that a call began; the returned function records its end.
func (c *lbCalls) start(method string, svc *v1.Service, nodes []*v1.Node) func(error) {
	call := lbCall{Method: method, Service: svc.Namespace + "/" + svc.Name}
	for _, n := range nodes {
		if n.Spec.ProviderID != "" {
			call.Initialised = append(call.Initialised, n.Name)
		}
	}
	c.mu.Lock()
	c.inFlight++
	c.mu.Unlock()
	return func(err error) {
		call.Err = err
		c.mu.Lock()
		defer c.mu.Unlock()
		c.inFlight--
		c.calls = append(c.calls, call)
	}
}

// idle reports whether no call is running.
func (c *lbCalls) idle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inFlight == 0
}

// mark returns a position in the log; since returns the calls after it.
func (c *lbCalls) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.calls)
}

func (c *lbCalls) since(mark int) []lbCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]lbCall(nil), c.calls[mark:]...)
}

// succeeded reports whether, after mark, a call for the Service succeeded that matches want.
func (c *lbCalls) succeeded(mark int, service string, want func(lbCall) bool) bool {
	for _, call := range c.since(mark) {
		if call.Service == service && call.Err == nil && want(call) {
			return true
		}
	}
	return false
}

// method matches calls of one method.
func method(name string) func(lbCall) bool {
	return func(c lbCall) bool { return c.Method == name }
}

// probedLB forwards to the provider's load balancer and records each write-side call.
type probedLB struct {
	inner cloudprovider.LoadBalancer
	calls *lbCalls
}

func (p probedLB) GetLoadBalancer(ctx context.Context, cluster string, svc *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	return p.inner.GetLoadBalancer(ctx, cluster, svc)
}

func (p probedLB) GetLoadBalancerName(ctx context.Context, cluster string, svc *v1.Service) string {
	return p.inner.GetLoadBalancerName(ctx, cluster, svc)
}

func (p probedLB) EnsureLoadBalancer(ctx context.Context, cluster string, svc *v1.Service, nodes []*v1.Node) (*v1.LoadBalancerStatus, error) {
	done := p.calls.start("EnsureLoadBalancer", svc, nodes)
	status, err := p.inner.EnsureLoadBalancer(ctx, cluster, svc, nodes)
	done(err)
	return status, err
}

func (p probedLB) UpdateLoadBalancer(ctx context.Context, cluster string, svc *v1.Service, nodes []*v1.Node) error {
	done := p.calls.start("UpdateLoadBalancer", svc, nodes)
	err := p.inner.UpdateLoadBalancer(ctx, cluster, svc, nodes)
	done(err)
	return err
}

func (p probedLB) EnsureLoadBalancerDeleted(ctx context.Context, cluster string, svc *v1.Service) error {
	done := p.calls.start("EnsureLoadBalancerDeleted", svc, nil)
	err := p.inner.EnsureLoadBalancerDeleted(ctx, cluster, svc)
	done(err)
	return err
}
