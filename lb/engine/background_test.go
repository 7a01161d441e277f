// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// pendingDone records the calls of engine.Options.PendingDone.
type pendingDone struct {
	mu    sync.Mutex
	calls []pendingDoneCall
	added chan struct{}
}

type pendingDoneCall struct {
	service, applied string
	err              error
}

func newPendingDone() *pendingDone { return &pendingDone{added: make(chan struct{}, 100)} }

func (p *pendingDone) record(_ context.Context, namespace, name, applied string, err error) error {
	p.mu.Lock()
	p.calls = append(p.calls, pendingDoneCall{service: namespace + "/" + name, applied: applied, err: err})
	p.mu.Unlock()
	p.added <- struct{}{}
	return nil
}

// next waits for the next call; the bound only keeps a broken test from hanging.
func (p *pendingDone) next(t *testing.T) pendingDoneCall {
	t.Helper()
	select {
	case <-p.added:
	case <-time.After(time.Minute):
		t.Fatal("PendingDone was not called")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[len(p.calls)-1]
}

// backgroundEnv is newEnv's OCI with a Reconciler that waits maxWait, judged by the env's clock,
// and where the first work request of each operation in stuck never finishes on its own (until
// CompleteWorkRequests); the others take 5ms.
func backgroundEnv(t *testing.T, maxWait time.Duration, stuck ...string) (*env, *engine.Reconciler, *pendingDone) {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]bool{}
	e := newEnv(t, func(s *envSettings) {
		s.wrDurations = func(_, op string, _ uint64) time.Duration {
			mu.Lock()
			defer mu.Unlock()
			if slices.Contains(stuck, op) && !seen[op] {
				seen[op] = true
				return 10000 * time.Hour
			}
			return 5 * time.Millisecond
		}
	})
	done := newPendingDone()
	r := e.settledReconciler(t, engine.Options{MaxWait: maxWait, Timeout: 20000 * time.Hour, PendingDone: done.record})
	return e, r, done
}

// pastMaxWait runs call, which sends op and waits for it, and once OCI runs op moves the env's
// clock, by which the Reconciler judges MaxWait, past maxWait: the call is handed back after
// MaxWait however fast or loaded this machine is.
func pastMaxWait(t *testing.T, e *env, maxWait time.Duration, op string, call func() error) error {
	t.Helper()
	returned := make(chan error, 1)
	go func() { returned <- call() }()
	waitForPending(t, e, op, returned)
	e.clock.Advance(maxWait + time.Second)
	return <-returned
}

// waitForPending waits until OCI runs op; a call that returns first (on returned) fails the test.
func waitForPending(t *testing.T, e *env, op string, returned <-chan error) {
	t.Helper()
	bound := time.After(time.Minute) // only keeps a broken test from hanging
	for !slices.Contains(pendingOps(e.srv), op) {
		select {
		case err := <-returned:
			t.Fatalf("the call returned before OCI ran %s: %v", op, err)
		case <-bound:
			t.Fatalf("OCI never ran %s", op)
		case <-time.After(2 * time.Millisecond):
		}
	}
}

func named(name string, uid types.UID) svcOpt {
	return func(s *v1.Service) { s.Name, s.UID = name, uid }
}

