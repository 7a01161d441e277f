// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package drift_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/internal/drift"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

var ctx = klog.NewContext(context.Background(), logr.Discard())

const cluster = "prod"

// requeues records the requeue calls, as "namespace/name: reason".
type requeues struct {
	mu   sync.Mutex
	got  []string
	fail error
}

func (r *requeues) requeue(_ context.Context, namespace, name, reason string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	r.got = append(r.got, namespace+"/"+name+": "+reason)
	return nil
}

func (r *requeues) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.got
	r.got = nil
	return out
}

// cluster is ocitest, the real SDK clients over it, and Services whose load balancers a
// Reconciler created, as the service controller leaves them (with their addresses).
type world struct {
	srv      *ocitest.Server
	services []*v1.Service
	nodes    []*v1.Node
	lbIDs    map[string]string
	loop     *drift.Loop
	requeued *requeues
}

func newWorld(t *testing.T, names ...string) *world {
	t.Helper()
	// ListingLag off, in the server and the Reconciler: these tests run on the wall clock, where a
	// young Reconciler's drift check skips load balancers created within the lag (5 s) of it.
	// lb's own tests run the drift check with the lag on, on a clock they move (lb/engine/env_test.go).
	srv := ocitest.New(ocitest.Options{WorkRequestDuration: time.Millisecond, ListingLag: ocitest.NoLag})
	t.Cleanup(srv.Close)
	seeded := srv.Seeded()
	cfg := &config.Config{ClusterID: cluster, CompartmentID: seeded.Compartment, LoadBalancer: config.LoadBalancer{
		Subnet1: seeded.LoadBalancerSubnets[0], Subnet2: seeded.LoadBalancerSubnets[1]}}
	oci, err := ociclient.New(ociclient.Options{
		Provider: srv.ConfigurationProvider(), Region: srv.Region(), Host: srv.URL(), HTTPClient: srv.HTTPClient(),
		RateLimit: config.RateLimiter{Disabled: true},
		Retry:     ociclient.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxElapsed: 10 * time.Second},
		Poll:      ociclient.PollPolicy{Initial: time.Millisecond, Max: 5 * time.Millisecond, Factor: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := engine.NewReconciler(engine.Options{Config: cfg, Client: oci.LoadBalancers, ListingLag: -1})
	if err != nil {
		t.Fatal(err)
	}
	w := &world{srv: srv, lbIDs: map[string]string{}, requeued: &requeues{}}
	for i := range 3 {
		w.nodes = append(w.nodes, &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i)},
			Status:     v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: fmt.Sprintf("10.0.1.%d", i+1)}}},
		})
	}
	for i, name := range names {
		svc := &v1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i))},
			Spec: v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, Ports: []v1.ServicePort{
				{Name: "http", Protocol: v1.ProtocolTCP, Port: 80, NodePort: 30080},
				{Name: "https", Protocol: v1.ProtocolTCP, Port: 443, NodePort: 30443}}},
		}
		res, err := r.Ensure(ctx, svc, w.nodes, nil)
		if err != nil {
			t.Fatal(err)
		}
		svc.Status.LoadBalancer = *res.Status
		w.services = append(w.services, svc)
		w.lbIDs[name] = res.Spec.ID
	}
	w.loop, err = drift.New(drift.Options{
		Checker:  r.Drift,
		Services: func() ([]*v1.Service, error) { return w.services, nil },
		Nodes:    func(context.Context) ([]*v1.Node, error) { return w.nodes, nil },
		Requeue:  w.requeued.requeue,
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestCheckRequeuesExactlyTheServicesWhoseLoadBalancersDrifted(t *testing.T) {
	tests := []struct {
		name      string
		outOfBand func(w *world)
		want      []string
	}{
		{name: "unchanged: nothing requeued", outOfBand: func(*world) {}},
		{
			name: "listener deleted in the console",
			outOfBand: func(w *world) {
				w.srv.EditLoadBalancer(w.lbIDs["cart"], func(l *loadbalancer.LoadBalancer) { delete(l.Listeners, "TCP-80") })
			},
			want: []string{"shop/cart: listener TCP-80 missing"},
		},
		{
			name:      "load balancer deleted in the console",
			outOfBand: func(w *world) { w.srv.RemoveLoadBalancer(w.lbIDs["web"]) },
			want:      []string{"shop/web: load balancer deleted"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, "web", "cart", "search")
			tt.outOfBand(w)
			before := w.srv.Calls()
			if _, err := w.loop.Check(ctx); err != nil {
				t.Fatal(err)
			}
			calls := w.srv.Calls().Since(before)
			if diff := cmp.Diff(tt.want, w.requeued.take()); diff != "" {
				t.Errorf("requeued (-want +got):\n%s", diff)
			}
			if calls.Total() != 1 || calls.Op("ListLoadBalancers") != 1 {
				t.Errorf("one check made these calls, want one ListLoadBalancers:\n%s", calls)
			}
		})
	}
}

func TestCheckDeniedListingRequeuesNothing(t *testing.T) {
	w := newWorld(t, "web", "cart")
	for _, id := range w.lbIDs {
		w.srv.RemoveLoadBalancer(id)
	}
	w.srv.InjectFault(ocitest.Fault{Operation: "ListLoadBalancers", Status: 404, Code: "NotAuthorizedOrNotFound"})
	if _, err := w.loop.Check(ctx); !ociclient.IsNotFound(err) {
		t.Errorf("Check error = %v, want the listing's 404", err)
	}
	if got := w.requeued.take(); len(got) != 0 {
		t.Errorf("a refused listing requeued %v", got)
	}
}

// scripted is a Checker that reports the same drifts until changed, and can hold a check.
type scripted struct {
	mu      sync.Mutex
	drifted []engine.Drift
	calls   atomic.Int32
	hold    chan struct{} // when set, each Check waits for it to close
	started chan struct{}
}

func (s *scripted) Check(ctx context.Context, _ []*v1.Service, _ []*v1.Node, _ func(*v1.Service) lb.Secrets) (*engine.DriftReport, error) {
	s.calls.Add(1)
	if s.hold != nil {
		s.started <- struct{}{}
		<-s.hold
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return &engine.DriftReport{Drifted: append([]engine.Drift(nil), s.drifted...)}, nil
}

func (s *scripted) set(d ...engine.Drift) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drifted = d
}

func newScriptedLoop(t *testing.T, c drift.Checker, r *requeues, period time.Duration) *drift.Loop {
	t.Helper()
	l, err := drift.New(drift.Options{
		Checker:  c,
		Services: func() ([]*v1.Service, error) { return nil, nil },
		Nodes:    func(context.Context) ([]*v1.Node, error) { return nil, nil },
		Requeue:  r.requeue,
		Period:   period,
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func listenerMissing(name string) engine.Drift {
	return engine.Drift{Service: types.NamespacedName{Namespace: "shop", Name: name}, UID: types.UID("uid-" + name), Reasons: []string{"listener TCP-80 missing"}}
}

func TestCheckNeverRunsTwoChecksAtOnce(t *testing.T) {
	c := &scripted{hold: make(chan struct{}), started: make(chan struct{}, 1)}
	l := newScriptedLoop(t, c.Check, &requeues{}, time.Hour)
	done := make(chan error)
	go func() { _, err := l.Check(ctx); done <- err }()
	<-c.started
	if _, err := l.Check(ctx); !errors.Is(err, drift.ErrBusy) {
		t.Errorf("a check while another runs: error %v, want ErrBusy", err)
	}
	close(c.hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := c.calls.Load(); n != 1 {
		t.Errorf("checker called %d times, want 1", n)
	}
}

func TestCheckBacksOffADriftThatPersistsAndRequeuesANewOneAtOnce(t *testing.T) {
	c := &scripted{}
	r := &requeues{}
	l := newScriptedLoop(t, c.Check, r, time.Hour)
	c.set(listenerMissing("cart"))
	var requeuedAt []int
	for i := 1; i <= 16; i++ {
		if _, err := l.Check(ctx); err != nil {
			t.Fatal(err)
		}
		if len(r.take()) > 0 {
			requeuedAt = append(requeuedAt, i)
		}
	}
	if diff := cmp.Diff([]int{1, 2, 4, 8, 16}, requeuedAt); diff != "" {
		t.Errorf("a persistent drift was requeued at checks (-want +got):\n%s", diff)
	}

	// Another drift of the same Service, and a first drift of another one: both at once.
	changed := listenerMissing("cart")
	changed.Reasons = []string{"load balancer deleted"}
	c.set(changed, listenerMissing("web"))
	if _, err := l.Check(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"shop/cart: load balancer deleted", "shop/web: listener TCP-80 missing"}
	if diff := cmp.Diff(want, r.take()); diff != "" {
		t.Errorf("requeued (-want +got):\n%s", diff)
	}

	// Repaired, then drifted again: a fresh drift, requeued at once.
	c.set()
	if _, err := l.Check(ctx); err != nil {
		t.Fatal(err)
	}
	c.set(changed)
	if _, err := l.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"shop/cart: load balancer deleted"}, r.take()); diff != "" {
		t.Errorf("after a repair (-want +got):\n%s", diff)
	}
}

func TestCheckRetriesAFailedRequeueAtTheNextCheck(t *testing.T) {
	c := &scripted{}
	r := &requeues{fail: errors.New("apiserver down")}
	l := newScriptedLoop(t, c.Check, r, time.Hour)
	c.set(listenerMissing("cart"))
	if _, err := l.Check(ctx); err == nil {
		t.Error("a failed requeue returned no error")
	}
	r.fail = nil
	if _, err := l.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"shop/cart: listener TCP-80 missing"}, r.take()); diff != "" {
		t.Errorf("requeued (-want +got):\n%s", diff)
	}
}

func TestRunChecksEveryPeriodAndStopsWithItsContext(t *testing.T) {
	c := &scripted{}
	l := newScriptedLoop(t, c.Check, &requeues{}, time.Millisecond)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { l.Run(ctx); close(done) }()
	for c.calls.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	after := c.calls.Load()
	time.Sleep(10 * time.Millisecond)
	if n := c.calls.Load(); n != after {
		t.Errorf("%d checks ran after Run returned", n-after)
	}
}

func TestServiceControllerNodesLeavesOutWhatTheServiceControllerLeavesOut(t *testing.T) {
	now := metav1.Now()
	node := func(name string, f func(*v1.Node)) *v1.Node {
		n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
		f(n)
		return n
	}
	nodes := []*v1.Node{
		node("plain", func(*v1.Node) {}),
		node("not-ready", func(n *v1.Node) {
			n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionFalse}}
		}),
		node("deleting", func(n *v1.Node) { n.DeletionTimestamp = &now }),
		node("excluded", func(n *v1.Node) { n.Labels[v1.LabelNodeExcludeBalancers] = "true" }),
		node("exclusion-unparsable", func(n *v1.Node) { n.Labels[v1.LabelNodeExcludeBalancers] = "yes" }),
		node("exclusion-false", func(n *v1.Node) { n.Labels[v1.LabelNodeExcludeBalancers] = "false" }),
		node("autoscaled-away", func(n *v1.Node) {
			n.Spec.Taints = []v1.Taint{{Key: "ToBeDeletedByClusterAutoscaler", Effect: v1.TaintEffectNoSchedule}}
		}),
	}
	var got []string
	for _, n := range drift.ServiceControllerNodes(nodes) {
		got = append(got, n.Name)
	}
	if diff := cmp.Diff([]string{"plain", "not-ready", "exclusion-false"}, got); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
}
