// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// The service controller releases a Service's finalizer once EnsureLoadBalancerDeleted returns
// nil, and creates a load balancer when GetLoadBalancer says there is none; a Reconciler that
// took a 404 NotAuthorizedOrNotFound of a policy still propagating for absence would orphan a
// running load balancer or make a second one. These tests run on ocitest's default policy delay
// and listing lag, on the clock the server and the Reconcilers share.

// kindCase is one product: how to ask for it and how many of it OCI holds.
type kindCase struct {
	name  string
	opt   svcOpt
	count func(*ocitest.Server) int
	// manage is the policy statement its calls need.
	manage string
}

var kindCases = []kindCase{
	{name: "load balancer", opt: func(*v1.Service) {}, count: func(s *ocitest.Server) int { return len(s.LoadBalancers()) },
		manage: "manage load-balancers"},
	{name: "network load balancer", opt: annotate(annotation.LoadBalancerType, "nlb"),
		count: func(s *ocitest.Server) int { return len(s.NetworkLoadBalancers()) }, manage: "manage network-load-balancers"},
}

// refusedMeanwhile asks every Reconciler in rs to Get, Ensure and Delete svc while the policy
// does not (yet) allow it, and checks that each answers an error: no load balancer reported
// absent, none created, none deleted, OCI still holding want of them.
func refusedMeanwhile(t *testing.T, e *env, k kindCase, svc *v1.Service, want int, when string, rs ...*engine.Reconciler) {
	t.Helper()
	before := e.srv.Calls()
	for i, r := range rs {
		if res, exists, err := r.Get(ctx, svc); err == nil {
			t.Errorf("%s: Reconciler %d: Get = %v, exists=%v, nil; want an error (a refusal is no proof of absence)", when, i, res, exists)
		}
		if res, err := r.Ensure(ctx, svc, readyNodes(2), nil); err == nil {
			t.Errorf("%s: Reconciler %d: Ensure = %+v, nil; want an error", when, i, res)
		}
		if err := r.Delete(ctx, svc); err == nil {
			t.Errorf("%s: Reconciler %d: Delete = nil (the finalizer would be released); want an error", when, i)
		}
	}
	calls := e.srv.Calls().Since(before)
	for _, op := range calls.Ops() {
		if strings.HasPrefix(op, "Create") || strings.HasPrefix(op, "Delete") {
			t.Errorf("%s: %d %s sent although nothing proved the load balancer absent, or present", when, calls.Op(op), op)
		}
	}
	if n := k.count(e.srv); n != want {
		t.Errorf("%s: OCI holds %d %ss, want %d", when, n, k.name, want)
	}
	if d := e.srv.Denials(); len(d) == 0 {
		t.Fatalf("%s: nothing was refused: the test proves nothing", when)
	}
}

// convergesAfter checks that, once the policy is in force, Ensure finds the one load balancer
// (id; "" when none existed) and makes no second, and Delete then removes it.
func convergesAfter(t *testing.T, e *env, k kindCase, svc *v1.Service, id string, rs ...*engine.Reconciler) {
	t.Helper()
	for i, r := range rs {
		res, err := r.Ensure(ctx, svc, readyNodes(2), nil)
		if err != nil {
			t.Fatalf("in force: Reconciler %d: Ensure: %v", i, err)
		}
		if id == "" {
			id = res.LoadBalancerID
		}
		if res.LoadBalancerID != id {
			t.Errorf("in force: Reconciler %d: Ensure answered %s, want the existing %s", i, res.LoadBalancerID, id)
		}
		if n := k.count(e.srv); n != 1 {
			t.Fatalf("in force: OCI holds %d %ss, want exactly 1", n, k.name)
		}
		svc.Status.LoadBalancer = *res.Status
	}
	if err := rs[0].Delete(ctx, svc); err != nil {
		t.Fatalf("in force: Delete: %v", err)
	}
	if n := k.count(e.srv); n != 0 {
		t.Errorf("in force: OCI holds %d %ss after Delete, want none", n, k.name)
	}
}

// A new install over a load balancer that already runs (a reinstall, or a move from another
// CCM): every call answers 404 until the operator's policy has propagated. Neither the
// Reconciler that made the load balancer nor one started now (nothing cached: it must look the
// Service up by name) reports it absent, deletes it or makes another; afterwards both find it.
func TestNewInstallsPropagatingPolicyNeverLosesALoadBalancer(t *testing.T) {
	for _, k := range kindCases {
		t.Run(k.name, func(t *testing.T) {
			e := newEnv(t, withNLBs())
			svc := service(k.opt)
			res, _ := e.ensure(t, svc, readyNodes(2), nil)
			svc.Status.LoadBalancer = *res.Status
			restarted := e.settledReconciler(t, engine.Options{NetworkLoadBalancers: e.oci.NetworkLoadBalancers})

			e.srv.DenyAll()
			refusedMeanwhile(t, e, k, svc, 1, "before any policy", e.r, restarted)
			if err := e.srv.SetPolicy(ocitest.DefaultPolicy()...); err != nil {
				t.Fatal(err)
			}
			refusedMeanwhile(t, e, k, svc, 1, "policy propagating", e.r, restarted)
			if !slices.ContainsFunc(e.srv.Denials(), func(d ocitest.Denial) bool { return d.Propagating }) {
				t.Fatal("no call was refused for a policy still propagating: the test proves nothing")
			}

			e.clock.Advance(ocitest.DefaultPolicyDelay)
			convergesAfter(t, e, k, svc, res.LoadBalancerID, restarted, e.r)
		})
	}
}

