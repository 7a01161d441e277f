// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"net/http"

	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// The Network Load Balancer API's health reads, on the model of lb_health.go.

func (s *Server) registerNLBHealth() {
	n := nlbPrefix + "/networkLoadBalancers/{networkLoadBalancerId}"
	bs := n + "/backendSets/{backendSetName}"
	s.handle(NLB("GetNetworkLoadBalancerHealth"), ClassRead, "GET "+n+"/health", func(w http.ResponseWriter, r *http.Request) {
		s.nlbRead(w, r, func(n *nlbapi.NetworkLoadBalancer) (any, error) {
			return healthAs[nlbapi.NetworkLoadBalancerHealth](s.nlbHealthSubject(n).balancerHealth())
		})
	})
	s.handle(NLB("GetBackendSetHealth"), ClassRead, "GET "+bs+"/health", func(w http.ResponseWriter, r *http.Request) {
		s.nlbRead(w, r, func(n *nlbapi.NetworkLoadBalancer) (any, error) {
			return healthAs[nlbapi.BackendSetHealth](s.nlbHealthSubject(n).backendSetHealth(r.PathValue("backendSetName")))
		})
	})
	s.handle(NLB("GetBackendHealth"), ClassRead, "GET "+bs+"/backends/{backendName}/health", func(w http.ResponseWriter, r *http.Request) {
		s.nlbRead(w, r, func(n *nlbapi.NetworkLoadBalancer) (any, error) {
			return healthAs[nlbapi.BackendHealth](s.nlbHealthSubject(n).backendHealth(r.PathValue("backendSetName"), r.PathValue("backendName")))
		})
	})
}

// nlbHealthProbes are the probes of a network load balancer's health checks. Its results name
// no source, and OCI does not say how many probes there are: two are assumed, so WARNING ("at
// least one of the health check probes does not return OK") shows as one result of each.
var nlbHealthProbes = []healthProbe{{}, {}}

// nlbHealthSubject is a network load balancer as the health reads see it now: no listener rule
// for its sets, UNKNOWN only when no backend has answered, and every backend UNKNOWN once it is
// DELETED, as nothing checks them any more. Caller holds s.mu.
func (s *Server) nlbHealthSubject(n *nlbapi.NetworkLoadBalancer) healthSubject {
	now, id, deleted := s.now(), deref(n.Id), n.LifecycleState == nlbapi.LifecycleStateDeleted
	return healthSubject{
		active: n.LifecycleState == nlbapi.LifecycleStateActive,
		sets:   lbSortedKeys(n.BackendSets),
		backends: func(set string) ([]string, bool) {
			bs, ok := n.BackendSets[set]
			return backendNames(bs.Backends, func(b nlbapi.Backend) *string { return b.Name }), ok
		},
		status: func(set, name string) BackendHealthStatus {
			if deleted {
				return BackendHealthUnknown
			}
			return s.backendStatus(id, set, name, now)
		},
		attached: func(string) bool { return true },
		probes:   nlbHealthProbes,
		now:      now,
	}
}
