// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"sync"
	"time"
)

// Clock is a settable clock for Options.Now: real time plus an offset that Advance moves
// forward, so work requests still progress on their own while a test can jump past a retry
// token's 24 hours or a long work request without waiting. The zero value is real time.
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now is the clock's time; pass the method value as Options.Now.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// Advance moves the clock forward by d (a negative d is ignored: OCI's time never runs back).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += max(d, 0)
}

// WorkRequestDurations decides how long a work request runs, from its API (APILoadBalancer or
// APINetworkLoadBalancer), its SDK operation (e.g. "CreateListener") and n, which numbers the
// server's work requests from 1 in acceptance order so a profile can vary deterministically.
type WorkRequestDurations func(api, operation string, n uint64) time.Duration

// durationRange is a span of real OCI work-request durations.
type durationRange struct{ min, max time.Duration }

// realisticRanges are OCI's work-request durations by operation. The create and listener/backend
// figures (1–2 min, 20–40 s) are approximate, from users' logs: OCI publishes no work-request
// durations. The rest are assumed, and say so in README.md.
var realisticRanges = map[string]durationRange{
	"CreateLoadBalancer":        {60 * time.Second, 120 * time.Second},
	"CreateNetworkLoadBalancer": {60 * time.Second, 120 * time.Second}, // assumed: like the LB
	"DeleteLoadBalancer":        {30 * time.Second, 60 * time.Second},  // assumed
	"DeleteNetworkLoadBalancer": {30 * time.Second, 60 * time.Second},  // assumed
	"UpdateLoadBalancerShape":   {60 * time.Second, 120 * time.Second}, // assumed: re-provisions
}

// realisticDefault covers listener, backend set, backend, certificate, NSG and settings changes.
var realisticDefault = durationRange{20 * time.Second, 40 * time.Second}

// RealisticDurations is a profile of OCI's own work-request durations (create 1–2 min, a
// listener, backend set, backend or certificate change 20–40 s, delete 30–60 s) multiplied by
// scale: RealisticDurations(0.01) runs "real OCI time ÷ 100", a create in 0.6–1.2 s. Each work
// request gets a fixed point in its operation's range, chosen from n, so runs repeat exactly. A
// scale of 0 or less means 1.
func RealisticDurations(scale float64) WorkRequestDurations {
	if scale <= 0 {
		scale = 1
	}
	return func(_, op string, n uint64) time.Duration {
		r, ok := realisticRanges[op]
		if !ok {
			r = realisticDefault
		}
		// Knuth's multiplicative hash spreads consecutive n over the range.
		frac := float64((n*2654435761)%1024) / 1023
		d := r.min + time.Duration(frac*float64(r.max-r.min))
		return time.Duration(float64(d) * scale)
	}
}
