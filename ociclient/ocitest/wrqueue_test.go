// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// Tests of ocitest's work-request engine as OCI documents it: queued classic load balancer
// changes, NLB state transitions and cancellation, retry tokens, duration profiles.

// clockedFixture is a fixture whose server runs on a Clock and whose work requests last d.
func clockedFixture(t *testing.T, d time.Duration, busy LBBusyMode) (*lbFixture, *Clock) {
	t.Helper()
	clk := &Clock{}
	return newLBFixture(t, Options{Now: clk.Now, WorkRequestDuration: d, LBBusy: busy}), clk
}

// lbWorkState reads a load balancer work request's state once.
func (f *lbFixture) lbWorkState(t *testing.T, id string) string {
	t.Helper()
	resp, err := f.lb.GetWorkRequest(testCtx(t), loadbalancer.GetWorkRequestRequest{WorkRequestId: &id})
	if err != nil {
		t.Fatalf("GetWorkRequest %s: %v", id, err)
	}
	return string(resp.LifecycleState)
}

func TestChangesOnABusyLoadBalancerAreQueuedAndRunInArrivalOrder(t *testing.T) {
	f, clk := clockedFixture(t, time.Minute, LBBusyQueue)
	ctx := testCtx(t)
	d := f.basicLB("svc")
	d.BackendSets["spare"] = tcpBackendSet()
	resp, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: d})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	id := f.lbOfWork(t, *resp.OpcWorkRequestId)
	clk.Advance(2 * time.Minute)
	if got := f.getLB(t, id).LifecycleState; got != loadbalancer.LoadBalancerLifecycleStateActive {
		t.Fatalf("after its create: %s", got)
	}

	// Four changes sent at once are all accepted. The last two refer to a backend set that the
	// second deletes: accepted (it exists when they arrive), checked when they run.
	var wrs []string
	start := func(name string, call func() (*string, error)) {
		t.Helper()
		id, err := call()
		if err != nil {
			t.Fatalf("%s on a busy load balancer: %v", name, err)
		}
		wrs = append(wrs, *id)
	}
	start("UpdateLoadBalancer", func() (*string, error) {
		r, err := f.lb.UpdateLoadBalancer(ctx, loadbalancer.UpdateLoadBalancerRequest{LoadBalancerId: &id,
			UpdateLoadBalancerDetails: loadbalancer.UpdateLoadBalancerDetails{DisplayName: common.String("renamed")}})
		return r.OpcWorkRequestId, err
	})
	start("DeleteBackendSet", func() (*string, error) {
		r, err := f.lb.DeleteBackendSet(ctx, loadbalancer.DeleteBackendSetRequest{LoadBalancerId: &id, BackendSetName: common.String("spare")})
		return r.OpcWorkRequestId, err
	})
	start("UpdateBackendSet", func() (*string, error) {
		bs := tcpBackendSet("10.0.10.9")
		r, err := f.lb.UpdateBackendSet(ctx, loadbalancer.UpdateBackendSetRequest{LoadBalancerId: &id, BackendSetName: common.String("spare"),
			UpdateBackendSetDetails: loadbalancer.UpdateBackendSetDetails{Policy: bs.Policy, HealthChecker: bs.HealthChecker, Backends: bs.Backends}})
		return r.OpcWorkRequestId, err
	})
	start("UpdateBackendSet", func() (*string, error) {
		bs := tcpBackendSet("10.0.10.7")
		r, err := f.lb.UpdateBackendSet(ctx, loadbalancer.UpdateBackendSetRequest{LoadBalancerId: &id, BackendSetName: common.String("TCP-80"),
			UpdateBackendSetDetails: loadbalancer.UpdateBackendSetDetails{Policy: bs.Policy, HealthChecker: bs.HealthChecker, Backends: bs.Backends}})
		return r.OpcWorkRequestId, err
	})

	states := func() []string {
		var out []string
		for _, wr := range wrs {
			out = append(out, f.lbWorkState(t, wr))
		}
		return out
	}
	const (
		acc  = WorkRequestAccepted
		prog = WorkRequestInProgress
		ok   = WorkRequestSucceeded
		fail = WorkRequestFailed
	)
	steps := []struct {
		advance time.Duration
		want    []string
		name    string
	}{
		{0, []string{acc, acc, acc, acc}, "svc"},
		{30 * time.Second, []string{prog, acc, acc, acc}, "svc"},
		{40 * time.Second, []string{ok, acc, acc, acc}, "renamed"},  // 1:10, the second starts at 1:00
		{20 * time.Second, []string{ok, prog, acc, acc}, "renamed"}, // 1:30
		{2 * time.Minute, []string{ok, ok, fail, prog}, "renamed"},  // 3:30, the last runs 3:00-4:00
	}
	for i, st := range steps {
		clk.Advance(st.advance)
		if diff := cmp.Diff(st.want, states()); diff != "" {
			t.Errorf("step %d: states (-want +got):\n%s", i, diff)
		}
		if got := *f.getLB(t, id).DisplayName; got != st.name {
			t.Errorf("step %d: name %q, want %q", i, got, st.name)
		}
	}
	clk.Advance(time.Minute)
	if msg := f.mustFail(t, &wrs[2]); msg != "Backend set 'spare' does not exist" {
		t.Errorf("the update queued behind the delete failed with %q", msg)
	}
	f.mustSucceed(t, &wrs[3])
	got := f.getLB(t, id)
	if _, ok := got.BackendSets["spare"]; ok || *got.BackendSets["TCP-80"].Backends[0].IpAddress != "10.0.10.7" {
		t.Errorf("after the queue ran: backend sets %v", lbSortedKeys(got.BackendSets))
	}

	// Each started when the one before it finished, and ran its full minute.
	infos := map[string]WorkRequestInfo{}
	for _, wr := range f.srv.WorkRequests() {
		infos[wr.ID] = wr
	}
	for i := 1; i < len(wrs); i++ {
		prev, cur := infos[wrs[i-1]], infos[wrs[i]]
		if !cur.TimeStarted.Equal(prev.TimeFinished) || cur.TimeFinished.Sub(cur.TimeStarted) != time.Minute {
			t.Errorf("work request %d started %v after the previous finished and ran %v; want 0 and 1m",
				i, cur.TimeStarted.Sub(prev.TimeFinished), cur.TimeFinished.Sub(cur.TimeStarted))
		}
	}
}

