// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// fastPoll polls every millisecond or so: the tests count polls, not time.
var fastPoll = PollPolicy{Initial: time.Millisecond, Max: 5 * time.Millisecond, Factor: 2}

func createLBDetails(t testing.TB, srv *ocitest.Server, name string) loadbalancer.CreateLoadBalancerDetails {
	t.Helper()
	return loadbalancer.CreateLoadBalancerDetails{
		CompartmentId: common.String(srv.Seeded().Compartment),
		DisplayName:   common.String(name),
		ShapeName:     common.String("flexible"),
		ShapeDetails:  &loadbalancer.ShapeDetails{MinimumBandwidthInMbps: common.Int(10), MaximumBandwidthInMbps: common.Int(100)},
		SubnetIds:     []string{srv.Seeded().Subnets["public"]},
		Listeners:     map[string]loadbalancer.ListenerDetails{},
		BackendSets:   map[string]loadbalancer.BackendSetDetails{},
	}
}

func TestWaitForWorkRequestReturnsWhenItSucceeds(t *testing.T) {
	env := newTestEnv(t, envConfig{client: Options{Poll: fastPoll}})
	ctx := context.Background()
	wr, err := env.client.LoadBalancers.CreateLoadBalancer(ctx, createLBDetails(t, env.srv, "web"), "")
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	if err := env.client.LoadBalancers.WaitForWorkRequest(ctx, wr); err != nil {
		t.Fatalf("WaitForWorkRequest: %v", err)
	}
	lbs := env.srv.LoadBalancers()
	if len(lbs) != 1 || lbs[0].LifecycleState != loadbalancer.LoadBalancerLifecycleStateActive {
		t.Fatalf("load balancers after the work request = %+v; want one ACTIVE", lbs)
	}
	if polls := env.srv.Calls().Op("GetWorkRequest"); polls < 1 {
		t.Errorf("GetWorkRequest calls = %d; want at least 1", polls)
	}
}

func TestWaitForWorkRequestReportsAFailureWithOCIsMessage(t *testing.T) {
	env := newTestEnv(t, envConfig{client: Options{Poll: fastPoll}})
	env.srv.FailWorkRequests(func(wr ocitest.WorkRequestInfo) bool { return wr.Operation == "CreateLoadBalancer" },
		"subnet has no free addresses")
	ctx := context.Background()
	wr, err := env.client.LoadBalancers.CreateLoadBalancer(ctx, createLBDetails(t, env.srv, "web"), "")
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	err = env.client.LoadBalancers.WaitForWorkRequest(ctx, wr)
	var wrErr *WorkRequestError
	if !errors.As(err, &wrErr) {
		t.Fatalf("WaitForWorkRequest error %v; want a *WorkRequestError", err)
	}
	want := &WorkRequestError{ID: wr, Operation: "CreateLoadBalancer", Messages: []string{"subnet has no free addresses"}}
	if diff := cmp.Diff(want, wrErr); diff != "" {
		t.Errorf("WorkRequestError (-want +got):\n%s", diff)
	}
}

func TestWaitForWorkRequestEndsWithTheContext(t *testing.T) {
	env := newTestEnv(t, envConfig{
		server: ocitest.Options{WorkRequestDuration: time.Hour},
		client: Options{Poll: fastPoll},
	})
	ctx := context.Background()
	wr, err := env.client.LoadBalancers.CreateLoadBalancer(ctx, createLBDetails(t, env.srv, "web"), "")
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	// The context ends once the server has seen a poll, however slow the machine: no deadline
	// to race.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for env.srv.Calls().Op("GetWorkRequest") == 0 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	err = env.client.LoadBalancers.WaitForWorkRequest(ctx, wr)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitForWorkRequest error %v; want context.Canceled", err)
	}
	var wrErr *WorkRequestError
	if errors.As(err, &wrErr) {
		t.Errorf("a timeout is not a failed work request: %v", err)
	}
	if polls := env.srv.Calls().Op("GetWorkRequest"); polls < 1 {
		t.Errorf("GetWorkRequest calls = %d; want at least 1", polls)
	}
}

func TestWaitForWorkRequestPollsFastThenBacksOffToMax(t *testing.T) {
	env := newTestEnv(t, envConfig{
		server:    ocitest.Options{WorkRequestDuration: time.Hour},
		client:    Options{Poll: PollPolicy{Initial: 100 * time.Millisecond, Max: time.Second, Factor: 2}},
		fakeClock: true,
	})
	ctx := context.Background()
	wr, err := env.client.LoadBalancers.CreateLoadBalancer(ctx, createLBDetails(t, env.srv, "web"), "")
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	// Let the work request finish during the seventh wait.
	env.clock.onSleep = func(context.Context, time.Duration) error {
		if len(env.clock.recordedSleeps()) == 6 {
			env.srv.CompleteWorkRequests()
		}
		return nil
	}
	if err := env.client.LoadBalancers.WaitForWorkRequest(ctx, wr); err != nil {
		t.Fatalf("WaitForWorkRequest: %v", err)
	}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond,
		800 * time.Millisecond, time.Second, time.Second, time.Second}
	if diff := cmp.Diff(want, env.clock.recordedSleeps()); diff != "" {
		t.Errorf("waits between polls (-want +got):\n%s", diff)
	}
	if polls := env.srv.Calls().Op("GetWorkRequest"); polls != 7 {
		t.Errorf("GetWorkRequest calls = %d, want 7", polls)
	}
}

