// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// update is a node sync (Reconciler.Update) and the OCI calls it made.
func (e *env) update(tb testing.TB, svc *v1.Service, nodes []*v1.Node) (*engine.Result, ocitest.Calls) {
	tb.Helper()
	return counted(tb, e, "Update", func() (*engine.Result, error) { return e.r.Update(ctx, svc, nodes, nil) })
}

// TestANodeSyncThatChangesNothingCallsNothing: a node sync whose desired load balancer is the one
// the last reconcile applied makes no OCI call and reports that load balancer; one whose Nodes,
// Service or UID differ reads and plans as before.
func TestANodeSyncThatChangesNothingCallsNothing(t *testing.T) {
	e := newEnv(t)
	svc := service()
	created, _ := e.ensure(t, svc, readyNodes(3), nil)

	res, calls := e.update(t, svc, readyNodes(3))
	if calls.Total() != 0 {
		t.Errorf("a node sync with nothing to change made OCI calls:\n%s", calls)
	}
	if res.LoadBalancerID != created.LoadBalancerID || !res.Plan.Empty() || res.Accepted ||
		res.Status.Ingress[0].IP != created.Status.Ingress[0].IP || len(res.Spec.BackendSets["TCP-80"].Backends) != 3 {
		t.Errorf("result = %+v, want the load balancer as created, an empty plan", res)
	}

	// A Node more: read, planned and written, then remembered.
	_, calls = e.update(t, svc, readyNodes(4))
	if calls.Op("GetLoadBalancer") == 0 || calls.Op("UpdateBackendSet") != 2 {
		t.Errorf("a Node added: want a read and 2 backend-set updates, got:\n%s", calls)
	}
	if got := backendIPs(t, e, "TCP-80"); len(got) != 4 {
		t.Errorf("backends %v, want 4", got)
	}
	if _, calls = e.update(t, svc, readyNodes(4)); calls.Total() != 0 {
		t.Errorf("the same 4 Nodes again made OCI calls:\n%s", calls)
	}

	// A changed Service takes the full way even through Update.
	changed := service(annotate(annotation.Policy, "IP_HASH"))
	if _, calls = e.update(t, changed, readyNodes(4)); calls.Op("GetLoadBalancer") == 0 || calls.Op("UpdateBackendSet") != 2 {
		t.Errorf("a changed policy: want a read and the backend sets updated, got:\n%s", calls)
	}
	// So does another Service of the same name (a new UID).
	renewed := service(annotate(annotation.Policy, "IP_HASH"))
	renewed.UID = types.UID("0d5e3c1a-9b8f-4e7d-a6c5-b4a392817065")
	before := e.srv.Calls()
	_, _ = e.r.Update(ctx, renewed, readyNodes(4), nil) // what OCI says is not the point here
	if calls = e.srv.Calls().Since(before); calls.Total() == 0 {
		t.Errorf("a Service with a new UID was answered from the old one's last sync, with no OCI call")
	}
}

