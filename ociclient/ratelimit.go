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
// with YieldWrites to other writes. Each bucket adapts its rate to OCI's answers (adaptive.go).
// A limiter with nil buckets lets everything through.
type limiter struct {
	read, write *bucket
}

// bucket is one token bucket, what its yielding calls need to know and what it has learnt of
// OCI's limit.
type bucket struct {
	name  string        // "read" or "write", in metrics and errors
	yield chan struct{} // one yielding call waits at a time

	// ceiling and fullBurst are the configured rate and burst, which the bucket never exceeds;
	// floor is the rate it is never cut below.
	ceiling, floor float64
	fullBurst      int
	// observe, if set, is told every rate the bucket takes (LimiterRateObserver).
	observe func(qps float64)

	mu sync.Mutex
	// lim is the bucket's tokens. A cut replaces it (see cut), so every method reads it under mu.
	lim *rate.Limiter
	// lastPlain is when a call that does not yield last reserved a token.
	lastPlain time.Time
	adaptState
}

func newBucket(name string, qps float64, burst int) *bucket {
	return &bucket{
		name: name, yield: make(chan struct{}, 1),
		ceiling: qps, floor: min(minRate, qps), fullBurst: burst,
		lim: rate.NewLimiter(rate.Limit(qps), burst),
	}
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

// current is the bucket's token bucket of the moment.
func (b *bucket) current() *rate.Limiter {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lim
}

// Limit is the bucket's rate now, in tokens per second.
func (b *bucket) Limit() rate.Limit { return b.current().Limit() }

// Burst is the bucket's size now.
func (b *bucket) Burst() int { return b.current().Burst() }

// TokensAt is how many tokens the bucket holds at t (negative when calls are queued).
func (b *bucket) TokensAt(t time.Time) float64 { return b.current().TokensAt(t) }

// ReserveN reserves n tokens at t, as rate.Limiter.ReserveN.
func (b *bucket) ReserveN(t time.Time, n int) *rate.Reservation { return b.current().ReserveN(t, n) }

// reserve reserves one token at t, and returns the epoch of the tokens it came from: a cut after
// it (a newer epoch) means the reservation's place was computed at a rate OCI refused.
func (b *bucket) reserve(t time.Time) (*rate.Reservation, uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lim.ReserveN(t, 1), b.epoch
}

// yielding reports whether a call of class with ctx yields to the others of its bucket.
func yielding(ctx context.Context, class callClass) bool {
	return class == classPoll || (class == classWrite && yields(ctx))
}

// grant is the token a call took: its bucket (nil when limiting is off), the bucket's epoch
// when it was taken, and whether the call had to wait for it. The call's answer is reported
// against it (caller.adapt).
type grant struct {
	b      *bucket
	epoch  uint64
	waited bool
}

// wait blocks until the class's bucket grants a token or ctx ends. It never refuses a call
// because the bucket is empty: callers queue instead. The one early return is when ctx's
// deadline comes before the token would: waiting could only end in that deadline. While OCI's
// Retry-After pauses the bucket, every call of it waits for the pause to end, including one
// whose token came while the pause began. A call whose token was reserved before the bucket was
// cut queues again at the new rate (its place was computed at the rate OCI refused); a yielding
// call reserves its token only once it may take it, so one that began to wait before a cut and
// took a token after it keeps that token. (Queuing such calls again sent a storm's hundreds of
// deferred writes, queued one behind the other, each to the back of the queue once, and no
// write went out for a whole round of them.)
func (l *limiter) wait(ctx context.Context, class callClass, clk clock, m Metrics) (grant, error) {
	if err := ctx.Err(); err != nil {
		return grant{}, err
	}
	b := l.bucket(class)
	if b == nil {
		return grant{}, nil
	}
	yield := yielding(ctx, class)
	start := clk.now()
	slept := false
	observe := func() {
		var d time.Duration
		if slept {
			d = clk.now().Sub(start)
		}
		m.ObserveLimiterWait(ctx, b.name, d)
	}
	for {
		until := b.pauseEnd()
		if now := clk.now(); now.Before(until) {
			pause := until.Sub(now)
			if deadline, ok := ctx.Deadline(); ok && pause > time.Until(deadline) {
				return grant{}, fmt.Errorf("rate limiter (%s) is paused for %v at OCI's request, more than the context's deadline allows: %w",
					b.name, pause, context.DeadlineExceeded)
			}
			slept = true
			if err := clk.sleep(ctx, pause); err != nil {
				observe()
				return grant{}, err
			}
		}
		epoch, waited, err := b.take(ctx, clk, yield)
		slept = slept || waited
		if err != nil {
			if slept {
				observe()
			}
			return grant{}, err
		}
		if b.epochIs(epoch) && !clk.now().Before(b.pauseEnd()) {
			observe()
			// A yielding call that slept waited for a token too: while only yielding calls run
			// (a storm's deferred writes, polls), the rate holds them back, and must be able to
			// grow.
			return grant{b: b, epoch: epoch, waited: slept}, nil
		}
	}
}

// take waits for one token of b, yielding to its other calls if yield, and reports the epoch of
// the tokens it came from (see reserve) and whether it slept for it.
func (b *bucket) take(ctx context.Context, clk clock, yield bool) (epoch uint64, waited bool, err error) {
	if yield {
		epoch, took, waited, err := b.waitYielding(ctx, clk)
		if took || err != nil {
			return epoch, waited, err
		}
		epoch, w, err := b.reserveAndWait(ctx, clk, false)
		return epoch, waited || w, err
	}
	return b.reserveAndWait(ctx, clk, true)
}

// reserveAndWait takes the next token of b, sleeping until it is due; plain says the call
// does not yield (yield.go tracks when those last reserved one). epoch is the reservation's.
func (b *bucket) reserveAndWait(ctx context.Context, clk clock, plain bool) (epoch uint64, waited bool, err error) {
	now := clk.now()
	r, epoch := b.reserve(now)
	if plain {
		b.reserved(now)
	}
	if !r.OK() {
		// Only a burst below 1 gets here, which withDefaults rules out.
		return epoch, false, fmt.Errorf("rate limiter (%s) can never grant a token", b.name)
	}
	delay := r.DelayFrom(now)
	if delay <= 0 {
		return epoch, false, nil
	}
	if deadline, ok := ctx.Deadline(); ok && delay > time.Until(deadline) {
		r.CancelAt(now)
		return epoch, false, fmt.Errorf("rate limiter (%s) needs %v, more than the context's deadline allows: %w",
			b.name, delay, context.DeadlineExceeded)
	}
	if err := clk.sleep(ctx, delay); err != nil {
		// Give the token back so calls still queued are not delayed for one never used.
		r.CancelAt(clk.now())
		return epoch, true, err
	}
	return epoch, true, nil
}
