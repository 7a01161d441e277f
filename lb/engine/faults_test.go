// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func createWorkRequests(e *env) int {
	n := 0
	for _, wr := range e.srv.WorkRequests() {
		if wr.Operation == "CreateLoadBalancer" {
			n++
		}
	}
	return n
}

func TestCreateRetriedAfterLostResponseMakesOneLoadBalancer(t *testing.T) {
	e := newEnv(t)
	e.srv.InjectFault(ocitest.Fault{Operation: "CreateLoadBalancer", AfterHandler: true, DropConnection: true, Times: 1})
	_, calls := e.ensure(t, service(), readyNodes(1), nil)
	if calls.Op("CreateLoadBalancer") != 2 || calls.Dropped() != 1 {
		t.Errorf("CreateLoadBalancer calls %d, dropped %d; want a retry after the lost response", calls.Op("CreateLoadBalancer"), calls.Dropped())
	}
	if n := len(e.srv.LoadBalancers()); n != 1 {
		t.Errorf("%d load balancers, want 1", n)
	}
	if n := createWorkRequests(e); n != 1 {
		t.Errorf("%d create work requests, want 1 (the retry token replays the first)", n)
	}
}

func TestFailedEnsureAfterCreateIsFoundAgainNotRecreated(t *testing.T) {
	e := newEnv(t)
	// Every attempt's response is lost: the create happens, Ensure reports an error.
	remove := e.srv.InjectFault(ocitest.Fault{Operation: "CreateLoadBalancer", AfterHandler: true, Status: http.StatusInternalServerError})
	if _, err := e.r.Ensure(ctx, service(), readyNodes(1), nil); err == nil {
		t.Fatal("Ensure succeeded although every create response was lost")
	}
	remove()
	e.srv.CompleteWorkRequests()
	res, calls := e.ensure(t, service(), readyNodes(1), nil)
	if calls.Op("CreateLoadBalancer") != 0 || !res.Plan.Empty() {
		t.Errorf("second Ensure: %d creates, plan\n%s", calls.Op("CreateLoadBalancer"), res.Plan)
	}
	if n := len(e.srv.LoadBalancers()); n != 1 {
		t.Errorf("%d load balancers, want 1", n)
	}
}

func TestApplyingTheSameCreateTwiceReplaysTheFirst(t *testing.T) {
	e := newEnv(t)
	desired, err := lb.Desired(service(), readyNodes(1), e.cfg, lb.Known{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := lb.Diff(nil, desired)
	if err != nil {
		t.Fatal(err)
	}
	id1, err := engine.ApplyPlan(ctx, e.oci.LoadBalancers, plan)
	if err != nil {
		t.Fatal(err)
	}
	id2, err := engine.ApplyPlan(ctx, e.oci.LoadBalancers, plan)
	if err != nil {
		t.Fatal(err)
	}
	if id1 != id2 || len(e.srv.LoadBalancers()) != 1 || createWorkRequests(e) != 1 {
		t.Errorf("ids %s, %s; %d load balancers, %d create work requests; want one of each",
			id1, id2, len(e.srv.LoadBalancers()), createWorkRequests(e))
	}
}

func TestEnsureConvergesAfterMidPlanFailure(t *testing.T) {
	e := newEnv(t)
	before := service(annotate(annotation.SSLPorts, "443"), annotate(annotation.TLSSecret, "web-tls"))
	e.ensure(t, before, readyNodes(2), lb.Secrets{webTLS: tlsSecret("v1")})

	// Port 80 moves to 8080 and the certificate rotates; OCI fails the new certificate.
	after := service(ports(8080, 443), annotate(annotation.SSLPorts, "443"), annotate(annotation.TLSSecret, "web-tls"))
	secrets := lb.Secrets{webTLS: tlsSecret("v2")}
	remove := e.srv.FailWorkRequests(func(wr ocitest.WorkRequestInfo) bool { return wr.Operation == "CreateCertificate" }, "injected failure")
	_, err := e.r.Ensure(ctx, after, readyNodes(2), secrets)
	remove()

	var aerr *engine.ApplyError
	if !errors.As(err, &aerr) {
		t.Fatalf("Ensure = %v, want *ApplyError", err)
	}
	var wrErr *ociclient.WorkRequestError
	if !errors.As(err, &wrErr) {
		t.Errorf("the ApplyError does not expose the *ociclient.WorkRequestError: %v", err)
	}
	summary := func(cs []model.Change) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Verb()+" "+strings.SplitN(c.Name, "-", 2)[0])
		}
		return out
	}
	var failed []model.Change
	for _, f := range aerr.Failed {
		failed = append(failed, f.Change)
	}
	checks := []struct {
		what string
		got  []string
		want []string
	}{
		{"completed", summary(aerr.Completed), []string{"create backend set TCP", "create listener TCP", "delete listener TCP", "delete backend set TCP"}},
		{"failed", summary(failed), []string{"create certificate web"}},
		{"not attempted", summary(aerr.Skipped), []string{"update listener TCP", "delete certificate web"}},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.what, diff)
		}
	}
	if !strings.Contains(err.Error(), "completed: + backend set \"TCP-8080\"") {
		t.Errorf("error does not name what completed: %v", err)
	}

	// The load balancer is consistent in between: the listener still uses the old certificate.
	mid := e.only(t)
	if cert := mid.Listeners["TCP-443"].TLS.Certificate; mid.Certificates[cert].Name != cert {
		t.Errorf("listener TCP-443 uses %q, which is not on the load balancer", cert)
	}

	// The next reconcile finishes the job; the one after has nothing to do.
	res, calls := e.ensure(t, after, readyNodes(2), secrets)
	if diff := cmp.Diff(map[string]int{"CreateCertificate": 1, "UpdateListener": 1, "DeleteCertificate": 1}, writes(calls)); diff != "" {
		t.Errorf("converging writes (-want +got):\n%s\n%s", diff, res.Plan)
	}
	res, calls = e.ensure(t, after, readyNodes(2), secrets)
	if !res.Plan.Empty() || calls.Class(ocitest.ClassWrite) != 0 {
		t.Errorf("after convergence: plan\n%s", res.Plan)
	}
	assertOnlyInjectedFailures(t, e)
}

