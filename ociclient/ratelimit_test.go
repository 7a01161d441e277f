// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func rateLimitEnv(t *testing.T, rl config.RateLimiter) (*testEnv, string) {
	t.Helper()
	env := newTestEnv(t, envConfig{client: Options{RateLimit: rl}, fakeClock: true})
	lb := env.srv.AddLoadBalancer(loadbalancer.LoadBalancer{})
	return env, *lb.Id
}

func TestRateLimiterMakesCallsWaitForTokens(t *testing.T) {
	env, id := rateLimitEnv(t, config.RateLimiter{ReadQPS: 2, ReadBurst: 1})
	ctx := context.Background()
	for i := range 4 {
		if _, err := env.client.LoadBalancers.GetLoadBalancer(ctx, id); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	// A burst of 1 lets the first call through; every later one waits 1/QPS for its token.
	want := []time.Duration{500 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond}
	if diff := cmp.Diff(want, env.clock.recordedSleeps()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if calls := env.srv.Calls().Op("GetLoadBalancer"); calls != 4 {
		t.Errorf("GetLoadBalancer calls = %d, want 4", calls)
	}
}

func TestRateLimiterKeepsReadsAndWritesApart(t *testing.T) {
	env, id := rateLimitEnv(t, config.RateLimiter{ReadQPS: 1, ReadBurst: 1, WriteQPS: 1, WriteBurst: 1})
	ctx := context.Background()
	if _, err := env.client.LoadBalancers.GetLoadBalancer(ctx, id); err != nil {
		t.Fatal(err)
	}
	// The read bucket is empty now; a write must not wait for it.
	if _, err := env.client.LoadBalancers.UpdateLoadBalancer(ctx, id, loadbalancer.UpdateLoadBalancerDetails{DisplayName: common.String("renamed")}); err != nil {
		t.Fatal(err)
	}
	if sleeps := env.clock.recordedSleeps(); len(sleeps) != 0 {
		t.Errorf("waited %v; want no wait", sleeps)
	}
}

func TestRateLimiterCountsWorkRequestPollsAsReads(t *testing.T) {
	env, id := rateLimitEnv(t, config.RateLimiter{ReadQPS: 1, ReadBurst: 1})
	ctx := context.Background()
	wr, err := env.client.LoadBalancers.UpdateLoadBalancer(ctx, id, loadbalancer.UpdateLoadBalancerDetails{DisplayName: common.String("renamed")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.client.LoadBalancers.GetLoadBalancer(ctx, id); err != nil {
		t.Fatal(err)
	}
	env.srv.CompleteWorkRequests()
	if err := env.client.LoadBalancers.WaitForWorkRequest(ctx, wr); err != nil {
		t.Fatal(err)
	}
	// The waiter sleeps Poll.Initial (100ms), which refills a tenth of a token; the poll then
	// waits the other 900ms for it.
	want := []time.Duration{DefaultPollInitial, time.Second - DefaultPollInitial}
	if diff := cmp.Diff(want, env.clock.recordedSleeps()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestRateLimiterWaitEndsWithTheContext(t *testing.T) {
	env, id := rateLimitEnv(t, config.RateLimiter{ReadQPS: 0.001, ReadBurst: 1})
	ctx := context.Background()
	if _, err := env.client.LoadBalancers.GetLoadBalancer(ctx, id); err != nil {
		t.Fatal(err)
	}
	// The next token is 1000s away. Block in the limiter until the test cancels.
	waiting := make(chan struct{})
	env.clock.onSleep = func(ctx context.Context, _ time.Duration) error {
		close(waiting)
		<-ctx.Done()
		return ctx.Err()
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := env.client.LoadBalancers.GetLoadBalancer(ctx, id)
		done <- err
	}()
	<-waiting
	cancel()
	err := <-done
	var opErr *OperationError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &opErr) || opErr.Attempts != 0 {
		t.Fatalf("error %v: want context.Canceled with no request sent", err)
	}
	if calls := env.srv.Calls().Op("GetLoadBalancer"); calls != 1 {
		t.Errorf("GetLoadBalancer calls = %d, want 1 (the blocked call never reached OCI)", calls)
	}
}

func TestRateLimiterFailsFastWhenTheTokenComesAfterTheDeadline(t *testing.T) {
	env, id := rateLimitEnv(t, config.RateLimiter{ReadQPS: 0.001, ReadBurst: 1})
	if _, err := env.client.LoadBalancers.GetLoadBalancer(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := env.client.LoadBalancers.GetLoadBalancer(ctx, id)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v: want context.DeadlineExceeded", err)
	}
	if sleeps := env.clock.recordedSleeps(); len(sleeps) != 0 {
		t.Errorf("waited %v; want no wait", sleeps)
	}
	// The refused reservation was given back: once the clock passes the next token, one call
	// goes through without waiting for a second.
	env.clock.advance(1000 * time.Second)
	if _, err := env.client.LoadBalancers.GetLoadBalancer(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if sleeps := env.clock.recordedSleeps(); len(sleeps) != 0 {
		t.Errorf("waited %v; want no wait", sleeps)
	}
}

func TestRateLimiterDisabledNeverWaits(t *testing.T) {
	env, id := rateLimitEnv(t, config.RateLimiter{Disabled: true, ReadQPS: 0.001, ReadBurst: 1})
	for range 5 {
		if _, err := env.client.LoadBalancers.GetLoadBalancer(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	if sleeps := env.clock.recordedSleeps(); len(sleeps) != 0 {
		t.Errorf("waited %v; want no wait", sleeps)
	}
}

// A library user without cloud-provider.yaml and an operator with one get the same limits:
// the write bucket once defaulted to 10/s burst 20 here and 5/s burst 10 in config.
func TestNewTakesTheRateLimitDefaultsOfConfig(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	c, err := New(ForServer(srv))
	if err != nil {
		t.Fatal(err)
	}
	var fromConfig config.Config
	fromConfig.SetDefaults()
	type bucket struct {
		QPS   float64
		Burst int
	}
	l := c.caller.limiter
	got := []bucket{{float64(l.read.Limit()), l.read.Burst()}, {float64(l.write.Limit()), l.write.Burst()}}
	rl := fromConfig.RateLimiter
	want := []bucket{{rl.ReadQPS, rl.ReadBurst}, {rl.WriteQPS, rl.WriteBurst}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read and write buckets (-config's +New's):\n%s", diff)
	}
}
