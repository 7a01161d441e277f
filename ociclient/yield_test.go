// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/oci-ccm/oci-ccm/config"
)

func TestYieldingCallLetsACallOfItsBucketThatCameLaterGoFirst(t *testing.T) {
	for _, tc := range []struct {
		name         string
		yield, plain callClass
		yieldingCtx  func(context.Context) context.Context
		bucketOf     func(*limiter) *bucket
	}{
		{"write made with YieldWrites", classWrite, classWrite, YieldWrites, func(l *limiter) *bucket { return l.write }},
		{"work-request poll", classPoll, classRead, func(ctx context.Context) context.Context { return ctx }, func(l *limiter) *bucket { return l.read }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLimiter(config.RateLimiter{ReadQPS: 1, ReadBurst: 1, WriteQPS: 1, WriteBurst: 1})
			b := tc.bucketOf(l)
			fc := newFakeClock()
			clk := fc.clock()
			ctx := context.Background()
			if _, err := l.wait(ctx, tc.plain, clk, NopMetrics{}); err != nil { // takes the only token
				t.Fatal(err)
			}
			// While the yielding call waits for the next token, another call arrives and reserves it.
			var otherDelay time.Duration
			fc.onSleep = func(context.Context, time.Duration) error {
				if otherDelay == 0 {
					now := clk.now()
					otherDelay = b.ReserveN(now, 1).DelayFrom(now)
				}
				return nil
			}
			if _, err := l.wait(tc.yieldingCtx(ctx), tc.yield, clk, NopMetrics{}); err != nil {
				t.Fatal(err)
			}
			if otherDelay != time.Second {
				t.Errorf("the later %s waits %v, want 1s (the next token)", tc.plain, otherDelay)
			}
			// 1 s for the token the other call took, 1 s more for the next.
			if diff := cmp.Diff([]time.Duration{time.Second, time.Second}, fc.recordedSleeps()); diff != "" {
				t.Errorf("yielding call's waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestYieldingWriteTakesASpareTokenAtOnceAndEndsWithItsContext(t *testing.T) {
	l := newLimiter(config.RateLimiter{ReadQPS: 1, ReadBurst: 1, WriteQPS: 1, WriteBurst: 1})
	fc := newFakeClock()
	clk := fc.clock()
	ctx := context.Background()
	if _, err := l.wait(YieldWrites(ctx), classWrite, clk, NopMetrics{}); err != nil {
		t.Fatal(err)
	}
	if sleeps := fc.recordedSleeps(); len(sleeps) != 0 {
		t.Errorf("waited %v for a spare token, want no wait", sleeps)
	}
	// Other writes keep the bucket empty: the yielding one waits until its context ends.
	cctx, cancel := context.WithCancel(ctx)
	fc.onSleep = func(context.Context, time.Duration) error {
		if len(fc.recordedSleeps()) == 3 {
			cancel()
			return context.Canceled
		}
		now := clk.now()
		l.write.ReserveN(now, 1)
		return nil
	}
	if _, err := l.wait(YieldWrites(cctx), classWrite, clk, NopMetrics{}); err == nil {
		t.Error("yielding write got a token while other writes kept the bucket empty")
	}
}

func TestYieldingWriteQueuesLikeAnyOtherAfterHalfItsDeadline(t *testing.T) {
	l := newLimiter(config.RateLimiter{ReadQPS: 1, ReadBurst: 1, WriteQPS: 1, WriteBurst: 1})
	fc := newFakeClock()
	clk := fc.clock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := l.wait(ctx, classWrite, clk, NopMetrics{}); err != nil { // takes the only token
		t.Fatal(err)
	}
	// Other writes keep the bucket empty: one more arrives during every wait.
	fc.onSleep = func(context.Context, time.Duration) error {
		now := clk.now()
		l.write.ReserveN(now, 1)
		return nil
	}
	if _, err := l.wait(YieldWrites(ctx), classWrite, clk, NopMetrics{}); err != nil {
		t.Fatalf("yielding write with a deadline: %v, want a token once it stopped yielding", err)
	}
	var yielded time.Duration
	sleeps := fc.recordedSleeps()
	for _, d := range sleeps[:len(sleeps)-1] {
		yielded += d
	}
	// Half of the deadline's 10 s (less the few microseconds before the wait began).
	if yielded < 4900*time.Millisecond || yielded > 5*time.Second {
		t.Errorf("yielded for %v (waits %v), want about 5s, then one wait in the queue", yielded, sleeps)
	}
}

// One sequential caller (the service controller's single worker) writes once per token interval
// with a pause between its writes: a yielding write must not take the tokens it is about to use,
// but must not wait for a full bucket once the caller has stopped either.
func TestYieldingWriteLeavesTheTokensToASequentialWriterUntilItStops(t *testing.T) {
	l := newLimiter(config.RateLimiter{ReadQPS: 1, ReadBurst: 1, WriteQPS: 10, WriteBurst: 10})
	fc := newFakeClock()
	clk := fc.clock()
	ctx := context.Background()
	start := clk.now()
	var plainAt []time.Duration
	plain := func() {
		t.Helper()
		if tokens := l.write.TokensAt(clk.now()); tokens < 1 {
			t.Errorf("the other write at %v found %.2f tokens, want one waiting for it", clk.now().Sub(start), tokens)
		}
		if _, err := l.wait(ctx, classWrite, clk, NopMetrics{}); err != nil {
			t.Fatal(err)
		}
		plainAt = append(plainAt, clk.now().Sub(start))
	}
	for range 5 { // a burst leaves 5 tokens: far from full
		plain()
	}
	// Then one write every 100 ms, while the yielding write waits, four times.
	fc.onSleep = func(context.Context, time.Duration) error {
		if len(plainAt) < 9 {
			plain()
		}
		return nil
	}
	if _, err := l.wait(YieldWrites(ctx), classWrite, clk, NopMetrics{}); err != nil {
		t.Fatal(err)
	}
	last := plainAt[len(plainAt)-1]
	if took := clk.now().Sub(start); took != last+200*time.Millisecond {
		t.Errorf("yielding write took its token at %v, want at %v: two token intervals after the other writes' last (%v)",
			took, last+200*time.Millisecond, plainAt)
	}
	if tokens := l.write.TokensAt(clk.now()); tokens >= 9 {
		t.Errorf("%.2f tokens left: the yielding write waited for a full bucket, not for the other writes to stop", tokens)
	}
}
