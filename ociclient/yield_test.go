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

func TestYieldingWriteLetsAWriteThatCameLaterGoFirst(t *testing.T) {
	l := newLimiter(config.RateLimiter{ReadQPS: 1, ReadBurst: 1, WriteQPS: 1, WriteBurst: 1})
	fc := newFakeClock()
	clk := fc.clock()
	ctx := context.Background()
	if err := l.wait(ctx, classWrite, clk, NopMetrics{}); err != nil { // takes the only token
		t.Fatal(err)
	}
	// While the yielding write waits for the next token, another write arrives and reserves it.
	var otherDelay time.Duration
	fc.onSleep = func(context.Context, time.Duration) error {
		if otherDelay == 0 {
			now := clk.now()
			otherDelay = l.write.ReserveN(now, 1).DelayFrom(now)
		}
		return nil
	}
	if err := l.wait(YieldWrites(ctx), classWrite, clk, NopMetrics{}); err != nil {
		t.Fatal(err)
	}
	if otherDelay != time.Second {
		t.Errorf("the later write waits %v, want 1s (the next token)", otherDelay)
	}
	// 1 s for the token the other write took, 1 s more for the next.
	if diff := cmp.Diff([]time.Duration{time.Second, time.Second}, fc.recordedSleeps()); diff != "" {
		t.Errorf("yielding write's waits (-want +got):\n%s", diff)
	}
}

func TestYieldingWriteTakesASpareTokenAtOnceAndEndsWithItsContext(t *testing.T) {
	l := newLimiter(config.RateLimiter{ReadQPS: 1, ReadBurst: 1, WriteQPS: 1, WriteBurst: 1})
	fc := newFakeClock()
	clk := fc.clock()
	ctx := context.Background()
	if err := l.wait(YieldWrites(ctx), classWrite, clk, NopMetrics{}); err != nil {
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
	if err := l.wait(YieldWrites(cctx), classWrite, clk, NopMetrics{}); err == nil {
		t.Error("yielding write got a token while other writes kept the bucket empty")
	}
}

func TestYieldingWriteQueuesLikeAnyOtherAfterHalfItsDeadline(t *testing.T) {
	l := newLimiter(config.RateLimiter{ReadQPS: 1, ReadBurst: 1, WriteQPS: 1, WriteBurst: 1})
	fc := newFakeClock()
	clk := fc.clock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.wait(ctx, classWrite, clk, NopMetrics{}); err != nil { // takes the only token
		t.Fatal(err)
	}
	// Other writes keep the bucket empty: one more arrives during every wait.
	fc.onSleep = func(context.Context, time.Duration) error {
		now := clk.now()
		l.write.ReserveN(now, 1)
		return nil
	}
	if err := l.wait(YieldWrites(ctx), classWrite, clk, NopMetrics{}); err != nil {
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
