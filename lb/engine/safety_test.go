// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// notAuthorizedOrNotFound is OCI's answer to a call the policy does not allow on a resource the
// caller may not see: the same as for one that does not exist.
func notAuthorizedOrNotFound(op string) ocitest.Fault {
	return ocitest.Fault{Operation: op, Status: http.StatusNotFound, Code: "NotAuthorizedOrNotFound"}
}

func TestDeleteNeverTakesNotAuthorizedOrNotFoundForGone(t *testing.T) {
	for _, tc := range []struct {
		name    string
		op      string
		restart bool // a new Reconciler: nothing cached, found through the name index
		rename  bool // someone renamed the load balancer since the CCM learned its name
	}{
		{name: "DeleteLoadBalancer denied", op: "DeleteLoadBalancer"},
		{name: "GetLoadBalancer denied for the cached OCID", op: "GetLoadBalancer"},
		{name: "GetLoadBalancer denied after a restart", op: "GetLoadBalancer", restart: true},
		{name: "GetLoadBalancer denied for a renamed load balancer", op: "GetLoadBalancer", rename: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			svc := service()
			e.ensure(t, svc, readyNodes(1), nil)
			r := e.r
			if tc.restart {
				r = newReconciler(t, e.oci, e.cfg, 0)
			}
			if tc.rename {
				e.srv.EditLoadBalancer(e.only(t).ID, func(l *loadbalancer.LoadBalancer) { l.DisplayName = common.String("renamed") })
			}
			e.srv.InjectFault(notAuthorizedOrNotFound(tc.op))
			err := r.Delete(ctx, svc)
			if err == nil {
				t.Fatal("Delete succeeded (the finalizer would be released) although the load balancer still exists")
			}
			var ae *engine.AccessError
			if !errors.As(err, &ae) || ae.Operation != tc.op {
				t.Errorf("Delete error %v; want an *engine.AccessError for %s", err, tc.op)
			}
			if n := len(e.srv.LoadBalancers()); n != 1 {
				t.Errorf("%d load balancers, want 1 (untouched)", n)
			}
		})
	}
}

func TestDeleteOfALoadBalancerGoneMeanwhileSucceeds(t *testing.T) {
	e := newEnv(t)
	svc := service()
	e.ensure(t, svc, readyNodes(1), nil)
	// The deletion happens, but the answer is 404: another deleter was faster.
	f := notAuthorizedOrNotFound("DeleteLoadBalancer")
	f.AfterHandler, f.Times = true, 1
	e.srv.InjectFault(f)
	if err := e.r.Delete(ctx, svc); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	e.srv.CompleteWorkRequests()
	if n := len(e.srv.LoadBalancers()); n != 0 {
		t.Errorf("%d load balancers, want 0", n)
	}
}

func TestEnsureNeverTakesNotAuthorizedOrNotFoundOnAPartForGone(t *testing.T) {
	tls := service(annotate(annotation.SSLPorts, "443"), annotate(annotation.TLSSecret, "web-tls"))
	for _, tc := range []struct {
		name          string
		op            string
		before, after *v1.Service
		// secrets before and after (a rotation deletes the old certificate)
		secretsBefore, secretsAfter lb.Secrets
		left                        func(s *model.Spec) bool // the part OCI refused to delete is still there
	}{
		{name: "DeleteListener denied", op: "DeleteListener", before: service(), after: service(ports(80)),
			left: func(s *model.Spec) bool { _, ok := s.Listeners["TCP-443"]; return ok }},
		{name: "DeleteBackendSet denied", op: "DeleteBackendSet", before: service(), after: service(ports(80)),
			left: func(s *model.Spec) bool { _, ok := s.BackendSets["TCP-443"]; return ok }},
		{name: "DeleteCertificate denied", op: "DeleteCertificate", before: tls, after: tls,
			secretsBefore: lb.Secrets{webTLS: tlsSecret("v1")}, secretsAfter: lb.Secrets{webTLS: tlsSecret("v2")},
			left: func(s *model.Spec) bool { return len(s.Certificates) == 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.ensure(t, tc.before, readyNodes(1), tc.secretsBefore)
			e.srv.InjectFault(notAuthorizedOrNotFound(tc.op))
			_, err := e.r.Ensure(ctx, tc.after, readyNodes(1), tc.secretsAfter)
			var ae *engine.AccessError
			if !errors.As(err, &ae) || ae.Operation != tc.op {
				t.Fatalf("Reconcile error %v; want an *engine.AccessError for %s", err, tc.op)
			}
			if !tc.left(e.only(t)) {
				t.Errorf("the part is gone; the test meant OCI to refuse deleting it")
			}
		})
	}
}