// TestADriftedLoadBalancerIsReadAgainOnTheNextNodeSync: what changed behind the Reconciler's back
// is not seen by a node sync that changes nothing (it reads nothing); once Drift reports it, the
// next node sync reads the load balancer and repairs it.
func TestADriftedLoadBalancerIsReadAgainOnTheNextNodeSync(t *testing.T) {
	e := newEnv(t)
	svc, nodes := service(), readyNodes(3)
	created, _ := e.ensure(t, svc, nodes, nil)
	e.clock.Advance(ocitest.DefaultListingLag)
	if !e.srv.EditLoadBalancer(created.LoadBalancerID, func(l *loadbalancer.LoadBalancer) {
		set := l.BackendSets["TCP-80"]
		set.Backends = set.Backends[:1]
		l.BackendSets["TCP-80"] = set
	}) {
		t.Fatal("no load balancer to edit")
	}
	if _, calls := e.update(t, svc, nodes); calls.Total() != 0 {
		t.Errorf("before the drift check, a node sync with nothing to change made OCI calls:\n%s", calls)
	}
	report, err := e.r.Drift(ctx, []*v1.Service{svc}, nodes, func(*v1.Service) lb.Secrets { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Drifted) != 1 {
		t.Fatalf("drift report %+v, want the Service", report)
	}
	_, calls := e.update(t, svc, nodes)
	if calls.Op("GetLoadBalancer") == 0 || calls.Op("UpdateBackendSet") != 1 {
		t.Errorf("after the drift check: want a read and the drifted set repaired, got:\n%s", calls)
	}
	if got := backendIPs(t, e, "TCP-80"); len(got) != 3 {
		t.Errorf("backends %v after the repair, want 3", got)
	}
}

// TestAFailedNodeSyncIsNotRemembered: after an Update that failed part way, an Update with the
// Nodes of the last success reads the load balancer (OCI may hold half the change) and puts it
// back.
func TestAFailedNodeSyncIsNotRemembered(t *testing.T) {
	e := newEnv(t)
	svc := service()
	e.ensure(t, svc, readyNodes(3), nil)
	remove := e.srv.FailWorkRequests(func(wr ocitest.WorkRequestInfo) bool { return wr.Operation == "UpdateBackendSet" }, "injected failure")
	if _, err := e.r.Update(ctx, svc, readyNodes(4), nil); err == nil {
		t.Fatal("Update succeeded despite the injected failure")
	}
	remove()
	_, calls := e.update(t, svc, readyNodes(3))
	if calls.Op("GetLoadBalancer") == 0 {
		t.Errorf("after a failed node sync, the next one read nothing:\n%s", calls)
	}
	if got := backendIPs(t, e, "TCP-80"); len(got) != 3 {
		t.Errorf("backends %v, want the 3 Nodes", got)
	}
}

// TestDeleteForgetsTheLastSync: a Service deleted and made again under the same UID (a restore)
// has no load balancer: the node sync creates it rather than reporting the deleted one.
func TestDeleteForgetsTheLastSync(t *testing.T) {
	e := newEnv(t)
	svc, nodes := service(), readyNodes(3)
	e.ensure(t, svc, nodes, nil)
	if err := e.r.Delete(ctx, svc); err != nil {
		t.Fatal(err)
	}
	_, calls := e.update(t, svc, nodes)
	if calls.Op("CreateLoadBalancer") == 0 {
		t.Errorf("a node sync after Delete: want the load balancer created, got:\n%s", calls)
	}
}

// TestARequeuedServiceIsReadAgainOnTheNextNodeSync: accepted backend changes that fail later get
// the Service requeued by FollowUp, and its next node sync reads the load balancer rather than
// trusting what it sent.
func TestARequeuedServiceIsReadAgainOnTheNextNodeSync(t *testing.T) {
	e := newAsyncEnv(t)
	svc := service(ports(80))
	e.ensure(t, svc, readyNodes(2), nil)
	e.followUp(t, e.r)
	remove := e.srv.FailWorkRequests(func(wr ocitest.WorkRequestInfo) bool { return wr.Operation == "UpdateBackendSet" }, "Internal error")
	if _, err := e.r.Update(ctx, svc, readyNodes(3), nil); err != nil {
		t.Fatalf("Update: %v (its work request fails only later)", err)
	}
	select {
	case <-e.requeued:
	case <-time.After(30 * time.Second):
		t.Fatal("no requeue after the accepted update failed")
	}
	remove()
	_, calls := e.update(t, svc, readyNodes(3))
	if calls.Op("GetLoadBalancer") == 0 || calls.Op("UpdateBackendSet") != 1 {
		t.Errorf("the node sync after the requeue: want a read and the set updated, got:\n%s", calls)
	}
}

// TestANodeJoiningOutsideAServicesSubsetCallsNothing: with backend subsets a Node joining changes
// how many Nodes were eligible for every Service, but the backends only of those whose subset it
// enters; a Service whose subset stays makes no OCI call.
func TestANodeJoiningOutsideAServicesSubsetCallsNothing(t *testing.T) {
	e := newEnv(t, func(s *envSettings) { s.cfg.LoadBalancer.BackendSubset = "2" })
	svc := service()
	// The Nodes a Service's subset leaves out depend on its ranks: find a Node count whose next
	// Node stays out, with lb.Desired as the judge.
	backends := func(n int) []model.Backend {
		spec, err := lb.Desired(svc, readyNodes(n), e.cfg, lb.Known{})
		if err != nil {
			t.Fatal(err)
		}
		return spec.BackendSets["TCP-80"].Backends
	}
	n := 3
	for ; n < 20 && !cmp.Equal(backends(n), backends(n+1)); n++ {
	}
	if n == 20 {
		t.Fatal("no Node count from 3 to 19 whose next Node stays out of the subset")
	}
	e.ensure(t, svc, readyNodes(n), nil)
	res, calls := e.update(t, svc, readyNodes(n+1))
	if calls.Total() != 0 {
		t.Errorf("Node %d joined outside the subset: want no OCI call, got:\n%s", n+1, calls)
	}
	if res.Spec.Subset.Eligible != n+1 || len(res.Spec.BackendSets["TCP-80"].Backends) != 2 {
		t.Errorf("result spec: subset %+v and %d backends, want %d eligible and 2 backends",
			res.Spec.Subset, len(res.Spec.BackendSets["TCP-80"].Backends), n+1)
	}
}
