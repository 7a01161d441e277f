// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	nlb "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// TestNLBClientMakesEveryCallOfAReconcilerOnceMeteredAndRateLimited runs the life of a network
// load balancer through the client, as a reconciler would, and checks that each operation is one
// request to OCI, recorded in the metrics and taken from the rate limiter's bucket of its class.
func TestNLBClientMakesEveryCallOfAReconcilerOnceMeteredAndRateLimited(t *testing.T) {
	// Counts each call of a reconcile once, listing an NLB it has just made: not when a listing
	// shows it (ocitest.Options.ListingLag).
	env := newTestEnv(t, envConfig{server: ocitest.Options{ListingLag: ocitest.NoLag}, client: Options{Poll: fastPoll}})
	ctx := context.Background()
	nlbs := env.client.NetworkLoadBalancers
	step := func(what string, wr string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if err := nlbs.WaitForWorkRequest(ctx, wr); err != nil {
			t.Fatalf("%s: work request: %v", what, err)
		}
	}
	d := createNLBDetails(env.srv, "svc")
	created, wr, err := nlbs.CreateNetworkLoadBalancer(ctx, d, "uid-1")
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	id := *created.Id
	if got, err := nlbs.WaitForWorkRequestResource(ctx, wr); err != nil || got != id {
		t.Fatalf("WaitForWorkRequestResource = %q, %v; want %s", got, err, id)
	}
	if got, err := nlbs.GetNetworkLoadBalancer(ctx, id); err != nil || got.LifecycleState != nlb.LifecycleStateActive {
		t.Fatalf("GetNetworkLoadBalancer = %s, %v", got.LifecycleState, err)
	}
	if got, err := nlbs.ListNetworkLoadBalancers(ctx, env.srv.Seeded().Compartment, "svc"); err != nil || len(got) != 1 {
		t.Fatalf("ListNetworkLoadBalancers = %d, %v", len(got), err)
	}
	check := &nlb.HealthChecker{Protocol: nlb.HealthCheckProtocolsUdp, Port: common.Int(53), RequestData: []byte("q"), ResponseData: []byte("a")}
	if _, err := nlbs.CreateBackendSet(ctx, id, nlb.CreateBackendSetDetails{Name: common.String("UDP-53"), Policy: nlb.NetworkLoadBalancingPolicyFiveTuple}, ""); err == nil {
		t.Fatal("CreateBackendSet without a health checker was accepted")
	}
	wr, err = nlbs.CreateBackendSet(ctx, id, nlb.CreateBackendSetDetails{Name: common.String("UDP-53"), Policy: nlb.NetworkLoadBalancingPolicyFiveTuple,
		HealthChecker: &nlb.HealthCheckerDetails{Protocol: check.Protocol, Port: check.Port, RequestData: check.RequestData, ResponseData: check.ResponseData}}, "")
	step("CreateBackendSet", wr, err)
	wr, err = nlbs.CreateListener(ctx, id, nlb.CreateListenerDetails{Name: common.String("UDP-53"), DefaultBackendSetName: common.String("UDP-53"),
		Port: common.Int(53), Protocol: nlb.ListenerProtocolsUdp}, "")
	step("CreateListener", wr, err)
	wr, err = nlbs.UpdateBackendSet(ctx, id, "UDP-53", nlb.UpdateBackendSetDetails{
		Backends: []nlb.BackendDetails{{IpAddress: common.String("10.0.10.2"), Port: common.Int(30053)}}})
	step("UpdateBackendSet", wr, err)
	wr, err = nlbs.UpdateListener(ctx, id, "UDP-53", nlb.UpdateListenerDetails{Protocol: nlb.ListenerProtocolsTcpAndUdp})
	step("UpdateListener", wr, err)
	wr, err = nlbs.UpdateNetworkLoadBalancer(ctx, id, nlb.UpdateNetworkLoadBalancerDetails{FreeformTags: map[string]string{"k": "v"}})
	step("UpdateNetworkLoadBalancer", wr, err)
	wr, err = nlbs.UpdateNetworkSecurityGroups(ctx, id, nil)
	step("UpdateNetworkSecurityGroups", wr, err)
	wr, err = nlbs.DeleteListener(ctx, id, "UDP-53")
	step("DeleteListener", wr, err)
	wr, err = nlbs.DeleteBackendSet(ctx, id, "UDP-53")
	step("DeleteBackendSet", wr, err)
	wr, err = nlbs.DeleteNetworkLoadBalancer(ctx, id)
	step("DeleteNetworkLoadBalancer", wr, err)
	if got, err := nlbs.GetNetworkLoadBalancer(ctx, id); err != nil || got.LifecycleState != nlb.LifecycleStateDeleted {
		t.Errorf("after the delete: %s, %v; want DELETED", got.LifecycleState, err)
	}

	ops := map[string]int{
		"CreateNetworkLoadBalancer": 1, "GetNetworkLoadBalancer": 2, "ListNetworkLoadBalancers": 1,
		"CreateBackendSet": 2, "CreateListener": 1, "UpdateBackendSet": 1, "UpdateListener": 1,
		"UpdateNetworkLoadBalancer": 1, "UpdateNetworkSecurityGroups": 1, "DeleteListener": 1, "DeleteBackendSet": 1,
		"DeleteNetworkLoadBalancer": 1,
	}
	calls := env.srv.Calls()
	got, want := map[string]int{}, map[string]int{}
	for op, n := range ops {
		got[op] = calls.Op(ocitest.NLB(op))
		want[op] = n
		m := env.metrics.snapshot("request " + serviceNLB + " " + op + " ")
		total := 0
		for _, c := range m {
			total += c
		}
		got["metered "+op] = total
		want["metered "+op] = n
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests to OCI and in the metrics per operation (-want +got):\n%s", diff)
	}
	limiter := env.metrics.snapshot("limiter")
	reads := calls.Class(ocitest.ClassRead) + calls.Class(ocitest.ClassPoll)
	if limiter["limiter write"] != calls.Class(ocitest.ClassWrite) || limiter["limiter read"] != reads {
		t.Errorf("rate limiter grants %v; want write %d, read %d (reads and polls)", limiter, calls.Class(ocitest.ClassWrite), reads)
	}
}
