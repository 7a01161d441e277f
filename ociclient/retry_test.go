// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// retryEnv is a client with the default retry policy, no client-side rate limit and a fake
// clock, and one load balancer to read.
func retryEnv(t *testing.T, retry RetryPolicy) (*testEnv, string) {
	t.Helper()
	env := newTestEnv(t, envConfig{
		client:    Options{RateLimit: config.RateLimiter{Disabled: true}, Retry: retry},
		fakeClock: true,
	})
	lb := env.srv.AddLoadBalancer(loadbalancer.LoadBalancer{})
	return env, *lb.Id
}

func TestRetryLayerRetriesTransientErrorsAndNothingElse(t *testing.T) {
	tests := []struct {
		name   string
		faults []ocitest.Fault
		// wantCalls is how many requests reach ocitest; wantOK whether the call succeeds.
		wantCalls  int
		wantOK     bool
		wantStatus int // the status of the error returned, when !wantOK
		wantSleeps []time.Duration
	}{
		{
			name:       "429 honours a Retry-After of seconds",
			faults:     []ocitest.Fault{{Status: 429, RetryAfter: "3", Times: 2}},
			wantCalls:  3,
			wantOK:     true,
			wantSleeps: []time.Duration{3 * time.Second, 3 * time.Second},
		},
		{
			name:       "429 without Retry-After backs off with jitter",
			faults:     []ocitest.Fault{{Status: 429, Times: 1}},
			wantCalls:  2,
			wantOK:     true,
			wantSleeps: []time.Duration{DefaultBaseDelay / 2},
		},
		{
			name: "500, 502 and 503 back off exponentially",
			faults: []ocitest.Fault{
				{Status: 500, Times: 1}, {Status: 502, Times: 1}, {Status: 503, Times: 1},
			},
			wantCalls: 4,
			wantOK:    true,
			// The fake jitter returns half of the ceilings 250ms, 500ms, 1s.
			wantSleeps: []time.Duration{125 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond},
		},
		{
			name:       "409 IncorrectState (load balancer busy) is retried",
			faults:     []ocitest.Fault{{Status: 409, Code: "IncorrectState", Times: 1}},
			wantCalls:  2,
			wantOK:     true,
			wantSleeps: []time.Duration{DefaultBaseDelay / 2},
		},
		{
			name:       "a dropped connection is retried",
			faults:     []ocitest.Fault{{DropConnection: true, Times: 1}},
			wantCalls:  2,
			wantOK:     true,
			wantSleeps: []time.Duration{DefaultBaseDelay / 2},
		},
		{
			name:       "persistent 500 stops after MaxAttempts",
			faults:     []ocitest.Fault{{Status: 500}},
			wantCalls:  DefaultMaxAttempts,
			wantStatus: 500,
			wantSleeps: []time.Duration{125 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second},
		},
		{name: "400 is not retried", faults: []ocitest.Fault{{Status: 400}}, wantCalls: 1, wantStatus: 400},
		{name: "401 is not retried", faults: []ocitest.Fault{{Status: 401}}, wantCalls: 1, wantStatus: 401},
		{name: "404 is not retried", faults: []ocitest.Fault{{Status: 404}}, wantCalls: 1, wantStatus: 404},
		{name: "412 is not retried", faults: []ocitest.Fault{{Status: 412}}, wantCalls: 1, wantStatus: 412},
		{name: "501 is not retried", faults: []ocitest.Fault{{Status: 501}}, wantCalls: 1, wantStatus: 501},
		{
			name:       "409 other than IncorrectState is not retried",
			faults:     []ocitest.Fault{{Status: 409, Code: "Conflict"}},
			wantCalls:  1,
			wantStatus: 409,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, id := retryEnv(t, RetryPolicy{})
			for _, f := range tt.faults {
				f.Operation = "GetLoadBalancer"
				env.srv.InjectFault(f)
			}
			got, err := env.client.LoadBalancers.GetLoadBalancer(context.Background(), id)

			if calls := env.srv.Calls().Op("GetLoadBalancer"); calls != tt.wantCalls {
				t.Errorf("GetLoadBalancer calls = %d, want %d", calls, tt.wantCalls)
			}
			if diff := cmp.Diff(tt.wantSleeps, env.clock.recordedSleeps()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			if tt.wantOK {
				if err != nil || got.Id == nil || *got.Id != id {
					t.Fatalf("GetLoadBalancer = %v, %v; want load balancer %s", got.Id, err, id)
				}
				return
			}
			var se common.ServiceError
			if !errors.As(err, &se) || se.GetHTTPStatusCode() != tt.wantStatus {
				t.Fatalf("error %v: want a common.ServiceError with status %d", err, tt.wantStatus)
			}
			var opErr *OperationError
			if !errors.As(err, &opErr) || opErr.Attempts != tt.wantCalls || opErr.Operation != "GetLoadBalancer" || opErr.Resource != id {
				t.Fatalf("error %v: want *OperationError for GetLoadBalancer %s after %d attempts", err, id, tt.wantCalls)
			}
		})
	}
}

