// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// served is svc with res's addresses in its status, as the service controller writes them.
func served(svc *v1.Service, res *engine.Result) *v1.Service {
	s := svc.DeepCopy()
	s.Status.LoadBalancer = *res.Status.DeepCopy()
	return s
}

func nlbOf(s *v1.Service) *v1.Service {
	c := s.DeepCopy()
	asNLB(c)
	return c
}

func lbOf(s *v1.Service) *v1.Service {
	c := s.DeepCopy()
	delete(c.Annotations, string(annotation.LoadBalancerType))
	return c
}

// TestSwitchingKindsCreatesTheNewThenDeletesTheOld: changing load-balancer-type replaces the
// load balancer: the new one is created first, the old one deleted after, and the result reports
// the new addresses; both ways.
func TestSwitchingKindsCreatesTheNewThenDeletesTheOld(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to func(*v1.Service) *v1.Service
	}{
		{"lb to nlb", lbOf, nlbOf},
		{"nlb to lb", nlbOf, lbOf},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, withNLBs())
			svc := service(ports(80))
			first, _ := e.ensure(t, tc.from(svc), readyNodes(1), nil)
			res, calls := e.ensure(t, tc.to(served(svc, first)), readyNodes(1), nil)
			if res.LoadBalancerID == first.LoadBalancerID || res.Spec.Kind == first.Spec.Kind {
				t.Fatalf("after the switch the Service has %s (%s), want a new one of the other kind", res.LoadBalancerID, res.Spec.Kind)
			}
			nLB, nNLB := len(e.srv.LoadBalancers()), len(e.srv.NetworkLoadBalancers())
			if nLB+nNLB != 1 {
				t.Errorf("OCI has %d load balancers and %d network load balancers, want only the new one", nLB, nNLB)
			}
			if len(res.Status.Ingress) == 0 || slices.ContainsFunc(res.Status.Ingress, func(in v1.LoadBalancerIngress) bool {
				return slices.ContainsFunc(first.Status.Ingress, func(old v1.LoadBalancerIngress) bool { return old.IP == in.IP })
			}) {
				t.Errorf("status = %+v, want the new address", res.Status)
			}
			createOp, deleteOp := ocitest.NLB("CreateNetworkLoadBalancer"), "DeleteLoadBalancer"
			if res.Spec.Kind == model.KindLoadBalancer {
				createOp, deleteOp = "CreateLoadBalancer", ocitest.NLB("DeleteNetworkLoadBalancer")
			}
			if calls.Op(createOp) != 1 || calls.Op(deleteOp) != 1 {
				t.Errorf("switch calls: want one %s and one %s:\n%s", createOp, deleteOp, calls)
			}
			if _, calls := e.ensure(t, tc.to(served(svc, res)), readyNodes(1), nil); calls.Class(ocitest.ClassWrite) != 0 {
				t.Errorf("after the switch a repeat wrote:\n%s", calls)
			}
		})
	}
}

// failedSwitch serves a Service as from makes it, then switches it to to with the old load
// balancer's deletion (deleteOp) failing, so Ensure errs. It returns the first result and the
// Service as served by the first load balancer (its status still names that one).
func failedSwitch(t *testing.T, e *env, from, to func(*v1.Service) *v1.Service, deleteOp string) (*engine.Result, *v1.Service) {
	t.Helper()
	svc := service(ports(80))
	first, _ := e.ensure(t, from(svc), readyNodes(1), nil)
	old := served(svc, first)
	remove := e.srv.InjectFault(ocitest.Fault{Operation: deleteOp, Status: 500, Times: 100})
	defer remove()
	if _, err := e.r.Ensure(ctx, to(old), readyNodes(1), nil); err == nil {
		t.Fatal("Ensure with the old one's deletion failing = nil, want an error")
	}
	return first, old
}

// TestSwitchFailingBeforeTheOldIsDeletedConvergesOnTheNextEnsure: the old load balancer's
// deletion fails after the new one is up; Ensure errs (so the Service keeps its old, working
// address), and the next Ensure deletes the old one without creating another. A Service deleted
// half-way through a switch leaves neither behind.
func TestSwitchFailingBeforeTheOldIsDeletedConvergesOnTheNextEnsure(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to func(*v1.Service) *v1.Service
		deleteOp string
		thenGone bool // delete the Service instead of a second Ensure
	}{
		{"lb to nlb, next Ensure", lbOf, nlbOf, "DeleteLoadBalancer", false},
		{"nlb to lb, next Ensure", nlbOf, lbOf, ocitest.NLB("DeleteNetworkLoadBalancer"), false},
		{"lb to nlb, Service deleted", lbOf, nlbOf, "DeleteLoadBalancer", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, withNLBs())
			first, old := failedSwitch(t, e, tc.from, tc.to, tc.deleteOp)
			if n := len(e.srv.LoadBalancers()) + len(e.srv.NetworkLoadBalancers()); n != 2 {
				t.Fatalf("after the failed switch OCI has %d, want the old and the new", n)
			}
			if tc.thenGone {
				if err := newEnvReconciler(t, e).Delete(ctx, tc.to(old)); err != nil {
					t.Fatal(err)
				}
			} else {
				// The status still names the old address: the failed Ensure reported nothing.
				res, calls := e.ensure(t, tc.to(old), readyNodes(1), nil)
				if calls.Op("CreateLoadBalancer")+calls.Op(ocitest.NLB("CreateNetworkLoadBalancer")) != 0 || calls.Op(tc.deleteOp) != 1 {
					t.Errorf("retry: want no create and one %s:\n%s", tc.deleteOp, calls)
				}
				if res.Spec.Kind == first.Spec.Kind {
					t.Errorf("retry kept the old kind %s", res.Spec.Kind)
				}
			}
			want := 1
			if tc.thenGone {
				want = 0
			}
			if n := len(e.srv.LoadBalancers()) + len(e.srv.NetworkLoadBalancers()); n != want {
				t.Errorf("in the end OCI has %d, want %d", n, want)
			}
		})
	}
}

