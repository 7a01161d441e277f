// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/oci-ccm/oci-ccm/config"
)

// limiter holds the client-side token buckets: one for reads (work-request polls included),
// one for writes, so a burst of polling never delays a create and the reverse. Within a bucket
// some calls yield to the others (yield.go): work-request polls to other reads, writes made
// with YieldWrites to other writes. A limiter with nil buckets lets everything through.
type limiter struct {
	read, write *bucket
}

// bucket is one token bucket and what its yielding calls need to know.
type bucket struct {
	*rate.Limiter
	name  string        // "read" or "write", in metrics and errors
	yield chan struct{} // one yielding call waits at a time

	mu sync.Mutex
	// lastPlain is when a call that does not yield last reserved a token.
	lastPlain time.Time
}

func newBucket(name string, qps float64, burst int) *bucket {
	return &bucket{Limiter: rate.NewLimiter(rate.Limit(qps), burst), name: name, yield: make(chan struct{}, 1)}
}

// newLimiter builds the buckets from a defaulted config.RateLimiter.
func newLimiter(cfg config.RateLimiter) *limiter {
	if cfg.Disabled {
		return &limiter{}
	}
	return &limiter{
		read:  newBucket("read", cfg.ReadQPS, cfg.ReadBurst),
		write: newBucket("write", cfg.WriteQPS, cfg.WriteBurst),
	}
}

func (l *limiter) bucket(class callClass) *bucket {
	if class == classWrite {
		return l.write
	}
	return l.read
}

// yielding reports whether a call of class with ctx yields to the others of its bucket.
func yielding(ctx context.Context, class callClass) bool {
	return class == classPoll || (class == classWrite && yields(ctx))
}

// wait blocks until the class's bucket grants a token or ctx ends. It never refuses a call
// because the bucket is empty: callers queue instead. The one early return is when ctx's
// deadline comes before the token would: waiting could only end in that deadline.
func (l *limiter) wait(ctx context.Context, class callClass, clk clock, m Metrics) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b := l.bucket(class)
	if b == nil {
		return nil
	}
	name := b.name
	yield := yielding(ctx, class)
	if yield {
		if took, err := b.waitYielding(ctx, clk, m); took || err != nil {
			return err
		}
	}
	now := clk.now()
	r := b.ReserveN(now, 1)
	if !yield {
		b.reserved(now)
	}
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