// TestEnsureGivesTheWorkerBackWhileAWorkRequestNeverFinishes: a create whose work request does not
// finish holds Ensure for MaxWait, not for the reconcile timeout (an hour here): Ensure returns a
// PendingError naming the create while OCI still runs it. Later syncs of that Service return at
// once without calling OCI, another Service converges meanwhile, and once the work request
// finishes PendingDone is called and the next Ensure reports the load balancer.
func TestEnsureGivesTheWorkerBackWhileAWorkRequestNeverFinishes(t *testing.T) {
	e, r, done := backgroundEnv(t, time.Hour, "CreateLoadBalancer")
	stuck, other := service(named("stuck", "11111111-0000-4000-8000-000000000001")), service(named("other", "11111111-0000-4000-8000-000000000002"))
	nodes := readyNodes(2)

	err := pastMaxWait(t, e, time.Hour, "CreateLoadBalancer", func() error {
		_, err := r.Ensure(ctx, stuck, nodes, nil)
		return err
	})
	var pe *engine.PendingError
	if !errors.As(err, &pe) {
		t.Fatalf("Ensure with the create's work request running: got %v, want a *engine.PendingError", err)
	}
	if ops := pendingOps(e.srv); len(ops) != 1 || ops[0] != "CreateLoadBalancer" {
		t.Fatalf("OCI runs %v, want the create still running when Ensure returned", ops)
	}
	if pe.Service != "default/stuck" || pe.Operation != "ensure" || pe.CallerDeadline || pe.Waited == 0 ||
		!strings.Contains(pe.Pending, "+ load balancer") || !strings.Contains(err.Error(), "the longest a sync waits") {
		t.Errorf("PendingError %+v (%q) does not say that the create of default/stuck is pending after MaxWait", pe, err)
	}

	// The next sync of the same Service does not wait, read or write: its work is still running.
	before := e.srv.Calls()
	_, err = r.Ensure(ctx, stuck, nodes, nil)
	if !errors.As(err, &pe) || pe.Waited != 0 || !strings.Contains(err.Error(), "left running by an earlier sync") {
		t.Errorf("second Ensure: got %v, want a PendingError for the work left running by the first", err)
	}
	if calls := e.srv.Calls().Since(before); calls.Total() != 0 {
		t.Errorf("the second Ensure made these calls, want none:\n%s", calls)
	}

	// Another Service converges meanwhile.
	if res, err := r.Ensure(ctx, other, nodes, nil); err != nil || len(res.Status.Ingress) == 0 {
		t.Fatalf("Ensure of another Service while the first one's create runs: %v", err)
	}

	e.srv.CompleteWorkRequests()
	call := done.next(t)
	if call.service != "default/stuck" || call.err != nil || !strings.Contains(call.applied, "+ load balancer") {
		t.Errorf("PendingDone got %+v, want default/stuck's create applied", call)
	}
	before = e.srv.Calls()
	res, err := r.Ensure(ctx, stuck, nodes, nil)
	if err != nil {
		t.Fatalf("Ensure once the create finished: %v", err)
	}
	// What a create longer than MaxWait costs beyond one that is waited for: this sync's read.
	if calls := e.srv.Calls().Since(before); calls.Total() != 1 || calls.Op("GetLoadBalancer") != 1 {
		t.Errorf("the sync after the create made these calls, want one GetLoadBalancer:\n%s", calls)
	}
	if len(res.Status.Ingress) == 0 || !res.Plan.Empty() {
		t.Errorf("Ensure once the create finished: status %+v, plan %s; want an address and nothing to change", res.Status, res.Plan)
	}
	if n := len(e.srv.LoadBalancers()); n != 2 {
		t.Errorf("OCI has %d load balancers, want 2", n)
	}
}

// TestUpdateAndDeleteGiveTheWorkerBackToo: a node sync whose backend-set change does not finish,
// and a delete that does not finish, each return a PendingError after MaxWait; a Service whose
// delete is pending keeps it pending (nothing reports the load balancer gone) until OCI finished,
// and then Delete succeeds.
func TestUpdateAndDeleteGiveTheWorkerBackToo(t *testing.T) {
	e, r, done := backgroundEnv(t, time.Hour, "UpdateBackendSet", "DeleteLoadBalancer")
	svc := service()
	if _, err := r.Ensure(ctx, svc, readyNodes(2), nil); err != nil {
		t.Fatal(err)
	}

	err := pastMaxWait(t, e, time.Hour, "UpdateBackendSet", func() error {
		_, err := r.Update(ctx, svc, readyNodes(3), nil)
		return err
	})
	var pe *engine.PendingError
	if !errors.As(err, &pe) || pe.Operation != "update" || !strings.Contains(pe.Pending, "backend set") {
		t.Fatalf("Update with a backend-set change that does not finish: got %v, want a PendingError naming the backend set", err)
	}
	e.srv.CompleteWorkRequests()
	if call := done.next(t); call.err != nil {
		t.Fatalf("the node sync left to the background failed: %v", call.err)
	}

	err = pastMaxWait(t, e, time.Hour, "DeleteLoadBalancer", func() error { return r.Delete(ctx, svc) })
	if !errors.As(err, &pe) || pe.Operation != "delete" || !strings.Contains(pe.Pending, "- load balancer") {
		t.Fatalf("Delete that does not finish: got %v, want a PendingError naming the deletion", err)
	}
	if err := r.Delete(ctx, svc); !errors.As(err, &pe) {
		t.Fatalf("Delete while the deletion runs: got %v, want a PendingError", err)
	}
	e.srv.CompleteWorkRequests()
	if call := done.next(t); call.err != nil {
		t.Fatalf("the deletion left to the background failed: %v", call.err)
	}
	if err := r.Delete(ctx, svc); err != nil {
		t.Fatalf("Delete once OCI deleted the load balancer: %v", err)
	}
	if n := len(e.srv.LoadBalancers()); n != 0 {
		t.Errorf("OCI still has %d load balancers", n)
	}
}

