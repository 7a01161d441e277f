// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/oracle/oci-go-sdk/v65/common"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
)

// Package defaults. They apply field by field: a zero field in Options takes the value here.
const (
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
	// RateLimit sizes the client-side token buckets, one for reads (Get, List and work-request
	// polls) and one for writes; zero fields take config's defaults (config.DefaultReadQPS,
	// DefaultReadBurst, DefaultWriteQPS, DefaultWriteBurst), the same that cloud-provider.yaml
	// gets. They are a ceiling: a 429 from OCI cuts the rate of the bucket of the call refused,
	// and calls OCI accepts raise it back slowly, so that the client settles just under its
	// tenancy's limit (Client.CurrentRateLimit, LimiterRateObserver). Disabled turns limiting off,
	// the adaptation with it.
	RateLimit config.RateLimiter
	// Retry bounds the retry layer; zero fields take the Default* retry values.
	Retry RetryPolicy
	// Poll shapes work-request polling; zero fields take the DefaultPoll* values.
	Poll PollPolicy
	// CacheTTL is how long cached reads stay fresh: zero means DefaultCacheTTL, negative turns
	// caching (and the merging of concurrent identical reads) off.
	CacheTTL time.Duration
	// Metrics receives the client's measurements (requests, latency, retries, rate-limiter
	// waits, work requests, cache lookups). Nil records none.
	Metrics Metrics
	// Logger receives the logs of calls whose context carries no logger (a logger in the
	// context, from logr.NewContext or klog.NewContext, always wins). The zero value means
	// klog.Background(). Calls log at V(2) (retries, work-request results, rate-limit cuts),
	// V(3) (failed calls) and V(4) (every call and poll); nothing at V(0).
	Logger logr.Logger
	// Clock, if set, replaces the wall clock for every wait and age the client computes (see
	// Clock). Benchmarks set it; production leaves it nil.
	Clock Clock
}

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

// PollPolicy shapes how work requests are polled. The first poll comes after Initial, or, once
// recent work requests have shown how long this service's take, after the shortest of them (at
// most Max, unless OCI's usual durations have been seen to hold). The next poll is when the
// work request's own progress (percentComplete) says it ends, else when the next recent work
// request of its kind ended; within the range its kind's durations span, and past every known
// duration, a poll every tenth of the time elapsed. With nothing known, the wait is multiplied
// by Factor after every poll. Every wait stays within Initial and Max, except a wait until an
// expected end. pollschedule.go has the details.
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
	rl.SetDefaults()

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
	if o.Metrics == nil {
		o.Metrics = NopMetrics{}
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

// Server is what ForServer needs of an OCI test server. *ocitest.Server implements it. Naming
// only the methods keeps the test server out of the build of every program that imports
// ociclient.
type Server interface {
	// ConfigurationProvider signs requests with a key the server trusts, for its region.
	ConfigurationProvider() common.ConfigurationProvider
	// URL is the server's base URL.
	URL() string
	// HTTPClient trusts the server's TLS certificate, if it has one.
	HTTPClient() *http.Client
}

// ForServer returns Options that point a Client at srv: its signing key and region, its URL,
// and an HTTP client that trusts it. Every other field is zero (the package defaults); set
// them on the result before calling New:
//
//	client, err := ociclient.New(ociclient.ForServer(srv))
func ForServer(srv Server) Options {
	return Options{Provider: srv.ConfigurationProvider(), Host: srv.URL(), HTTPClient: srv.HTTPClient()}
}
