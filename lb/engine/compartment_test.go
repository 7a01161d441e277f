// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/internal/iampolicy"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// withCompartment adds a compartment named name to e's tenancy and loads the documented policy
// with seclist/README.md's statements for a load balancer compartment, for that one: it returns
// the compartment's OCID once the policy is in force.
func (e *env) withCompartment(tb testing.TB, name string) string {
	return e.withCompartments(tb, name)[0]
}

// withCompartments is withCompartment for several compartments.
func (e *env) withCompartments(tb testing.TB, names ...string) []string {
	tb.Helper()
	extra, err := iampolicy.FromFileUnder("../../seclist/README.md", iampolicy.OtherCompartmentHeading)
	if err != nil {
		tb.Fatal(err)
	}
	policy, ids := ocitest.DefaultPolicy(), []string{}
	for _, name := range names {
		ids = append(ids, e.srv.AddCompartment(name))
		policy = append(policy, iampolicy.Substitute(extra, "ccm", name)...)
	}
	if err := e.srv.SetPolicy(policy...); err != nil {
		tb.Fatal(err)
	}
	e.clock.Advance(ocitest.DefaultPolicyDelay) // the grants have propagated
	return ids
}

// compartments returns the compartment of every load balancer and network load balancer in OCI.
func (e *env) compartments() []string {
	var out []string
	for _, l := range e.srv.LoadBalancers() {
		out = append(out, *l.CompartmentId)
	}
	for _, n := range e.srv.NetworkLoadBalancers() {
		out = append(out, *n.CompartmentId)
	}
	return out
}

// restarted is a new Reconciler over e's OCI (a CCM restarted), with both clients.
func (e *env) restarted(tb testing.TB) *engine.Reconciler {
	return e.settledReconciler(tb, engine.Options{NetworkLoadBalancers: e.oci.NetworkLoadBalancers})
}

func TestServiceInAnotherCompartmentIsCreatedFoundAndDeletedThere(t *testing.T) {
	for _, kind := range []string{"lb", "nlb"} {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, withNLBs())
			other := e.withCompartment(t, "lbs")
			svc := service(annotate(annotation.CompartmentID, other), annotate(annotation.LoadBalancerType, kind))
			nodes := readyNodes(2)
			if kind == "nlb" {
				nodes = e.instanceNodes(2)
			}
			res, _ := e.ensure(t, svc, nodes, nil)
			if got := e.compartments(); len(got) != 1 || got[0] != other {
				t.Fatalf("load balancers in compartments %v, want one in %s", got, other)
			}
			if res.Spec.CompartmentID != other {
				t.Errorf("Result.Spec.CompartmentID = %q, want %q", res.Spec.CompartmentID, other)
			}
			svc.Status.LoadBalancer = *res.Status

			if _, calls := e.ensure(t, svc, nodes, nil); calls.Class(ocitest.ClassWrite) != 0 {
				t.Errorf("second Ensure wrote:\n%s", calls)
			}

			// A restarted CCM finds it there, without a write, reports it, and sees no drift.
			r := e.restarted(t)
			before := e.srv.Calls()
			if _, err := r.Ensure(ctx, svc, nodes, nil); err != nil {
				t.Fatalf("Ensure after a restart: %v", err)
			}
			if calls := e.srv.Calls().Since(before); calls.Class(ocitest.ClassWrite) != 0 {
				t.Errorf("Ensure after a restart wrote:\n%s", calls)
			}
			if got, ok, err := r.Get(ctx, svc); err != nil || !ok || got.LoadBalancerID != res.LoadBalancerID {
				t.Errorf("Get after a restart = %+v, %v, %v; want %s", got, ok, err, res.LoadBalancerID)
			}
			report, err := e.restarted(t).Drift(ctx, []*v1.Service{svc}, nodes, nil)
			if err != nil || report.Checked != 1 || len(report.Drifted) != 0 {
				t.Errorf("Drift = %+v, %v; want the Service checked, no drift", report, err)
			}

			if err := e.restarted(t).Delete(ctx, svc); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			if got := e.compartments(); len(got) != 0 {
				t.Errorf("after Delete, load balancers remain in %v", got)
			}
		})
	}
}

