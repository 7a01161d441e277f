// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func asNLB(s *v1.Service) { s.Annotations[string(annotation.LoadBalancerType)] = "nlb" }

// instanceNodes are ready Nodes with an instance providerID each, the instances added to the
// tenancy's node subnet at the Nodes' addresses (OCI refuses a targetId backend whose instance
// does not exist).
func (e *env) instanceNodes(n int) []*v1.Node {
	out := readyNodes(n)
	for i, node := range out {
		for len(e.instances) <= i {
			k := len(e.instances) + 1
			inst := e.srv.AddInstance(ocitest.Instance{Instance: core.Instance{DisplayName: common.String(fmt.Sprintf("node-%d", k))},
				VNICs: []core.Vnic{{SubnetId: common.String(e.seeded.Subnets["nodes"]), PrivateIp: common.String(nodeIP(k))}}})
			e.instances = append(e.instances, *inst.Id)
		}
		node.Spec.ProviderID = "oci://" + e.instances[i]
	}
	return out
}

// onlyNLB returns the only network load balancer in OCI, observed.
func (e *env) onlyNLB(tb testing.TB) *model.Spec {
	tb.Helper()
	all := e.srv.NetworkLoadBalancers()
	if len(all) != 1 {
		tb.Fatalf("OCI has %d network load balancers, want 1", len(all))
	}
	return engine.ObserveNLB(all[0])
}

func nlbWrites(c ocitest.Calls) map[string]int {
	out := map[string]int{}
	for _, op := range c.Ops() {
		switch strings.TrimPrefix(op, "nlb.") {
		case "GetNetworkLoadBalancer", "ListNetworkLoadBalancers", "GetWorkRequest", "ListWorkRequestErrors",
			"GetLoadBalancer", "ListLoadBalancers", "GetPublicIpByIpAddress", "GetSubnet":
		default:
			out[op] = c.Op(op)
		}
	}
	return out
}

