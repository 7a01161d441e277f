// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/binding"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// ctx carries a logger that discards.
var ctx = klog.NewContext(context.Background(), logr.Discard())

const clusterID = "prod"

// env is an in-memory OCI (ocitest's default tenancy, IAM on with its default policy), the
// real ociclient over it, the SDK's own clients for what Terraform does, and a Syncer.
type env struct {
	srv    *ocitest.Server
	seeded ocitest.Seeded
	oci    *ociclient.Client
	lbSDK  loadbalancer.LoadBalancerClient
	nlbSDK nlbapi.NetworkLoadBalancerClient
	s      *binding.Syncer
}

func newEnv(t *testing.T, busy ocitest.LBBusyMode) *env {
	t.Helper()
	srv := ocitest.New(ocitest.Options{WorkRequestDuration: 5 * time.Millisecond, LBBusy: busy, PolicyDelay: ocitest.NoLag})
	t.Cleanup(srv.Close)
	oci, err := ociclient.New(ociclient.Options{
		Provider: srv.ConfigurationProvider(), Region: srv.Region(), Host: srv.URL(), HTTPClient: srv.HTTPClient(),
		RateLimit: config.RateLimiter{Disabled: true},
		Retry:     ociclient.RetryPolicy{MaxAttempts: 10, BaseDelay: 2 * time.Millisecond, MaxDelay: 20 * time.Millisecond, MaxElapsed: 20 * time.Second},
		Poll:      ociclient.PollPolicy{Initial: 2 * time.Millisecond, Max: 10 * time.Millisecond, Factor: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{srv: srv, seeded: srv.Seeded(), oci: oci,
		s: binding.NewSyncer(binding.Options{LoadBalancers: oci.LoadBalancers, NetworkLoadBalancers: oci.NetworkLoadBalancers, ClusterID: clusterID})}
	noRetry := common.NoRetryPolicy()
	if e.lbSDK, err = loadbalancer.NewLoadBalancerClientWithConfigurationProvider(srv.ConfigurationProvider()); err != nil {
		t.Fatal(err)
	}
	e.lbSDK.Host, e.lbSDK.HTTPClient, e.lbSDK.Configuration.RetryPolicy, e.lbSDK.Configuration.CircuitBreaker = srv.URL(), srv.HTTPClient(), &noRetry, nil
	if e.nlbSDK, err = nlbapi.NewNetworkLoadBalancerClientWithConfigurationProvider(srv.ConfigurationProvider()); err != nil {
		t.Fatal(err)
	}
	e.nlbSDK.Host, e.nlbSDK.HTTPClient, e.nlbSDK.Configuration.RetryPolicy, e.nlbSDK.Configuration.CircuitBreaker = srv.URL(), srv.HTTPClient(), &noRetry, nil
	return e
}

// product is what a test does to a load balancer of one API as Terraform would, with the SDK.
type product struct {
	name string
	// create makes a load balancer with listener "https" on backend set "web", a second set
	// "api", and a backend Terraform added in each (10.0.10.9:8080 in web); tags are its freeform
	// tags.
	create func(t *testing.T, e *env, tags map[string]string) string
	// get reads it whole, as the SDK returns it.
	get func(t *testing.T, e *env, id string) any
	// withoutBackends is a copy of what get returned with set's backends left out.
	withoutBackends func(lb any, set string) any
	// backends lists a set's backends as "ip:port", with " drain" when draining, sorted.
	backends func(t *testing.T, e *env, id, set string) []string
	// addBackend adds a backend at once, as a console edit would (the ETag changes).
	addBackend func(e *env, id, set, ip string, port int)
	// op is the name ocitest counts an operation under.
	op func(string) string
	// resourceType is the IAM resource type of the load balancer.
	resourceType string
}

var classicLB = product{
	name: "classic",
	create: func(t *testing.T, e *env, tags map[string]string) string {
		t.Helper()
		resp, err := e.lbSDK.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: loadbalancer.CreateLoadBalancerDetails{
			CompartmentId: &e.seeded.Compartment, DisplayName: common.String("terraform-web"), ShapeName: common.String("flexible"),
			ShapeDetails: &loadbalancer.ShapeDetails{MinimumBandwidthInMbps: common.Int(10), MaximumBandwidthInMbps: common.Int(100)},
			SubnetIds:    e.seeded.LoadBalancerSubnets,
			Listeners: map[string]loadbalancer.ListenerDetails{
				"https": {DefaultBackendSetName: common.String("web"), Port: common.Int(443), Protocol: common.String("TCP")},
			},
			BackendSets: map[string]loadbalancer.BackendSetDetails{
				"web": {Policy: common.String("LEAST_CONNECTIONS"), BackendMaxConnections: common.Int(1000),
					HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("HTTP"), Port: common.Int(8080),
						UrlPath: common.String("/ready"), ReturnCode: common.Int(204), IntervalInMillis: common.Int(5000), Retries: common.Int(2)},
					SslConfiguration: &loadbalancer.SslConfigurationDetails{Protocols: []string{"TLSv1.2"}, VerifyDepth: common.Int(3),
						VerifyPeerCertificate: common.Bool(false), CipherSuiteName: common.String("oci-default-ssl-cipher-suite-v1"),
						ServerOrderPreference: loadbalancer.SslConfigurationDetailsServerOrderPreferenceEnabled},
					LbCookieSessionPersistenceConfiguration: &loadbalancer.LbCookieSessionPersistenceConfigurationDetails{
						CookieName: common.String("route"), MaxAgeInSeconds: common.Int(600), IsHttpOnly: common.Bool(true)},
					Backends: []loadbalancer.BackendDetails{{IpAddress: common.String("10.0.10.9"), Port: common.Int(8080), Weight: common.Int(3)}}},
				"api": {Policy: common.String("ROUND_ROBIN"),
					HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("TCP"), Port: common.Int(9000)},
					Backends:      []loadbalancer.BackendDetails{{IpAddress: common.String("10.0.10.8"), Port: common.Int(9000)}}},
			},
			FreeformTags: tags,
		}})
		if err != nil {
			t.Fatalf("CreateLoadBalancer: %v", err)
		}
		id, err := e.oci.LoadBalancers.WaitForWorkRequestResource(ctx, *resp.OpcWorkRequestId)
		if err != nil {
			t.Fatalf("creating the load balancer: %v", err)
		}
		return id
	},
	get: func(t *testing.T, e *env, id string) any {
		t.Helper()
		resp, err := e.lbSDK.GetLoadBalancer(ctx, loadbalancer.GetLoadBalancerRequest{LoadBalancerId: &id})
		if err != nil {
			t.Fatalf("GetLoadBalancer: %v", err)
		}
		return resp.LoadBalancer
	},
	withoutBackends: func(lb any, set string) any {
		l := lb.(loadbalancer.LoadBalancer)
		sets := map[string]loadbalancer.BackendSet{}
		for name, bs := range l.BackendSets {
			if name == set {
				bs.Backends = nil
			}
			sets[name] = bs
		}
		l.BackendSets = sets
		return l
	},
	backends: func(t *testing.T, e *env, id, set string) []string {
		t.Helper()
		resp, err := e.lbSDK.GetBackendSet(ctx, loadbalancer.GetBackendSetRequest{LoadBalancerId: &id, BackendSetName: &set})
		if err != nil {
			t.Fatalf("GetBackendSet: %v", err)
		}
		var out []string
		for _, b := range resp.Backends {
			out = append(out, names(*b.Name, *b.Drain))
		}
		slices.Sort(out)
		return out
	},
	addBackend: func(e *env, id, set, ip string, port int) {
		e.srv.EditLoadBalancer(id, func(lb *loadbalancer.LoadBalancer) {
			bs := lb.BackendSets[set]
			bs.Backends = append(bs.Backends, loadbalancer.Backend{Name: common.String(ip + ":" + itoa(port)), IpAddress: common.String(ip),
				Port: common.Int(port), Weight: common.Int(1), Drain: common.Bool(false), Backup: common.Bool(false), Offline: common.Bool(false)})
			lb.BackendSets[set] = bs
		})
	},
	op:           func(s string) string { return s },
	resourceType: "load-balancers",
}