// Drift finds a load balancer in another compartment deleted out of band, as it does in the
// configured one; the next Ensure makes it again, there.
func TestLoadBalancerInAnotherCompartmentDeletedOutOfBandIsDriftAndMadeAgainThere(t *testing.T) {
	e := newEnv(t)
	other := e.withCompartment(t, "lbs")
	svc := service(annotate(annotation.CompartmentID, other))
	res, _ := e.ensure(t, svc, readyNodes(1), nil)
	svc.Status.LoadBalancer = *res.Status
	deleteOutOfBand(t, e, res.LoadBalancerID)
	r := e.restarted(t)
	report, err := r.Drift(ctx, []*v1.Service{svc}, readyNodes(1), nil)
	if err != nil || len(report.Drifted) != 1 || !report.Drifted[0].Deleted {
		t.Fatalf("Drift = %+v, %v; want the Service's load balancer reported deleted", report, err)
	}
	if _, err := r.Ensure(ctx, svc, readyNodes(1), nil); err != nil {
		t.Fatal(err)
	}
	if got := e.compartments(); len(got) != 1 || got[0] != other {
		t.Errorf("load balancers in compartments %v, want one in %s", got, other)
	}
}

// The annotation added to a Service whose load balancer exists does not move it and never makes
// a second one: the change is refused, before and after a restart (the configured compartment is
// looked in too), until the annotation names the load balancer's compartment again. Deleting the
// Service deletes it where it is.
func TestCompartmentAnnotationAddedAfterCreateIsRefusedNotDuplicated(t *testing.T) {
	e := newEnv(t)
	other := e.withCompartment(t, "lbs")
	svc := service()
	res, _ := e.ensure(t, svc, readyNodes(1), nil)
	svc.Status.LoadBalancer = *res.Status

	moved := svc.DeepCopy()
	moved.Annotations[string(annotation.CompartmentID)] = other
	for name, r := range map[string]*engine.Reconciler{"same process": e.r, "after a restart": e.restarted(t)} {
		before := e.srv.Calls()
		_, err := r.Ensure(ctx, moved, readyNodes(1), nil)
		var ierr *lb.ImmutableError
		if !errors.As(err, &ierr) || len(ierr.Changes) != 1 || ierr.Changes[0].Field != string(annotation.CompartmentID) ||
			ierr.Changes[0].Observed != e.cfg.CompartmentID || ierr.Changes[0].Desired != other {
			t.Errorf("%s: Ensure = %v, want an *ImmutableError for %s from %s to %s", name, err, annotation.CompartmentID, e.cfg.CompartmentID, other)
		}
		if calls := e.srv.Calls().Since(before); calls.Class(ocitest.ClassWrite) != 0 {
			t.Errorf("%s: the refused Ensure wrote:\n%s", name, calls)
		}
		if got := e.compartments(); len(got) != 1 || got[0] != e.cfg.CompartmentID {
			t.Errorf("%s: load balancers in compartments %v, want the one in %s", name, got, e.cfg.CompartmentID)
		}
	}

	// Nor is the load balancer taken for deleted by the drift check, which lists the configured
	// compartment too.
	report, err := e.restarted(t).Drift(ctx, []*v1.Service{moved}, readyNodes(1), nil)
	if err != nil || len(report.Drifted) != 0 {
		t.Errorf("Drift = %+v, %v; want no drift (the change is the Service's, refused by its reconcile)", report, err)
	}

	if err := e.restarted(t).Delete(ctx, moved); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if got := e.compartments(); len(got) != 0 {
		t.Errorf("after Delete, load balancers remain in %v", got)
	}
}

// Changed from one named compartment to another, the annotation is refused while the CCM knows
// where the load balancer is; removed, the load balancer stays where it is (the annotation's
// absence means the configured default, and a default never moves what exists).
func TestCompartmentAnnotationChangedOrRemovedLeavesTheLoadBalancerWhereItIs(t *testing.T) {
	e := newEnv(t)
	first := e.withCompartment(t, "lbs")
	svc := service(annotate(annotation.CompartmentID, first))
	res, _ := e.ensure(t, svc, readyNodes(1), nil)
	svc.Status.LoadBalancer = *res.Status

	second := svc.DeepCopy()
	second.Annotations[string(annotation.CompartmentID)] = "ocid1.compartment.oc1..second"
	var ierr *lb.ImmutableError
	if _, err := e.r.Ensure(ctx, second, readyNodes(1), nil); !errors.As(err, &ierr) || !strings.Contains(err.Error(), first) {
		t.Errorf("Ensure with another compartment = %v, want an *ImmutableError naming %s", err, first)
	}

	removed := svc.DeepCopy()
	delete(removed.Annotations, string(annotation.CompartmentID))
	if _, calls := e.ensure(t, removed, readyNodes(2), nil); calls.Op("CreateLoadBalancer") != 0 {
		t.Errorf("Ensure without the annotation created a load balancer:\n%s", calls)
	}
	if got := e.compartments(); len(got) != 1 || got[0] != first {
		t.Errorf("load balancers in compartments %v, want the one in %s", got, first)
	}
	if err := e.r.Delete(ctx, removed); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if got := e.compartments(); len(got) != 0 {
		t.Errorf("after Delete, load balancers remain in %v", got)
	}
}