func TestRetryHonoursRetryAfterAsHTTPDate(t *testing.T) {
	env, id := retryEnv(t, RetryPolicy{})
	at := env.clock.clock().now().Add(7 * time.Second).Format(http.TimeFormat)
	env.srv.InjectFault(ocitest.Fault{Operation: "GetLoadBalancer", Status: 503, RetryAfter: at, Times: 1})

	if _, err := env.client.LoadBalancers.GetLoadBalancer(context.Background(), id); err != nil {
		t.Fatalf("GetLoadBalancer: %v", err)
	}
	if diff := cmp.Diff([]time.Duration{7 * time.Second}, env.clock.recordedSleeps()); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
}

func TestRetryBackoffCeilingDoublesUpToMaxDelay(t *testing.T) {
	env, id := retryEnv(t, RetryPolicy{MaxAttempts: 7, BaseDelay: time.Second, MaxDelay: 5 * time.Second, MaxElapsed: time.Hour})
	env.srv.InjectFault(ocitest.Fault{Operation: "GetLoadBalancer", Status: 500})

	_, err := env.client.LoadBalancers.GetLoadBalancer(context.Background(), id)
	if !IsRetryable(err) {
		t.Fatalf("GetLoadBalancer error %v: want a retryable 500", err)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second, 5 * time.Second}
	if diff := cmp.Diff(want, env.clock.recordedCeilings()); diff != "" {
		t.Errorf("backoff ceilings (-want +got):\n%s", diff)
	}
	if calls := env.srv.Calls().Op("GetLoadBalancer"); calls != 7 {
		t.Errorf("GetLoadBalancer calls = %d, want 7", calls)
	}
}

func TestRetryGivesUpWhenTheWaitWouldPassMaxElapsed(t *testing.T) {
	env, id := retryEnv(t, RetryPolicy{MaxElapsed: time.Minute})
	env.srv.InjectFault(ocitest.Fault{Operation: "GetLoadBalancer", Status: 429, RetryAfter: "120"})

	_, err := env.client.LoadBalancers.GetLoadBalancer(context.Background(), id)
	if !IsRateLimited(err) {
		t.Fatalf("error %v: want the 429", err)
	}
	if calls := env.srv.Calls().Op("GetLoadBalancer"); calls != 1 {
		t.Errorf("GetLoadBalancer calls = %d, want 1", calls)
	}
	if sleeps := env.clock.recordedSleeps(); len(sleeps) != 0 {
		t.Errorf("slept %v; want no sleep", sleeps)
	}
}

