// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// The throttled scenario's tenancy: OCI publishes no rates (ociclient/adaptive.go), so these
// are a quarter of the client's default 20 reads/s and two fifths of its 5 writes/s, the
// limits of issue #26's test.
const (
	throttledReadQPS  = 5
	throttledWriteQPS = 2
	// throttledServices Services are created, then get a node each, by throttledWorkers
	// workers (--concurrent-service-syncs): more calls than the tenancy takes at once.
	throttledServices = 8
	throttledWorkers  = 4
	// throttledScale is the clock: 10 times real time, where the server's 50 reads a second of
	// real time leave this machine's CPU free to send faster (at 100x the client is CPU-bound
	// below the tenancy's rate and is never throttled).
	throttledScale = 0.1
	// throttledWR is every work request's duration: short, so that the tenancy's rates and
	// not the work requests bound the job.
	throttledWR = 2 * time.Second
)

// Throttled runs one job against a tenancy of throttledReadQPS and throttledWriteQPS (server
// limits with a second's worth of burst): throttledServices Services of 2 ports over 10 nodes
// created by throttledWorkers workers at once, then a node added to each. It runs the job
// through a client with the default rate limits, which learns the tenancy's, and through one
// configured at the tenancy's rates, and writes a table.
func Throttled(out io.Writer) error {
	fmt.Fprintf(out, "\n### Throttled: a tenancy allowing %d reads/s and %d writes/s\n\n", throttledReadQPS, throttledWriteQPS)
	fmt.Fprintf(out, "%d Services (2 ports, 10 nodes) created by %d workers at once, then a node added to each, through lb;\n",
		throttledServices, throttledWorkers)
	fmt.Fprintf(out, "every work request %v, clock %gx real time. \"Learnt\" is the client's rate after the job\n", throttledWR, 1/throttledScale)
	fmt.Fprintln(out, "(Client.CurrentRateLimit); the floor is the calls of the client configured at the tenancy's rates, at those")
	fmt.Fprintln(out, "rates, or the work requests' own durations, whichever is longer.")
	fmt.Fprintln(out)
	type run struct {
		label string
		rl    config.RateLimiter
		m     Measure
		learn config.RateLimiter
	}
	runs := []*run{
		{label: "default (20 reads/s, 5 writes/s)"},
		{label: "configured at the tenancy's rates", rl: config.RateLimiter{
			ReadQPS: throttledReadQPS, ReadBurst: throttledReadQPS, WriteQPS: throttledWriteQPS, WriteBurst: throttledWriteQPS}},
	}
	for _, r := range runs {
		m, learnt, err := throttledJob(r.rl)
		if err != nil {
			return fmt.Errorf("throttled, %s: %w", r.label, err)
		}
		r.m, r.learn = m, learnt
	}
	ref := runs[1].m
	floor := max(ref.Floor, seconds(float64(ref.Writes)/throttledWriteQPS), seconds(float64(ref.Reads+ref.Polls)/throttledReadQPS))
	fmt.Fprintln(out, "| client | reads | writes | polls | 429s | calls | 429 share | learnt reads/s | learnt writes/s | time | waiting | floor |")
	fmt.Fprintln(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range runs {
		m := r.m
		fmt.Fprintf(out, "| %s | %d | %d | %d | %d | %d | %.1f%% | %.2f | %.2f | %s | %s | %s |\n", r.label, m.Reads, m.Writes, m.Polls,
			m.Status429, m.Calls(), 100*float64(m.Status429)/float64(max(m.Calls(), 1)), r.learn.ReadQPS, r.learn.WriteQPS,
			secs(m.Took), secs(m.Net), secs(floor))
	}
	return nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// throttledJob runs the job once through a client limited by rl (zero: the defaults) and returns
// what it cost and the client's rates after it.
func throttledJob(rl config.RateLimiter) (Measure, config.RateLimiter, error) {
	w, err := NewWorld(WorldOptions{Nodes: 11, Durations: fixed(throttledWR), ReadQPS: throttledReadQPS,
		WriteQPS: throttledWriteQPS, Scale: throttledScale, NoInformers: true, RateLimit: rl})
	if err != nil {
		return Measure{}, config.RateLimiter{}, err
	}
	defer w.Close()
	each := func(ctx context.Context, f func(i int) error) error {
		jobs := make(chan int)
		errs := make(chan error, throttledServices)
		var wg sync.WaitGroup
		for range throttledWorkers {
			wg.Go(func() {
				for i := range jobs {
					if err := f(i); err != nil {
						errs <- err
					}
				}
			})
		}
		for i := range throttledServices {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		close(errs)
		return <-errs
	}
	m := w.step("throttled", "", func(ctx context.Context) error {
		if err := each(ctx, func(i int) error {
			_, err := w.LB.EnsureLoadBalancer(ctx, "bench", svc(fmt.Sprint("throttled-", i), 80, 443), w.Nodes[:10])
			return err
		}); err != nil {
			return err
		}
		return each(ctx, func(i int) error {
			return w.LB.UpdateLoadBalancer(ctx, "bench", svc(fmt.Sprint("throttled-", i), 80, 443), w.Nodes[:11])
		})
	})
	return m, w.OCI.CurrentRateLimit(), m.Err
}

func fixed(d time.Duration) ocitest.WorkRequestDurations {
	return func(string, string, uint64) time.Duration { return d }
}
