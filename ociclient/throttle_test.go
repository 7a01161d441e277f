// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/internal/ctxtime"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// scaledClock runs faster than the wall clock: Now advances one second every scale seconds of
// real time and Sleep(d) takes d×scale. A throttled job spans tens of seconds of OCI's time; on
// this clock it takes a few, while ocitest's server-side limit, which runs on the wall clock,
// is set to its rate divided by scale.
type scaledClock struct {
	origin time.Time
	scale  float64
}

func newScaledClock(scale float64) scaledClock { return scaledClock{origin: time.Now(), scale: scale} }

func (c scaledClock) Now() time.Time {
	return c.origin.Add(time.Duration(float64(time.Since(c.origin)) / c.scale))
}

func (c scaledClock) Sleep(ctx context.Context, d time.Duration) error {
	return ctxtime.Sleep(ctx, time.Duration(float64(d)*c.scale))
}

// throttledJob is a job of calls made by a few goroutines through a client limited by rl
// against a server that allows class calls at qps with burst, on a scaledClock.
type throttledJob struct {
	class      ocitest.Class
	qps        float64
	burst      int
	calls      int // the job's calls, each of them until it succeeds or fails
	goroutines int
	// scale is the job's clock (scaledClock): the server's qps/scale calls a second of real
	// time, each costing a few milliseconds of CPU in a -race build. Scheduling delays on two
	// cores shared with other work bunch calls up and the server refuses the bunch, so the
	// clock runs only a few times faster than real time: at 0.2 a loaded machine pushed the
	// reads past 5% answered 429 (9 of 169) with nothing wrong in the limiter.
	scale float64
	// call makes call number i against load balancer lb, which is in compartment.
	call func(ctx context.Context, c *Client, i int, lb, compartment string) error
}

// throttledRun is what a job cost, counted by the server.
type throttledRun struct {
	calls, throttled, failed int
	took                     time.Duration // on the scaled clock
	learnt                   config.RateLimiter
	rates                    *recordedMetrics
}

func (r throttledRun) String() string {
	return fmt.Sprintf("%d calls, %d answered 429 (%.1f%%), %d failed, %.1fs", r.calls, r.throttled,
		100*float64(r.throttled)/float64(max(r.calls, 1)), r.failed, r.took.Seconds())
}

func (j throttledJob) run(t *testing.T, rl config.RateLimiter) throttledRun {
	t.Helper()
	clk := newScaledClock(j.scale)
	srv := ocitest.New(ocitest.Options{Now: clk.Now})
	t.Cleanup(srv.Close)
	srv.SetRateLimit(j.class, j.qps/j.scale, j.burst)
	lbs := make([]string, j.goroutines)
	for i := range lbs {
		lbs[i] = *srv.AddLoadBalancer(loadbalancer.LoadBalancer{}).Id
	}
	opts := ForServer(srv)
	rec := &recordedMetrics{}
	opts.RateLimit, opts.Clock, opts.Metrics, opts.Logger = rl, clk, rec, logr.Discard()
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var next, failed atomic.Int64
	start := clk.Now()
	var wg sync.WaitGroup
	for g := range j.goroutines {
		wg.Go(func() {
			for i := int(next.Add(1)); i <= j.calls; i = int(next.Add(1)) {
				if err := j.call(ctx, c, i, lbs[g], srv.Seeded().Compartment); err != nil {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	calls := srv.Calls()
	return throttledRun{calls: calls.Total(), throttled: calls.Status(http.StatusTooManyRequests), failed: int(failed.Load()),
		took: clk.Now().Sub(start), learnt: c.CurrentRateLimit(), rates: rec}
}

// Issue #26: with the default limits against a tenancy that allows fewer calls, every call backed
// off on its own timer and came back at the full rate, and two thirds of the calls were refused.
// The adaptive limiter must cost about what a client configured at the tenancy's rate costs.
func TestAdaptiveLimiterNearlyMatchesAClientConfiguredAtOCIsRate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs throttled jobs for a few seconds")
	}
	tests := []struct {
		name       string
		job        throttledJob
		configured config.RateLimiter
		bucket     string
		learnt     func(config.RateLimiter) float64
	}{
		{
			// A quarter of the default 20 reads/s, with a second's worth of burst.
			name: "reads: 5/s against the default 20/s",
			job: throttledJob{class: ocitest.ClassRead, qps: 5, burst: 5, calls: 160, goroutines: 4, scale: 0.4,
				call: func(ctx context.Context, c *Client, i int, lb, compartment string) error {
					if i%4 == 0 {
						_, err := c.LoadBalancers.ListLoadBalancers(ctx, compartment, "")
						return err
					}
					_, err := c.LoadBalancers.GetLoadBalancer(ctx, lb)
					return err
				}},
			configured: config.RateLimiter{ReadQPS: 5, ReadBurst: 5},
			bucket:     "read",
			learnt:     func(rl config.RateLimiter) float64 { return rl.ReadQPS },
		},
		{
			// Two fifths of the default 5 writes/s, with a second's worth of burst. Each write is
			// a rename; OCI queues the work requests of one load balancer, so each goroutine
			// renames its own.
			name: "writes: 2/s against the default 5/s",
			job: throttledJob{class: ocitest.ClassWrite, qps: 2, burst: 2, calls: 160, goroutines: 2, scale: 0.2,
				call: func(ctx context.Context, c *Client, i int, lb, _ string) error {
					_, err := c.LoadBalancers.UpdateLoadBalancer(ctx, lb, loadbalancer.UpdateLoadBalancerDetails{DisplayName: common.String(fmt.Sprint("lb-", i))})
					return err
				}},
			configured: config.RateLimiter{WriteQPS: 2, WriteBurst: 2},
			bucket:     "write",
			learnt:     func(rl config.RateLimiter) float64 { return rl.WriteQPS },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var adaptive, configured throttledRun
			var wg sync.WaitGroup
			wg.Go(func() { adaptive = tt.job.run(t, config.RateLimiter{}) })
			wg.Go(func() { configured = tt.job.run(t, tt.configured) })
			wg.Wait()
			t.Logf("default client:    %v; learnt %.2f/s", adaptive, tt.learnt(adaptive.learnt))
			t.Logf("configured client: %v", configured)
			if adaptive.failed > 0 || configured.failed > 0 {
				t.Errorf("%d calls of the default client and %d of the configured one failed, want none", adaptive.failed, configured.failed)
			}
			if limit := 1.2 * float64(configured.calls); float64(adaptive.calls) > limit {
				t.Errorf("the default client made %d calls, more than 1.2 times the configured client's %d", adaptive.calls, configured.calls)
			}
			if adaptive.throttled*20 > adaptive.calls {
				t.Errorf("%d of the default client's %d calls were answered 429, more than 5%%", adaptive.throttled, adaptive.calls)
			}
			// The learnt rate is what the metric shows last and what the client reports: below the
			// configured rate, near the server's.
			rates := adaptive.rates.ratesOf(tt.bucket)
			if len(rates) < 2 {
				t.Fatalf("the %s bucket's rate was reported %v, want the configured rate then at least a cut", tt.bucket, rates)
			}
			rate := rates[len(rates)-1]
			if got := tt.learnt(adaptive.learnt); got != rate {
				t.Errorf("the client says its %s rate is %.2f, the metric %.2f; want the same", tt.bucket, got, rate)
			}
			if rate < tt.job.qps/3 || rate > tt.job.qps*1.5 {
				t.Errorf("learnt %.2f %ss a second, want near the server's %g", rate, tt.bucket, tt.job.qps)
			}
		})
	}
}
