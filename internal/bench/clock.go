// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oci-ccm/oci-ccm/internal/ctxtime"
)

// Clock runs time faster than the wall clock: Now advances by one second every Scale seconds
// of real time, and Sleep(d) takes d×Scale. The ocitest server (Options.Now) and the OCI client
// (ociclient.Options.Clock) share one, so a work request that OCI runs for 30 s runs for 0.3 s at
// Scale 0.01 while every timestamp, poll decision and backoff reads as real time: every figure
// the harness reports is in real-time-equivalent seconds.
type Clock struct {
	pace  atomic.Pointer[pace]
	mu    sync.Mutex
	waits []interval // every Sleep since the last Waited, as [start, start+d) in scaled time
}

// pace is the clock's speed from one moment on: from the wall time origin, when the clock read
// base, one second of scaled time passes every scale seconds.
type pace struct {
	origin, base time.Time
	scale        float64
}

func (p *pace) now() time.Time {
	return p.base.Add(time.Duration(float64(time.Since(p.origin)) / p.scale))
}

type interval struct{ from, to time.Time }

// NewClock returns a clock starting now, running 1/scale times faster than the wall clock.
func NewClock(scale float64) *Clock {
	c := &Clock{}
	now := time.Now()
	c.pace.Store(&pace{origin: now, base: now, scale: scale})
	return c
}

// SetScale changes the clock's speed from now on; Now goes on from where it is. The storm runs
// its restart phase, which waits for nothing but this machine's CPU, at real time: a faster
// clock would only multiply the CPU time, and every age the code judges by the clock with it.
func (c *Clock) SetScale(scale float64) {
	now := time.Now()
	p := c.pace.Load()
	c.pace.Store(&pace{origin: now, base: p.base.Add(time.Duration(float64(now.Sub(p.origin)) / p.scale)), scale: scale})
}

// Scale is the clock's current speed, as in NewClock.
func (c *Clock) Scale() float64 { return c.pace.Load().scale }

// Now is the scaled time.
func (c *Clock) Now() time.Time { return c.pace.Load().now() }

// Sleep waits d of scaled time, or until ctx ends.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	p := c.pace.Load()
	now := p.now()
	c.mu.Lock()
	c.waits = append(c.waits, interval{now, now.Add(d)})
	c.mu.Unlock()
	return ctxtime.Sleep(ctx, time.Duration(float64(d)*p.scale))
}

// Since is the scaled time elapsed since t.
func (c *Clock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Waited returns how long, in scaled time, at least one caller was waiting in Sleep since the
// previous call (the union of the waits asked for, from when each began), and starts over. It
// is the time to converge without the work of this machine, whose every millisecond the clock
// turns into a tenth of a second: what the figures compare with the floor.
func (c *Clock) Waited() time.Duration {
	c.mu.Lock()
	ws := c.waits
	c.waits = nil
	c.mu.Unlock()
	slices.SortFunc(ws, func(a, b interval) int { return a.from.Compare(b.from) })
	var total time.Duration
	var cur interval
	for i, w := range ws {
		switch {
		case i == 0:
			cur = w
		case w.from.After(cur.to):
			total += cur.to.Sub(cur.from)
			cur = w
		case w.to.After(cur.to):
			cur.to = w.to
		}
	}
	if len(ws) > 0 {
		total += cur.to.Sub(cur.from)
	}
	return total
}