var networkLB = product{
	name: "network",
	create: func(t *testing.T, e *env, tags map[string]string) string {
		t.Helper()
		resp, err := e.nlbSDK.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: nlbapi.CreateNetworkLoadBalancerDetails{
			CompartmentId: &e.seeded.Compartment, DisplayName: common.String("terraform-web"), SubnetId: common.String(e.seeded.Subnets["public"]),
			IsPrivate: common.Bool(false),
			Listeners: map[string]nlbapi.ListenerDetails{
				"https": {Name: common.String("https"), DefaultBackendSetName: common.String("web"), Port: common.Int(443), Protocol: nlbapi.ListenerProtocolsTcp},
			},
			BackendSets: map[string]nlbapi.BackendSetDetails{
				"web": {Policy: nlbapi.NetworkLoadBalancingPolicyTwoTuple, IsPreserveSource: common.Bool(false), IsFailOpen: common.Bool(true),
					HealthChecker: &nlbapi.HealthChecker{Protocol: nlbapi.HealthCheckProtocolsHttp, Port: common.Int(8080), UrlPath: common.String("/ready"),
						ReturnCode: common.Int(204), IntervalInMillis: common.Int(5000), Retries: common.Int(2)},
					Backends: []nlbapi.Backend{{IpAddress: common.String("10.0.10.9"), Port: common.Int(8080), Weight: common.Int(3)}}},
				"api": {HealthChecker: &nlbapi.HealthChecker{Protocol: nlbapi.HealthCheckProtocolsTcp, Port: common.Int(9000)},
					Backends: []nlbapi.Backend{{IpAddress: common.String("10.0.10.8"), Port: common.Int(9000)}}},
			},
			FreeformTags: tags,
		}})
		if err != nil {
			t.Fatalf("CreateNetworkLoadBalancer: %v", err)
		}
		if err := e.oci.NetworkLoadBalancers.WaitForWorkRequest(ctx, *resp.OpcWorkRequestId); err != nil {
			t.Fatalf("creating the network load balancer: %v", err)
		}
		return *resp.Id
	},
	get: func(t *testing.T, e *env, id string) any {
		t.Helper()
		resp, err := e.nlbSDK.GetNetworkLoadBalancer(ctx, nlbapi.GetNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id})
		if err != nil {
			t.Fatalf("GetNetworkLoadBalancer: %v", err)
		}
		n := resp.NetworkLoadBalancer
		n.TimeUpdated = nil // OCI's record of the last change, which a binding's change is
		return n
	},
	withoutBackends: func(lb any, set string) any {
		n := lb.(nlbapi.NetworkLoadBalancer)
		sets := map[string]nlbapi.BackendSet{}
		for name, bs := range n.BackendSets {
			if name == set {
				bs.Backends = nil
			}
			sets[name] = bs
		}
		n.BackendSets = sets
		return n
	},
	backends: func(t *testing.T, e *env, id, set string) []string {
		t.Helper()
		resp, err := e.nlbSDK.GetBackendSet(ctx, nlbapi.GetBackendSetRequest{NetworkLoadBalancerId: &id, BackendSetName: &set})
		if err != nil {
			t.Fatalf("GetBackendSet: %v", err)
		}
		var out []string
		for _, b := range resp.Backends {
			out = append(out, names(*b.Name, b.IsDrain != nil && *b.IsDrain))
		}
		slices.Sort(out)
		return out
	},
	addBackend: func(e *env, id, set, ip string, port int) {
		e.srv.EditNetworkLoadBalancer(id, func(n *nlbapi.NetworkLoadBalancer) {
			bs := n.BackendSets[set]
			bs.Backends = append(bs.Backends, nlbapi.Backend{Name: common.String(ip + ":" + itoa(port)), IpAddress: common.String(ip),
				Port: common.Int(port), Weight: common.Int(1), IsDrain: common.Bool(false), IsBackup: common.Bool(false), IsOffline: common.Bool(false)})
			n.BackendSets[set] = bs
		})
	},
	op:           ocitest.NLB,
	resourceType: "network-load-balancers",
}

var products = []product{classicLB, networkLB}

func names(name string, drain bool) string {
	if drain {
		return name + " drain"
	}
	return name
}
