// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// Tests of the backend changes Update defers (async.go): a node sync sends its first backend
// set's change and FollowUp sends the others once the load balancer's queue is empty.

// backendSetWRs are the UpdateBackendSet work requests OCI accepted, in acceptance order.
func backendSetWRs(srv *ocitest.Server) []ocitest.WorkRequestInfo {
	var out []ocitest.WorkRequestInfo
	for _, wr := range srv.WorkRequests() {
		if wr.Operation == "UpdateBackendSet" {
			out = append(out, wr)
		}
	}
	return out
}

// awaitRequeue returns the next requeue; the bound only keeps a broken test from hanging.
func awaitRequeue(t *testing.T, e *asyncEnv, what string) string {
	t.Helper()
	select {
	case r := <-e.requeued:
		return r
	case <-time.After(30 * time.Second):
		t.Fatalf("no requeue %s", what)
		return ""
	}
}

func TestUpdateSendsASecondBackendSetOnlyAfterTheFirstOneRan(t *testing.T) {
	e := newAsyncEnv(t)
	svc := service(ports(80, 443))
	e.ensure(t, svc, readyNodes(2), nil)
	e.followUp(t, e.r)
	e.hold.Store(true)

	res, err := e.r.Update(ctx, svc, readyNodes(3), nil)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if len(res.Plan.Changes) != 2 || !res.Accepted {
		t.Fatalf("Result.Plan (accepted %v):\n%s\nwant both backend sets, accepted", res.Accepted, res.Plan)
	}
	if n := len(backendSetWRs(e.srv)); n != 1 {
		t.Errorf("%d UpdateBackendSet accepted when Update returned, want 1 (the second deferred)", n)
	}
	// Laid over observed state: the same sync again writes nothing, and the drift check is quiet.
	again, err := e.r.Update(ctx, svc, readyNodes(3), nil)
	if err != nil || !again.Plan.Empty() {
		t.Errorf("repeated Update = %v, plan:\n%v\nwant nothing to do", err, again.Plan)
	}
	dry, err := e.r.Plan(ctx, svc, readyNodes(3), nil)
	if err != nil || !dry.Empty() {
		t.Errorf("Plan = %v, plan:\n%v\nwant nothing to do", err, dry)
	}

	e.hold.Store(false)
	e.srv.CompleteWorkRequests()
	waitFor(t, "FollowUp to finish", func() bool { return engine.PendingLoadBalancers(e.r) == 0 })
	wrs := backendSetWRs(e.srv)
	if len(wrs) != 2 {
		t.Fatalf("%d UpdateBackendSet accepted, want 2", len(wrs))
	}
	if wrs[1].TimeAccepted.Before(wrs[0].TimeFinished) {
		t.Errorf("second change accepted at %v, before the first finished at %v", wrs[1].TimeAccepted, wrs[0].TimeFinished)
	}
	for _, set := range []string{"TCP-80", "TCP-443"} {
		if diff := cmp.Diff(nodeIPs(3), backendIPs(t, e.env, set)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", set, diff)
		}
	}
	noRequeue(t, e)
}

