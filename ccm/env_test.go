// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"context"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/klog/v2"

	orchestrator "github.com/oci-ccm/oci-ccm/ccm/service"
	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/internal/ctxtime"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// annotationSecretsHash is the annotation a changed Secret re-queues its Services with.
const annotationSecretsHash = orchestrator.AnnotationSecretsHash

// env is a Cloud wired to an ocitest server seeded with ocitest.DefaultTenancy.
type env struct {
	srv    *ocitest.Server
	seeded ocitest.Seeded
	cfg    *config.Config
	cloud  *Cloud
	client *ociclient.Client // the Cloud's OCI client
	nodes  []*v1.Node
	// clock is the server's and the Cloud's (newLaggingEnv); nil on the wall clock without lags.
	clock *ocitest.Clock
	// counted receives every Cloud's Options.Metrics: the waits for eventual consistency.
	counted consistencyCounts
}

// noListingLag is Options.ListingLag for a Cloud on newEnv's server, which has no listing lag.
const noListingLag = -1

func newEnv(t *testing.T) *env {
	t.Helper()
	// ListingLag off, here and in the Cloud (noListingLag): these tests run on the wall clock,
	// where each new Cloud would wait out the lag (5 s) before its first lookups. lb and seclist
	// prove they survive the lag, on a clock their tests move (lb/engine/env_test.go, seclist).
	// PolicyDelay off too: a test that grants more (seedNetworkCompartment) would wait 10 s of
	// the wall clock for it; newLaggingEnv's tests prove a propagating policy is waited out.
	srv := ocitest.New(ocitest.Options{WorkRequestDuration: 5 * time.Millisecond, ListingLag: ocitest.NoLag, PolicyDelay: ocitest.NoLag})
	return newEnvOn(t, srv, nil)
}

// newLaggingEnv is newEnv on a server with ocitest's default policy delay and listing lag, on
// clock, which the server and the Cloud's OCI client share (lb ages its listings by the latter):
// a test moves it past a lag instead of waiting. The Cloud keeps its default listing lag, which
// has passed when newLaggingEnv returns.
func newLaggingEnv(t *testing.T, clock *ocitest.Clock) *env {
	t.Helper()
	srv := ocitest.New(ocitest.Options{WorkRequestDuration: 5 * time.Millisecond, Now: clock.Now})
	return newEnvOn(t, srv, clock)
}

// testClock is an ocitest.Clock as the ociclient.Clock of a Cloud's client.
type testClock struct{ *ocitest.Clock }

func (testClock) Sleep(ctx context.Context, d time.Duration) error { return ctxtime.Sleep(ctx, d) }

// newEnvOn wires a Cloud to srv; with clock, on that clock and with the Cloud's default
// listing lag, else without it.
func newEnvOn(t *testing.T, srv *ocitest.Server, clock *ocitest.Clock) *env {
	t.Helper()
	t.Cleanup(srv.Close)
	seeded := srv.Seeded()
	creds, err := srv.NewCredentials()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{
		Auth: config.Auth{Region: srv.Region(), Tenancy: creds.TenancyID, User: creds.UserID,
			Fingerprint: creds.Fingerprint, Key: config.Secret(creds.PrivateKeyPEM)},
		CompartmentID: seeded.Compartment,
		VCNID:         seeded.VCN,
		LoadBalancer:  config.LoadBalancer{Subnet1: seeded.LoadBalancerSubnets[0], Subnet2: seeded.LoadBalancerSubnets[1]},
	}
	cfg.SetDefaults()
	e := &env{srv: srv, seeded: seeded, cfg: cfg, clock: clock}
	e.cloud, e.client = e.newCloud(t)
	for _, name := range []string{"node-1", "node-2", "node-3"} {
		e.nodes = append(e.nodes, e.node(t, name))
	}
	return e
}

// newCloud returns a Cloud (and its OCI client) on e's server, as a process started now would
// make it.
func (e *env) newCloud(t *testing.T) (*Cloud, *ociclient.Client) {
	t.Helper()
	provider, err := e.cfg.ConfigurationProvider()
	if err != nil {
		t.Fatal(err)
	}
	o := ociclient.Options{
		Provider: provider, Region: e.srv.Region(), Host: e.srv.URL(), HTTPClient: e.srv.HTTPClient(),
		RateLimit: config.RateLimiter{Disabled: true},
		Retry:     ociclient.RetryPolicy{MaxAttempts: 8, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond, MaxElapsed: 10 * time.Second},
		Poll:      ociclient.PollPolicy{Initial: time.Millisecond, Max: 5 * time.Millisecond, Factor: 2},
		Logger:    klog.Background().V(10),
	}
	listingLag := time.Duration(noListingLag)
	if e.clock != nil {
		o.Clock, listingLag = testClock{e.clock}, 0
	}
	client, err := ociclient.New(o)
	if err != nil {
		t.Fatal(err)
	}
	cloud, err := New(e.cfg, Options{ClusterName: "test-cluster", Client: client, ListingLag: listingLag, Metrics: &e.counted})
	if err != nil {
		t.Fatal(err)
	}
	// As SetInformers does once the informers have synced, here over a cluster with no other
	// Services: from now on rules no claim needs are removed.
	if err := cloud.svc.Rules().Prime(nil); err != nil {
		t.Fatal(err)
	}
	if e.clock != nil {
		e.clock.Advance(engine.DefaultListingLag) // the Cloud has run for its listing lag
	}
	return cloud, client
}

// node returns a ready Node for a seeded instance, addressed by its primary private IP.
func (e *env) node(t *testing.T, name string) *v1.Node {
	t.Helper()
	vnics := e.srv.InstanceVNICs(e.seeded.Instances[name])
	if len(vnics) == 0 || vnics[0].PrivateIp == nil {
		t.Fatalf("instance %s has no private IP", name)
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1.NodeSpec{ProviderID: "oci://" + e.seeded.Instances[name]},
		Status: v1.NodeStatus{
			Addresses:  []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: *vnics[0].PrivateIp}},
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
}

// securityList returns the seeded security list of a subnet role ("lb-1", "nodes").
func (e *env) securityList(t *testing.T, name string) core.SecurityList {
	t.Helper()
	l, ok := e.srv.SecurityList(e.seeded.SecurityLists[name])
	if !ok {
		t.Fatalf("security list %s not found", name)
	}
	return l
}

func service(name string, annotations map[string]string, ports ...int32) *v1.Service {
	svc := &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Annotations: annotations},
		Spec:       v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer},
	}
	for i, p := range ports {
		svc.Spec.Ports = append(svc.Spec.Ports, v1.ServicePort{
			Name: "p" + string(rune('a'+i)), Protocol: v1.ProtocolTCP, Port: p,
			TargetPort: intstr.FromInt32(8080), NodePort: 30000 + p,
		})
	}
	return svc
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
