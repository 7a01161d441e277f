// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func TestNewRejectsOptionsThatCannotWork(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	p := srv.ConfigurationProvider()
	tests := []struct {
		name string
		opts Options
		want string // a fragment of the error
	}{
		{"no provider", Options{}, "Provider is required"},
		{"host with a path", Options{Provider: p, Host: srv.URL() + "/20170115"}, "without a path"},
		{"host without a scheme", Options{Provider: p, Host: "ocitest.local"}, "http or https"},
		{"negative QPS", Options{Provider: p, RateLimit: config.RateLimiter{ReadQPS: -1}}, "must not be negative"},
		{"negative attempts", Options{Provider: p, Retry: RetryPolicy{MaxAttempts: -1}}, "must not be negative"},
		{"max delay below base", Options{Provider: p, Retry: RetryPolicy{BaseDelay: time.Minute, MaxDelay: time.Second}}, "below BaseDelay"},
		{"poll factor below 1", Options{Provider: p, Poll: PollPolicy{Factor: 0.5}}, "at least 1"},
		{"no region anywhere", Options{Provider: common.NewRawConfigurationProvider("t", "u", "", "f", "k", nil)}, "no Region"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New error %v; want one containing %q", err, tt.want)
			}
		})
	}
}

func TestRegionFromOptionsReachesEveryClient(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	c, err := New(Options{Provider: srv.ConfigurationProvider(), Region: "eu-frankfurt-1"})
	if err != nil {
		t.Fatal(err)
	}
	hosts := map[string]string{
		"loadbalancer":        c.LoadBalancers.sdk.Host,
		"networkloadbalancer": c.NetworkLoadBalancers.sdk.Host,
		"compute":             c.Compute.sdk.Host,
		"virtualnetwork":      c.VirtualNetwork.sdk.Host,
		"identity":            c.Identity.sdk.Host,
	}
	for service, host := range hosts {
		if !strings.Contains(host, "eu-frankfurt-1") {
			t.Errorf("%s host %q does not name the region from Options", service, host)
		}
	}
}

func TestSDKClientsHaveNoRetriesAndNoCircuitBreaker(t *testing.T) {
	env := newTestEnv(t, envConfig{})
	c := env.client
	for name, cfg := range map[string]common.CustomClientConfiguration{
		"loadbalancer":        c.LoadBalancers.sdk.Configuration,
		"networkloadbalancer": c.NetworkLoadBalancers.sdk.Configuration,
		"compute":             c.Compute.sdk.Configuration,
		"virtualnetwork":      c.VirtualNetwork.sdk.Configuration,
		"identity":            c.Identity.sdk.Configuration,
	} {
		if cfg.CircuitBreaker != nil {
			t.Errorf("%s: circuit breaker attached", name)
		}
		if cfg.RetryPolicy == nil || cfg.RetryPolicy.MaximumNumberAttempts != 1 {
			t.Errorf("%s: retry policy %v; want one attempt", name, cfg.RetryPolicy)
		}
	}
}

func TestNewFromConfigUsesAuthRegionRateLimitsAndEndpointWithItsCA(t *testing.T) {
	srv := ocitest.New(ocitest.Options{TLS: true})
	defer srv.Close()
	creds, err := srv.NewCredentials()
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, srv.CACertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{
		Auth: config.Auth{
			Region: srv.Region(), Tenancy: creds.TenancyID, User: creds.UserID,
			Key: config.Secret(creds.PrivateKeyPEM), Fingerprint: creds.Fingerprint,
		},
		RateLimiter: config.RateLimiter{Disabled: true},
		Endpoint:    config.Endpoint{URL: srv.URL(), CAFile: caFile},
	}
	c, err := NewFromConfig(cfg, Options{})
	if err != nil {
		t.Fatalf("NewFromConfig: %v", err)
	}
	if c.caller.limiter.read != nil || c.caller.limiter.write != nil {
		t.Error("rate limiter is on; the config disabled it")
	}
	lb := srv.AddLoadBalancer(loadbalancer.LoadBalancer{})
	// A signed request over TLS to the test server proves key, fingerprint, host and CA.
	if _, err := c.LoadBalancers.GetLoadBalancer(context.Background(), *lb.Id); err != nil {
		t.Fatalf("GetLoadBalancer through the config's endpoint: %v", err)
	}
}

func TestNewFromConfigReportsABadCAFile(t *testing.T) {
	srv := ocitest.New(ocitest.Options{TLS: true})
	defer srv.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Endpoint: config.Endpoint{URL: srv.URL(), CAFile: caFile}}
	if _, err := NewFromConfig(cfg, Options{Provider: srv.ConfigurationProvider()}); err == nil {
		t.Error("NewFromConfig succeeded with a CA file holding no certificate")
	}
}

// fixedClock is a Clock stopped at one time.
type fixedClock time.Time

func (c fixedClock) Now() time.Time                                   { return time.Time(c) }
func (c fixedClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

func TestClockIsTheOneTheClientWasBuiltWith(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	at := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	c, err := New(Options{Provider: srv.ConfigurationProvider(), Clock: fixedClock(at)})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Clock().Now(); !got.Equal(at) {
		t.Errorf("Clock().Now() = %v, want the Options.Clock's %v", got, at)
	}
	wall, err := New(Options{Provider: srv.ConfigurationProvider()})
	if err != nil {
		t.Fatal(err)
	}
	if got := wall.Clock().Now(); time.Since(got).Abs() > time.Minute {
		t.Errorf("without Options.Clock, Clock().Now() = %v, want the wall clock's", got)
	}
}