// deleteOutOfBand deletes a load balancer the way a person or another tool would.
func deleteOutOfBand(t *testing.T, e *env, id string) {
	t.Helper()
	wr, err := e.oci.LoadBalancers.DeleteLoadBalancer(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.oci.LoadBalancers.WaitForWorkRequest(ctx, wr); err != nil {
		t.Fatal(err)
	}
}

func TestLoadBalancerGoneSinceItsCreateIsRecreated(t *testing.T) {
	for _, tc := range []struct {
		name string
		// failCreate: the first create's work request FAILED and the user deleted the FAILED
		// load balancer.
		failCreate bool
		deletions  int  // load balancers created and then deleted out of band
		restart    bool // the CCM restarts before the recreate
		// invalidated: OCI's answer to a retry token whose load balancer is gone, 409
		// InvalidatedRetryToken (simulated; today's ocitest replays the old work request).
		invalidated bool
	}{
		{name: "deleted out of band, token replayed", deletions: 1},
		{name: "deleted out of band, token invalidated", deletions: 1, invalidated: true},
		{name: "create work request failed", failCreate: true},
		{name: "deleted three times, then a restart", deletions: 3, restart: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			svc := service()
			var gone []string
			if tc.failCreate {
				remove := e.srv.FailWorkRequests(func(wr ocitest.WorkRequestInfo) bool { return wr.Operation == "CreateLoadBalancer" },
					"Out of host capacity")
				if _, err := e.r.Ensure(ctx, svc, readyNodes(1), nil); err == nil {
					t.Fatal("Reconcile succeeded although the create work request failed")
				}
				remove()
				failed := e.only(t)
				gone = append(gone, failed.ID)
				deleteOutOfBand(t, e, failed.ID)
			}
			for range tc.deletions {
				e.ensure(t, svc, readyNodes(1), nil)
				id := e.only(t).ID
				gone = append(gone, id)
				deleteOutOfBand(t, e, id)
			}
			r := e.r
			if tc.restart {
				r = newReconciler(t, e.oci, e.cfg, 0)
				e.r = r // the process before is gone: the last check below is the new one's
			}
			if tc.invalidated {
				e.srv.InjectFault(ocitest.Fault{Operation: "CreateLoadBalancer", Status: http.StatusConflict, Code: "InvalidatedRetryToken",
					Message: "The retry token was invalidated because the resource it created was deleted", Times: 1})
			}
			bounded, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			before := e.srv.Calls()
			if _, err := r.Ensure(bounded, svc, readyNodes(1), nil); err != nil {
				t.Fatalf("Reconcile: %v\ncalls:\n%s", err, e.srv.Calls().Since(before))
			}
			got := e.only(t)
			if slices.Contains(gone, got.ID) || got.Owner.UID != string(svc.UID) {
				t.Errorf("load balancer %s owned by %+v; want a new one (gone: %v) for UID %s", got.ID, got.Owner, gone, svc.UID)
			}
			// And it is found again, not recreated.
			if _, calls := e.ensure(t, svc, readyNodes(1), nil); calls.Op("CreateLoadBalancer") != 0 {
				t.Errorf("a reconcile after the recreate created again: %s", calls)
			}
		})
	}
}

func TestReconcileGivesUpOnAWorkRequestThatNeverFinishes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		existing bool   // the load balancer exists; the change is a backend update
		op       string // the operation whose work request is waited for
	}{
		{name: "create, work request never finishes", op: "CreateLoadBalancer"},
		{name: "backend update, work request never answers", existing: true, op: "UpdateBackendSet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e *env
			if tc.existing {
				e = newEnv(t)
				e.ensure(t, service(), readyNodes(1), nil)
				// From now on no poll of a work request is ever answered.
				e.srv.InjectFault(ocitest.Fault{Operation: "GetWorkRequest", Latency: time.Hour})
			} else {
				e = newEnv(t, withWorkRequestDuration(time.Hour))
			}
			// A short bound (long enough for the calls before the wait on a loaded machine); the work
			// requests of this test never finish.
			r := newReconcilerWithTimeout(t, e, 2*time.Second)
			done := make(chan error, 1)
			go func() {
				_, err := r.Ensure(ctx, service(), readyNodes(2), nil)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatal("Reconcile still waits for a work request that never finishes")
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Reconcile error %v; want one that wraps context.DeadlineExceeded", err)
			}
			var pending string
			for _, wr := range e.srv.WorkRequests() {
				if wr.Operation == tc.op {
					pending = wr.ID
				}
			}
			if pending == "" {
				t.Fatalf("no %s work request; Reconcile error: %v", tc.op, err)
			}
			for _, want := range []string{pending, "2s"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
		})
	}
}

