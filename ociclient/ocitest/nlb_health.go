// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"net/http"
	"time"

	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// The Network Load Balancer API's health reads, on the model of lb_health.go.

func (s *Server) registerNLBHealth() {
	n := nlbPrefix + "/networkLoadBalancers/{networkLoadBalancerId}"
	bs := n + "/backendSets/{backendSetName}"
	s.handle(NLB("GetNetworkLoadBalancerHealth"), ClassRead, "GET "+n+"/health", s.nlbGetNetworkLoadBalancerHealth)
	s.handle(NLB("GetBackendSetHealth"), ClassRead, "GET "+bs+"/health", s.nlbGetBackendSetHealth)
	s.handle(NLB("GetBackendHealth"), ClassRead, "GET "+bs+"/backends/{backendName}/health", s.nlbGetBackendHealth)
}

// nlbHealthProbes are the probes of a network load balancer's health checks. Its results name
// no source, and OCI does not say how many probes there are: two are assumed, so WARNING ("at
// least one of the health check probes does not return OK") shows as one result of each.
var nlbHealthProbes = []healthProbe{{}, {}}

// nlbSetHealth tallies the backends of a network load balancer's backend set at now. Caller
// holds s.mu.
func (s *Server) nlbSetHealth(n *nlbapi.NetworkLoadBalancer, name string, now time.Time) (healthTally, BackendHealthStatus) {
	t := newHealthTally()
	for _, b := range n.BackendSets[name].Backends {
		t.add(lbDeref(b.Name), s.nlbBackendStatus(n, name, b, now))
	}
	return t, backendSetHealthStatus(t, true, false)
}

// nlbBackendStatus is the health of a backend of n's set at now: UNKNOWN once n is DELETED, as
// nothing checks it any more. Caller holds s.mu.
func (s *Server) nlbBackendStatus(n *nlbapi.NetworkLoadBalancer, set string, b nlbapi.Backend, now time.Time) BackendHealthStatus {
	if n.LifecycleState == nlbapi.LifecycleStateDeleted {
		return BackendHealthUnknown
	}
	return s.backendStatus(lbDeref(n.Id), set, b.Name, b.IpAddress, b.Port, now)
}

func (s *Server) nlbGetBackendHealth(w http.ResponseWriter, r *http.Request) {
	s.nlbRead(w, r, func(n *nlbapi.NetworkLoadBalancer) (any, error) {
		now := s.now()
		set := r.PathValue("backendSetName")
		bs, i, err := nlbBackendOf(n, set, r.PathValue("backendName"))
		if err != nil {
			return nil, err
		}
		h := s.nlbBackendStatus(n, set, bs.Backends[i], now)
		return nlbConvert[nlbapi.BackendHealth](backendHealthOf(h, nlbHealthProbes, now)), nil
	})
}

func (s *Server) nlbGetBackendSetHealth(w http.ResponseWriter, r *http.Request) {
	s.nlbRead(w, r, func(n *nlbapi.NetworkLoadBalancer) (any, error) {
		name := r.PathValue("backendSetName")
		if _, err := partOf(n.BackendSets, partBackendSet, name); err != nil {
			return nil, err
		}
		t, h := s.nlbSetHealth(n, name, s.now())
		return nlbConvert[nlbapi.BackendSetHealth](t.backendSetWire(h)), nil
	})
}

func (s *Server) nlbGetNetworkLoadBalancerHealth(w http.ResponseWriter, r *http.Request) {
	s.nlbRead(w, r, func(n *nlbapi.NetworkLoadBalancer) (any, error) {
		now := s.now()
		t := newHealthTally()
		for _, name := range lbSortedKeys(n.BackendSets) {
			_, h := s.nlbSetHealth(n, name, now)
			t.add(name, h)
		}
		active := n.LifecycleState == nlbapi.LifecycleStateActive
		return nlbConvert[nlbapi.NetworkLoadBalancerHealth](t.balancerWire(balancerHealthStatus(t, active))), nil
	})
}