func TestNewerUpdateReplacesADeferredChangeAndNothingStaleIsSent(t *testing.T) {
	e := newAsyncEnv(t)
	svc := service(ports(80, 443))
	e.ensure(t, svc, readyNodes(2), nil)
	e.followUp(t, e.r)
	e.hold.Store(true)

	first, err := e.r.Update(ctx, svc, readyNodes(3), nil)
	if err != nil {
		t.Fatalf("Update to 3 Nodes: %v", err)
	}
	sentSet := first.Plan.Changes[0].Name
	// Before anything ran: both sets want a fourth Node. The deferred 3-Node list of the
	// second set is replaced, and the first set's new list deferred behind its running change.
	second, err := e.r.Update(ctx, svc, readyNodes(4), nil)
	if err != nil {
		t.Fatalf("Update to 4 Nodes: %v", err)
	}
	if len(second.Plan.Changes) != 2 || !second.Accepted {
		t.Errorf("second Result.Plan (accepted %v):\n%s\nwant both backend sets, accepted", second.Accepted, second.Plan)
	}
	if n := len(backendSetWRs(e.srv)); n != 1 {
		t.Errorf("%d UpdateBackendSet accepted while the first runs, want 1", n)
	}

	// Once the first ran, both deferred changes go out together (the second queued behind the
	// first in OCI), not one work request after the other.
	if busyMode == ocitest.LBBusyQueue {
		e.srv.CompleteWorkRequests()
		waitFor(t, "FollowUp to send the deferred changes", func() bool { return len(backendSetWRs(e.srv)) == 3 })
		if diff := cmp.Diff([]string{"UpdateBackendSet", "UpdateBackendSet"}, pendingOps(e.srv)); diff != "" {
			t.Errorf("pending work requests once the first ran (-want +got):\n%s", diff)
		}
	} else {
		// A server that refuses a change while one runs (not OCI, which queues): let the
		// deferred ones run once the second is refused.
		go func() {
			waitFor(t, "a refused change", func() bool { return e.srv.Calls().Status(http.StatusConflict) > 0 })
			e.hold.Store(false)
			e.srv.CompleteWorkRequests()
		}()
		e.srv.CompleteWorkRequests()
		waitFor(t, "a refused change", func() bool { return !e.hold.Load() })
	}
	e.hold.Store(false)
	e.srv.CompleteWorkRequests()
	waitFor(t, "FollowUp to finish", func() bool { return engine.PendingLoadBalancers(e.r) == 0 })
	// sentSet with 3 Nodes, then each set with 4; never the other set with 3.
	var got []string
	for _, wr := range backendSetWRs(e.srv) {
		got = append(got, wr.State)
	}
	if diff := cmp.Diff([]string{ocitest.WorkRequestSucceeded, ocitest.WorkRequestSucceeded, ocitest.WorkRequestSucceeded}, got); diff != "" {
		t.Errorf("UpdateBackendSet work requests (-want +got):\n%s", diff)
	}
	for _, set := range []string{"TCP-80", "TCP-443"} {
		if diff := cmp.Diff(nodeIPs(4), backendIPs(t, e.env, set)); diff != "" {
			t.Errorf("%s (first sent: %s) (-want +got):\n%s", set, sentSet, diff)
		}
	}
	noRequeue(t, e)
}

