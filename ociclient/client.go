// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/identity"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	"github.com/oracle/oci-go-sdk/v65/networkloadbalancer"

	"github.com/oci-ccm/oci-ccm/config"
)

// Client holds one client per OCI service, all sharing the same rate limiter, retry policy,
// metrics and logger. It is safe for concurrent use; build one per process and pass it down.
type Client struct {
	// LoadBalancers calls the Load Balancer API.
	LoadBalancers *LoadBalancerClient
	// NetworkLoadBalancers calls the Network Load Balancer API.
	NetworkLoadBalancers *NetworkLoadBalancerClient
	// Compute calls the Core Compute API.
	Compute *ComputeClient
	// VirtualNetwork calls the Core Networking API.
	VirtualNetwork *VirtualNetworkClient
	// Identity calls the Identity API.
	Identity *IdentityClient

	caller *caller
	opts   Options // with defaults, for LoadBalancersAs
	region string
}

// Compile-time proofs that the clients implement the interfaces consumers code against.
var (
	_ LoadBalancers        = (*LoadBalancerClient)(nil)
	_ RuleSets             = (*LoadBalancerClient)(nil)
	_ NetworkLoadBalancers = (*NetworkLoadBalancerClient)(nil)
	_ Compute              = (*ComputeClient)(nil)
	_ VirtualNetwork       = (*VirtualNetworkClient)(nil)
	_ Identity             = (*IdentityClient)(nil)
)

// Clock is the time the client keeps: Options.Clock, or the wall clock. Layers built over the
// client that measure ages (engine.Options.Now) take it, so that all of them run on one time.
func (c *Client) Clock() Clock { return c.caller.clock }

// New builds a Client from opts. It makes no calls to OCI.
func New(opts Options) (*Client, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	provider, region, err := resolveRegion(opts.Provider, opts.Region)
	if err != nil {
		return nil, err
	}
	c := newCaller(opts)

	lbc, err := loadbalancer.NewLoadBalancerClientWithConfigurationProvider(provider)
	if err != nil {
		return nil, fmt.Errorf("ociclient: load balancer client: %w", err)
	}
	lbc.SetRegion(region)
	configureSDK(&lbc.BaseClient, opts)

	nlbc, err := networkloadbalancer.NewNetworkLoadBalancerClientWithConfigurationProvider(provider)
	if err != nil {
		return nil, fmt.Errorf("ociclient: network load balancer client: %w", err)
	}
	nlbc.SetRegion(region)
	configureSDK(&nlbc.BaseClient, opts)

	cc, err := core.NewComputeClientWithConfigurationProvider(provider)
	if err != nil {
		return nil, fmt.Errorf("ociclient: compute client: %w", err)
	}
	cc.SetRegion(region)
	configureSDK(&cc.BaseClient, opts)

	vc, err := core.NewVirtualNetworkClientWithConfigurationProvider(provider)
	if err != nil {
		return nil, fmt.Errorf("ociclient: virtual network client: %w", err)
	}
	vc.SetRegion(region)
	configureSDK(&vc.BaseClient, opts)

	ic, err := identity.NewIdentityClientWithConfigurationProvider(provider)
	if err != nil {
		return nil, fmt.Errorf("ociclient: identity client: %w", err)
	}
	ic.SetRegion(region)
	configureSDK(&ic.BaseClient, opts)

	return &Client{
		LoadBalancers:        &LoadBalancerClient{sdk: lbc, c: c},
		NetworkLoadBalancers: &NetworkLoadBalancerClient{sdk: nlbc, c: c},
		Compute:              newComputeClient(cc, c),
		VirtualNetwork:       newVirtualNetworkClient(vc, c),
		Identity:             &IdentityClient{sdk: ic, c: c},
		caller:               c,
		opts:                 opts,
		region:               region,
	}, nil
}

// LoadBalancersAs returns Load Balancer and Network Load Balancer clients that sign with p,
// another principal than the Client's (an OKE workload identity, say), calling the Client's
// region and endpoint. They share the Client's rate limiter, retries, metrics and work-request
// timing: OCI throttles a tenancy whoever calls, so the calls of every principal of the process
// count against one budget, and their metrics add up with the rest. Building them may make the
// provider fetch its token (the SDK's constructors read the tenancy), so an unusable principal
// fails here, before any API call.
func (c *Client) LoadBalancersAs(p common.ConfigurationProvider) (*LoadBalancerClient, *NetworkLoadBalancerClient, error) {
	provider, _, err := resolveRegion(p, c.region)
	if err != nil {
		return nil, nil, err
	}
	lbc, err := loadbalancer.NewLoadBalancerClientWithConfigurationProvider(provider)
	if err != nil {
		return nil, nil, fmt.Errorf("ociclient: load balancer client: %w", err)
	}
	lbc.SetRegion(c.region)
	configureSDK(&lbc.BaseClient, c.opts)
	nlbc, err := networkloadbalancer.NewNetworkLoadBalancerClientWithConfigurationProvider(provider)
	if err != nil {
		return nil, nil, fmt.Errorf("ociclient: network load balancer client: %w", err)
	}
	nlbc.SetRegion(c.region)
	configureSDK(&nlbc.BaseClient, c.opts)
	return &LoadBalancerClient{sdk: lbc, c: c.caller}, &NetworkLoadBalancerClient{sdk: nlbc, c: c.caller}, nil
}

