// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// asyncEnv is an env whose work requests run for an hour while hold is set (5 ms otherwise), so
// a test sees them pending and finishes them with CompleteWorkRequests; and a FollowUp whose
// requeues land in requeued.
type asyncEnv struct {
	*env
	hold     *atomic.Bool
	requeued chan string
	stop     func()
}

func newAsyncEnv(t *testing.T, opts ...envOption) *asyncEnv {
	t.Helper()
	hold := &atomic.Bool{}
	e := newEnv(t, append(opts, func(s *envSettings) {
		s.wrDurations = func(string, string, uint64) time.Duration {
			if hold.Load() {
				return time.Hour
			}
			return 5 * time.Millisecond
		}
	})...)
	return &asyncEnv{env: e, hold: hold}
}

// followUp runs r.FollowUp until the test ends (or stop), and waits until it runs.
func (e *asyncEnv) followUp(t *testing.T, r *engine.Reconciler) {
	t.Helper()
	fctx, cancel := context.WithCancel(ctx)
	e.requeued = make(chan string, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.FollowUp(fctx, func(_ context.Context, namespace, name, reason string) error {
			e.requeued <- namespace + "/" + name + ": " + reason
			return nil
		})
	}()
	var once sync.Once
	e.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Error("FollowUp did not return after its context ended: a goroutine it started is stuck")
			}
		})
	}
	t.Cleanup(e.stop)
	waitFor(t, "FollowUp to start", func() bool { return engine.Following(r) })
}

// waitFor polls cond until it holds; the bound only keeps a broken test from hanging.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// pendingOps are the operations of the work requests OCI has not finished.
func pendingOps(srv *ocitest.Server) []string {
	var out []string
	for _, wr := range srv.WorkRequests() {
		if wr.State == ocitest.WorkRequestAccepted || wr.State == ocitest.WorkRequestInProgress {
			out = append(out, wr.Operation)
		}
	}
	return out
}

// pendingNLBOps are pendingOps of the Network Load Balancer API.
func pendingNLBOps(srv *ocitest.Server) []string {
	var out []string
	for _, wr := range srv.WorkRequests() {
		if wr.API == ocitest.APINetworkLoadBalancer && (wr.State == ocitest.WorkRequestAccepted || wr.State == ocitest.WorkRequestInProgress) {
			out = append(out, wr.Operation)
		}
	}
	return out
}

// accepted counts the work requests OCI accepted for op.
func accepted(srv *ocitest.Server, op string) int {
	n := 0
	for _, wr := range srv.WorkRequests() {
		if wr.Operation == op {
			n++
		}
	}
	return n
}

// backendIPs are the addresses in the only load balancer's backend set.
func backendIPs(t *testing.T, e *env, set string) []string {
	t.Helper()
	var out []string
	for _, b := range e.only(t).BackendSets[set].Backends {
		out = append(out, b.IP)
	}
	return out
}

func nodeIPs(n int) []string {
	var out []string
	for _, node := range readyNodes(n) {
		out = append(out, node.Status.Addresses[0].Address)
	}
	return out
}

func noRequeue(t *testing.T, e *asyncEnv) {
	t.Helper()
	select {
	case r := <-e.requeued:
		t.Errorf("requeued: %s", r)
	default:
	}
}

