// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/time/rate"

	"github.com/oci-ccm/oci-ccm/config"
)

// limiter holds the client-side token buckets: one for reads (work-request polls included),
// one for writes, so a burst of polling never delays a create and the reverse. A limiter with
// nil buckets lets everything through.
type limiter struct {
	read, write *rate.Limiter
	yield       chan struct{} // one YieldWrites write waits at a time (yield.go)
}

// newLimiter builds the buckets from a defaulted config.RateLimiter.
func newLimiter(cfg config.RateLimiter) *limiter {
	if cfg.Disabled {
		return &limiter{}
	}
	return &limiter{
		read:  rate.NewLimiter(rate.Limit(cfg.ReadQPS), cfg.ReadBurst),
		write: rate.NewLimiter(rate.Limit(cfg.WriteQPS), cfg.WriteBurst),
		yield: make(chan struct{}, 1),
	}
}

func (l *limiter) bucket(class callClass) (*rate.Limiter, string) {
	if class == classWrite {
		return l.write, "write"
	}
	return l.read, "read"
}

// wait blocks until the class's bucket grants a token or ctx ends. It never refuses a call
// because the bucket is empty: callers queue instead. The one early return is when ctx's
// deadline comes before the token would: waiting could only end in that deadline.
func (l *limiter) wait(ctx context.Context, class callClass, clk clock, m Metrics) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, name := l.bucket(class)
	if b == nil {
		return nil
	}
	if class == classWrite && yields(ctx) {
		if took, err := l.waitYielding(ctx, b, name, clk, m); took || err != nil {
			return err
		}
	}
	now := clk.now()
	r := b.ReserveN(now, 1)
	if !r.OK() {
		// Only a burst below 1 gets here, which withDefaults rules out.
		return fmt.Errorf("rate limiter (%s) can never grant a token", name)
	}
	delay := r.DelayFrom(now)
	if delay <= 0 {
		m.ObserveLimiterWait(ctx, name, 0)
		return nil
	}
	if deadline, ok := ctx.Deadline(); ok && delay > time.Until(deadline) {
		r.CancelAt(now)
		return fmt.Errorf("rate limiter (%s) needs %v, more than the context's deadline allows: %w",
			name, delay, context.DeadlineExceeded)
	}
	if err := clk.sleep(ctx, delay); err != nil {
		// Give the token back so calls still queued are not delayed for one never used.
		r.CancelAt(clk.now())
		m.ObserveLimiterWait(ctx, name, clk.now().Sub(now))
		return err
	}
	m.ObserveLimiterWait(ctx, name, delay)
	return nil
}