// TestSwitchBeforeTheServiceWasServedDeletesTheOld: a Service whose first load balancer never
// reached its status (the sync failed after the create, e.g. on a security-list rule) switches
// kinds. Its status names no address, yet the old load balancer exists: the switch deletes it,
// in the same process and after a restart, and so does deleting the Service.
func TestSwitchBeforeTheServiceWasServedDeletesTheOld(t *testing.T) {
	for _, tc := range []struct {
		name      string
		from, to  func(*v1.Service) *v1.Service
		restarted bool // the switch meets a new process
		thenGone  bool // the Service is deleted instead of ensured
	}{
		{"lb to nlb", lbOf, nlbOf, false, false},
		{"nlb to lb", nlbOf, lbOf, false, false},
		{"lb to nlb after a restart", lbOf, nlbOf, true, false},
		{"nlb to lb after a restart", nlbOf, lbOf, true, false},
		{"lb to nlb, Service deleted", lbOf, nlbOf, false, true},
		{"nlb to lb, Service deleted after a restart", nlbOf, lbOf, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, withNLBs())
			svc := service(ports(80))
			first, _ := e.ensure(t, tc.from(svc), readyNodes(1), nil)
			r := e.r
			if tc.restarted {
				r = e.settledReconciler(t, engine.Options{NetworkLoadBalancers: e.oci.NetworkLoadBalancers})
			}
			// svc's status is empty: the first Ensure's result never reached it.
			want := 1
			if tc.thenGone {
				want = 0
				if err := r.Delete(ctx, tc.to(svc)); err != nil {
					t.Fatal(err)
				}
			} else {
				res, err := r.Ensure(ctx, tc.to(svc), readyNodes(1), nil)
				if err != nil {
					t.Fatal(err)
				}
				if res.Spec.Kind == first.Spec.Kind {
					t.Fatalf("after the switch the Service has a %s, want the other kind", res.Spec.Kind)
				}
			}
			if nLB, nNLB := len(e.srv.LoadBalancers()), len(e.srv.NetworkLoadBalancers()); nLB+nNLB != want {
				t.Errorf("OCI has %d load balancers and %d network load balancers, want %d in all", nLB, nNLB, want)
			}
		})
	}
}

// TestSwitchBackBeforeTheOldWasDeletedDeletesTheAbandonedOne: a served Service switches kinds,
// the old load balancer's deletion fails (the Service keeps its old address), and it switches
// back before a retry: the load balancer made for the abandoned switch is deleted, though the
// status names the one kept. Deleting the Service instead leaves nothing either.
func TestSwitchBackBeforeTheOldWasDeletedDeletesTheAbandonedOne(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to func(*v1.Service) *v1.Service
		deleteOp string
		thenGone bool
	}{
		{"lb to nlb and back", lbOf, nlbOf, "DeleteLoadBalancer", false},
		{"nlb to lb and back", nlbOf, lbOf, ocitest.NLB("DeleteNetworkLoadBalancer"), false},
		{"nlb to lb, Service deleted as nlb", nlbOf, lbOf, ocitest.NLB("DeleteNetworkLoadBalancer"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, withNLBs())
			first, old := failedSwitch(t, e, tc.from, tc.to, tc.deleteOp)
			if tc.thenGone {
				if err := e.r.Delete(ctx, tc.from(old)); err != nil {
					t.Fatal(err)
				}
			} else {
				res, _ := e.ensure(t, tc.from(old), readyNodes(1), nil)
				if res.LoadBalancerID != first.LoadBalancerID {
					t.Errorf("after switching back the Service has %s, want its first %s", res.LoadBalancerID, first.LoadBalancerID)
				}
			}
			want := 1
			if tc.thenGone {
				want = 0
			}
			if nLB, nNLB := len(e.srv.LoadBalancers()), len(e.srv.NetworkLoadBalancers()); nLB+nNLB != want {
				t.Errorf("OCI has %d load balancers and %d network load balancers, want %d in all", nLB, nNLB, want)
			}
		})
	}
}

// TestPolicyWithoutTheOtherKindCostsOneRefusedListingPerBackoff: under a policy that allows
// classic load balancers only, looking for a Service's network load balancer of before a switch
// is refused; Ensure still succeeds, and the refused listing is not repeated for every Service.
func TestPolicyWithoutTheOtherKindCostsOneRefusedListingPerBackoff(t *testing.T) {
	e := newEnv(t, withNLBs())
	var statements []string
	for _, st := range ocitest.DefaultPolicy() {
		if !strings.Contains(st, "network-load-balancers") {
			statements = append(statements, st)
		}
	}
	if err := e.srv.SetPolicy(statements...); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(ocitest.DefaultPolicyDelay)
	before := e.srv.Calls()
	for i := range 3 {
		svc := service(ports(80))
		svc.Name, svc.UID = fmt.Sprintf("web-%d", i), types.UID(fmt.Sprintf("6c1b7a52-3f0e-4d8a-a6b1-1f2e3d4c5b6%d", i))
		e.ensure(t, svc, readyNodes(1), nil)
	}
	calls := e.srv.Calls().Since(before)
	if n := calls.Op(ocitest.NLB("ListNetworkLoadBalancers")); n != 1 {
		t.Errorf("ListNetworkLoadBalancers = %d for 3 Services, want 1 (refused, then not asked again):\n%s", n, calls)
	}
	if n := len(e.srv.LoadBalancers()); n != 3 {
		t.Errorf("OCI has %d load balancers, want 3", n)
	}
}
