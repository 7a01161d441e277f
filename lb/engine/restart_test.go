// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"errors"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// TestRestartRebuildsStateFromOneListingPerPage: a new process (a restart, a new leader) whose
// service controller reconciles 300 unchanged Services makes 3 calls in all, one
// ListLoadBalancers per page of 100: the listing that rebuilds the name index also stands in for
// each Service's read, for both of the service controller's start-up syncs; a load balancer this
// process writes to is read afresh afterwards.
func TestRestartRebuildsStateFromOneListingPerPage(t *testing.T) {
	const n = 300
	e := newDriftEnvOf(t, n)
	restarted := newReconciler(t, e.oci, e.cfg, 0)

	reconcileAll := func() (planned int) {
		for _, svc := range e.services {
			res, err := restarted.Ensure(ctx, svc, e.nodes, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Plan.Empty() {
				planned++
			}
		}
		return planned
	}
	before := e.srv.Calls()
	if planned := reconcileAll(); planned != 0 {
		t.Errorf("%d unchanged Services planned changes after the restart", planned)
	}
	calls := e.srv.Calls().Since(before)
	if calls.Total() != n/100 || calls.Op("ListLoadBalancers") != n/100 {
		t.Errorf("rebuilding state for %d Services made these calls, want %d ListLoadBalancers and nothing else:\n%s", n, n/100, calls)
	}

	// The service controller's second sync of each Service (after its finalizer patch) is
	// served by the same listing.
	before = e.srv.Calls()
	reconcileAll()
	if calls := e.srv.Calls().Since(before); calls.Total() != 0 {
		t.Errorf("the second round made these calls, want none:\n%s", calls)
	}

	// A change writes, and the reconcile after it reads that load balancer afresh.
	svc := e.services[0].DeepCopy()
	svc.Spec.Ports[0].NodePort++
	if _, err := restarted.Ensure(ctx, svc, e.nodes, nil); err != nil {
		t.Fatal(err)
	}
	before = e.srv.Calls()
	if _, err := restarted.Ensure(ctx, svc, e.nodes, nil); err != nil {
		t.Fatal(err)
	}
	if calls := e.srv.Calls().Since(before); calls.Op("GetLoadBalancer") != 1 || calls.Total() != 1 {
		t.Errorf("the reconcile after a change made these calls, want one GetLoadBalancer:\n%s", calls)
	}
}

// TestAListingStandsInForReadsForAMinuteOfTheReconcilersClock: the listing a restart makes
// serves the reconciles of the next minute, judged by Options.Now, and no longer: a Service
// reconciled later reads its load balancer afresh.
func TestAListingStandsInForReadsForAMinuteOfTheReconcilersClock(t *testing.T) {
	e := newDriftEnvOf(t, 2)
	var clk ocitest.Clock
	restarted, err := engine.NewReconciler(engine.Options{ListingLag: ocitest.DefaultListingLag, Config: e.cfg, Client: e.oci.LoadBalancers,
		PublicIPs: e.oci.VirtualNetwork, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	ensure := func(svc *v1.Service) ocitest.Calls {
		t.Helper()
		before := e.srv.Calls()
		if _, err := restarted.Ensure(ctx, svc, e.nodes, nil); err != nil {
			t.Fatal(err)
		}
		return e.srv.Calls().Since(before)
	}
	if calls := ensure(e.services[0]); calls.Total() != 1 || calls.Op("ListLoadBalancers") != 1 {
		t.Fatalf("the first reconcile after the restart made these calls, want one ListLoadBalancers:\n%s", calls)
	}
	clk.Advance(59 * time.Second)
	if calls := ensure(e.services[1]); calls.Total() != 0 {
		t.Errorf("59 s after the listing, a reconcile made these calls, want none:\n%s", calls)
	}
	clk.Advance(2 * time.Second)
	if calls := ensure(e.services[1]); calls.Total() != 1 || calls.Op("GetLoadBalancer") != 1 {
		t.Errorf("61 s after the listing, a reconcile made these calls, want one GetLoadBalancer:\n%s", calls)
	}
}

// TestARestartDuringACreateSucceedsOnceTheLoadBalancerIsActive: a process restarted while its
// load balancer is CREATING lists the compartment at its first reconcile and is refused (the
// creation is in progress). The first reconcile after OCI finished the create succeeds: a
// listing that showed the load balancer CREATING does not stand in for the read that finds it
// ACTIVE.
func TestARestartDuringACreateSucceedsOnceTheLoadBalancerIsActive(t *testing.T) {
	e := newEnv(t, withWorkRequestDuration(time.Hour))
	svc, nodes := service(), readyNodes(2)

	// The first process sends the create and is gone before it finishes: its reconcile timeout
	// ends its wait. On a loaded machine that timeout may end it before it sent the create; then
	// it is started again, as the service controller would.
	for attempt := 1; len(e.srv.LoadBalancers()) == 0; attempt++ {
		if attempt > 20 {
			t.Fatal("the first process never sent the create within its reconcile timeout")
		}
		first := e.settledReconciler(t, engine.Options{Timeout: 300 * time.Millisecond})
		if _, err := first.Ensure(ctx, svc, nodes, nil); err == nil {
			t.Fatal("Ensure returned with the create's work request still running")
		}
	}
	if lbs := e.srv.LoadBalancers(); len(lbs) != 1 || lbs[0].LifecycleState != "CREATING" {
		t.Fatalf("OCI has %d load balancers, want one CREATING", len(lbs))
	}

	restarted := newReconciler(t, e.oci, e.cfg, 0)
	if _, err := restarted.Ensure(ctx, svc, nodes, nil); !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("Ensure after the restart, load balancer CREATING: got %v, want an error matching engine.ErrUnavailable", err)
	}

	e.srv.CompleteWorkRequests()
	before := e.srv.Calls()
	res, err := restarted.Ensure(ctx, svc, nodes, nil)
	if err != nil {
		t.Fatalf("Ensure once the load balancer is ACTIVE: %v\ncalls:\n%s", err, e.srv.Calls().Since(before))
	}
	if len(res.Status.Ingress) == 0 {
		t.Errorf("status %+v has no address", res.Status)
	}
	if !res.Plan.Empty() {
		t.Errorf("the created load balancer needs changes: %s", res.Plan)
	}
	if calls := e.srv.Calls().Since(before); calls.Op("GetLoadBalancer") != 1 {
		t.Errorf("the reconcile after the create made these calls, want one GetLoadBalancer (a fresh read):\n%s", calls)
	}
}