// Without the statements for the Service's compartment the Service fails, naming the
// compartment and the statement, nothing is created, and its deletion is not taken for done.
func TestLoadBalancerInACompartmentThePolicyDoesNotCoverFailsNamingIt(t *testing.T) {
	e := newEnv(t)
	other := e.srv.AddCompartment("lbs") // the documented policy: nothing for it
	svc := service(annotate(annotation.CompartmentID, other))
	_, err := e.r.Ensure(ctx, svc, readyNodes(1), nil)
	want := "Allow dynamic-group <the CCM's group> to manage load-balancers in compartment id " + other
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Ensure = %v, want an error containing %q", err, want)
	}
	if got := e.compartments(); len(got) != 0 {
		t.Errorf("load balancers in compartments %v, want none", got)
	}
	if err := e.r.Delete(ctx, svc); err == nil || !strings.Contains(err.Error(), other) {
		t.Errorf("Delete = %v, want the Service kept with an error naming %s (its compartment cannot be listed)", err, other)
	}
}

// After a restart only the compartment recorded on the Service (which ccm writes from
// Result.Spec.CompartmentID) tells where a load balancer whose Service now names another
// compartment, or none, is: with it the change is refused, or the load balancer kept where it
// is, and never made a second time; Delete finds it there.
func TestRecordedCompartmentFindsTheLoadBalancerAfterARestart(t *testing.T) {
	e := newEnv(t)
	ids := e.withCompartments(t, "lbs", "second")
	first := ids[0]
	svc := service(annotate(annotation.CompartmentID, first))
	res, _ := e.ensure(t, svc, readyNodes(1), nil)
	svc.Status.LoadBalancer = *res.Status
	svc.Annotations[string(annotation.LoadBalancerCompartmentID)] = res.Spec.CompartmentID

	second := svc.DeepCopy()
	second.Annotations[string(annotation.CompartmentID)] = ids[1]
	var ierr *lb.ImmutableError
	if _, err := e.restarted(t).Ensure(ctx, second, readyNodes(1), nil); !errors.As(err, &ierr) || !strings.Contains(err.Error(), first) {
		t.Errorf("Ensure with another compartment after a restart = %v, want an *ImmutableError naming %s", err, first)
	}
	report, err := e.restarted(t).Drift(ctx, []*v1.Service{second}, readyNodes(1), nil)
	if err != nil || len(report.Drifted) != 0 {
		t.Errorf("Drift = %+v, %v; want no drift", report, err)
	}

	removed := svc.DeepCopy()
	delete(removed.Annotations, string(annotation.CompartmentID))
	r := e.restarted(t)
	before := e.srv.Calls()
	if res, err := r.Ensure(ctx, removed, readyNodes(1), nil); err != nil || res.Spec.CompartmentID != first {
		t.Errorf("Ensure without the annotation after a restart = %+v, %v; want its load balancer kept in %s", res, err, first)
	}
	if calls := e.srv.Calls().Since(before); calls.Class(ocitest.ClassWrite) != 0 {
		t.Errorf("Ensure without the annotation after a restart wrote:\n%s", calls)
	}
	if err := e.restarted(t).Delete(ctx, second); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if got := e.compartments(); len(got) != 0 {
		t.Errorf("after Delete, load balancers remain in %v", got)
	}
}

// A Service in its own compartment switched between kinds gets the new kind there, and its
// former load balancer, found there too, is deleted.
func TestKindSwitchInAnotherCompartmentReplacesTheLoadBalancerThere(t *testing.T) {
	e := newEnv(t, withNLBs())
	other := e.withCompartment(t, "lbs")
	nodes := e.instanceNodes(1)
	svc := service(annotate(annotation.CompartmentID, other))
	res, _ := e.ensure(t, svc, nodes, nil)
	svc.Status.LoadBalancer = *res.Status

	switched := svc.DeepCopy()
	switched.Annotations[string(annotation.LoadBalancerType)] = "nlb"
	if _, err := e.restarted(t).Ensure(ctx, switched, nodes, nil); err != nil {
		t.Fatalf("Ensure after the switch: %v", err)
	}
	if n, m := len(e.srv.LoadBalancers()), len(e.srv.NetworkLoadBalancers()); n != 0 || m != 1 {
		t.Fatalf("%d load balancers and %d network load balancers, want the network load balancer alone", n, m)
	}
	if got := e.compartments(); got[0] != other {
		t.Errorf("network load balancer in %s, want %s", got[0], other)
	}
}
