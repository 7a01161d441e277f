package ociclient

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
)

// Package defaults. They apply field by field: a zero field in Options takes the value here.
const (
	// DefaultReadQPS and DefaultReadBurst size the token bucket shared by all reads (Get, List
	// and work-request polls).
	DefaultReadQPS   = 20.0
	DefaultReadBurst = 40
	// DefaultWriteQPS and DefaultWriteBurst size the token bucket shared by all writes
	// (Create, Update, Delete). Writes are rarer and OCI throttles them sooner.
	DefaultWriteQPS   = 10.0
	DefaultWriteBurst = 20

	// DefaultMaxAttempts bounds the attempts of one call, the first included.
	DefaultMaxAttempts = 5
	// DefaultBaseDelay is the backoff ceiling before the first retry; it doubles per retry.
	DefaultBaseDelay = 250 * time.Millisecond
	// DefaultMaxDelay caps the backoff ceiling of any one retry (Retry-After may exceed it).
	DefaultMaxDelay = 10 * time.Second
	// DefaultMaxElapsed bounds the time one call may spend, retries and waits included.
	DefaultMaxElapsed = 45 * time.Second

	// DefaultPollInitial is the wait before the first work-request poll: a change that takes
	// under a second is found at once, and the first answer names the kind of work, whose
	// recent durations set the next wait (see PollPolicy).
	DefaultPollInitial = 500 * time.Millisecond
	// DefaultPollMax caps the wait between two work-request polls, except the one wait until
	// the time a kind of work request recently took.
	DefaultPollMax = 10 * time.Second
	// DefaultPollFactor multiplies the wait after every poll.
	DefaultPollFactor = 1.5

	// DefaultCacheTTL is how long cached reads (instances, VNICs, subnets) stay fresh.
	DefaultCacheTTL = time.Minute
)

// Options configure a Client. Only Provider is required; every other zero field takes a
// package default.
type Options struct {
	// Provider signs requests. Required.
	Provider common.ConfigurationProvider
	// Region is the OCI region to call, e.g. "us-phoenix-1". Required unless Provider has one;
	// when both are set, Region wins.
	Region string
	// Host, if set, replaces every service's endpoint with this base URL (scheme, host and
	// port, no path), e.g. an ocitest server. Real deployments leave it empty.
	Host string
	// HTTPClient, if set, sends every request: use it for TLS trust (ocitest) or timeouts.
	HTTPClient *http.Client
	// RateLimit sizes the client-side token buckets; zero fields take DefaultReadQPS,
	// DefaultReadBurst, DefaultWriteQPS and DefaultWriteBurst. Disabled turns limiting off.
	RateLimit config.RateLimiter
	// Retry bounds the retry layer; zero fields take the Default* retry values.
	Retry RetryPolicy
	// Poll shapes work-request polling; zero fields take the DefaultPoll* values.
	Poll PollPolicy
	// CacheTTL is how long cached reads stay fresh: zero means DefaultCacheTTL, negative turns
	// caching (and the merging of concurrent identical reads) off.
	CacheTTL time.Duration
	// Metrics receives the client's metrics. Nil records none. Register one Client per
	// registry: a second registration of the same metric names fails New.
	Metrics Registerer
	// Logger receives structured logs; the zero value means klog.Background().
	Logger klog.Logger
	// Clock, if set, replaces the wall clock for every wait and age the client computes (see
	// Clock). Benchmarks set it; production leaves it nil.
	Clock Clock
}

// Registerer is where a Client registers its metrics: a metrics.KubeRegistry, or an adapter
// over the controller manager's legacy registry (RegistererFunc(legacyregistry.Register)).
type Registerer interface {
	Register(metrics.Registerable) error
}

// RegistererFunc adapts a registration function to Registerer.
type RegistererFunc func(metrics.Registerable) error

// Register implements Registerer.
func (f RegistererFunc) Register(r metrics.Registerable) error { return f(r) }

