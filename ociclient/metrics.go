// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"sync"
	"time"
)

// Metrics receives what a Client measures. Options.Metrics takes one; without it a Client
// records nothing. The interface keeps any metrics library out of ociclient's imports: a
// library user's build grows Prometheus only if they plug in an adapter that uses it (the
// binary's adapter, internal/prommetrics, serves these as the ociclient_* metrics listed in
// README.md).
//
// Implementations must be safe for concurrent use and must not block: every method is called
// on the path of a request. ctx is the call's context (for exemplars or trace correlation);
// never store it. Embed NopMetrics to record only some of them, and to stay
// source-compatible if a method is added before v1. A Metrics that also implements
// LimiterRateObserver is told the rate limiter's rates as the client learns them.
type Metrics interface {
	// ObserveRequest is called after every attempt of every call (retries included), with the
	// service ("loadbalancer", "networkloadbalancer", "compute", "virtualnetwork", "identity"),
	// the OCI operation (e.g. "GetLoadBalancer"), the outcome ("ok", "not_found", "conflict",
	// "precondition_failed", "throttled", "unauthorized", "server_error", "client_error",
	// "timeout", "connection", "canceled", "error") and how long the attempt took.
	ObserveRequest(ctx context.Context, service, operation, outcome string, d time.Duration)
	// CountRetry is called before a call is retried, with the reason ("throttled",
	// "server_error", "incorrect_state", "nlb_busy", "timeout", "connection").
	CountRetry(ctx context.Context, service, operation, reason string)
	// ObserveLimiterWait is called each time a call takes a token from the client-side rate
	// limiter's bucket ("read" or "write"), with how long it waited for it.
	ObserveLimiterWait(ctx context.Context, bucket string, d time.Duration)
	// CountWorkRequestPoll is called after every work-request poll.
	CountWorkRequestPoll(ctx context.Context, service string)
	// CountWorkRequest is called when a wait for a work request ends, with its result
	// ("succeeded", "failed", or "error" when the wait itself failed or was cut short).
	CountWorkRequest(ctx context.Context, service, result string)
	// CountCacheLookup is called for every cached read, with the cache (e.g. "instance",
	// "subnet") and the result: "hit", "miss" (this caller loaded it) or "shared" (joined a
	// load another caller had started).
	CountCacheLookup(ctx context.Context, cache, result string)
}

// LimiterRateObserver is an optional interface of a Metrics (Options.Metrics): a Metrics that
// implements it is told the rate of each client-side rate-limiter bucket ("read", which
// work-request polls share, or "write") in calls per second, once when the Client is built (the
// configured rate) and again each time the bucket adapts it: after a 429 cuts it, and as it
// climbs back towards the configured rate (see Options.RateLimit). It is separate from Metrics so
// that implementations written before it keep compiling. The same rules apply: safe for
// concurrent use, and it must not block. Several Clients sharing one Metrics report under the
// same bucket names.
type LimiterRateObserver interface {
	// ObserveLimiterRate is called with a bucket's new rate.
	ObserveLimiterRate(bucket string, qps float64)
}

// NopMetrics records nothing. It is what a Client uses when Options.Metrics is nil.
type NopMetrics struct{}

var _ Metrics = NopMetrics{}

// ObserveRequest does nothing.
func (NopMetrics) ObserveRequest(context.Context, string, string, string, time.Duration) {}

// CountRetry does nothing.
func (NopMetrics) CountRetry(context.Context, string, string, string) {}

// ObserveLimiterWait does nothing.
func (NopMetrics) ObserveLimiterWait(context.Context, string, time.Duration) {}

// CountWorkRequestPoll does nothing.
func (NopMetrics) CountWorkRequestPoll(context.Context, string) {}

// CountWorkRequest does nothing.
func (NopMetrics) CountWorkRequest(context.Context, string, string) {}

// CountCacheLookup does nothing.
func (NopMetrics) CountCacheLookup(context.Context, string, string) {}

// ConsistencyObserver is an optional interface of a Metrics (Options.Metrics), as
// LimiterRateObserver is: it counts what the layers over the client (lb, instances) do because
// OCI is eventually consistent, instead of believing an answer that may only be lag. The client
// itself never calls it; those layers take it in their Options (the ccm package passes on the
// Metrics when it implements this). Same rules: safe for concurrent use, non-blocking.
type ConsistencyObserver interface {
	// CountConsistencyWait is called once per wait or re-check, with the component ("lb",
	// "instances") and the reason: ConsistencyListingLag or ConsistencyAmbiguousNotFound.
	CountConsistencyWait(ctx context.Context, component, reason string)
}

// ConsistencyCounts is a ConsistencyObserver that keeps its counts in memory, for a controller
// that reports them its own way or a test that checks them. The zero value is ready to use.
type ConsistencyCounts struct {
	mu sync.Mutex
	n  map[[2]string]int
}

var _ ConsistencyObserver = (*ConsistencyCounts)(nil)

// CountConsistencyWait counts one wait of component for reason.
func (c *ConsistencyCounts) CountConsistencyWait(_ context.Context, component, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[[2]string]int{}
	}
	c.n[[2]string{component, reason}]++
}

// Count returns how many waits component made for reason.
func (c *ConsistencyCounts) Count(component, reason string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[[2]string{component, reason}]
}

// Reasons of ConsistencyObserver.CountConsistencyWait.
const (
	// ConsistencyListingLag: a listing too young to show what was created a moment ago (by this
	// process, or by the one before a restart) was waited out and made again before its silence
	// was taken for absence.
	ConsistencyListingLag = "listing_lag"
	// ConsistencyAmbiguousNotFound: a 404 NotAuthorizedOrNotFound, which OCI answers both for
	// what is missing and for what a policy (perhaps one still propagating) does not allow yet,
	// was checked against a fresh listing before being believed.
	ConsistencyAmbiguousNotFound = "ambiguous_not_found"
)
