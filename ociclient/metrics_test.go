// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func TestMetricsCountRequestsRetriesPollsAndCacheLookups(t *testing.T) {
	env := newTestEnv(t, envConfig{client: Options{Poll: fastPoll}, fakeClock: true})
	ctx := context.Background()
	lb := env.srv.AddLoadBalancer(loadbalancer.LoadBalancer{})
	vcn := env.srv.AddVCN(core.Vcn{})
	subnet := env.srv.AddSubnet(core.Subnet{VcnId: vcn.Id, CidrBlock: common.String("10.0.1.0/24")})

	env.srv.InjectFault(ocitest.Fault{Operation: "GetLoadBalancer", Status: 429, RetryAfter: "1", Times: 1})
	if _, err := env.client.LoadBalancers.GetLoadBalancer(ctx, *lb.Id); err != nil {
		t.Fatal(err)
	}
	if _, err := env.client.LoadBalancers.GetLoadBalancer(ctx, env.srv.NewID("loadbalancer")); !IsNotFound(err) {
		t.Fatalf("GetLoadBalancer of a missing load balancer: %v; want not found", err)
	}
	for range 2 {
		if _, err := env.client.VirtualNetwork.GetSubnet(ctx, *subnet.Id); err != nil {
			t.Fatal(err)
		}
	}
	wr, err := env.client.LoadBalancers.UpdateLoadBalancer(ctx, *lb.Id, loadbalancer.UpdateLoadBalancerDetails{DisplayName: common.String("renamed")})
	if err != nil {
		t.Fatal(err)
	}
	env.srv.CompleteWorkRequests()
	if err := env.client.LoadBalancers.WaitForWorkRequest(ctx, wr); err != nil {
		t.Fatal(err)
	}

	// Six requests: five reads and one write, each taking a token from its bucket.
	want := map[string]int{
		"request loadbalancer GetLoadBalancer not_found": 1,
		"request loadbalancer GetLoadBalancer ok":        1,
		"request loadbalancer GetLoadBalancer throttled": 1,
		"request virtualnetwork GetSubnet ok":            1,
		"request loadbalancer GetWorkRequest ok":         1,
		"request loadbalancer UpdateLoadBalancer ok":     1,
		"retry loadbalancer GetLoadBalancer throttled":   1,
		"limiter read":                       5,
		"limiter write":                      1,
		"cache subnet hit":                   1,
		"cache subnet miss":                  1,
		"poll loadbalancer":                  1,
		"workrequest loadbalancer succeeded": 1,
	}
	if diff := cmp.Diff(want, env.metrics.snapshot()); diff != "" {
		t.Errorf("metrics recorded (-want +got):\n%s", diff)
	}
}

func TestAClientWithoutMetricsRecordsNothingAndWorks(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	c, err := New(ForServer(srv))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.caller.metrics.(NopMetrics); !ok {
		t.Errorf("metrics = %T, want NopMetrics", c.caller.metrics)
	}
	lb := srv.AddLoadBalancer(loadbalancer.LoadBalancer{})
	if _, err := c.LoadBalancers.GetLoadBalancer(context.Background(), *lb.Id); err != nil {
		t.Fatal(err)
	}
}