// A new install's first Service, while the policy propagates: no load balancer can be made and
// none is reported; once the policy is in force exactly one is.
func TestNewInstallsFirstServiceGetsExactlyOneLoadBalancer(t *testing.T) {
	for _, k := range kindCases {
		t.Run(k.name, func(t *testing.T) {
			e := newEnv(t, withNLBs())
			e.srv.DenyAll()
			if err := e.srv.SetPolicy(ocitest.DefaultPolicy()...); err != nil {
				t.Fatal(err)
			}
			svc := service(k.opt)
			restarted := e.settledReconciler(t, engine.Options{NetworkLoadBalancers: e.oci.NetworkLoadBalancers})
			before := e.srv.Calls()
			for _, r := range []*engine.Reconciler{e.r, restarted} {
				if res, err := r.Ensure(ctx, svc, readyNodes(2), nil); err == nil {
					t.Errorf("policy propagating: Ensure = %+v, nil; want an error", res)
				}
				if _, exists, err := r.Get(ctx, svc); err == nil || exists {
					t.Errorf("policy propagating: Get = exists %v, %v; want an error", exists, err)
				}
			}
			if n := k.count(e.srv); n != 0 {
				t.Fatalf("policy propagating: OCI holds %d %ss, want none", n, k.name)
			}
			if e.srv.Calls().Since(before).Total() == 0 {
				t.Fatal("no call reached OCI: the test proves nothing")
			}

			e.clock.Advance(ocitest.DefaultPolicyDelay)
			convergesAfter(t, e, k, svc, "", e.r, restarted)
		})
	}
}

// A grant withdrawn is refused at once; written again, it is refused until it has propagated.
// The load balancer is never reported absent, deleted or duplicated meanwhile.
func TestWithdrawnGrantNeverLosesALoadBalancer(t *testing.T) {
	for _, k := range kindCases {
		t.Run(k.name, func(t *testing.T) {
			e := newEnv(t, withNLBs())
			svc := service(k.opt)
			res, _ := e.ensure(t, svc, readyNodes(2), nil)
			svc.Status.LoadBalancer = *res.Status
			restarted := e.settledReconciler(t, engine.Options{NetworkLoadBalancers: e.oci.NetworkLoadBalancers})

			withdrawn := slices.DeleteFunc(ocitest.DefaultPolicy(), func(s string) bool { return strings.Contains(s, " "+k.manage+" ") })
			if len(withdrawn) == len(ocitest.DefaultPolicy()) {
				t.Fatalf("the default policy has no %q", k.manage)
			}
			if err := e.srv.SetPolicy(withdrawn...); err != nil {
				t.Fatal(err)
			}
			refusedMeanwhile(t, e, k, svc, 1, "grant withdrawn", e.r, restarted)
			if err := e.srv.SetPolicy(ocitest.DefaultPolicy()...); err != nil {
				t.Fatal(err)
			}
			refusedMeanwhile(t, e, k, svc, 1, "grant written again", e.r, restarted)

			e.clock.Advance(ocitest.DefaultPolicyDelay)
			convergesAfter(t, e, k, svc, res.LoadBalancerID, restarted, e.r)
		})
	}
}

// A Reconciler just started does not believe a listing's silence until its listing lag has
// passed: Get of a Service without a load balancer waits for it, and the wait is counted
// (Options.Consistency). Here the lag is an hour, so the wait ends with Get's context and says
// why; one that has run for its lag neither waits nor counts.
func TestListingLagWaitsAreCounted(t *testing.T) {
	e := newEnv(t)
	var counted ociclient.ConsistencyCounts
	settled := e.settledReconciler(t, engine.Options{Consistency: &counted})
	young, err := engine.NewReconciler(engine.Options{Config: e.cfg, Client: e.oci.LoadBalancers, PublicIPs: e.oci.VirtualNetwork,
		Now: e.clock.Now, ListingLag: time.Hour, Consistency: &counted})
	if err != nil {
		t.Fatal(err)
	}
	svc := service()
	if _, exists, err := settled.Get(ctx, svc); exists || err != nil {
		t.Fatalf("settled Reconciler: Get = %v, %v; want false, nil", exists, err)
	}
	if got := counted.Count("lb", ociclient.ConsistencyListingLag); got != 0 {
		t.Errorf("a settled Reconciler counted %d listing-lag waits, want 0", got)
	}
	// The young Reconciler's Get is cancelled once it has started to wait for the lag, however
	// long this machine took to get there.
	short, cancel := context.WithCancel(ctx)
	defer cancel()
	type got struct {
		exists bool
		err    error
	}
	returned := make(chan got, 1)
	go func() {
		_, exists, err := young.Get(short, svc)
		returned <- got{exists, err}
	}()
	bound := time.After(time.Minute) // only keeps a broken test from hanging
	for counted.Count("lb", ociclient.ConsistencyListingLag) == 0 {
		select {
		case g := <-returned:
			t.Fatalf("young Reconciler: Get = %v, %v before it waited for the listing lag", g.exists, g.err)
		case <-bound:
			t.Fatal("young Reconciler: Get never waited for the listing lag")
		case <-time.After(2 * time.Millisecond):
		}
	}
	cancel()
	if g := <-returned; g.exists || g.err == nil || !strings.Contains(g.err.Error(), "ListingLag") {
		t.Fatalf("young Reconciler: Get = %v, %v; want an error naming the listing lag it waited for", g.exists, g.err)
	}
	if got := counted.Count("lb", ociclient.ConsistencyListingLag); got != 1 {
		t.Errorf("a young Reconciler counted %d listing-lag waits, want 1", got)
	}
}
