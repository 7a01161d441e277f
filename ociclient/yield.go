// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"math"
	"time"
)

// yieldKey marks a context made by YieldWrites.
type yieldKey struct{}

// YieldWrites returns a context whose writes yield to every other write of the same Client: such
// a write takes a token from the write bucket only when no other write would miss it (the
// bucket is full, or no other write has asked for one for two token intervals), and such writes
// take them one at a time. Writes that can wait without cost use it,
// e.g. a backend-set change that OCI would queue behind another change of the same load balancer
// anyway (lb's FollowUp), so that the tokens go first to writes that cannot. A yielding write
// whose context has a deadline yields for at most half the time left, then queues for a token
// like any other write; without a deadline, under a write rate that never leaves a token spare,
// it waits until its context ends.
//
// Work-request polls yield the same way to the other reads, always: a poll found late costs a
// little time at the end of a work request, while a read kept waiting behind a storm's polls
// (the service controller's single worker reading a load balancer before each node sync)
// delays everything that worker does after it.
func YieldWrites(ctx context.Context) context.Context {
	return context.WithValue(ctx, yieldKey{}, true)
}

func yields(ctx context.Context) bool {
	y, _ := ctx.Value(yieldKey{}).(bool)
	return y
}

// reserved records that a call that does not yield reserved a token of b at now.
func (b *bucket) reserved(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.After(b.lastPlain) {
		b.lastPlain = now
	}
}

// yieldGaps is how many token intervals the calls that do not yield must have left the bucket
// alone before a yielding call takes a token that is not about to be lost. One sequential caller
// (the service controller's single worker) pauses between its calls to read, compute and write;
// a yielding call that took the token it was about to use would make it wait a whole interval
// for the next one, and slow it below the rate.
const yieldGaps = 2

// spareAt reports whether a yielding call may take a token of b at now, when b holds tokens: when
// no other call would miss it, because the bucket is full (the token would be lost) or no call
// that does not yield has reserved one for yieldGaps token intervals (they stopped, and did not
// just pause between two calls). If not, wait is how long until it might.
func (b *bucket) spareAt(now time.Time, tokens float64) (ok bool, wait time.Duration) {
	interval := time.Duration(float64(time.Second) / float64(b.Limit()))
	if tokens < 1 {
		// Rounded up to the microsecond: a wait cut short by a rounding error would find the
		// token a hair short of whole and wait again.
		return false, time.Duration(math.Ceil((1-tokens)*float64(interval)/float64(time.Microsecond))) * time.Microsecond
	}
	full := float64(b.Burst())
	if tokens >= full-1e-6 {
		return true, 0
	}
	b.mu.Lock()
	idleFrom := b.lastPlain.Add(yieldGaps * interval)
	b.mu.Unlock()
	if !now.Before(idleFrom) {
		return true, 0
	}
	return false, min(idleFrom.Sub(now), time.Duration((full-tokens)*float64(interval)))
}

// waitYielding is wait for a yielding call: one such call at a time (b.yield) waits until b
// holds a token no other call would miss (spareAt), and takes it (took). It gives up yielding
// (took false, no error) once half the time to ctx's deadline has passed. waited says whether
// it slept.
func (b *bucket) waitYielding(ctx context.Context, clk clock) (epoch uint64, took, waited bool, err error) {
	start := clk.now()
	budget := time.Duration(math.MaxInt64)
	if deadline, ok := ctx.Deadline(); ok {
		budget = time.Until(deadline) / 2
	}
	turn, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	select {
	case b.yield <- struct{}{}:
	case <-turn.Done():
		if err := ctx.Err(); err != nil {
			return 0, false, false, err
		}
		return 0, false, false, nil
	}
	defer func() { <-b.yield }()
	for {
		now := clk.now()
		ok, d := b.spareAt(now, b.TokensAt(now))
		if ok {
			// Another call may have reserved it since; then this one queues behind it.
			r, epoch := b.reserve(now)
			if d := r.DelayFrom(now); d > 0 {
				if err := clk.sleep(ctx, d); err != nil {
					r.CancelAt(clk.now())
					return epoch, false, true, err
				}
				waited = true
			}
			return epoch, true, waited, nil
		}
		left := budget - now.Sub(start)
		if left <= 0 {
			return 0, false, waited, nil
		}
		waited = true
		if err := clk.sleep(ctx, min(max(d, time.Millisecond), left)); err != nil {
			return 0, false, true, err
		}
	}
}