func TestRetriedCreateReusesTheRetryTokenSoOCIMakesOneLoadBalancer(t *testing.T) {
	tests := []struct {
		name  string
		fault ocitest.Fault
	}{
		{name: "connection dropped after OCI accepted", fault: ocitest.Fault{DropConnection: true}},
		{name: "503 after OCI accepted", fault: ocitest.Fault{Status: 503}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newTestEnv(t, envConfig{client: Options{Poll: fastPoll}, fakeClock: true})
			f := tt.fault
			f.Operation, f.AfterHandler, f.Times = "CreateLoadBalancer", true, 1
			env.srv.InjectFault(f)
			ctx := context.Background()

			wr, err := env.client.LoadBalancers.CreateLoadBalancer(ctx, createLBDetails(t, env.srv, "web"), "")
			if err != nil {
				t.Fatalf("CreateLoadBalancer: %v", err)
			}
			if calls := env.srv.Calls().Op("CreateLoadBalancer"); calls != 2 {
				t.Errorf("CreateLoadBalancer calls = %d, want 2 (the lost one and its retry)", calls)
			}
			if n := len(env.srv.LoadBalancers()); n != 1 {
				t.Errorf("load balancers = %d, want 1", n)
			}
			creates := slices.DeleteFunc(env.srv.WorkRequests(), func(w ocitest.WorkRequestInfo) bool {
				return w.Operation != "CreateLoadBalancer"
			})
			if len(creates) != 1 || creates[0].ID != wr {
				t.Errorf("create work requests = %+v; want exactly the one returned, %s", creates, wr)
			}
		})
	}
}

func TestCreateWithCallerTokenIsIdempotentAcrossCalls(t *testing.T) {
	env := newTestEnv(t, envConfig{client: Options{Poll: fastPoll}})
	ctx := context.Background()
	details := createLBDetails(t, env.srv, "web")
	first, err := env.client.LoadBalancers.CreateLoadBalancer(ctx, details, "service-uid-1234")
	if err != nil {
		t.Fatal(err)
	}
	second, err := env.client.LoadBalancers.CreateLoadBalancer(ctx, details, "service-uid-1234")
	if err != nil {
		t.Fatal(err)
	}
	if first != second || len(env.srv.LoadBalancers()) != 1 {
		t.Errorf("work requests %s and %s, %d load balancers; want the same work request and 1 load balancer",
			first, second, len(env.srv.LoadBalancers()))
	}
}

// TestWaitForWorkRequestLearnsOCIsPaceFromTheWorkRequestsOwnTimestamps runs three work requests
// at OCI's real durations on an injected clock the server shares: a create of 85 s, then changes
// of 37 s and 25 s. The create, with nothing known, is polled from 0.5 s growing ×1.5 to Max;
// it took as long as OCI's creates do, so the changes are polled within OCI's change range
// (20–40 s) every tenth of the time elapsed instead of growing from 0.5 s, and the second
// change does not wait for the first one's 37 s.
func TestWaitForWorkRequestLearnsOCIsPaceFromTheWorkRequestsOwnTimestamps(t *testing.T) {
	clock := newFakeClock()
	durations := []time.Duration{85 * time.Second, 37 * time.Second, 25 * time.Second}
	env := newTestEnv(t, envConfig{server: ocitest.Options{
		Now:                  clock.clock().now,
		WorkRequestDurations: func(_, _ string, n uint64) time.Duration { return durations[n-1] },
	}})
	env.client.caller.clock = clock.clock()
	ctx := context.Background()
	var polls []int
	var took []time.Duration
	wait := func(wr string) {
		t.Helper()
		before, start := env.srv.Calls().Op("GetWorkRequest"), clock.clock().now()
		if _, err := env.client.LoadBalancers.WaitForWorkRequestResource(ctx, wr); err != nil {
			t.Fatalf("WaitForWorkRequestResource: %v", err)
		}
		polls = append(polls, env.srv.Calls().Op("GetWorkRequest")-before)
		took = append(took, clock.clock().now().Sub(start))
	}
	wr, err := env.client.LoadBalancers.CreateLoadBalancer(ctx, createLBDetails(t, env.srv, "web"), "")
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	wait(wr)
	id := env.srv.LoadBalancers()[0].Id
	for _, name := range []string{"renamed", "renamed-again"} {
		wr, err := env.client.LoadBalancers.UpdateLoadBalancer(ctx, *id, loadbalancer.UpdateLoadBalancerDetails{DisplayName: common.String(name)})
		if err != nil {
			t.Fatalf("UpdateLoadBalancer: %v", err)
		}
		wait(wr)
	}
	// Create: 0.5, 1.25, …, 84.6, 94.6 s. Changes: 20, 22, 24.2, …, 35.4, 39.0 s and
	// 20, 22, 24.2, 26.6 s.
	if diff := cmp.Diff([]int{15, 8, 4}, polls); diff != "" {
		t.Errorf("polls per work request (-want +got):\n%s", diff)
	}
	for i, d := range durations[1:] {
		if limit := d + d/10; took[i+1] > limit {
			t.Errorf("change %d of %v found done after %v; want at most a tenth late, %v", i+1, d, took[i+1], limit)
		}
	}
}