// RetryPolicy bounds the one retry layer every call goes through. Retries use exponential
// backoff with full jitter: before retry n the client waits a random time in
// [0, min(MaxDelay, BaseDelay·2^(n-1))), or exactly what OCI's Retry-After header asks.
type RetryPolicy struct {
	// MaxAttempts bounds the attempts, the first included; 1 turns retries off.
	MaxAttempts int
	// BaseDelay is the backoff ceiling before the first retry.
	BaseDelay time.Duration
	// MaxDelay caps the backoff ceiling.
	MaxDelay time.Duration
	// MaxElapsed bounds the total time of a call: no retry starts if its wait would pass it.
	MaxElapsed time.Duration
}

// PollPolicy shapes how work requests are polled: wait Initial and poll. If recent work
// requests of the same kind (by their own timestamps) took longer, wait until that time has
// passed; past it, poll every eighth of the time elapsed. With no history, multiply the wait by
// Factor after every poll. Every wait stays within Initial and Max, except the wait until the
// expected end.
type PollPolicy struct {
	// Initial is the wait before the first poll.
	Initial time.Duration
	// Max caps the wait between two polls.
	Max time.Duration
	// Factor multiplies the wait after every poll; at least 1.
	Factor float64
}

// withDefaults fills zero fields and rejects values that cannot work.
func (o Options) withDefaults() (Options, error) {
	var errs []error
	if o.Provider == nil {
		errs = append(errs, errors.New("a Provider is required"))
	}
	if o.Host != "" {
		host, err := normaliseHost(o.Host)
		if err != nil {
			errs = append(errs, err)
		}
		o.Host = host
	}

	rl := &o.RateLimit
	if rl.ReadQPS < 0 || rl.ReadBurst < 0 || rl.WriteQPS < 0 || rl.WriteBurst < 0 {
		errs = append(errs, errors.New("rate limit: QPS and burst must not be negative"))
	}
	rl.ReadQPS = orDefault(rl.ReadQPS, DefaultReadQPS)
	rl.ReadBurst = orDefault(rl.ReadBurst, DefaultReadBurst)
	rl.WriteQPS = orDefault(rl.WriteQPS, DefaultWriteQPS)
	rl.WriteBurst = orDefault(rl.WriteBurst, DefaultWriteBurst)

	r := &o.Retry
	if r.MaxAttempts < 0 || r.BaseDelay < 0 || r.MaxDelay < 0 || r.MaxElapsed < 0 {
		errs = append(errs, errors.New("retry: values must not be negative"))
	}
	r.MaxAttempts = orDefault(r.MaxAttempts, DefaultMaxAttempts)
	r.BaseDelay = orDefault(r.BaseDelay, DefaultBaseDelay)
	r.MaxDelay = orDefault(r.MaxDelay, DefaultMaxDelay)
	r.MaxElapsed = orDefault(r.MaxElapsed, DefaultMaxElapsed)
	if r.MaxDelay < r.BaseDelay {
		errs = append(errs, fmt.Errorf("retry: MaxDelay %v is below BaseDelay %v", r.MaxDelay, r.BaseDelay))
	}

	p := &o.Poll
	if p.Initial < 0 || p.Max < 0 || p.Factor < 0 {
		errs = append(errs, errors.New("poll: values must not be negative"))
	}
	p.Initial = orDefault(p.Initial, DefaultPollInitial)
	p.Max = orDefault(p.Max, DefaultPollMax)
	p.Factor = orDefault(p.Factor, DefaultPollFactor)
	if p.Factor < 1 {
		errs = append(errs, fmt.Errorf("poll: Factor %v must be at least 1", p.Factor))
	}
	if p.Max < p.Initial {
		errs = append(errs, fmt.Errorf("poll: Max %v is below Initial %v", p.Max, p.Initial))
	}

	if o.CacheTTL == 0 {
		o.CacheTTL = DefaultCacheTTL
	}
	if o.Logger.GetSink() == nil {
		o.Logger = klog.Background()
	}
	if err := errors.Join(errs...); err != nil {
		return o, fmt.Errorf("ociclient options: %w", err)
	}
	return o, nil
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// normaliseHost checks that host is an absolute http(s) URL without a path, the form the SDK
// expects in BaseClient.Host, and drops a trailing slash.
func normaliseHost(host string) (string, error) {
	host = strings.TrimSuffix(host, "/")
	u, err := url.Parse(host)
	if err != nil {
		return "", fmt.Errorf("host %q: %w", host, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		return "", fmt.Errorf("host %q: want an absolute http or https URL without a path", host)
	}
	return host, nil
}
