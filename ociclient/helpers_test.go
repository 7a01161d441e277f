// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// sortStrings compares string slices as sets with order.
var sortStrings = cmpopts.SortSlices(func(a, b string) bool { return a < b })

// fakeClock replaces the caller's clock in tests: sleeps return at once (advancing now) and are
// recorded, so a test asserts the waits the code asked for instead of measuring them. Jitter
// returns half the ceiling, and records the ceiling.
type fakeClock struct {
	mu       sync.Mutex
	now      time.Time
	sleeps   []time.Duration
	ceilings []time.Duration
	// onSleep, if set, runs before a sleep is recorded; a non-nil error is returned from the
	// sleep instead of advancing (e.g. to cancel a context "during" a backoff).
	onSleep func(ctx context.Context, d time.Duration) error
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2030, time.January, 1, 0, 0, 0, 0, time.UTC)}
}

func (f *fakeClock) clock() clock {
	return clock{
		now: func() time.Time {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.now
		},
		sleep: func(ctx context.Context, d time.Duration) error {
			if f.onSleep != nil {
				if err := f.onSleep(ctx, d); err != nil {
					return err
				}
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			f.sleeps = append(f.sleeps, d)
			f.now = f.now.Add(d)
			return nil
		},
		jitter: func(n time.Duration) time.Duration {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.ceilings = append(f.ceilings, n)
			return n / 2
		},
	}
}

func (f *fakeClock) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

func (f *fakeClock) recordedSleeps() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sleeps)
}

func (f *fakeClock) recordedCeilings() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.ceilings)
}

// testEnv is an ocitest server and a Client talking to it through the real SDK clients.
type testEnv struct {
	srv     *ocitest.Server
	client  *Client
	metrics *recordedMetrics
	clock   *fakeClock // nil unless the env was built with a fake clock
}

type envConfig struct {
	server ocitest.Options
	client Options
	// fakeClock swaps the client's clock for a fakeClock.
	fakeClock bool
	// httpTimeout, if set, bounds each request (http.Client.Timeout).
	httpTimeout time.Duration
}

func newTestEnv(t testing.TB, cfg envConfig) *testEnv {
	t.Helper()
	if cfg.server.Tenancy == nil {
		cfg.server.Tenancy = withoutInstances()
	}
	srv := ocitest.New(cfg.server)
	t.Cleanup(srv.Close)
	opts := cfg.client
	opts.Provider = srv.ConfigurationProvider()
	opts.Host = srv.URL()
	opts.HTTPClient = srv.HTTPClient()
	if cfg.httpTimeout > 0 {
		hc := *opts.HTTPClient
		hc.Timeout = cfg.httpTimeout
		opts.HTTPClient = &hc
	}
	rec := &recordedMetrics{}
	opts.Metrics = rec
	c, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	env := &testEnv{srv: srv, client: c, metrics: rec}
	if cfg.fakeClock {
		env.clock = newFakeClock()
		c.caller.clock = env.clock.clock()
	}
	return env
}

// noLimit turns the client-side rate limiter off.
var noLimit = config.RateLimiter{Disabled: true}

// recordedMetrics is a Metrics that counts every call by method and arguments (durations left
// out), e.g. "request loadbalancer GetLoadBalancer ok", and keeps the rate-limiter rates it is
// told (LimiterRateObserver) apart, in order.
type recordedMetrics struct {
	mu     sync.Mutex
	counts map[string]int
	rates  map[string][]float64
}

func (r *recordedMetrics) ObserveLimiterRate(bucket string, qps float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rates == nil {
		r.rates = map[string][]float64{}
	}
	r.rates[bucket] = append(r.rates[bucket], qps)
}

// ratesOf returns the rates reported for bucket, in order.
func (r *recordedMetrics) ratesOf(bucket string) []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.rates[bucket])
}

func (r *recordedMetrics) add(parts ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.counts == nil {
		r.counts = map[string]int{}
	}
	r.counts[strings.Join(parts, " ")]++
}

// snapshot returns the counts whose key starts with one of prefixes (all with none).
func (r *recordedMetrics) snapshot(prefixes ...string) map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for k, n := range r.counts {
		if len(prefixes) == 0 || slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(k, p) }) {
			out[k] = n
		}
	}
	return out
}

func (r *recordedMetrics) ObserveRequest(_ context.Context, service, operation, outcome string, _ time.Duration) {
	r.add("request", service, operation, outcome)
}
func (r *recordedMetrics) CountRetry(_ context.Context, service, operation, reason string) {
	r.add("retry", service, operation, reason)
}
func (r *recordedMetrics) ObserveLimiterWait(_ context.Context, bucket string, _ time.Duration) {
	r.add("limiter", bucket)
}
func (r *recordedMetrics) CountWorkRequestPoll(_ context.Context, service string) {
	r.add("poll", service)
}
func (r *recordedMetrics) CountWorkRequest(_ context.Context, service, result string) {
	r.add("workrequest", service, result)
}
func (r *recordedMetrics) CountCacheLookup(_ context.Context, cache, result string) {
	r.add("cache", cache, result)
}

// withoutInstances is ocitest's default tenancy without its instances: the tests count the
// instances of the compartment, and add the ones they need.
func withoutInstances() *ocitest.Tenancy {
	t := ocitest.DefaultTenancy()
	t.Instances = nil
	return &t
}
