// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

func TestRealisticDurationsFollowOCIScaledAndRepeat(t *testing.T) {
	tests := []struct {
		op       string
		min, max time.Duration // real OCI time
	}{
		{"CreateLoadBalancer", time.Minute, 2 * time.Minute},
		{"CreateNetworkLoadBalancer", time.Minute, 2 * time.Minute},
		{"UpdateBackendSet", 20 * time.Second, 40 * time.Second},
		{"CreateListener", 20 * time.Second, 40 * time.Second},
		{"CreateCertificate", 20 * time.Second, 40 * time.Second},
		{"DeleteLoadBalancer", 30 * time.Second, time.Minute},
	}
	full, scaled := RealisticDurations(1), RealisticDurations(0.01)
	for _, tc := range tests {
		seen := map[time.Duration]bool{}
		for n := uint64(1); n <= 50; n++ {
			d := full(APILoadBalancer, tc.op, n)
			if d < tc.min || d > tc.max {
				t.Errorf("%s #%d: %v, want %v..%v", tc.op, n, d, tc.min, tc.max)
			}
			if s := scaled(APILoadBalancer, tc.op, n); s != time.Duration(float64(d)*0.01) {
				t.Errorf("%s #%d at scale 0.01: %v, want %v", tc.op, n, s, d/100)
			}
			if again := full(APILoadBalancer, tc.op, n); again != d {
				t.Errorf("%s #%d: %v then %v, want the same", tc.op, n, d, again)
			}
			seen[d] = true
		}
		if len(seen) < 10 {
			t.Errorf("%s: %d distinct durations in 50 work requests, want variation", tc.op, len(seen))
		}
	}
}

func TestServerRunsWorkRequestsForTheProfilesDurations(t *testing.T) {
	clk := &Clock{}
	f := newLBFixture(t, Options{Now: clk.Now, WorkRequestDurations: RealisticDurations(1)})
	ctx := testCtx(t)
	resp, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: f.basicLB("svc")})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	if got := f.lbWorkState(t, *resp.OpcWorkRequestId); got != WorkRequestAccepted {
		t.Fatalf("create just accepted: %s", got)
	}
	clk.Advance(2 * time.Minute)
	f.mustSucceed(t, resp.OpcWorkRequestId)
	id := f.lbOfWork(t, *resp.OpcWorkRequestId)
	up, err := f.lb.UpdateListener(ctx, loadbalancer.UpdateListenerRequest{LoadBalancerId: &id, ListenerName: common.String("TCP-80"),
		UpdateListenerDetails: loadbalancer.UpdateListenerDetails{DefaultBackendSetName: common.String("TCP-80"), Port: common.Int(8080), Protocol: common.String("TCP")}})
	if err != nil {
		t.Fatalf("UpdateListener: %v", err)
	}
	clk.Advance(40 * time.Second)
	f.mustSucceed(t, up.OpcWorkRequestId)
	ran := map[string]time.Duration{}
	for _, wr := range f.srv.WorkRequests() {
		ran[wr.Operation] = wr.TimeFinished.Sub(wr.TimeStarted)
	}
	if d := ran["CreateLoadBalancer"]; d < time.Minute || d > 2*time.Minute {
		t.Errorf("create ran %v, want 1-2 min", d)
	}
	if d := ran["UpdateListener"]; d < 20*time.Second || d > 40*time.Second {
		t.Errorf("listener update ran %v, want 20-40 s", d)
	}
}