func TestDeferredChangeThatOCIRefusesRequeuesTheService(t *testing.T) {
	e := newAsyncEnv(t)
	svc := service(ports(80, 443))
	e.ensure(t, svc, readyNodes(2), nil)
	e.followUp(t, e.r)
	e.hold.Store(true)

	res, err := e.r.Update(ctx, svc, readyNodes(3), nil)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	sentSet, deferredSet := res.Plan.Changes[0].Name, res.Plan.Changes[1].Name
	e.srv.InjectFault(ocitest.Fault{Operation: "UpdateBackendSet", Status: http.StatusBadRequest, Message: "refused for the test", Times: 1})
	e.hold.Store(false)
	e.srv.CompleteWorkRequests()

	reason := awaitRequeue(t, e, "after the deferred change was refused")
	if !strings.HasPrefix(reason, "default/web: backend set "+deferredSet+" not updated: not sent") ||
		!strings.Contains(reason, "refused for the test") || strings.Contains(reason, sentSet) {
		t.Errorf("requeue reason %q, want %s named as not sent with OCI's message, and %s not named", reason, deferredSet, sentSet)
	}
	waitFor(t, "FollowUp to forget the load balancer", func() bool { return engine.PendingLoadBalancers(e.r) == 0 })
	if diff := cmp.Diff(nodeIPs(2), backendIPs(t, e.env, deferredSet)); diff != "" {
		t.Errorf("%s, not updated (-want +got):\n%s", deferredSet, diff)
	}

	// The requeued Service's Ensure sends it, against OCI as it is.
	_, calls := e.ensure(t, svc, readyNodes(3), nil)
	if diff := cmp.Diff(map[string]int{"UpdateBackendSet": 1}, writes(calls)); diff != "" {
		t.Errorf("retry writes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(nodeIPs(3), backendIPs(t, e.env, deferredSet)); diff != "" {
		t.Errorf("%s after the retry (-want +got):\n%s", deferredSet, diff)
	}
	noRequeue(t, e)
}

func TestEnsureSendsADeferredChangeItselfAndFollowUpDoesNotSendItAgain(t *testing.T) {
	e := newAsyncEnv(t)
	svc := service(ports(80, 443))
	e.ensure(t, svc, readyNodes(2), nil)
	e.followUp(t, e.r)
	e.hold.Store(true)

	res, err := e.r.Update(ctx, svc, readyNodes(3), nil)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	deferredSet := res.Plan.Changes[1].Name
	e.hold.Store(false)
	// Ensure's own change queues behind the one still running (or, on a server that refuses a
	// change while one runs, is refused): let that one finish then.
	go func() {
		waitFor(t, "Ensure's change", func() bool { return len(backendSetWRs(e.srv)) >= 2 || e.srv.Calls().Status(http.StatusConflict) > 0 })
		e.srv.CompleteWorkRequests()
	}()
	ensured, _ := e.ensure(t, svc, readyNodes(3), nil)
	if n := len(backendSetWRs(e.srv)); n != 2 {
		t.Errorf("%d UpdateBackendSet accepted when Ensure returned, want 2 (Update's and Ensure's)", n)
	}
	if len(ensured.Plan.Changes) != 1 || ensured.Plan.Changes[0].Name != deferredSet || ensured.Accepted {
		t.Errorf("Ensure's plan (accepted %v):\n%s\nwant the deferred %s, waited for", ensured.Accepted, ensured.Plan, deferredSet)
	}
	if diff := cmp.Diff(nodeIPs(3), backendIPs(t, e.env, deferredSet)); diff != "" {
		t.Errorf("%s when Ensure returned (-want +got):\n%s", deferredSet, diff)
	}

	waitFor(t, "FollowUp to finish", func() bool { return engine.PendingLoadBalancers(e.r) == 0 })
	if n := len(backendSetWRs(e.srv)); n != 2 {
		t.Errorf("%d UpdateBackendSet accepted in all, want 2 (the deferred change sent once)", n)
	}
	noRequeue(t, e)
}

func TestFollowUpStoppingWithADeferredChangeRequeuesTheService(t *testing.T) {
	e := newAsyncEnv(t)
	svc := service(ports(80, 443))
	e.ensure(t, svc, readyNodes(2), nil)
	e.followUp(t, e.r)
	e.hold.Store(true)

	res, err := e.r.Update(ctx, svc, readyNodes(3), nil)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	sentSet, deferredSet := res.Plan.Changes[0].Name, res.Plan.Changes[1].Name
	e.stop()

	reason := awaitRequeue(t, e, "when FollowUp stopped with a change not sent")
	want := "default/web: backend set " + deferredSet + " not sent: follow-up stopped"
	if reason != want {
		t.Errorf("requeue reason %q, want %q (%s was sent)", reason, want, sentSet)
	}
	if n := engine.PendingLoadBalancers(e.r); n != 0 {
		t.Errorf("%d load balancers still laid over observed state after FollowUp stopped, want 0", n)
	}
	if n := len(backendSetWRs(e.srv)); n != 1 {
		t.Errorf("%d UpdateBackendSet accepted, want 1", n)
	}
}

func TestQueueNotFinishedInTimeRequeuesTheDeferredSetToo(t *testing.T) {
	e := newAsyncEnv(t)
	svc := service(ports(80, 443))
	e.ensure(t, svc, readyNodes(2), nil)
	r := e.settledReconciler(t, engine.Options{Timeout: time.Second}) // a second process, up for a while
	e.followUp(t, r)
	e.hold.Store(true)

	res, err := r.Update(ctx, svc, readyNodes(3), nil)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	reason := awaitRequeue(t, e, "for a work request still running after the reconcile timeout")
	for _, c := range res.Plan.Changes {
		if !strings.Contains(reason, "backend set "+c.Name+" not updated") {
			t.Errorf("requeue reason %q, want backend set %s named", reason, c.Name)
		}
	}
	if n := engine.PendingLoadBalancers(r); n != 0 {
		t.Errorf("%d load balancers still followed after the requeue, want 0", n)
	}
	if n := len(backendSetWRs(e.srv)); n != 1 {
		t.Errorf("%d UpdateBackendSet accepted, want 1 (the deferred one never sent behind a stuck queue)", n)
	}
}
