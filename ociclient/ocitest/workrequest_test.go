// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"encoding/json"
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

func TestWorkRequestStatesFollowTime(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	q := newWorkQueue()
	var applied []string
	var settled []error
	mk := func(id string, err error) *workRequest {
		return &workRequest{id: id, api: APILoadBalancer, op: "UpdateListener",
			apply:  func() error { applied = append(applied, id); return err },
			settle: func(err error) { settled = append(settled, err) }}
	}
	a, b := mk("a", nil), mk("b", errors.New("Listener 'x' has unknown default backend set 'y'"))
	q.submit(a, t0, time.Time{}, 30*time.Millisecond)
	q.submit(b, t0.Add(10*time.Millisecond), time.Time{}, 30*time.Millisecond)

	steps := []struct {
		at     time.Duration
		states [2]string
		pct    float32
	}{
		{0, [2]string{WorkRequestAccepted, WorkRequestAccepted}, 0},
		{15 * time.Millisecond, [2]string{WorkRequestInProgress, WorkRequestAccepted}, 50},
		{30 * time.Millisecond, [2]string{WorkRequestSucceeded, WorkRequestInProgress}, 100},
		{time.Hour, [2]string{WorkRequestSucceeded, WorkRequestFailed}, 100},
	}
	for _, st := range steps {
		now := t0.Add(st.at)
		q.advance(now)
		if got := [2]string{a.state(now), b.state(now)}; got != st.states {
			t.Errorf("at %v: states %v, want %v", st.at, got, st.states)
		}
		if got := a.percent(now); got != st.pct {
			t.Errorf("at %v: percent %v, want %v", st.at, got, st.pct)
		}
	}
	if diff := cmp.Diff([]string{"a", "b"}, applied); diff != "" {
		t.Errorf("apply order (-want +got):\n%s", diff)
	}
	if len(settled) != 2 || settled[0] != nil || settled[1] == nil {
		t.Errorf("settled with %v, want [nil, error]", settled)
	}
	if !b.finished.Equal(t0.Add(40*time.Millisecond)) || b.failure.code != wrCodeBadInput {
		t.Errorf("b finished at %v with code %s; want its deadline and %s", b.finished.Sub(t0), b.failure.code, wrCodeBadInput)
	}
}

func TestFailWorkRequestsFailsOnlyMatchingChanges(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	id := f.createLB(t, f.basicLB("svc"))
	remove := f.srv.FailWorkRequests(func(wr WorkRequestInfo) bool {
		return wr.API == APILoadBalancer && wr.Operation == "UpdateBackendSet" && wr.ResourceID == id
	}, "Internal error: backend set update failed")

	bs := tcpBackendSet("10.0.10.7")
	update := func() *string {
		t.Helper()
		resp, err := f.lb.UpdateBackendSet(ctx, loadbalancer.UpdateBackendSetRequest{LoadBalancerId: &id, BackendSetName: common.String("TCP-80"),
			UpdateBackendSetDetails: loadbalancer.UpdateBackendSetDetails{Policy: bs.Policy, HealthChecker: bs.HealthChecker, Backends: bs.Backends}})
		if err != nil {
			t.Fatalf("UpdateBackendSet: %v", err)
		}
		return resp.OpcWorkRequestId
	}
	failed := update()
	wr, _ := f.waitLBWork(t, *failed)
	if wr.LifecycleState != loadbalancer.WorkRequestLifecycleStateFailed ||
		wr.ErrorDetails[0].ErrorCode != loadbalancer.WorkRequestErrorErrorCodeInternalError ||
		*wr.ErrorDetails[0].Message != "Internal error: backend set update failed" {
		t.Fatalf("injected failure: %s %+v", wr.LifecycleState, wr.ErrorDetails)
	}
	if got := *f.getLB(t, id).BackendSets["TCP-80"].Backends[0].IpAddress; got != "10.0.10.1" {
		t.Errorf("a failed update changed the backends to %s", got)
	}
	// Other operations are not matched.
	nsg, err := f.lb.UpdateNetworkSecurityGroups(ctx, loadbalancer.UpdateNetworkSecurityGroupsRequest{LoadBalancerId: &id})
	if err != nil {
		t.Fatalf("UpdateNetworkSecurityGroups: %v", err)
	}
	f.mustSucceed(t, nsg.OpcWorkRequestId)

	remove()
	f.mustSucceed(t, update())
	if got := *f.getLB(t, id).BackendSets["TCP-80"].Backends[0].IpAddress; got != "10.0.10.7" {
		t.Errorf("after the rule is removed the update gave %s, want 10.0.10.7", got)
	}

	var states []string
	for _, wr := range f.srv.WorkRequests() {
		states = append(states, wr.Operation+" "+wr.State)
		if wr.ID == *failed && (len(wr.Errors) != 1 || wr.TimeFinished.IsZero()) {
			t.Errorf("WorkRequests entry of the failed update: %+v", wr)
		}
	}
	want := []string{"CreateLoadBalancer SUCCEEDED", "UpdateBackendSet FAILED", "UpdateNetworkSecurityGroups SUCCEEDED", "UpdateBackendSet SUCCEEDED"}
	if diff := cmp.Diff(want, states); diff != "" {
		t.Errorf("WorkRequests (-want +got):\n%s", diff)
	}
}

