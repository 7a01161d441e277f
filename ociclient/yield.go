// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"time"

	"golang.org/x/time/rate"
)

// yieldKey marks a context made by YieldWrites.
type yieldKey struct{}

// YieldWrites returns a context whose writes yield to every other write of the same Client: such
// a write takes a token from the write bucket only when one is there that no other write has
// reserved, and such writes take them one at a time. Writes that can wait without cost use it,
// e.g. a backend-set change that OCI would queue behind another change of the same load
// balancer anyway (lb's FollowUp), so that the tokens go first to writes that cannot. Under a
// write rate that never leaves a token spare, a yielding write waits until its context ends.
func YieldWrites(ctx context.Context) context.Context {
	return context.WithValue(ctx, yieldKey{}, true)
}

func yields(ctx context.Context) bool {
	y, _ := ctx.Value(yieldKey{}).(bool)
	return y
}

// waitYielding is wait for a YieldWrites write: one such write at a time (l.yield) waits until
// the bucket holds a whole token nobody reserved, and takes it.
func (l *limiter) waitYielding(ctx context.Context, b *rate.Limiter, name string, clk clock, m Metrics) error {
	start := clk.now()
	select {
	case l.yield <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
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
					return err
				}
			}
			m.ObserveLimiterWait(ctx, name, clk.now().Sub(start))
			return nil
		}
		// Until a whole token could be there, if nobody reserves it first.
		d := time.Duration((1 - tokens) / float64(b.Limit()) * float64(time.Second))
		if err := clk.sleep(ctx, max(d, time.Millisecond)); err != nil {
			m.ObserveLimiterWait(ctx, name, clk.now().Sub(start))
			return err
		}
	}
}
