package ociclient

import (
	"time"

	"k8s.io/component-base/metrics"
)

// metricsSubsystem prefixes every metric name: ociclient_requests_total, ...
const metricsSubsystem = "ociclient"

// clientMetrics are one Client's metrics. They are created per Client and registered only on
// the registry given in Options; unregistered component-base metrics are no-ops, so a Client
// without a registry records nothing and costs little.
type clientMetrics struct {
	// requests counts requests sent (each attempt), by service, operation and outcome ("ok",
	// "not_found", "conflict", "precondition_failed", "throttled", "unauthorized",
	// "server_error", "client_error", "timeout", "connection", "canceled", "error").
	requests *metrics.CounterVec
	// latency observes each request's duration, by service and operation.
	latency *metrics.HistogramVec
	// retries counts retries, by service, operation and reason ("throttled", "server_error",
	// "incorrect_state", "nlb_busy", "timeout", "connection").
	retries *metrics.CounterVec
	// limiterWait observes how long calls waited for the client-side rate limiter, by bucket
	// ("read", "write").
	limiterWait *metrics.HistogramVec
	// workRequestPolls counts work-request polls, by service.
	workRequestPolls *metrics.CounterVec
	// workRequests counts finished waits for work requests, by service and result
	// ("succeeded", "failed", "error").
	workRequests *metrics.CounterVec
	// cacheLookups counts cached reads, by cache and result: "hit", "miss" (this caller
	// loaded it) or "shared" (joined a load another caller had started).
	cacheLookups *metrics.CounterVec
}

func newMetrics() *clientMetrics {
	return &clientMetrics{
		requests: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      metricsSubsystem,
			Name:           "requests_total",
			Help:           "Requests sent to OCI (every attempt), by service, operation and outcome.",
			StabilityLevel: metrics.ALPHA,
		}, []string{"service", "operation", "outcome"}),
		latency: metrics.NewHistogramVec(&metrics.HistogramOpts{
			Subsystem:      metricsSubsystem,
			Name:           "request_duration_seconds",
			Help:           "Duration of requests to OCI, by service and operation.",
			Buckets:        metrics.ExponentialBuckets(0.01, 2, 12), // 10ms .. ~20s
			StabilityLevel: metrics.ALPHA,
		}, []string{"service", "operation"}),
		retries: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      metricsSubsystem,
			Name:           "retries_total",
			Help:           "Requests to OCI retried, by service, operation and reason.",
			StabilityLevel: metrics.ALPHA,
		}, []string{"service", "operation", "reason"}),
		limiterWait: metrics.NewHistogramVec(&metrics.HistogramOpts{
			Subsystem:      metricsSubsystem,
			Name:           "rate_limiter_wait_seconds",
			Help:           "Time calls waited for the client-side rate limiter, by bucket.",
			Buckets:        []float64{0, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30},
			StabilityLevel: metrics.ALPHA,
		}, []string{"class"}),
		workRequestPolls: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      metricsSubsystem,
			Name:           "work_request_polls_total",
			Help:           "Work-request polls, by service.",
			StabilityLevel: metrics.ALPHA,
		}, []string{"service"}),
		workRequests: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      metricsSubsystem,
			Name:           "work_requests_total",
			Help:           "Work requests waited for, by service and result.",
			StabilityLevel: metrics.ALPHA,
		}, []string{"service", "result"}),
		cacheLookups: metrics.NewCounterVec(&metrics.CounterOpts{
			Subsystem:      metricsSubsystem,
			Name:           "cache_lookups_total",
			Help:           "Cached reads, by cache and result (hit, miss, or shared: joined a concurrent identical read).",
			StabilityLevel: metrics.ALPHA,
		}, []string{"cache", "result"}),
	}
}

// register adds every metric to r, failing on the first conflict (e.g. a second Client on the
// same registry).
func (m *clientMetrics) register(r Registerer) error {
	for _, c := range []metrics.Registerable{
		m.requests, m.latency, m.retries, m.limiterWait, m.workRequestPolls, m.workRequests, m.cacheLookups,
	} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

func (m *clientMetrics) observeRequest(op operation, d time.Duration, err error) {
	m.requests.WithLabelValues(op.service, op.name, outcome(err)).Inc()
	m.latency.WithLabelValues(op.service, op.name).Observe(d.Seconds())
}

func (m *clientMetrics) observeLimiterWait(class string, d time.Duration) {
	m.limiterWait.WithLabelValues(class).Observe(d.Seconds())
}