func TestQueuedDeleteRunsAfterTheChangesBeforeItAndRefusesLaterOnes(t *testing.T) {
	f := newLBFixture(t, slowWork())
	ctx := testCtx(t)
	id := f.createLBSlow(t, f.basicLB("svc"))
	up, err := f.lb.UpdateLoadBalancer(ctx, loadbalancer.UpdateLoadBalancerRequest{LoadBalancerId: &id,
		UpdateLoadBalancerDetails: loadbalancer.UpdateLoadBalancerDetails{DisplayName: common.String("renamed")}})
	if err != nil {
		t.Fatalf("UpdateLoadBalancer: %v", err)
	}
	del, err := f.lb.DeleteLoadBalancer(ctx, loadbalancer.DeleteLoadBalancerRequest{LoadBalancerId: &id})
	if err != nil {
		t.Fatalf("DeleteLoadBalancer behind an update: %v", err)
	}
	_, err = f.lb.UpdateLoadBalancer(ctx, loadbalancer.UpdateLoadBalancerRequest{LoadBalancerId: &id,
		UpdateLoadBalancerDetails: loadbalancer.UpdateLoadBalancerDetails{DisplayName: common.String("too-late")}})
	wantServiceError(t, err, http.StatusConflict, "IncorrectState")
	f.srv.CompleteWorkRequests()
	f.mustSucceed(t, up.OpcWorkRequestId)
	f.mustSucceed(t, del.OpcWorkRequestId)
	if _, ok := f.srv.LoadBalancer(id); ok {
		t.Error("the load balancer survived its delete")
	}
}

// createLBSlow creates a load balancer on a slowWork server and finishes the create at once.
func (f *lbFixture) createLBSlow(t *testing.T, d loadbalancer.CreateLoadBalancerDetails) string {
	t.Helper()
	resp, err := f.lb.CreateLoadBalancer(testCtx(t), loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: d})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	f.srv.CompleteWorkRequests()
	return f.lbOfWork(t, *resp.OpcWorkRequestId)
}

// wantNLBTransition requires OCI's answer to a change of a network load balancer that cannot
// take one now.
func wantNLBTransition(t *testing.T, err error, from, to string) {
	t.Helper()
	wantServiceError(t, err, http.StatusConflict, "Conflict")
	var se common.ServiceError
	errors.As(err, &se)
	if want := "Invalid State Transition of NLB lifeCycle state from " + from + " to " + to; se.GetMessage() != want {
		t.Errorf("message %q, want %q", se.GetMessage(), want)
	}
}