func TestInjectedFailuresOfCreateAndDelete(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	defer f.srv.FailWorkRequests(func(wr WorkRequestInfo) bool {
		return wr.Operation == "CreateLoadBalancer" || wr.Operation == "DeleteLoadBalancer" || wr.Operation == "CreateNetworkLoadBalancer"
	}, "out of capacity")()

	resp, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: f.basicLB("svc")})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	f.mustFail(t, resp.OpcWorkRequestId)
	id := f.lbOfWork(t, *resp.OpcWorkRequestId)
	if got := f.getLB(t, id).LifecycleState; got != loadbalancer.LoadBalancerLifecycleStateFailed {
		t.Errorf("after a failed create: %s, want FAILED", got)
	}
	del, err := f.lb.DeleteLoadBalancer(ctx, loadbalancer.DeleteLoadBalancerRequest{LoadBalancerId: &id})
	if err != nil {
		t.Fatalf("DeleteLoadBalancer: %v", err)
	}
	f.mustFail(t, del.OpcWorkRequestId)
	if got := f.getLB(t, id).LifecycleState; got != loadbalancer.LoadBalancerLifecycleStateFailed {
		t.Errorf("after a failed delete: %s, want the state before it (FAILED)", got)
	}

	cn, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: f.basicNLB("nlb")})
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	if wr := f.waitNLBWork(t, cn.OpcWorkRequestId); wr.Status != nlbapi.OperationStatusFailed {
		t.Fatalf("NLB create: %s, want FAILED", wr.Status)
	}
	errs, err := f.nlb.ListWorkRequestErrors(ctx, nlbapi.ListWorkRequestErrorsRequest{WorkRequestId: cn.OpcWorkRequestId, CompartmentId: &f.comp})
	if err != nil {
		t.Fatalf("ListWorkRequestErrors: %v", err)
	}
	if len(errs.Items) != 1 || *errs.Items[0].Message != "out of capacity" || *errs.Items[0].Code != wrCodeInternal {
		t.Errorf("work request errors: %+v", errs.Items)
	}
	if n, _ := f.srv.NetworkLoadBalancer(*cn.Id); n.LifecycleState != nlbapi.LifecycleStateFailed {
		t.Errorf("NLB after a failed create: %s, want FAILED", n.LifecycleState)
	}
}

func TestWorkRequestsOfTheOtherAPIAreNotFound(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	cl, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: f.basicLB("svc")})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	cn, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: f.basicNLB("nlb")})
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	_, err = f.nlb.GetWorkRequest(ctx, nlbapi.GetWorkRequestRequest{WorkRequestId: cl.OpcWorkRequestId})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
	_, err = f.lb.GetWorkRequest(ctx, loadbalancer.GetWorkRequestRequest{WorkRequestId: cn.OpcWorkRequestId})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
}

// TestHeldWorkRequestsRunUntilCompleted: a hold (here through the admin API, as the e2e suite
// sets it) keeps the first matching work request running however long its duration, leaves the
// next one alone once its count is used up, and CompleteWorkRequests (admin: complete) finishes
// the held one.
func TestHeldWorkRequestsRunUntilCompleted(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	id := f.createLB(t, f.basicLB("svc"))
	adminPost := func(path, body string) map[string]int {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.srv.URL()+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := f.srv.HTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]int
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode >= 300 {
			t.Fatalf("POST %s: %d %v", path, resp.StatusCode, err)
		}
		return out
	}
	adminPost("/ocitest/workrequests/hold", `{"operation":"UpdateBackendSet","times":1}`)

	bs := tcpBackendSet("10.0.10.7")
	update := func() string {
		t.Helper()
		resp, err := f.lb.UpdateBackendSet(ctx, loadbalancer.UpdateBackendSetRequest{LoadBalancerId: &id, BackendSetName: common.String("TCP-80"),
			UpdateBackendSetDetails: loadbalancer.UpdateBackendSetDetails{Policy: bs.Policy, HealthChecker: bs.HealthChecker, Backends: bs.Backends}})
		if err != nil {
			t.Fatalf("UpdateBackendSet: %v", err)
		}
		return *resp.OpcWorkRequestId
	}
	held, next := update(), update()
	time.Sleep(100 * time.Millisecond) // several times the default duration (30ms)
	states := map[string]string{}
	for _, wr := range f.srv.WorkRequests() {
		states[wr.ID] = wr.State
	}
	if (states[held] != WorkRequestAccepted && states[held] != WorkRequestInProgress) || states[next] != WorkRequestAccepted {
		t.Fatalf("held %s, queued behind it %s; want it still running and the next one queued (ACCEPTED)", states[held], states[next])
	}
	if got := adminPost("/ocitest/workrequests/complete", ""); got["completed"] < 1 {
		t.Fatalf("complete: %v", got)
	}
	f.mustSucceed(t, &held)
	f.mustSucceed(t, &next) // not held: the count of the hold was used up
}