// NewFromConfig builds a Client from cloud-provider.yaml's settings: the configuration
// provider its auth section describes (cfg.ConfigurationProvider), its region, its rate limits,
// and its endpoint override (URL, and CA file for an https test server). Call cfg.Validate
// first. Anything set in opts wins over cfg: a Provider, Region, Host or HTTPClient given there
// is used as it is, and a non-zero opts.RateLimit replaces cfg.RateLimiter.
func NewFromConfig(cfg *config.Config, opts Options) (*Client, error) {
	if cfg == nil {
		return nil, errors.New("ociclient: nil config")
	}
	if opts.Provider == nil {
		p, err := cfg.ConfigurationProvider()
		if err != nil {
			return nil, fmt.Errorf("ociclient: %w", err)
		}
		opts.Provider = p
	}
	if opts.Region == "" {
		opts.Region = cfg.Auth.Region
	}
	if opts.RateLimit == (config.RateLimiter{}) {
		opts.RateLimit = cfg.RateLimiter
	}
	if cfg.Endpoint.Enabled() && opts.Host == "" {
		opts.Host = cfg.Endpoint.URL
		if opts.HTTPClient == nil {
			pool, err := cfg.Endpoint.RootCAs()
			if err != nil {
				return nil, fmt.Errorf("ociclient: %w", err)
			}
			if pool != nil {
				opts.HTTPClient = httpClientTrusting(pool)
			}
		}
	}
	return New(opts)
}

// sdkHTTPTimeout bounds one request, as the SDK's default HTTP client does (60s), for the HTTP
// client NewFromConfig builds in its place.
const sdkHTTPTimeout = 60 * time.Second

// httpClientTrusting returns an HTTP client that trusts only the CAs in pool.
func httpClientTrusting(pool *x509.CertPool) *http.Client {
	var tr *http.Transport
	if def, ok := http.DefaultTransport.(*http.Transport); ok {
		tr = def.Clone() // keeps proxy-from-environment, dial and idle-connection settings
	} else {
		tr = &http.Transport{Proxy: http.ProxyFromEnvironment}
	}
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr, Timeout: sdkHTTPTimeout}
}

// InvalidateCaches drops every cached read, e.g. after a change made outside this client.
func (c *Client) InvalidateCaches() {
	c.Compute.invalidateAll()
	c.VirtualNetwork.invalidateAll()
}

// configureSDK turns off everything in an SDK client that would act behind the retry layer's
// back, and points it at opts.Host and opts.HTTPClient when set.
func configureSDK(b *common.BaseClient, opts Options) {
	// The SDK's own retries differ per operation and would multiply with ours; NoRetryPolicy
	// on the client is consulted by every operation (request metadata is never set here).
	noRetry := common.NoRetryPolicy()
	b.Configuration.RetryPolicy = &noRetry
	// The constructors attach a circuit breaker (from code defaults, then environment, then the
	// SDK's global setting); CallWithDetails consults only this field, so nil turns it off for
	// this client whatever the environment or globals say.
	b.Configuration.CircuitBreaker = nil
	if opts.Host != "" {
		b.Host = opts.Host
	}
	var next common.HTTPRequestDispatcher = b.HTTPClient
	if opts.HTTPClient != nil {
		next = opts.HTTPClient
	}
	b.HTTPClient = cancelDispatcher{next: next}
}

// resolveRegion returns the provider to build SDK clients with and the region to call. A
// provider without a region is wrapped so that it reports region, because the SDK constructors
// refuse a provider whose Region fails. A provider with a region is used as it is: wrapping it
// would hide optional interfaces (refreshable instance-principal tokens) from the SDK.
func resolveRegion(p common.ConfigurationProvider, region string) (common.ConfigurationProvider, string, error) {
	own, err := p.Region()
	if err == nil && own != "" {
		if region == "" {
			region = own
		}
		return p, region, nil
	}
	if region == "" {
		if err == nil {
			err = errors.New("empty region")
		}
		return nil, "", fmt.Errorf("ociclient: no Region in options and the provider has none: %w", err)
	}
	return regionProvider{ConfigurationProvider: p, region: region}, region, nil
}

// regionProvider supplies a region to a configuration provider that has none.
type regionProvider struct {
	common.ConfigurationProvider
	region string
}

// Region returns the region given in Options.
func (p regionProvider) Region() (string, error) { return p.region, nil }

// sdkContextKey marks a context handed to the SDK; its value is the caller's context.
type sdkContextKey struct{}

// detachForSDK returns the context to pass into an SDK operation. The SDK's common.Retry
// returns early on ctx.Done() while its worker goroutine still writes the shared response
// variable, a data race whenever a context ends mid-request. Handing the SDK a context that
// never ends avoids that path; cancelDispatcher puts the caller's context back on the HTTP
// request, so cancellation still aborts the request on the wire and the SDK returns promptly.
func detachForSDK(ctx context.Context) context.Context {
	return context.WithValue(context.WithoutCancel(ctx), sdkContextKey{}, ctx)
}

// cancelDispatcher sends requests with the caller's context restored (see detachForSDK).
type cancelDispatcher struct {
	next common.HTTPRequestDispatcher
}

// Do sends req under the caller's context.
func (d cancelDispatcher) Do(req *http.Request) (*http.Response, error) {
	if orig, ok := req.Context().Value(sdkContextKey{}).(context.Context); ok {
		req = req.WithContext(orig)
	}
	return d.next.Do(req)
}

// deref returns *p, or "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// nonNil returns s, or an empty slice if s is nil, so the SDK sends [] instead of leaving the
// field out.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