// TestNLBLifecycleThroughOneMachinery: create is one CreateNetworkLoadBalancer with everything
// inline; a repeat is no write and one read; a new Node is one UpdateBackendSet; a port change
// moves the listener before deleting the backend set (the shared ordering); delete removes it.
func TestNLBLifecycleThroughOneMachinery(t *testing.T) {
	e := newEnv(t, withNLBs())
	svc := service(asNLB, ports(80))

	res, calls := e.ensure(t, svc, e.instanceNodes(2), nil)
	if diff := cmp.Diff(map[string]int{ocitest.NLB("CreateNetworkLoadBalancer"): 1}, nlbWrites(calls)); diff != "" {
		t.Errorf("create writes (-want +got):\n%s\ncalls:\n%s", diff, calls)
	}
	got := e.onlyNLB(t)
	if !strings.HasPrefix(res.LoadBalancerID, "ocid1.networkloadbalancer.") || got.ID != res.LoadBalancerID {
		t.Errorf("LoadBalancerID = %q, want the network load balancer %q", res.LoadBalancerID, got.ID)
	}
	wantSet := model.BackendSet{Name: "TCP-80", Policy: "FIVE_TUPLE", HealthCheck: model.HealthCheck{Protocol: "HTTP", Port: lb.KubeProxyHealthPort,
		Path: "/healthz", ReturnCode: 200, Retries: 3, IntervalMillis: 10000, TimeoutMillis: 3000},
		Backends: []model.Backend{{IP: nodeIP(1), Port: 30080, TargetID: e.instances[0]}, {IP: nodeIP(2), Port: 30080, TargetID: e.instances[1]}}}
	if diff := cmp.Diff(map[string]model.BackendSet{"TCP-80": wantSet}, got.BackendSets, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("backend sets in OCI (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]model.Listener{"TCP-80": {Name: "TCP-80", Protocol: "TCP", Port: 80, BackendSet: "TCP-80"}}, got.Listeners); diff != "" {
		t.Errorf("listeners in OCI (-want +got):\n%s", diff)
	}
	// A public NLB lists its private address too; without external-ip-only both are reported.
	if len(res.Status.Ingress) != 2 || !slices.ContainsFunc(res.Status.Ingress, func(in v1.LoadBalancerIngress) bool { return strings.HasPrefix(in.IP, "203.0.113.") }) {
		t.Errorf("status = %+v, want the public and the private address", res.Status)
	}

	_, calls = e.ensure(t, svc, e.instanceNodes(2), nil)
	if calls.Class(ocitest.ClassWrite) != 0 || calls.Class(ocitest.ClassRead) != 1 {
		t.Errorf("repeat: %d writes, %d reads, want 0 and 1:\n%s", calls.Class(ocitest.ClassWrite), calls.Class(ocitest.ClassRead), calls)
	}

	_, calls = e.ensure(t, svc, e.instanceNodes(3), nil)
	if diff := cmp.Diff(map[string]int{ocitest.NLB("UpdateBackendSet"): 1}, nlbWrites(calls)); diff != "" {
		t.Errorf("node added (-want +got):\n%s", diff)
	}
	if n := len(e.onlyNLB(t).BackendSets["TCP-80"].Backends); n != 3 {
		t.Errorf("backends after a node was added = %d, want 3", n)
	}

	res, _ = e.ensure(t, service(asNLB, ports(8080)), e.instanceNodes(3), nil)
	var order []string
	for _, c := range res.Plan.Changes {
		order = append(order, c.String())
	}
	want := []string{`+ backend set "TCP-8080"`, `+ listener "TCP-8080"`, `- listener "TCP-80"`, `- backend set "TCP-80"`}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("port change plan (-want +got):\n%s", diff)
	}
	if l := e.onlyNLB(t).Listeners; len(l) != 1 || l["TCP-8080"].Port != 8080 {
		t.Errorf("listeners after the port change = %v", l)
	}

	before := e.srv.Calls()
	if err := e.r.Delete(ctx, svc); err != nil {
		t.Fatal(err)
	}
	if n := len(e.srv.NetworkLoadBalancers()); n != 0 {
		t.Errorf("after Delete OCI has %d network load balancers, want 0:\n%s", n, e.srv.Calls().Since(before))
	}
	if err := e.r.Delete(ctx, svc); err != nil {
		t.Errorf("Delete again = %v, want nil (nothing left)", err)
	}
}

// TestNLBUDPAndTCPAndUDPListeners: a UDP port and a port on both protocols make a UDP and a
// TCP_AND_UDP listener, created in the one call.
func TestNLBUDPAndTCPAndUDPListeners(t *testing.T) {
	e := newEnv(t, withNLBs())
	svc := service(asNLB, func(s *v1.Service) {
		s.Spec.Ports = []v1.ServicePort{
			{Name: "dns-udp", Protocol: v1.ProtocolUDP, Port: 53, NodePort: 30053},
			{Name: "dns-tcp", Protocol: v1.ProtocolTCP, Port: 53, NodePort: 30053},
			{Name: "syslog", Protocol: v1.ProtocolUDP, Port: 514, NodePort: 30514},
		}
	})
	_, calls := e.ensure(t, svc, readyNodes(1), nil)
	if diff := cmp.Diff(map[string]int{ocitest.NLB("CreateNetworkLoadBalancer"): 1}, nlbWrites(calls)); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	got := e.onlyNLB(t)
	want := map[string]model.Listener{
		"TCP_AND_UDP-53": {Name: "TCP_AND_UDP-53", Protocol: "TCP_AND_UDP", Port: 53, BackendSet: "TCP_AND_UDP-53"},
		"UDP-514":        {Name: "UDP-514", Protocol: "UDP", Port: 514, BackendSet: "UDP-514"},
	}
	if diff := cmp.Diff(want, got.Listeners); diff != "" {
		t.Errorf("listeners (-want +got):\n%s", diff)
	}
	if b := got.BackendSets["UDP-514"].Backends; len(b) != 1 || b[0].IP != nodeIP(1) || b[0].Port != 30514 {
		t.Errorf("UDP backends = %v, want the node by address (no providerID)", b)
	}
	if _, calls := e.ensure(t, svc, readyNodes(1), nil); calls.Class(ocitest.ClassWrite) != 0 {
		t.Errorf("repeat wrote:\n%s", calls)
	}
}