// TestConcurrentChangesOnOneLoadBalancerConverge runs a plan of independent changes with a
// concurrency above 1. OCI (and ocitest by default) queue a second change while a work request
// runs; ocitest's LBBusyReject refuses it (409 IncorrectState) and ociclient retries it. Either
// way the changes serialise and the result is the same.
func TestConcurrentChangesOnOneLoadBalancerConverge(t *testing.T) {
	e := newEnv(t, withConcurrency(4))
	svc := service(ports(80, 81, 82, 83))
	e.ensure(t, svc, readyNodes(1), nil)
	_, calls := e.ensure(t, svc, readyNodes(2), nil)
	if got := calls.Op("UpdateBackendSet") - calls.Status(http.StatusConflict); got != 4 {
		t.Errorf("%d accepted UpdateBackendSet calls, want 4\n%s", got, calls)
	}
	t.Logf("4 independent updates with concurrency 4 (busy: %s): %d UpdateBackendSet calls, %d answered 409 IncorrectState, %d polls",
		busyMode, calls.Op("UpdateBackendSet"), calls.Status(http.StatusConflict), calls.Class(ocitest.ClassPoll))
	for name, bs := range e.only(t).BackendSets {
		if len(bs.Backends) != 2 {
			t.Errorf("backend set %s has %d backends, want 2", name, len(bs.Backends))
		}
	}
}

func assertOnlyInjectedFailures(t *testing.T, e *env) {
	t.Helper()
	for _, wr := range e.srv.WorkRequests() {
		if wr.State == ocitest.WorkRequestFailed && wr.Operation != "CreateCertificate" {
			t.Errorf("work request %s (%s) failed: %v", wr.ID, wr.Operation, wr.Errors)
		}
	}
}

// TestEnsureRecreatesALoadBalancerOCIFailedToCreate: a create whose work request FAILED leaves a
// FAILED load balancer, which takes no change. It is the Service's own, so the next Ensure
// deletes it and creates another, rather than refusing until someone deletes it by hand (found
// by the fault soak, ccm/soak_test.go).
func TestEnsureRecreatesALoadBalancerOCIFailedToCreate(t *testing.T) {
	e := newEnv(t)
	svc := service()
	remove := e.srv.FailWorkRequests(func(wr ocitest.WorkRequestInfo) bool { return wr.Operation == "CreateLoadBalancer" }, "injected failure")
	if _, err := e.r.Ensure(ctx, svc, readyNodes(2), nil); err == nil {
		t.Fatal("Ensure with the create failing: no error")
	}
	remove()
	failed := e.srv.LoadBalancers()
	if len(failed) != 1 || failed[0].LifecycleState != "FAILED" {
		t.Fatalf("after the failed create OCI has %d load balancers (%v), want one FAILED", len(failed), failed)
	}

	res, _ := e.ensure(t, svc, readyNodes(2), nil)
	all := e.srv.LoadBalancers()
	if len(all) != 1 || *all[0].Id == *failed[0].Id || all[0].LifecycleState != "ACTIVE" || res.LoadBalancerID != *all[0].Id {
		t.Fatalf("after the next Ensure OCI has %v (Ensure says %s), want one new ACTIVE load balancer instead of FAILED %s",
			all, res.LoadBalancerID, *failed[0].Id)
	}
}
