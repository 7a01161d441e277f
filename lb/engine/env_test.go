// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// ctx carries a logger that discards, so plans applied by tests and benchmarks do not flood the
// output; failures print the plans they are about.
var ctx = klog.NewContext(context.Background(), logr.Discard())

const clusterName = "prod"

// busyMode is what ocitest's Load Balancer API does with a change sent while a work request
// runs. OCI queues it (ocitest.LBBusyQueue, the default); TestMain runs every test a second time
// with ocitest.LBBusyReject (409 IncorrectState), so lb is proven under both.
var busyMode = ocitest.LBBusyQueue

func TestMain(m *testing.M) {
	code := 0
	for _, mode := range []ocitest.LBBusyMode{ocitest.LBBusyQueue, ocitest.LBBusyReject} {
		busyMode = mode
		fmt.Printf("lb tests with ocitest.Options.LBBusy = %s\n", mode)
		if c := m.Run(); c != 0 {
			code = c
		}
	}
	os.Exit(code)
}

// env is an in-memory OCI (ocitest's default tenancy), the real ociclient over it, and a
// Reconciler whose load balancers go in the tenancy's compartment and its lb-1 and lb-2 subnets.
type env struct {
	srv    *ocitest.Server
	seeded ocitest.Seeded
	oci    *ociclient.Client
	cfg    *config.Config
	r      *engine.Reconciler
	// clock is the server's and r's: Advance it past ocitest.DefaultListingLag to let OCI's
	// listings show what was created a moment ago.
	clock *ocitest.Clock
	// instances are the OCIDs of instances seeded for Nodes (instanceNodes).
	instances []string
}

type envOption func(*envSettings)

type envSettings struct {
	nlbs        bool
	wrDurations ocitest.WorkRequestDurations
	cfg         *config.Config
	concurrency int
	wrDuration  time.Duration
	poll        ociclient.PollPolicy
	frontendNSG func(context.Context, *model.Spec, bool) (string, error)
	endpoints   engine.EndpointNodes
}

// withProductionTiming keeps ocitest's and ociclient's default work-request duration and
// polling, for benchmarks whose poll counts should mean something.
func withProductionTiming() envOption {
	return func(s *envSettings) { s.wrDuration, s.poll = 0, ociclient.PollPolicy{} }
}

// withNLBs gives the Reconciler the Network Load Balancer client.
func withNLBs() envOption { return func(s *envSettings) { s.nlbs = true } }

func withConcurrency(n int) envOption { return func(s *envSettings) { s.concurrency = n } }

// withWorkRequestDuration sets how long ocitest's work requests run.
func withWorkRequestDuration(d time.Duration) envOption {
	return func(s *envSettings) { s.wrDuration = d }
}

func withNaming(scheme config.NamingScheme) envOption {
	return func(s *envSettings) { s.cfg.LoadBalancer.Naming.Scheme = scheme }
}

func newEnv(tb testing.TB, opts ...envOption) *env {
	tb.Helper()
	s := envSettings{cfg: &config.Config{ClusterID: clusterName}, wrDuration: 5 * time.Millisecond,
		poll: ociclient.PollPolicy{Initial: 2 * time.Millisecond, Max: 10 * time.Millisecond, Factor: 2}}
	for _, o := range opts {
		o(&s)
	}
	// ocitest's listing lag is on (ocitest.DefaultListingLag), on a clock the server and the
	// Reconciler share, so a test can let it pass (e.clock.Advance) without waiting for it.
	clock := &ocitest.Clock{}
	srv := ocitest.New(ocitest.Options{WorkRequestDuration: s.wrDuration, WorkRequestDurations: s.wrDurations, LBBusy: busyMode, Now: clock.Now})
	tb.Cleanup(srv.Close)
	seeded := srv.Seeded()
	s.cfg.CompartmentID = seeded.Compartment
	s.cfg.LoadBalancer.Subnet1, s.cfg.LoadBalancer.Subnet2 = seeded.LoadBalancerSubnets[0], seeded.LoadBalancerSubnets[1]
	oci, err := ociclient.New(ociclient.Options{
		Provider:   srv.ConfigurationProvider(),
		Region:     srv.Region(),
		Host:       srv.URL(),
		HTTPClient: srv.HTTPClient(),
		RateLimit:  config.RateLimiter{Disabled: true},
		Retry:      ociclient.RetryPolicy{MaxAttempts: 10, BaseDelay: 2 * time.Millisecond, MaxDelay: 20 * time.Millisecond, MaxElapsed: 20 * time.Second},
		Poll:       s.poll,
		Logger:     klog.Background().V(10),
	})
	if err != nil {
		tb.Fatal(err)
	}
	ro := engine.Options{Config: s.cfg, Client: oci.LoadBalancers, PublicIPs: oci.VirtualNetwork,
		Concurrency: s.concurrency, FrontendNSG: s.frontendNSG, Now: clock.Now, ListingLag: ocitest.DefaultListingLag,
		EndpointNodes: s.endpoints}
	if s.nlbs {
		ro.NetworkLoadBalancers = oci.NetworkLoadBalancers
	}
	r, err := engine.NewReconciler(ro)
	if err != nil {
		tb.Fatal(err)
	}
	// The Reconciler has run for the lag before the test begins (nothing was created yet), as a
	// CCM has by the time Services come: its listings are complete from the first. A Reconciler
	// made later in a test (a restart) starts young and must survive the lag.
	clock.Advance(ocitest.DefaultListingLag)
	return &env{srv: srv, seeded: seeded, oci: oci, cfg: s.cfg, r: r, clock: clock}
}