// TestNLBBusyConflictIsRetried: OCI answers 409 Conflict to a change while another runs on the
// same network load balancer. A change made out of band (a rename, whose work request outlasts
// ociclient's retries) is running when Ensure adds a node: Ensure's UpdateBackendSet is refused
// with 409, retried, then sent again once the network load balancer is no longer UPDATING.
func TestNLBBusyConflictIsRetried(t *testing.T) {
	slow := func(api, op string, _ uint64) time.Duration {
		if op == "UpdateNetworkLoadBalancer" {
			return 2 * time.Second
		}
		return 5 * time.Millisecond
	}
	e := newEnv(t, withNLBs(), func(s *envSettings) { s.wrDurations = slow })
	svc := service(asNLB)
	res, _ := e.ensure(t, svc, readyNodes(1), nil)
	wr, err := e.oci.NetworkLoadBalancers.UpdateNetworkLoadBalancer(ctx, res.LoadBalancerID,
		networkloadbalancer.UpdateNetworkLoadBalancerDetails{DisplayName: common.String(res.Spec.Name)})
	if err != nil {
		t.Fatal(err)
	}
	_, calls := e.ensure(t, svc, readyNodes(2), nil)
	if calls.Op(ocitest.NLB("UpdateBackendSet")) < 3 || calls.Status(409) == 0 {
		t.Errorf("UpdateBackendSet called %d times with %d 409s, want it refused while busy and retried:\n%s",
			calls.Op(ocitest.NLB("UpdateBackendSet")), calls.Status(409), calls)
	}
	if err := e.oci.NetworkLoadBalancers.WaitForWorkRequest(ctx, wr); err != nil {
		t.Fatal(err)
	}
	for name, bs := range e.onlyNLB(t).BackendSets {
		if len(bs.Backends) != 2 {
			t.Errorf("backend set %s has %d backends, want 2", name, len(bs.Backends))
		}
	}
}

