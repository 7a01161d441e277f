// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"math"
	"strconv"

	"golang.org/x/time/rate"
)

// rateLimits are the server-side token buckets. Guarded by control.mu.
type rateLimits struct {
	buckets    map[Class]*rate.Limiter // ClassRead (which polls share) and ClassWrite
	retryAfter bool
}

// bucketFor maps a call class to its bucket: OCI limits work-request polls as reads.
func bucketFor(class Class) Class {
	if class == ClassPoll {
		return ClassRead
	}
	return class
}

// SetRateLimit makes the server answer 429 TooManyRequests to calls of a class beyond a token
// bucket of qps tokens per second and burst tokens, as OCI throttles a tenancy. ClassPoll shares
// the ClassRead bucket (setting either sets it). A qps of 0 or less removes the limit, which is
// the default.
func (s *Server) SetRateLimit(class Class, qps float64, burst int) {
	s.ctl.mu.Lock()
	defer s.ctl.mu.Unlock()
	b := bucketFor(class)
	if qps <= 0 {
		delete(s.ctl.limits.buckets, b)
		return
	}
	if s.ctl.limits.buckets == nil {
		s.ctl.limits.buckets = map[Class]*rate.Limiter{}
	}
	s.ctl.limits.buckets[b] = rate.NewLimiter(rate.Limit(qps), max(burst, 1))
}

// SetRateLimitRetryAfter says whether rate-limited answers carry a retry-after header with the
// whole seconds until a token is free (at least 1). Off by default: OCI does not promise one.
func (s *Server) SetRateLimitRetryAfter(send bool) {
	s.ctl.mu.Lock()
	defer s.ctl.mu.Unlock()
	s.ctl.limits.retryAfter = send
}

// limit takes a token for a call of the class. When none is left it reports limited, with the
// retry-after value to send ("" when disabled).
func (c *control) limit(class Class) (retryAfter string, limited bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	lim, ok := c.limits.buckets[bucketFor(class)]
	if !ok {
		return "", false
	}
	now := c.now()
	res := lim.ReserveN(now, 1)
	delay := res.DelayFrom(now)
	if res.OK() && delay == 0 {
		return "", false
	}
	res.CancelAt(now)
	if !c.limits.retryAfter {
		return "", true
	}
	return strconv.Itoa(max(1, int(math.Ceil(delay.Seconds())))), true
}