func newReconciler(tb testing.TB, oci *ociclient.Client, cfg *config.Config, concurrency int) *engine.Reconciler {
	tb.Helper()
	r, err := engine.NewReconciler(engine.Options{ListingLag: ocitest.DefaultListingLag, Config: cfg, Client: oci.LoadBalancers, PublicIPs: oci.VirtualNetwork, Concurrency: concurrency})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// settledReconciler is a second Reconciler on e's OCI (another process) that has run for OCI's
// listing lag, on e's clock: its listings show every load balancer created before it was made.
// o's Config, clients, Now and ListingLag are filled in.
func (e *env) settledReconciler(tb testing.TB, o engine.Options) *engine.Reconciler {
	tb.Helper()
	o.Config, o.Client, o.PublicIPs, o.Now, o.ListingLag = e.cfg, e.oci.LoadBalancers, e.oci.VirtualNetwork, e.clock.Now, ocitest.DefaultListingLag
	r, err := engine.NewReconciler(o)
	if err != nil {
		tb.Fatal(err)
	}
	e.clock.Advance(ocitest.DefaultListingLag)
	return r
}

// ensure reconciles and returns the result and the OCI calls it made.
func (e *env) ensure(tb testing.TB, svc *v1.Service, nodes []*v1.Node, secrets lb.Secrets) (*engine.Result, ocitest.Calls) {
	tb.Helper()
	return counted(tb, e, "Reconcile", func() (*engine.Result, error) { return e.r.Ensure(ctx, svc, nodes, secrets) })
}

// counted runs call and returns its result and the OCI calls it made; an error fails the test,
// naming what and the calls.
func counted[T any](tb testing.TB, e *env, what string, call func() (T, error)) (T, ocitest.Calls) {
	tb.Helper()
	before := e.srv.Calls()
	res, err := call()
	calls := e.srv.Calls().Since(before)
	if err != nil {
		tb.Fatalf("%s: %v\ncalls:\n%s", what, err, calls)
	}
	return res, calls
}

// only returns the only load balancer in OCI, observed.
func (e *env) only(tb testing.TB) *model.Spec {
	tb.Helper()
	all := e.srv.LoadBalancers()
	if len(all) != 1 {
		tb.Fatalf("OCI has %d load balancers, want 1", len(all))
	}
	return engine.Observe(all[0])
}

type svcOpt func(*v1.Service)

func service(opts ...svcOpt) *v1.Service {
	s := &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: types.UID("6c1b7a52-3f0e-4d8a-a6b1-1f2e3d4c5b6a"), Annotations: map[string]string{}},
		Spec: v1.ServiceSpec{
			Type:            v1.ServiceTypeLoadBalancer,
			SessionAffinity: v1.ServiceAffinityNone,
			Ports: []v1.ServicePort{
				{Name: "http", Protocol: v1.ProtocolTCP, Port: 80, NodePort: 30080},
				{Name: "https", Protocol: v1.ProtocolTCP, Port: 443, NodePort: 30443},
			},
		},
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func annotate(a annotation.Name, v string) svcOpt {
	return func(s *v1.Service) { s.Annotations[string(a)] = v }
}

func ports(ps ...int32) svcOpt {
	return func(s *v1.Service) {
		s.Spec.Ports = nil
		for i, p := range ps {
			s.Spec.Ports = append(s.Spec.Ports, v1.ServicePort{Name: fmt.Sprint("p", i), Protocol: v1.ProtocolTCP, Port: p, NodePort: 30000 + p})
		}
	}
}

// nodeIP is the address of readyNodes' node-k in the tenancy's node subnet (10.0.10.0/24), above
// the addresses of the tenancy's own instances.
func nodeIP(k int) string { return fmt.Sprintf("10.0.10.%d", 10+k) }

// readyNodes are n ready Nodes node-1..n with addresses nodeIP(1..n), and providerIDs in OCI's
// form that name no instance of the tenancy (see testNode).
func readyNodes(n int) []*v1.Node {
	out := make([]*v1.Node, n)
	for i := range out {
		out[i] = &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i+1)},
			Spec:       v1.NodeSpec{ProviderID: fmt.Sprintf("oci://ocid1.testnode.oc1..node-%d", i+1)},
			Status: v1.NodeStatus{
				Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
				Addresses:  []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: nodeIP(i + 1)}},
			},
		}
	}
	return out
}

var webTLS = lb.SecretRef{Namespace: "default", Name: "web-tls"}

func tlsSecret(version string) lb.TLSSecret {
	return lb.TLSSecret{
		Certificate: "-----BEGIN CERTIFICATE-----\n" + version + "\n-----END CERTIFICATE-----",
		Key:         config.Secret("-----BEGIN PRIVATE KEY-----\n" + version + "\n-----END PRIVATE KEY-----"),
	}
}

// writes returns the write operations in calls with their counts.
func writes(c ocitest.Calls) map[string]int {
	out := map[string]int{}
	for _, op := range c.Ops() {
		switch op {
		case "GetLoadBalancer", "ListLoadBalancers", "GetWorkRequest", "GetPublicIpByIpAddress", "GetNetworkSecurityGroup", "GetSubnet":
		default:
			out[op] = c.Op(op)
		}
	}
	return out
}

// withCluster is cfg with the cluster identity id (config.Config.ClusterID), for a Reconciler of
// another cluster (the env's own cfg carries clusterName).
func withCluster(cfg *config.Config, id string) *config.Config {
	c := *cfg
	c.ClusterID = id
	return &c
}