func TestFailedNetworkLoadBalancerIsRepairedByAnUpdate(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	id := f.createNLB(t, f.basicNLB("svc"))
	remove := f.srv.FailWorkRequests(func(wr WorkRequestInfo) bool { return wr.Operation == "UpdateBackendSet" }, "Internal error")
	update := func(ip string) *string {
		t.Helper()
		resp, err := f.nlb.UpdateBackendSet(ctx, nlbapi.UpdateBackendSetRequest{NetworkLoadBalancerId: &id, BackendSetName: common.String("TCP-80"),
			UpdateBackendSetDetails: nlbapi.UpdateBackendSetDetails{Backends: []nlbapi.BackendDetails{{IpAddress: common.String(ip), Port: common.Int(30080)}}}})
		if err != nil {
			t.Fatalf("UpdateBackendSet: %v", err)
		}
		return resp.OpcWorkRequestId
	}
	if wr := f.waitNLBWork(t, update("10.0.10.2")); wr.Status != nlbapi.OperationStatusFailed {
		t.Fatalf("injected failure: %s", wr.Status)
	}
	got := f.getNLB(t, id)
	if got.LifecycleState != nlbapi.LifecycleStateFailed || deref(got.LifecycleDetails) != "Internal error" {
		t.Errorf("after a failed work request: %s %q, want FAILED with the error", got.LifecycleState, deref(got.LifecycleDetails))
	}
	remove()
	f.nlbMustSucceed(t, update("10.0.10.3"))
	got = f.getNLB(t, id)
	if got.LifecycleState != nlbapi.LifecycleStateActive || got.LifecycleDetails != nil ||
		*got.BackendSets["TCP-80"].Backends[0].IpAddress != "10.0.10.3" {
		t.Errorf("after the repairing update: %s %q %v", got.LifecycleState, deref(got.LifecycleDetails), got.BackendSets["TCP-80"].Backends)
	}
}

func TestCanceledNetworkLoadBalancerWorkRequestChangesNothing(t *testing.T) {
	f := newLBFixture(t, slowWork())
	ctx := testCtx(t)
	created, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: f.basicNLB("svc")})
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	f.srv.CompleteWorkRequests()
	id := *created.Id
	up, err := f.nlb.UpdateNetworkLoadBalancer(ctx, nlbapi.UpdateNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id,
		UpdateNetworkLoadBalancerDetails: nlbapi.UpdateNetworkLoadBalancerDetails{DisplayName: common.String("renamed")}})
	if err != nil {
		t.Fatalf("UpdateNetworkLoadBalancer: %v", err)
	}
	wrID := *up.OpcWorkRequestId
	if err := f.srv.CancelWorkRequest(wrID); err != nil {
		t.Fatalf("CancelWorkRequest: %v", err)
	}
	status := func() nlbapi.OperationStatusEnum {
		resp, err := f.nlb.GetWorkRequest(ctx, nlbapi.GetWorkRequestRequest{WorkRequestId: &wrID})
		if err != nil {
			t.Fatalf("GetWorkRequest: %v", err)
		}
		return resp.Status
	}
	if got := status(); got != nlbapi.OperationStatusCanceling {
		t.Errorf("after CancelWorkRequest: %s, want CANCELING", got)
	}
	if got := f.getNLB(t, id).LifecycleState; got != nlbapi.LifecycleStateUpdating {
		t.Errorf("NLB while its work request is canceling: %s, want UPDATING", got)
	}
	f.srv.CompleteWorkRequests()
	if got := status(); got != nlbapi.OperationStatusCanceled {
		t.Errorf("once ended: %s, want CANCELED", got)
	}
	if got := f.getNLB(t, id); got.LifecycleState != nlbapi.LifecycleStateActive || *got.DisplayName != "svc" {
		t.Errorf("NLB after the cancellation: %s %q, want ACTIVE with the old name", got.LifecycleState, *got.DisplayName)
	}

	for _, tc := range []struct{ name, id, want string }{
		{"finished", wrID, "already ended CANCELED"},
		{"unknown", "ocid1.nlbworkrequest.oc1..none", "no work request"},
		{"load balancer", f.createLBWork(t), "has no cancellation"},
	} {
		if err := f.srv.CancelWorkRequest(tc.id); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CancelWorkRequest of a %s work request: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// createLBWork starts a load balancer create and returns its work request.
func (f *lbFixture) createLBWork(t *testing.T) string {
	t.Helper()
	resp, err := f.lb.CreateLoadBalancer(testCtx(t), loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: f.basicLB("lb")})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	return *resp.OpcWorkRequestId
}
