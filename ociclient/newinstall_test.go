// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"testing"
	"time"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// newInstallEnv is a client made at the same moment as its tenancy's policy, on a fake clock
// that the server shares: the client's backoff sleeps let the policy propagate.
func newInstallEnv(t *testing.T, retry RetryPolicy) (*testEnv, string) {
	t.Helper()
	fc := newFakeClock()
	now := func() time.Time { fc.mu.Lock(); defer fc.mu.Unlock(); return fc.now }
	env := newTestEnv(t, envConfig{server: ocitest.Options{Now: now}, client: Options{RateLimit: noLimit, Retry: retry}})
	env.clock = fc
	env.client.caller.clock = fc.clock()
	env.client.caller.newInstall = newNewInstall(fc.now, env.client.caller.retry.NewInstallWindow) // on the fake clock
	comp := env.srv.TenancyID()
	env.srv.DenyAll() // a new install: the CCM's principal has no statement yet
	if err := env.srv.SetPolicy("Allow any-user to manage load-balancers in tenancy"); err != nil {
		t.Fatal(err)
	}
	return env, comp
}

func TestANewInstallConvergesWhileItsPolicyPropagates(t *testing.T) {
	env, comp := newInstallEnv(t, RetryPolicy{})
	lbs, err := env.client.LoadBalancers.ListLoadBalancers(context.Background(), comp, "")
	if err != nil {
		t.Fatalf("ListLoadBalancers while the new policy propagates: %v (want it retried until the policy applies)", err)
	}
	if len(lbs) != 0 {
		t.Errorf("ListLoadBalancers = %d load balancers, want 0", len(lbs))
	}
	retries := env.metrics.snapshot("retry")["retry loadbalancer ListLoadBalancers eventual_consistency"]
	refused := env.metrics.snapshot("request")["request loadbalancer ListLoadBalancers not_found"]
	if retries == 0 || retries != refused {
		t.Errorf("%d eventual_consistency retries for %d refusals, want one per refusal and at least one", retries, refused)
	}
	var slept time.Duration
	for _, d := range env.clock.recordedSleeps() {
		slept += d
		if d > newInstallMaxDelay {
			t.Errorf("a backoff of %s, want at most %s", d, newInstallMaxDelay)
		}
	}
	if slept < ocitest.DefaultPolicyDelay {
		t.Errorf("slept %s in all, want at least the policy delay %s", slept, ocitest.DefaultPolicyDelay)
	}
	t.Logf("converged after %d eventual_consistency retries, %s of backoff", retries, slept)
}

func TestAfterAFirstSuccessA404IsNotRetriedAsLag(t *testing.T) {
	env, comp := newInstallEnv(t, RetryPolicy{})
	ctx := context.Background()
	if _, err := env.client.LoadBalancers.ListLoadBalancers(ctx, comp, ""); err != nil {
		t.Fatal(err)
	}
	before := env.srv.Calls()
	_, err := env.client.LoadBalancers.GetLoadBalancer(ctx, "ocid1.loadbalancer.oc1.phx.gone")
	if !IsNotFound(err) {
		t.Fatalf("GetLoadBalancer of a load balancer that does not exist = %v, want a 404", err)
	}
	if n := env.srv.Calls().Since(before).Op("GetLoadBalancer"); n != 1 {
		t.Errorf("GetLoadBalancer sent %d times, want once: after a first success a 404 means what it says", n)
	}
}

func TestTheNewInstallWindowEnds(t *testing.T) {
	for _, tc := range []struct {
		name   string
		window time.Duration
		// wantCalls bounds the GetLoadBalancer calls of a 404 sent first thing.
		wantMin, wantMax int
	}{
		{name: "default: retried for at most 240 s", window: 0, wantMin: 2, wantMax: 240},
		{name: "off", window: -1, wantMin: 1, wantMax: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _ := newInstallEnv(t, RetryPolicy{NewInstallWindow: tc.window})
			start := env.clock.clock().now()
			_, err := env.client.LoadBalancers.GetLoadBalancer(context.Background(), "ocid1.loadbalancer.oc1.phx.gone")
			if !IsNotFound(err) {
				t.Fatalf("GetLoadBalancer = %v, want the 404 in the end", err)
			}
			n := env.srv.Calls().Op("GetLoadBalancer")
			if n < tc.wantMin || n > tc.wantMax {
				t.Errorf("GetLoadBalancer sent %d times, want %d to %d", n, tc.wantMin, tc.wantMax)
			}
			if took := env.clock.clock().now().Sub(start); took > DefaultNewInstallWindow {
				t.Errorf("the call took %s, past the window of %s", took, DefaultNewInstallWindow)
			}
		})
	}
}