func TestRetryKeepsOCIErrorWhenTheWaitWouldPassTheContextDeadline(t *testing.T) {
	env, id := retryEnv(t, RetryPolicy{MaxElapsed: time.Hour})
	env.srv.InjectFault(ocitest.Fault{Operation: "GetLoadBalancer", Status: 429, RetryAfter: "600"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	_, err := env.client.LoadBalancers.GetLoadBalancer(ctx, id)
	// Unlike the SDK's own retry (DeadlineExceededByBackoff), the 429 is what the caller sees.
	if !IsRateLimited(err) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v: want the 429 and no deadline error", err)
	}
	if sleeps := env.clock.recordedSleeps(); len(sleeps) != 0 {
		t.Errorf("slept %v; want no sleep", sleeps)
	}
}

func TestRetryStopsWhenTheContextIsCancelledDuringBackoff(t *testing.T) {
	env, id := retryEnv(t, RetryPolicy{})
	env.srv.InjectFault(ocitest.Fault{Operation: "GetLoadBalancer", Status: 429, RetryAfter: "10"})
	ctx, cancel := context.WithCancel(context.Background())
	env.clock.onSleep = func(ctx context.Context, _ time.Duration) error {
		cancel()
		return ctx.Err()
	}

	_, err := env.client.LoadBalancers.GetLoadBalancer(ctx, id)
	if !errors.Is(err, context.Canceled) || !IsRateLimited(err) {
		t.Fatalf("error %v: want both the cancellation and the last 429", err)
	}
	if calls := env.srv.Calls().Op("GetLoadBalancer"); calls != 1 {
		t.Errorf("GetLoadBalancer calls = %d, want 1", calls)
	}
}

func TestCancellingARequestInFlightReturnsPromptly(t *testing.T) {
	env := newTestEnv(t, envConfig{})
	lb := env.srv.AddLoadBalancer(loadbalancer.LoadBalancer{})
	// The server holds the request until the client gives up.
	env.srv.InjectFault(ocitest.Fault{Operation: "GetLoadBalancer", Latency: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := env.client.LoadBalancers.GetLoadBalancer(ctx, *lb.Id)
		done <- err
	}()
	for env.srv.Calls().Op("GetLoadBalancer") == 0 {
		time.Sleep(time.Millisecond) // wait until the request has reached the server
	}
	cancel()
	err := <-done
	var opErr *OperationError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &opErr) || opErr.Attempts != 1 {
		t.Fatalf("error %v: want context.Canceled after 1 attempt", err)
	}
}

func TestRetryAfterARequestTimeout(t *testing.T) {
	env := newTestEnv(t, envConfig{
		client:      Options{RateLimit: config.RateLimiter{Disabled: true}},
		fakeClock:   true,
		httpTimeout: 200 * time.Millisecond,
	})
	lb := env.srv.AddLoadBalancer(loadbalancer.LoadBalancer{})
	env.srv.InjectFault(ocitest.Fault{Operation: "GetLoadBalancer", Latency: time.Hour, Times: 1})

	if _, err := env.client.LoadBalancers.GetLoadBalancer(context.Background(), *lb.Id); err != nil {
		t.Fatalf("GetLoadBalancer: %v", err)
	}
	if calls := env.srv.Calls().Op("GetLoadBalancer"); calls != 2 {
		t.Errorf("GetLoadBalancer calls = %d, want 2 (one timed out)", calls)
	}
	want := map[string]int{"retry loadbalancer GetLoadBalancer timeout": 1}
	if diff := cmp.Diff(want, env.metrics.snapshot("retry ")); diff != "" {
		t.Errorf("retries recorded (-want +got):\n%s", diff)
	}
}

func TestNoCircuitBreakerAfterManyConsecutiveFailures(t *testing.T) {
	// The SDK's default breaker opens after 10 requests with 80% failures and then refuses
	// calls locally for 30s; with it off, every call reaches OCI and the 21st succeeds.
	env, id := retryEnv(t, RetryPolicy{MaxAttempts: 1})
	env.srv.InjectFault(ocitest.Fault{Operation: "GetLoadBalancer", Status: 500, Times: 20})
	ctx := context.Background()
	for i := range 20 {
		_, err := env.client.LoadBalancers.GetLoadBalancer(ctx, id)
		var se common.ServiceError
		if !errors.As(err, &se) || se.GetHTTPStatusCode() != 500 {
			t.Fatalf("call %d: error %v, want OCI's 500", i+1, err)
		}
	}
	if _, err := env.client.LoadBalancers.GetLoadBalancer(ctx, id); err != nil {
		t.Fatalf("call 21: %v; want success", err)
	}
	if calls := env.srv.Calls().Op("GetLoadBalancer"); calls != 21 {
		t.Errorf("GetLoadBalancer calls = %d, want 21", calls)
	}
}

func TestRetryAfterHeaderForms(t *testing.T) {
	now := time.Date(2030, time.January, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		value  string
		want   time.Duration
		wantOK bool
	}{
		{value: "", wantOK: false},
		{value: "5", want: 5 * time.Second, wantOK: true},
		{value: " 0.5 ", want: 500 * time.Millisecond, wantOK: true},
		{value: "-3", wantOK: false},
		{value: now.Add(90 * time.Second).Format(http.TimeFormat), want: 90 * time.Second, wantOK: true},
		{value: now.Add(-time.Hour).Format(http.TimeFormat), want: 0, wantOK: true},
		{value: "soon", wantOK: false},
	}
	for _, tt := range tests {
		resp := &http.Response{Header: http.Header{}}
		if tt.value != "" {
			resp.Header.Set("Retry-After", tt.value)
		}
		got, ok := retryAfter(resp, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tt.value, got, ok, tt.want, tt.wantOK)
		}
	}
}