// TestAPendingErrorSaysWhoseDeadlineEndedTheWait: a caller whose own deadline comes before
// MaxWait gets a PendingError that says so, and the work goes on; work that outlasts the
// reconcile timeout (Options.Timeout) fails with an error that blames that timeout, not the
// caller.
func TestAPendingErrorSaysWhoseDeadlineEndedTheWait(t *testing.T) {
	e, r, done := backgroundEnv(t, time.Hour, "CreateLoadBalancer")
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err := r.Ensure(short, service(), readyNodes(1), nil)
	var pe *engine.PendingError
	if !errors.As(err, &pe) || !pe.CallerDeadline || !strings.Contains(err.Error(), "the caller's deadline") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Ensure past the caller's deadline: got %v, want a PendingError saying the caller's deadline passed", err)
	}
	waitForPending(t, e, "CreateLoadBalancer", nil) // on a loaded machine the create may not be sent yet
	e.srv.CompleteWorkRequests()
	if call := done.next(t); call.err != nil {
		t.Errorf("the create went on after the caller's deadline, but failed: %v", call.err)
	}

	// With a negative MaxWait the caller waits; the reconcile timeout ends the work.
	e2 := newEnv(t, func(s *envSettings) {
		s.wrDurations = func(string, string, uint64) time.Duration { return time.Hour }
	})
	r2, err := engine.NewReconciler(engine.Options{ListingLag: ocitest.DefaultListingLag, Config: e2.cfg, Client: e2.oci.LoadBalancers, PublicIPs: e2.oci.VirtualNetwork,
		MaxWait: -1, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r2.Ensure(ctx, service(), readyNodes(1), nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "gave up at the reconcile timeout (300ms)") {
		t.Errorf("Ensure past the reconcile timeout: got %v, want it to blame the reconcile timeout", err)
	}
}

// TestPlanSaysWhenTheCallersDeadlineEndedIt: a dry run cut short by its caller's deadline says
// it was the caller's deadline, not the reconcile timeout.
func TestPlanSaysWhenTheCallersDeadlineEndedIt(t *testing.T) {
	e := newEnv(t)
	e.srv.InjectFault(ocitest.Fault{Operation: "ListLoadBalancers", Latency: time.Hour})
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err := e.r.Plan(short, service(), readyNodes(1), nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "gave up at the caller's deadline") ||
		strings.Contains(err.Error(), "reconcile timeout") {
		t.Errorf("Plan past the caller's deadline: got %v, want it to blame the caller's deadline", err)
	}
}

// TestMaxWaitIsJudgedByTheReconcilersClock: MaxWait passes on Options.Now's clock, so a caller
// on a fast clock (a benchmark's) is handed back when that clock says so, as production is.
func TestMaxWaitIsJudgedByTheReconcilersClock(t *testing.T) {
	e, _, _ := backgroundEnv(t, 0, "CreateLoadBalancer")
	var clk ocitest.Clock
	r, err := engine.NewReconciler(engine.Options{ListingLag: ocitest.DefaultListingLag, Config: e.cfg, Client: e.oci.LoadBalancers, PublicIPs: e.oci.VirtualNetwork,
		MaxWait: time.Minute, Timeout: time.Hour, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	returned := make(chan error, 1)
	go func() {
		_, err := r.Ensure(ctx, service(), readyNodes(1), nil)
		returned <- err
	}()
	for len(pendingOps(e.srv)) == 0 { // the create sent: Ensure waits for it
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case err := <-returned:
		t.Fatalf("Ensure returned before a minute of its clock passed: %v", err)
	default:
	}
	clk.Advance(61 * time.Second)
	var pe *engine.PendingError
	if err := <-returned; !errors.As(err, &pe) || pe.Waited < time.Minute {
		t.Fatalf("Ensure after a minute of its clock: got %v, want a PendingError after MaxWait", err)
	}
}
