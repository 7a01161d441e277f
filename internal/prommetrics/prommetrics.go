// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package prommetrics serves ociclient's measurements as Prometheus metrics through
// k8s.io/component-base/metrics, the registry the controller manager exposes on /metrics.
//
// It lives apart from ociclient so that only the binary (and whoever imports this package)
// links the Prometheus client. The metric names, labels, help texts and buckets are the ones
// ociclient/README.md lists; dashboards depend on them, so change them only on purpose.
package prommetrics

import (
	"context"
	"fmt"
	"time"

	"k8s.io/component-base/metrics"
)

// subsystem prefixes every metric name: ociclient_requests_total, ...
const subsystem = "ociclient"

// Metrics records an ociclient.Client's measurements in Prometheus metrics. It implements
// ociclient.Metrics and ociclient.LimiterRateObserver; build it with Register.
type Metrics struct {
	requests         *metrics.CounterVec
	latency          *metrics.HistogramVec
	retries          *metrics.CounterVec
	limiterWait      *metrics.HistogramVec
	limiterRate      *metrics.GaugeVec
	workRequestPolls *metrics.CounterVec
	workRequests     *metrics.CounterVec
	cacheLookups     *metrics.CounterVec
	consistency      *metrics.CounterVec
}

// Register creates the metrics and registers each with register: a KubeRegistry's Register, or
// legacyregistry.Register for the controller manager's /metrics. It fails on the first
// conflict, e.g. a second Metrics on the same registry: share one Metrics between Clients
// instead.
func Register(register func(metrics.Registerable) error) (*Metrics, error) {
	m := newMetrics()
	for _, c := range []metrics.Registerable{
		m.requests, m.latency, m.retries, m.limiterWait, m.limiterRate, m.workRequestPolls, m.workRequests, m.cacheLookups, m.consistency,
	} {
		if err := register(c); err != nil {
			return nil, fmt.Errorf("registering ociclient metrics: %w", err)
		}
	}
	return m, nil
}

func newMetrics() *Metrics {
	return &Metrics{
		requests: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      subsystem,
			Name:           "requests_total",
			Help:           "Requests sent to OCI (every attempt), by service, operation and outcome.",
			StabilityLevel: metrics.ALPHA,
		}, []string{"service", "operation", "outcome"}),
		latency: metrics.NewHistogramVec(&metrics.HistogramOpts{
			Subsystem:      subsystem,
			Name:           "request_duration_seconds",
			Help:           "Duration of requests to OCI, by service and operation.",
			Buckets:        metrics.ExponentialBuckets(0.01, 2, 12), // 10ms .. ~20s
			StabilityLevel: metrics.ALPHA,
		}, []string{"service", "operation"}),
		retries: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      subsystem,
			Name:           "retries_total",
			Help:           "Requests to OCI retried, by service, operation and reason.",
			StabilityLevel: metrics.ALPHA,
		}, []string{"service", "operation", "reason"}),
		limiterWait: metrics.NewHistogramVec(&metrics.HistogramOpts{
			Subsystem:      subsystem,
			Name:           "rate_limiter_wait_seconds",
			Help:           "Time calls waited for the client-side rate limiter, by bucket.",
			Buckets:        []float64{0, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30},
			StabilityLevel: metrics.ALPHA,
		}, []string{"class"}),
		limiterRate: metrics.NewGaugeVec(&metrics.GaugeOpts{
			Subsystem:      subsystem,
			Name:           "rate_limiter_rate",
			Help:           "Calls per second the client-side rate limiter allows, by bucket: the configured rate, or less after OCI answered 429.",
			StabilityLevel: metrics.ALPHA,
		}, []string{"class"}),
		workRequestPolls: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      subsystem,
			Name:           "work_request_polls_total",
			Help:           "Work-request polls, by service.",
			StabilityLevel: metrics.ALPHA,
		}, []string{"service"}),
		workRequests: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      subsystem,
			Name:           "work_requests_total",
			Help:           "Work requests waited for, by service and result.",
			StabilityLevel: metrics.ALPHA,
		}, []string{"service", "result"}),
		cacheLookups: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      subsystem,
			Name:           "cache_lookups_total",
			Help:           "Cached reads, by cache and result (hit, miss, or shared: joined a concurrent identical read).",
			StabilityLevel: metrics.ALPHA,
		}, []string{"cache", "result"}),
		consistency: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      subsystem,
			Name:           "consistency_waits_total",
			Help:           "Waits and re-checks made because OCI is eventually consistent, by component (lb, instances) and reason (listing_lag: a listing too young to prove absence was waited out and made again; ambiguous_not_found: a 404 NotAuthorizedOrNotFound was checked against a fresh listing).",
			StabilityLevel: metrics.ALPHA,
		}, []string{"component", "reason"}),
	}
}

// ObserveRequest counts one attempt by outcome and observes its duration.
func (m *Metrics) ObserveRequest(_ context.Context, service, operation, outcome string, d time.Duration) {
	m.requests.WithLabelValues(service, operation, outcome).Inc()
	m.latency.WithLabelValues(service, operation).Observe(d.Seconds())
}

// CountRetry counts one retry.
func (m *Metrics) CountRetry(_ context.Context, service, operation, reason string) {
	m.retries.WithLabelValues(service, operation, reason).Inc()
}

// ObserveLimiterWait observes one wait for the client-side rate limiter.
func (m *Metrics) ObserveLimiterWait(_ context.Context, bucket string, d time.Duration) {
	m.limiterWait.WithLabelValues(bucket).Observe(d.Seconds())
}

// ObserveLimiterRate sets a bucket's rate.
func (m *Metrics) ObserveLimiterRate(bucket string, qps float64) {
	m.limiterRate.WithLabelValues(bucket).Set(qps)
}

// CountWorkRequestPoll counts one work-request poll.
func (m *Metrics) CountWorkRequestPoll(_ context.Context, service string) {
	m.workRequestPolls.WithLabelValues(service).Inc()
}

// CountWorkRequest counts one finished wait for a work request.
func (m *Metrics) CountWorkRequest(_ context.Context, service, result string) {
	m.workRequests.WithLabelValues(service, result).Inc()
}

// CountCacheLookup counts one cached read.
func (m *Metrics) CountCacheLookup(_ context.Context, cache, result string) {
	m.cacheLookups.WithLabelValues(cache, result).Inc()
}

// CountConsistencyWait counts one wait or re-check made for eventual consistency
// (ociclient.ConsistencyObserver).
func (m *Metrics) CountConsistencyWait(_ context.Context, component, reason string) {
	m.consistency.WithLabelValues(component, reason).Inc()
}