func TestUpdateOfNodesReturnsWithItsWorkRequestStillPending(t *testing.T) {
	e := newAsyncEnv(t)
	svc := service(ports(80))
	e.ensure(t, svc, readyNodes(2), nil)
	e.followUp(t, e.r)

	e.hold.Store(true)
	res, err := e.r.Update(ctx, svc, readyNodes(3), nil)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if diff := cmp.Diff([]string{"UpdateBackendSet"}, pendingOps(e.srv)); diff != "" {
		t.Errorf("pending work requests when Update returned (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(nodeIPs(2), backendIPs(t, e.env, "TCP-80")); diff != "" {
		t.Errorf("OCI's backends before the work request ran (-want +got):\n%s", diff)
	}
	if len(res.Plan.Changes) != 1 || res.Plan.Changes[0].Verb() != "update backend set" || !res.Accepted {
		t.Errorf("Result.Plan (accepted %v):\n%s\nwant one backend set update, accepted", res.Accepted, res.Plan)
	}
	if n := engine.PendingLoadBalancers(e.r); n != 1 {
		t.Errorf("%d load balancers followed, want 1", n)
	}

	e.srv.CompleteWorkRequests()
	waitFor(t, "FollowUp to confirm the change", func() bool { return engine.PendingLoadBalancers(e.r) == 0 })
	if diff := cmp.Diff(nodeIPs(3), backendIPs(t, e.env, "TCP-80")); diff != "" {
		t.Errorf("OCI's backends after (-want +got):\n%s", diff)
	}
	noRequeue(t, e)
}

func TestQuickNodeUpdatesDeferBehindThePendingOneWithoutRedundantWrites(t *testing.T) {
	e := newAsyncEnv(t)
	svc := service(ports(80))
	e.ensure(t, svc, readyNodes(2), nil)
	e.followUp(t, e.r)
	e.hold.Store(true)

	if _, err := e.r.Update(ctx, svc, readyNodes(3), nil); err != nil {
		t.Fatalf("first Update: %v", err)
	}
	// The service controller syncs again with the same Nodes: the pending change already
	// brings them, so nothing is written (computed against OCI's pre-update state, it would
	// send the same list again).
	res, err := e.r.Update(ctx, svc, readyNodes(3), nil)
	if err != nil {
		t.Fatalf("repeated Update: %v", err)
	}
	if !res.Plan.Empty() || accepted(e.srv, "UpdateBackendSet") != 1 {
		t.Errorf("repeated Update: plan\n%s\n%d UpdateBackendSet accepted, want an empty plan and 1", res.Plan, accepted(e.srv, "UpdateBackendSet"))
	}

	// A fourth Node: the whole new list, deferred until the pending change has run (OCI would
	// queue it behind that one anyway), and sent by FollowUp without the Update waiting.
	if _, err := e.r.Update(ctx, svc, readyNodes(4), nil); err != nil {
		t.Fatalf("Update with a fourth Node: %v", err)
	}
	if n := accepted(e.srv, "UpdateBackendSet"); n != 1 {
		t.Errorf("%d UpdateBackendSet accepted while the first runs, want 1 (the fourth Node's deferred)", n)
	}
	e.srv.CompleteWorkRequests()
	waitFor(t, "FollowUp to send the deferred change", func() bool { return accepted(e.srv, "UpdateBackendSet") == 2 })
	e.hold.Store(false)
	e.srv.CompleteWorkRequests()
	waitFor(t, "FollowUp to confirm the changes", func() bool { return engine.PendingLoadBalancers(e.r) == 0 })

	if n := accepted(e.srv, "UpdateBackendSet"); n != 2 {
		t.Errorf("%d UpdateBackendSet accepted, want 2 (one per distinct backend list)", n)
	}
	if diff := cmp.Diff(nodeIPs(4), backendIPs(t, e.env, "TCP-80")); diff != "" {
		t.Errorf("final backends (-want +got):\n%s", diff)
	}
	noRequeue(t, e)
}

func TestFailedAcceptedUpdateRequeuesTheServiceAndItsRetryConverges(t *testing.T) {
	e := newAsyncEnv(t)
	svc := service(ports(80))
	e.ensure(t, svc, readyNodes(2), nil)
	e.followUp(t, e.r)

	remove := e.srv.FailWorkRequests(func(wr ocitest.WorkRequestInfo) bool { return wr.Operation == "UpdateBackendSet" }, "Internal error")
	if _, err := e.r.Update(ctx, svc, readyNodes(3), nil); err != nil {
		t.Fatalf("Update: %v (its work request fails only later)", err)
	}
	remove()

	var reason string
	select {
	case reason = <-e.requeued:
	case <-time.After(30 * time.Second):
		t.Fatal("no requeue after the accepted update failed")
	}
	if !strings.HasPrefix(reason, "default/web: backend set TCP-80") || !strings.Contains(reason, "Internal error") {
		t.Errorf("requeue reason %q, want the Service, the backend set and OCI's message", reason)
	}
	if diff := cmp.Diff(nodeIPs(2), backendIPs(t, e.env, "TCP-80")); diff != "" {
		t.Errorf("backends after the failure (-want +got):\n%s", diff)
	}

	// The requeued Service is reconciled through Ensure, against OCI as it is.
	_, calls := e.ensure(t, svc, readyNodes(3), nil)
	if diff := cmp.Diff(map[string]int{"UpdateBackendSet": 1}, writes(calls)); diff != "" {
		t.Errorf("retry writes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(nodeIPs(3), backendIPs(t, e.env, "TCP-80")); diff != "" {
		t.Errorf("backends after the retry (-want +got):\n%s", diff)
	}
	noRequeue(t, e)
}

func TestFailureOfOneOfTwoQueuedChangesNamesOnlyItsBackendSet(t *testing.T) {
	e := newAsyncEnv(t)
	svc := service(ports(80, 443))
	e.ensure(t, svc, readyNodes(2), nil)
	e.followUp(t, e.r)

	var seen atomic.Int32
	remove := e.srv.FailWorkRequests(func(wr ocitest.WorkRequestInfo) bool {
		// The first UpdateBackendSet accepted fails, the one queued behind it runs.
		return wr.Operation == "UpdateBackendSet" && seen.Add(1) == 1
	}, "Internal error")
	res, err := e.r.Update(ctx, svc, readyNodes(3), nil)
	remove()
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if len(res.Plan.Changes) != 2 {
		t.Fatalf("plan:\n%s\nwant both backend sets", res.Plan)
	}
	failedSet, okSet := res.Plan.Changes[0].Name, res.Plan.Changes[1].Name
	select {
	case reason := <-e.requeued:
		if !strings.Contains(reason, "backend set "+failedSet+" not updated") || strings.Contains(reason, okSet) {
			t.Errorf("requeue reason %q, want %s named and %s not", reason, failedSet, okSet)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no requeue after one of the accepted changes failed")
	}
	// The second change may have been accepted after the first failed (then followed on its own).
	waitFor(t, "FollowUp to see the second change", func() bool { return engine.PendingLoadBalancers(e.r) == 0 })
	if diff := cmp.Diff(nodeIPs(3), backendIPs(t, e.env, okSet)); diff != "" {
		t.Errorf("%s, whose change ran (-want +got):\n%s", okSet, diff)
	}
}

func TestAcceptedUpdateThatNeverFinishesIsRequeuedAfterTheTimeout(t *testing.T) {
	e := newAsyncEnv(t)
	svc := service(ports(80))
	e.ensure(t, svc, readyNodes(2), nil)
	r := e.settledReconciler(t, engine.Options{Timeout: time.Second}) // a second process, up for a while
	e.followUp(t, r)

	e.hold.Store(true)
	if _, err := r.Update(ctx, svc, readyNodes(3), nil); err != nil {
		t.Fatalf("Update: %v", err)
	}
	select {
	case reason := <-e.requeued:
		if !strings.Contains(reason, "backend set TCP-80") {
			t.Errorf("requeue reason %q, want the backend set", reason)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no requeue for a work request still running after the reconcile timeout")
	}
	if n := engine.PendingLoadBalancers(r); n != 0 {
		t.Errorf("%d load balancers still followed after the requeue, want 0", n)
	}
}

func TestUpdateWaitsForEveryPlanThatIsNotBackendsAlone(t *testing.T) {
	tests := []struct {
		name string
		// before is the Service as created; nil when the Update finds no load balancer.
		before, after *v1.Service
		// nlb makes it a network load balancer Service.
		nlb bool
	}{
		{name: "a port added", before: service(ports(80)), after: service(ports(80, 8080))},
		{name: "the health check changed with the Nodes", before: service(ports(80)),
			after: service(ports(80), annotate(annotation.HealthCheckInterval, "5000"))},
		{name: "no load balancer yet (its first sync creates it)", after: service(ports(80))},
		{name: "Nodes alone, on a network load balancer (which refuses a change while one runs)",
			before: service(ports(80), asNLB), after: service(ports(80), asNLB), nlb: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []envOption
			if tc.nlb {
				opts = append(opts, withNLBs())
			}
			e := newAsyncEnv(t, opts...)
			nodes := readyNodes
			if tc.nlb {
				nodes = e.instanceNodes
			}
			if tc.before != nil {
				e.ensure(t, tc.before, nodes(2), nil)
			}
			e.followUp(t, e.r)
			e.hold.Store(true)
			// The work requests run for an hour: an Update that waits for them ends at its
			// context's deadline; one that returned early would return nil.
			uctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			_, err := e.r.Update(uctx, tc.after, nodes(3), nil)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Update = %v, want it to wait for its work request (until the deadline)", err)
			}
			if len(pendingOps(e.srv)) == 0 && len(pendingNLBOps(e.srv)) == 0 {
				t.Error("no work request pending: the test proves nothing")
			}
			if n := engine.PendingLoadBalancers(e.r); n != 0 {
				t.Errorf("%d load balancers followed, want 0", n)
			}
		})
	}
}

func TestUpdateWaitsWhenNoFollowUpRuns(t *testing.T) {
	e := newAsyncEnv(t)
	svc := service(ports(80))
	e.ensure(t, svc, readyNodes(2), nil)
	e.followUp(t, e.r)
	e.hold.Store(true)
	if _, err := e.r.Update(ctx, svc, readyNodes(3), nil); err != nil {
		t.Fatalf("Update: %v", err)
	}

	e.stop()
	if n := engine.PendingLoadBalancers(e.r); n != 0 {
		t.Errorf("%d load balancers still laid over observed state after FollowUp stopped, want 0", n)
	}
	e.srv.CompleteWorkRequests()
	uctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, err := e.r.Update(uctx, svc, readyNodes(4), nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Update without FollowUp = %v, want it to wait for its work request (until the deadline)", err)
	}
}

func TestDriftCheckStaysQuietWhileAnAcceptedUpdateIsPending(t *testing.T) {
	e := newAsyncEnv(t)
	svc := service(ports(80))
	res, _ := e.ensure(t, svc, readyNodes(2), nil)
	svc.Status.LoadBalancer = *res.Status
	e.followUp(t, e.r)
	e.hold.Store(true)
	if _, err := e.r.Update(ctx, svc, readyNodes(3), nil); err != nil {
		t.Fatalf("Update: %v", err)
	}

	e.clock.Advance(ocitest.DefaultListingLag) // the check runs once OCI's listings show the load balancer
	report, err := e.r.Drift(ctx, []*v1.Service{svc}, readyNodes(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	if report.Checked != 1 || len(report.Drifted) != 0 {
		t.Errorf("drift while the update is pending: checked %d, drifted %+v; want 1 checked, none drifted", report.Checked, report.Drifted)
	}
	// Another process, which knows of no pending change, sees the difference: the check above
	// was quiet because of the pending change, not because it could not see it.
	other, err := e.settledReconciler(t, engine.Options{}).Drift(ctx, []*v1.Service{svc}, readyNodes(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.Drift{{Service: types.NamespacedName{Namespace: "default", Name: "web"}, UID: svc.UID,
		LoadBalancerID: res.LoadBalancerID, Reasons: []string{"backend set TCP-80 changed"}}}
	if diff := cmp.Diff(want, other.Drifted); diff != "" {
		t.Errorf("drift seen by a process without the pending change (-want +got):\n%s", diff)
	}
}
