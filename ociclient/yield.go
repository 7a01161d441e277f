// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"math"
	"time"

	"golang.org/x/time/rate"
)

// yieldKey marks a context made by YieldWrites.
type yieldKey struct{}

// YieldWrites returns a context whose writes yield to every other write of the same Client: such
// a write takes a token from the write bucket only when one is there that no other write has
// reserved, and such writes take them one at a time. Writes that can wait without cost use it,
// e.g. a backend-set change that OCI would queue behind another change of the same load
// balancer anyway (lb's FollowUp), so that the tokens go first to writes that cannot. A yielding
// write whose context has a deadline yields for at most half the time left, then queues for a
// token like any other write; without a deadline, under a write rate that never leaves a token
// spare, it waits until its context ends.
func YieldWrites(ctx context.Context) context.Context {
	return context.WithValue(ctx, yieldKey{}, true)
}

func yields(ctx context.Context) bool {
	y, _ := ctx.Value(yieldKey{}).(bool)
	return y
}

// waitYielding is wait for a YieldWrites write: one such write at a time (l.yield) waits until
// the bucket holds a whole token nobody reserved, and takes it (took). It gives up yielding
// (took false, no error) once half the time to ctx's deadline has passed.
func (l *limiter) waitYielding(ctx context.Context, b *rate.Limiter, name string, clk clock, m Metrics) (took bool, err error) {
	start := clk.now()
	budget := time.Duration(math.MaxInt64)
	if deadline, ok := ctx.Deadline(); ok {
		budget = time.Until(deadline) / 2
	}
	turn, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	select {
	case l.yield <- struct{}{}:
	case <-turn.Done():
		if err := ctx.Err(); err != nil {
			return false, err
		}
		return false, nil
	}
	defer func() { <-l.yield }()
	for {
		now := clk.now()
		tokens := b.TokensAt(now)
		if tokens >= 1 {
			// Another write may have reserved it since; then this one queues behind it.
			r := b.ReserveN(now, 1)
			if d := r.DelayFrom(now); d > 0 {
				if err := clk.sleep(ctx, d); err != nil {
					r.CancelAt(clk.now())
					m.ObserveLimiterWait(ctx, name, clk.now().Sub(start))
					return false, err
				}
			}
			m.ObserveLimiterWait(ctx, name, clk.now().Sub(start))
			return true, nil
		}
		left := budget - now.Sub(start)
		if left <= 0 {
			return false, nil
		}
		// Until a whole token could be there, if nobody reserves it first.
		d := time.Duration((1 - tokens) / float64(b.Limit()) * float64(time.Second))
		if err := clk.sleep(ctx, min(max(d, time.Millisecond), left)); err != nil {
			m.ObserveLimiterWait(ctx, name, clk.now().Sub(start))
			return false, err
		}
	}
}
