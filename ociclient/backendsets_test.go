// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlb "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// TestGuardedBackendSetUpdate: the ETag read with a load balancer or its set guards the write; a
// stale one is a 412 that is never retried (the caller must read again); the current one writes.
func TestGuardedBackendSetUpdate(t *testing.T) {
	ctx := context.Background()
	t.Run("classic", func(t *testing.T) {
		env := newTestEnv(t, envConfig{client: Options{Poll: fastPoll, RateLimit: noLimit}})
		l := env.client.LoadBalancers
		id := *env.srv.AddLoadBalancer(loadbalancer.LoadBalancer{BackendSets: map[string]loadbalancer.BackendSet{"web": {
			Name: common.String("web"), Policy: common.String("ROUND_ROBIN"), Backends: []loadbalancer.Backend{},
			HealthChecker: &loadbalancer.HealthChecker{Protocol: common.String("TCP"), Port: common.Int(8080)}}}}).Id
		lb, etag, err := l.GetLoadBalancerWithETag(ctx, id)
		if err != nil || etag == "" || len(lb.BackendSets) != 1 {
			t.Fatalf("GetLoadBalancerWithETag: %d sets, etag %q, %v", len(lb.BackendSets), etag, err)
		}
		set, setETag, err := l.GetBackendSet(ctx, id, "web")
		if err != nil || setETag != etag || deref(set.Policy) != "ROUND_ROBIN" {
			t.Fatalf("GetBackendSet: %+v, etag %q (the load balancer's is %q), %v", set, setETag, etag, err)
		}
		details := loadbalancer.UpdateBackendSetDetails{Policy: set.Policy, Backends: []loadbalancer.BackendDetails{
			{IpAddress: common.String("10.0.20.5"), Port: common.Int(8080)}},
			HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("TCP"), Port: common.Int(8080)}}
		env.srv.EditLoadBalancer(id, func(*loadbalancer.LoadBalancer) {}) // someone else's change: a new ETag
		_, err = l.UpdateBackendSetIfMatch(ctx, id, "web", details, etag)
		if !IsPreconditionFailed(err) {
			t.Fatalf("UpdateBackendSetIfMatch with a stale ETag: %v; want 412", err)
		}
		if diff := cmp.Diff(map[string]int{"request loadbalancer UpdateBackendSet precondition_failed": 1},
			env.metrics.snapshot("request loadbalancer UpdateBackendSet", "retry")); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
		_, etag, _ = l.GetLoadBalancerWithETag(ctx, id)
		wr, err := l.UpdateBackendSetIfMatch(ctx, id, "web", details, etag)
		if err == nil {
			err = l.WaitForWorkRequest(ctx, wr)
		}
		if err != nil {
			t.Fatalf("UpdateBackendSetIfMatch with the current ETag: %v", err)
		}
		h, err := l.GetBackendSetHealth(ctx, id, "web")
		if err != nil || h.TotalBackendCount == nil || *h.TotalBackendCount != 1 || !cmp.Equal(h.UnknownStateBackendNames, []string{"10.0.20.5:8080"}) {
			t.Errorf("GetBackendSetHealth: %+v, %v", h, err)
		}
	})
	t.Run("network", func(t *testing.T) {
		env := newTestEnv(t, envConfig{client: Options{Poll: fastPoll, RateLimit: noLimit}})
		n := env.client.NetworkLoadBalancers
		d := createNLBDetails(env.srv, "tcp")
		d.BackendSets = map[string]nlb.BackendSetDetails{"web": {Backends: []nlb.Backend{},
			HealthChecker: &nlb.HealthChecker{Protocol: nlb.HealthCheckProtocolsTcp, Port: common.Int(8080)}}}
		created, wr, err := n.CreateNetworkLoadBalancer(ctx, d, "")
		if err == nil {
			err = n.WaitForWorkRequest(ctx, wr)
		}
		if err != nil {
			t.Fatalf("creating: %v", err)
		}
		id := *created.Id
		_, etag, err := n.GetBackendSet(ctx, id, "web")
		if err != nil || etag == "" {
			t.Fatalf("GetBackendSet: etag %q, %v", etag, err)
		}
		details := nlb.UpdateBackendSetDetails{Backends: []nlb.BackendDetails{{IpAddress: common.String("10.0.20.5"), Port: common.Int(8080)}}}
		env.srv.EditNetworkLoadBalancer(id, func(*nlb.NetworkLoadBalancer) {})
		if _, err := n.UpdateBackendSetIfMatch(ctx, id, "web", details, etag); !IsPreconditionFailed(err) {
			t.Fatalf("UpdateBackendSetIfMatch with a stale ETag: %v; want 412", err)
		}
		if diff := cmp.Diff(map[string]int{"request networkloadbalancer UpdateBackendSet precondition_failed": 1},
			env.metrics.snapshot("request networkloadbalancer UpdateBackendSet", "retry")); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
		_, etag, _ = n.GetBackendSet(ctx, id, "web")
		wr, err = n.UpdateBackendSetIfMatch(ctx, id, "web", details, etag)
		if err == nil {
			err = n.WaitForWorkRequest(ctx, wr)
		}
		if err != nil {
			t.Fatalf("UpdateBackendSetIfMatch with the current ETag: %v", err)
		}
		h, err := n.GetBackendSetHealth(ctx, id, "web")
		if err != nil || h.TotalBackendCount == nil || *h.TotalBackendCount != 1 {
			t.Errorf("GetBackendSetHealth: %+v, %v", h, err)
		}
	})
}