// TestNLBFailedIsRepairedByTheNextEnsure: a failed work request leaves the network load balancer
// FAILED; the next Ensure plans a change even when nothing else differs, and OCI makes it ACTIVE.
func TestNLBFailedIsRepairedByTheNextEnsure(t *testing.T) {
	e := newEnv(t, withNLBs())
	svc := service(asNLB)
	e.ensure(t, svc, readyNodes(1), nil)
	remove := e.srv.FailWorkRequests(func(w ocitest.WorkRequestInfo) bool { return w.Operation == "UpdateBackendSet" }, "internal error")
	if _, err := e.r.Ensure(ctx, svc, readyNodes(2), nil); err == nil {
		t.Fatal("Ensure with a failing work request = nil, want an error")
	}
	remove()
	if st := e.srv.NetworkLoadBalancers()[0].LifecycleState; st != networkloadbalancer.LifecycleStateFailed {
		t.Fatalf("state after the failed work request = %s, want FAILED", st)
	}
	// Back to what OCI has, so only the repair is left to do.
	plan, err := e.r.Plan(ctx, svc, readyNodes(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Changes) != 1 || plan.Changes[0].Verb() != "update load balancer" {
		t.Errorf("plan on a FAILED network load balancer = %s, want one update that repairs it", plan)
	}
	e.ensure(t, svc, readyNodes(1), nil)
	if st := e.srv.NetworkLoadBalancers()[0].LifecycleState; st != networkloadbalancer.LifecycleStateActive {
		t.Errorf("state after the repair = %s, want ACTIVE", st)
	}
	if _, calls := e.ensure(t, svc, readyNodes(1), nil); calls.Class(ocitest.ClassWrite) != 0 {
		t.Errorf("after the repair a repeat wrote:\n%s", calls)
	}
}

// TestNLBMadeByTheUpstreamCCMIsAdoptedAndDeleted: an untagged network load balancer named after
// the Service's UID is the upstream CCM's for this Service: Ensure tags it (no second one),
// Delete deletes it; a 404 the listing contradicts keeps the Service.
func TestNLBMadeByTheUpstreamCCMIsAdoptedAndDeleted(t *testing.T) {
	e := newEnv(t, withNLBs())
	svc := service(asNLB, ports(80))
	created, wr, err := e.oci.NetworkLoadBalancers.CreateNetworkLoadBalancer(ctx, networkloadbalancer.CreateNetworkLoadBalancerDetails{
		CompartmentId: common.String(e.cfg.CompartmentID), DisplayName: common.String(string(svc.UID)), SubnetId: common.String(e.seeded.Subnets["public"]), IsPrivate: common.Bool(false)}, "")
	if err == nil {
		err = e.oci.NetworkLoadBalancers.WaitForWorkRequest(ctx, wr)
	}
	if err != nil {
		t.Fatal(err)
	}
	// The upstream CCM made it well before this one met the Service: OCI's listings show it.
	e.clock.Advance(ocitest.DefaultListingLag)
	res, calls := e.ensure(t, svc, readyNodes(1), nil)
	if res.LoadBalancerID != *created.Id || calls.Op(ocitest.NLB("CreateNetworkLoadBalancer")) != 0 {
		t.Fatalf("Ensure used %s, want the upstream one %s:\n%s", res.LoadBalancerID, *created.Id, calls)
	}
	if got := e.onlyNLB(t); got.Owner.UID != string(svc.UID) || got.Listeners["TCP-80"].Port != 80 || got.Name != string(svc.UID) {
		t.Errorf("adopted network load balancer: owner %+v, listeners %v, name %q (want the UID name kept)", got.Owner, got.Listeners, got.Name)
	}

	// A policy without network-load-balancers: the 404s prove nothing and the Service is kept.
	if err := e.srv.SetPolicy("Allow group ccm to manage load-balancers in tenancy"); err != nil {
		t.Fatal(err)
	}
	fresh := newEnvReconciler(t, e)
	if err := fresh.Delete(ctx, svc); err == nil || !strings.Contains(err.Error(), "network-load-balancers") {
		t.Errorf("Delete with network load balancers refused = %v, want the Service kept naming the permission", err)
	}
	if err := e.srv.SetPolicy(ocitest.DefaultPolicy()...); err != nil { // the documented policy again
		t.Fatal(err)
	}
	e.clock.Advance(ocitest.DefaultPolicyDelay) // what it grants again has propagated
	if err := fresh.Delete(ctx, svc); err != nil {
		t.Fatal(err)
	}
	if n := len(e.srv.NetworkLoadBalancers()); n != 0 {
		t.Errorf("after Delete OCI has %d network load balancers, want 0", n)
	}

	// Without a client to look, a Service asking for one is kept: absence is never assumed.
	blind := newReconciler(t, e.oci, e.cfg, 0)
	var ve *lb.ValidationError
	if err := blind.Delete(ctx, svc); err == nil || errors.As(err, &ve) || !strings.Contains(err.Error(), "NetworkLoadBalancers") {
		t.Errorf("Delete without a NetworkLoadBalancers client = %v, want it kept with the reason", err)
	}
}

// newEnvReconciler is a second Reconciler on e's OCI with the NLB client: a restarted process.
func newEnvReconciler(t *testing.T, e *env) *engine.Reconciler {
	t.Helper()
	r, err := engine.NewReconciler(engine.Options{ListingLag: ocitest.DefaultListingLag, Config: e.cfg, Client: e.oci.LoadBalancers,
		NetworkLoadBalancers: e.oci.NetworkLoadBalancers, PublicIPs: e.oci.VirtualNetwork})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestNLBWithReservedIPKeepsItAndReportsIt: spec.loadBalancerIP names a reserved public IP; the
// network load balancer is created with it, the status reports it, and a repeat changes nothing.
func TestNLBWithReservedIPKeepsItAndReportsIt(t *testing.T) {
	e := newEnv(t, withNLBs())
	ip := e.srv.AddPublicIP(core.PublicIp{CompartmentId: common.String(e.cfg.CompartmentID), Lifetime: core.PublicIpLifetimeReserved,
		LifecycleState: core.PublicIpLifecycleStateAvailable})
	svc := service(asNLB, func(s *v1.Service) { s.Spec.LoadBalancerIP = *ip.IpAddress })
	res, _ := e.ensure(t, svc, readyNodes(1), nil)
	if !slices.ContainsFunc(res.Status.Ingress, func(in v1.LoadBalancerIngress) bool { return in.IP == *ip.IpAddress }) {
		t.Errorf("status %+v, want the reserved IP %s", res.Status, *ip.IpAddress)
	}
	if got := e.onlyNLB(t).ReservedIP; got != *ip.IpAddress {
		t.Errorf("observed reserved IP = %q, want %s", got, *ip.IpAddress)
	}
	if _, calls := e.ensure(t, svc, readyNodes(1), nil); calls.Class(ocitest.ClassWrite) != 0 {
		t.Errorf("repeat wrote:\n%s", calls)
	}
}

// TestNLBDriftFindsAListenerDeletedOutOfBand: the drift check lists network load balancers as it
// lists load balancers (one listing per compartment) and reports the one changed outside
// Kubernetes; the load balancer Service beside it is compared too.
func TestNLBDriftFindsAListenerDeletedOutOfBand(t *testing.T) {
	e := newEnv(t, withNLBs())
	nlbSvc := service(asNLB, ports(80, 53))
	lbSvc := service(ports(443), func(s *v1.Service) { s.Name, s.UID = "shop", "0d3c0a50-0000-4000-8000-000000000001" })
	res, _ := e.ensure(t, nlbSvc, readyNodes(1), nil)
	lbRes, _ := e.ensure(t, lbSvc, readyNodes(1), nil)
	nlbSvc, lbSvc = served(nlbSvc, res), served(lbSvc, lbRes)
	if !e.srv.EditNetworkLoadBalancer(res.LoadBalancerID, func(n *networkloadbalancer.NetworkLoadBalancer) { delete(n.Listeners, "TCP-53") }) {
		t.Fatal("no network load balancer to edit")
	}
	before := e.srv.Calls()
	e.clock.Advance(ocitest.DefaultListingLag) // the check runs once OCI's listings show the load balancers
	report, err := e.r.Drift(ctx, []*v1.Service{nlbSvc, lbSvc}, readyNodes(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := e.srv.Calls().Since(before)
	if report.Checked != 2 || len(report.Drifted) != 1 || report.Drifted[0].LoadBalancerID != res.LoadBalancerID {
		t.Fatalf("report = %+v, want the network load balancer drifted and both checked", report)
	}
	if diff := cmp.Diff([]string{"listener TCP-53 missing"}, report.Drifted[0].Reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
	if calls.Total() != 2 || calls.Op("ListLoadBalancers") != 1 || calls.Op(ocitest.NLB("ListNetworkLoadBalancers")) != 1 {
		t.Errorf("drift calls: want one listing of each product:\n%s", calls)
	}
}

// TestNLBCreateWhoseResponseIsLostMakesOne: the CreateNetworkLoadBalancer response is lost after
// OCI acted on it; the retry carries the same retry token (createRetryToken), OCI replays the
// first create, and exactly one network load balancer exists.
func TestNLBCreateWhoseResponseIsLostMakesOne(t *testing.T) {
	e := newEnv(t, withNLBs())
	e.srv.InjectFault(ocitest.Fault{Operation: ocitest.NLB("CreateNetworkLoadBalancer"), AfterHandler: true, Status: 503, Times: 1})
	res, calls := e.ensure(t, service(asNLB), readyNodes(1), nil)
	if n := calls.Op(ocitest.NLB("CreateNetworkLoadBalancer")); n != 2 {
		t.Errorf("CreateNetworkLoadBalancer called %d times, want the lost one and its retry:\n%s", n, calls)
	}
	if got := e.onlyNLB(t); got.ID != res.LoadBalancerID {
		t.Errorf("Ensure reported %s, OCI has %s", res.LoadBalancerID, got.ID)
	}
}

// TestNLBApplyingTheSameCreateTwiceReplaysTheFirst: two creates of one Service (a retry after a
// reconcile that lost track, before the name index knows it) carry the same retry token, derived
// from the Service UID: OCI replays the first, and there is one network load balancer.
func TestNLBApplyingTheSameCreateTwiceReplaysTheFirst(t *testing.T) {
	e := newEnv(t, withNLBs())
	desired, err := lb.Desired(service(asNLB), readyNodes(1), e.cfg, lb.Known{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := lb.Diff(nil, desired)
	if err != nil {
		t.Fatal(err)
	}
	id1, err := engine.ApplyNLBPlan(ctx, e.oci.NetworkLoadBalancers, plan)
	if err != nil {
		t.Fatal(err)
	}
	before := e.srv.Calls()
	id2, err := engine.ApplyNLBPlan(ctx, e.oci.NetworkLoadBalancers, plan)
	if err != nil {
		t.Fatal(err)
	}
	creates := 0
	for _, w := range e.srv.WorkRequests() {
		if w.Operation == "CreateNetworkLoadBalancer" {
			creates++
		}
	}
	if id1 != id2 || len(e.srv.NetworkLoadBalancers()) != 1 || creates != 1 {
		t.Errorf("ids %s, %s; %d network load balancers, %d create work requests; want one of each:\n%s",
			id1, id2, len(e.srv.NetworkLoadBalancers()), creates, e.srv.Calls().Since(before))
	}
}

// TestNLBAddingUDPToATCPPortReplacesTheListenerOnThatPort: TCP-53 becomes TCP_AND_UDP-53 on the
// same port; OCI refuses two listeners overlapping on a port, so the shared ordering deletes the
// old listener before creating the new one, and the old backend set after both.
func TestNLBAddingUDPToATCPPortReplacesTheListenerOnThatPort(t *testing.T) {
	e := newEnv(t, withNLBs())
	tcp := service(asNLB, func(s *v1.Service) {
		s.Spec.Ports = []v1.ServicePort{{Name: "dns-tcp", Protocol: v1.ProtocolTCP, Port: 53, NodePort: 30053}}
	})
	both := service(asNLB, func(s *v1.Service) {
		s.Spec.Ports = []v1.ServicePort{{Name: "dns-tcp", Protocol: v1.ProtocolTCP, Port: 53, NodePort: 30053},
			{Name: "dns-udp", Protocol: v1.ProtocolUDP, Port: 53, NodePort: 30053}}
	})
	e.ensure(t, tcp, readyNodes(1), nil)
	res, _ := e.ensure(t, both, readyNodes(1), nil)
	var order []string
	for _, c := range res.Plan.Changes {
		order = append(order, c.String())
	}
	want := []string{`+ backend set "TCP_AND_UDP-53"`, `- listener "TCP-53"`, `+ listener "TCP_AND_UDP-53"`, `- backend set "TCP-53"`}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if l := e.onlyNLB(t).Listeners; len(l) != 1 || l["TCP_AND_UDP-53"].Protocol != "TCP_AND_UDP" {
		t.Errorf("listeners = %v, want TCP_AND_UDP-53 alone", l)
	}
}