func TestNewServiceLooksItsNameUpWithoutListingTheCompartment(t *testing.T) {
	e := newEnv(t)
	for i := range 250 { // three pages of other load balancers
		e.srv.AddLoadBalancer(loadbalancer.LoadBalancer{DisplayName: common.String(fmt.Sprintf("other-%d", i))})
	}
	e.ensure(t, service(), readyNodes(1), nil) // the first lookup reads the compartment once
	second := service(func(s *v1.Service) { s.Name, s.UID = "api", types.UID("0f5b2c1e-8d7a-4e3b-9c2d-7a6b5c4d3e2f") })
	_, calls := e.ensure(t, second, readyNodes(1), nil)
	// One filtered page per candidate name; the create reads its load balancer by OCID.
	want := len(engine.Candidates(e.cfg, second))
	if got := calls.Op("ListLoadBalancers"); got != want {
		t.Errorf("a new Service made %d ListLoadBalancers calls, want %d (one page per name looked up)", got, want)
	}
}

// newReconcilerWithTimeout is a second Reconciler over e's OCI whose reconciles are bounded by d.
func newReconcilerWithTimeout(t *testing.T, e *env, d time.Duration) *engine.Reconciler {
	t.Helper()
	return e.settledReconciler(t, engine.Options{Timeout: d}) // another process, up for a while
}

func TestRenamedLoadBalancerIsNeverDuplicatedByANewRetryToken(t *testing.T) {
	e := newEnv(t)
	svc := service()
	e.ensure(t, svc, readyNodes(1), nil)
	id := e.only(t).ID
	e.srv.EditLoadBalancer(id, func(l *loadbalancer.LoadBalancer) { l.DisplayName = common.String("renamed-in-the-console") })
	// After a restart the name lookup misses, so the Service's create token is replayed.
	r := newReconciler(t, e.oci, e.cfg, 0)
	if _, err := r.Ensure(ctx, svc, readyNodes(1), nil); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if got := e.only(t).ID; got != id {
		t.Errorf("load balancer %s, want the renamed %s", got, id)
	}
}

// An adopted load balancer may live in any compartment the CCM can read; after a restart only
// its OCID is known. A 404 on it, with the configured compartment's listing lacking it, proves
// nothing about the compartment it is in: a Service that has an address (so it was adopted) keeps
// its finalizer. One that never had an address never had a load balancer and deletes cleanly.
func TestAdoptedLoadBalancerInAnotherCompartmentIsNeverTakenForGone(t *testing.T) {
	e := newEnv(t)
	other := e.srv.NewID("compartment")
	// The documented policy, with load balancers allowed in the other compartment too.
	if err := e.srv.SetPolicy(append(ocitest.DefaultPolicy(), "Allow dynamic-group ccm to manage load-balancers in compartment id "+other)...); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(ocitest.DefaultPolicyDelay) // the grant has propagated
	existing := e.srv.AddLoadBalancer(loadbalancer.LoadBalancer{
		CompartmentId: common.String(other), DisplayName: common.String("hand-made"),
		ShapeName: common.String("flexible"), ShapeDetails: &loadbalancer.ShapeDetails{MinimumBandwidthInMbps: common.Int(10), MaximumBandwidthInMbps: common.Int(10)},
		SubnetIds: e.seeded.LoadBalancerSubnets,
	})
	svc := service(annotate(annotation.AdoptLoadBalancerID, *existing.Id))
	res, _ := e.ensure(t, svc, readyNodes(1), nil)
	if res.Spec.ID != *existing.Id {
		t.Fatalf("adopted %q, want %q", res.Spec.ID, *existing.Id)
	}
	svc.Status.LoadBalancer = *res.Status

	restarted := newReconciler(t, e.oci, e.cfg, 0)
	e.srv.InjectFault(notAuthorizedOrNotFound("GetLoadBalancer"))
	if err := restarted.Delete(ctx, svc); err == nil {
		t.Fatal("Delete succeeded (the finalizer would be released) although the adopted load balancer still exists")
	} else if !strings.Contains(err.Error(), string(annotation.AdoptLoadBalancerID)) {
		t.Errorf("Delete error %q does not name the adoption annotation", err)
	}
	if _, ok := e.srv.LoadBalancer(*existing.Id); !ok {
		t.Error("the adopted load balancer was deleted")
	}
}
