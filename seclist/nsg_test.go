// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist_test

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// nsgNet is the vcn fixture with a backend NSG the user made for the nodes: it holds a rule of
// the user's and one of another cluster before oci-ccm touches it.
type nsgNet struct {
	*vcn
	backend   string
	userRules []core.SecurityRule // the backend NSG's rules before oci-ccm
}

func newNSGNet(t *testing.T) *nsgNet {
	t.Helper()
	v := newVCN(t)
	subnet, err := v.vn.GetSubnet(t.Context(), v.lbSubnet)
	if err != nil {
		t.Fatal(err)
	}
	backend := v.srv.AddNetworkSecurityGroup(core.NetworkSecurityGroup{VcnId: subnet.VcnId, DisplayName: common.String("nodes")})
	for _, desc := range []string{"ssh from the office", seclist.Owner("staging")} {
		_, err := v.vn.AddNetworkSecurityGroupSecurityRules(t.Context(), *backend.Id, []core.AddSecurityRuleDetails{{
			Direction: core.AddSecurityRuleDetailsDirectionIngress, Protocol: common.String("6"), Source: common.String("192.0.2.0/24"),
			Description: common.String(desc),
			TcpOptions:  &core.TcpOptions{DestinationPortRange: &core.PortRange{Min: common.Int(22), Max: common.Int(22)}}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	_, rules, _ := v.srv.NetworkSecurityGroup(*backend.Id)
	return &nsgNet{vcn: v, backend: *backend.Id, userRules: rules}
}

// frontend is what the orchestrator hands Manager.FrontendNSG for a Service ("namespace/name")
// in mode NSG.
func (n *nsgNet) frontend(service string) seclist.Frontend {
	ns, name, _ := strings.Cut(service, "/")
	return seclist.Frontend{Service: types.NamespacedName{Namespace: ns, Name: name}, UID: types.UID("uid-" + service),
		Mode: config.SecurityListModeNSG, Subnets: []string{n.lbSubnet}}
}

// claim is a Service in mode NSG with one TCP listener and node port, its nodes in the backend
// NSG.
func (n *nsgNet) claim(service string, port, nodePort int) seclist.Claim {
	return seclist.Claim{Service: nameOf(service), Mode: config.SecurityListModeNSG, LBSubnets: []string{n.lbSubnet},
		NodeSubnets: []string{n.nodeSubnet}, ListenerPorts: []int{port}, NodePorts: []int{nodePort},
		HealthCheckPort: lb.KubeProxyHealthPort, BackendNSGs: []string{n.backend}}
}

// ensure does what the CCM does for the Service: lb plans with its frontend NSG, then the rules.
func (n *nsgNet) ensure(t *testing.T, m *seclist.Manager, c seclist.Claim) string {
	t.Helper()
	id, err := m.FrontendNSG(t.Context(), n.frontend(c.Service.String()), true)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Reconcile(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	return id
}

// owned returns the rules of the group this cluster owns as "direction protocol peer:ports",
// with NSG peers named by names, sorted.
func (n *nsgNet) owned(t *testing.T, id string, names map[string]string) []string {
	t.Helper()
	_, rules, ok := n.srv.NetworkSecurityGroup(id)
	if !ok {
		t.Fatalf("network security group %s is gone", id)
	}
	var out []string
	for _, r := range rules {
		if r.Description == nil || *r.Description != seclist.Owner(cluster) {
			continue
		}
		peer := r.Source
		if r.Direction == core.SecurityRuleDirectionEgress {
			peer = r.Destination
		}
		var ports *core.PortRange
		switch {
		case r.TcpOptions != nil:
			ports = r.TcpOptions.DestinationPortRange
		case r.UdpOptions != nil:
			ports = r.UdpOptions.DestinationPortRange
		default:
			t.Fatalf("rule %+v has no ports", r)
		}
		name := *peer
		if nm, ok := names[*peer]; ok {
			name = nm
		}
		p := strconv.Itoa(*ports.Min)
		if *ports.Max != *ports.Min {
			p += "-" + strconv.Itoa(*ports.Max)
		}
		out = append(out, fmt.Sprintf("%s %s %s:%s", r.Direction, *r.Protocol, name, p))
	}
	slices.Sort(out)
	return out
}

// notOwnedNSGRules returns the group's rules this cluster does not own, in order.
func (n *nsgNet) notOwned(t *testing.T, id string) []core.SecurityRule {
	t.Helper()
	_, rules, _ := n.srv.NetworkSecurityGroup(id)
	return slices.DeleteFunc(rules, func(r core.SecurityRule) bool {
		return r.Description != nil && *r.Description == seclist.Owner(cluster)
	})
}

func TestNSGModeCreateUpdateDeleteLeavesNothingBehind(t *testing.T) {
	n := newNSGNet(t)
	m := n.manager(t, seclist.Options{})
	start := n.srv.Calls()

	c := n.claim("default/web", 80, 30080)
	front := n.ensure(t, m, c)
	g, _, ok := n.srv.NetworkSecurityGroup(front)
	if !ok {
		t.Fatalf("frontend NSG %q not created", front)
	}
	// The keys are a load balancer's ownership tags (lb/model's), which seclist writes as its own.
	if diff := cmp.Diff(map[string]string{model.TagCluster: cluster, model.TagService: "default/web", model.TagServiceUID: "uid-default/web"},
		g.FreeformTags); diff != "" {
		t.Errorf("frontend NSG tags (-want +got):\n%s", diff)
	}
	names := map[string]string{front: "frontend", n.backend: "backend"}
	steps := []struct {
		name          string
		change        func(*seclist.Claim)
		front, backed []string
	}{
		{"create", func(*seclist.Claim) {},
			[]string{"EGRESS 6 backend:10256", "EGRESS 6 backend:30080", "INGRESS 6 0.0.0.0/0:80"},
			[]string{"INGRESS 6 frontend:10256", "INGRESS 6 frontend:30080"}},
		{"port change", func(c *seclist.Claim) { c.ListenerPorts, c.NodePorts = []int{443}, []int{30443} },
			[]string{"EGRESS 6 backend:10256", "EGRESS 6 backend:30443", "INGRESS 6 0.0.0.0/0:443"},
			[]string{"INGRESS 6 frontend:10256", "INGRESS 6 frontend:30443"}},
		{"source range change", func(c *seclist.Claim) { c.SourceCIDRs = []string{"10.0.0.0/8", "192.0.2.0/24"} },
			[]string{"EGRESS 6 backend:10256", "EGRESS 6 backend:30443", "INGRESS 6 10.0.0.0/8:443", "INGRESS 6 192.0.2.0/24:443"},
			[]string{"INGRESS 6 frontend:10256", "INGRESS 6 frontend:30443"}},
	}
	for _, s := range steps {
		s.change(&c)
		if got := n.ensure(t, m, c); got != front {
			t.Fatalf("%s: frontend NSG %s, want the same %s", s.name, got, front)
		}
		if diff := cmp.Diff(s.front, n.owned(t, front, names)); diff != "" {
			t.Errorf("%s: frontend NSG rules (-want +got):\n%s", s.name, diff)
		}
		if diff := cmp.Diff(s.backed, n.owned(t, n.backend, names)); diff != "" {
			t.Errorf("%s: backend NSG rules (-want +got):\n%s", s.name, diff)
		}
		if diff := cmp.Diff(n.userRules, n.notOwned(t, n.backend)); diff != "" {
			t.Errorf("%s: rules not owned by the cluster changed (-want +got):\n%s", s.name, diff)
		}
	}

	// The load balancer is gone (the CCM deletes it first); then the rules and the group go.
	if err := m.Delete(t.Context(), seclist.Claim{Service: types.NamespacedName{Namespace: "default", Name: "web"}, Mode: config.SecurityListModeNSG, LBSubnets: []string{n.lbSubnet}}); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := n.srv.NetworkSecurityGroup(front); ok {
		t.Error("the frontend NSG outlived its Service")
	}
	if diff := cmp.Diff(n.userRules, mustRules(t, n, n.backend)); diff != "" {
		t.Errorf("backend NSG after delete (-want +got): want only the rules that were there before\n%s", diff)
	}
	calls := n.srv.Calls().Since(start)
	if got := calls.Op("UpdateSecurityList") + calls.Op("GetSecurityList"); got != 0 {
		t.Errorf("mode NSG touched security lists %d times, want 0", got)
	}
	if got := calls.Op("CreateNetworkSecurityGroup"); got != 1 {
		t.Errorf("CreateNetworkSecurityGroup calls = %d, want 1", got)
	}
}

func mustRules(t *testing.T, n *nsgNet, id string) []core.SecurityRule {
	t.Helper()
	_, rules, ok := n.srv.NetworkSecurityGroup(id)
	if !ok {
		t.Fatalf("network security group %s is gone", id)
	}
	return rules
}

func TestNSGModeReconcileWithNothingChangedCallsNothing(t *testing.T) {
	n := newNSGNet(t)
	m := n.manager(t, seclist.Options{})
	c := n.claim("default/web", 80, 30080)
	n.ensure(t, m, c)
	before := n.srv.Calls()
	for range 3 {
		n.ensure(t, m, c)
	}
	if calls := n.srv.Calls().Since(before); calls.Total() != 0 {
		t.Errorf("an unchanged Service made %d calls, want 0:\n%s", calls.Total(), calls)
	}
}

func TestNSGModeAfterARestartFindsTheFrontendNSGByItsTags(t *testing.T) {
	n := newNSGNet(t)
	c := n.claim("default/web", 80, 30080)
	first := n.ensure(t, n.manager(t, seclist.Options{}), c)

	restarted := n.youngManager(t, seclist.Options{}) // a new process: nothing in memory
	before := n.srv.Calls()
	if got := n.ensure(t, restarted, c); got != first {
		t.Errorf("after a restart the frontend NSG is %s, want the first one %s", got, first)
	}
	// ocitest's listing still lacks the group (Options.ListingLag): the restarted Manager may
	// repeat the create, whose retry token OCI answers with the first group; nothing else.
	calls := n.srv.Calls().Since(before)
	if calls.Class(ocitest.ClassWrite) != calls.Op("CreateNetworkSecurityGroup") {
		t.Errorf("a restart wrote more than a repeated create (want a listing, reads and at most that):\n%s", calls)
	}
	tagged := 0
	for _, g := range n.srv.NetworkSecurityGroups() { // a listing would not show it yet
		if g.FreeformTags[model.TagService] == "default/web" {
			tagged++
		}
	}
	if tagged != 1 {
		t.Errorf("%d frontend NSGs for one Service, want 1", tagged)
	}
	if got := n.owned(t, first, nil); len(got) != 3 {
		t.Errorf("the frontend NSG holds %d owned rules after the restart, want its 3, each once: %v", len(got), got)
	}
}

func TestNSGModeDeletesTheFrontendNSGItsPredecessorMadeJustBeforeARestart(t *testing.T) {
	n := newNSGNet(t)
	c := n.claim("default/web", 80, 30080)
	front := n.ensure(t, n.manager(t, seclist.Options{}), c)

	restarted := n.youngManager(t, seclist.Options{}) // a new process, within ocitest's listing lag
	if err := restarted.Prime([]seclist.Claim{c}); err != nil {
		t.Fatal(err)
	}
	if err := restarted.Delete(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := n.srv.NetworkSecurityGroup(front); ok {
		t.Error("the frontend NSG of a deleted Service outlived its Delete: a listing that could not show it yet was taken for its absence")
	}
}

func TestNSGModeLeavesOtherClustersRulesAndCoalescesConcurrentServices(t *testing.T) {
	n := newNSGNet(t)
	m := n.manager(t, seclist.Options{})
	const services = 50
	for i := range services { // lb plans each Service first, creating its frontend NSG
		if _, err := m.FrontendNSG(t.Context(), n.frontend(fmt.Sprintf("default/svc-%d", i)), true); err != nil {
			t.Fatal(err)
		}
	}
	before := n.srv.Calls()
	var wg sync.WaitGroup
	errs := make([]error, services)
	for i := range services {
		wg.Go(func() { errs[i] = m.Reconcile(t.Context(), n.claim(fmt.Sprintf("default/svc-%d", i), 80, 30000+i)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	calls := n.srv.Calls().Since(before)
	t.Logf("%d Services: %d AddNetworkSecurityGroupSecurityRules calls (%d to frontend NSGs), %d rule listings",
		services, calls.Op("AddNetworkSecurityGroupSecurityRules"), services, calls.Op("ListNetworkSecurityGroupSecurityRules"))
	// Each frontend NSG is written once; the backend NSG's 100 new rules (health check and node
	// port from each frontend NSG) come in far fewer writes than one per Service.
	if got := calls.Op("AddNetworkSecurityGroupSecurityRules") - services; got >= services/2 {
		// 100 rules need 4 adds of 25 at best.
		t.Errorf("backend NSG writes = %d for %d Services, want them coalesced\n%s", got, services, calls)
	}
	if got := len(n.owned(t, n.backend, nil)); got != 2*services {
		t.Errorf("backend NSG holds %d owned rules, want %d", got, 2*services)
	}
	if diff := cmp.Diff(n.userRules, n.notOwned(t, n.backend)); diff != "" {
		t.Errorf("rules not owned by the cluster changed (-want +got):\n%s", diff)
	}
}

func TestNSGModeOverTheGroupLimitIsACapacityErrorAndAdjacentPortsCoalesce(t *testing.T) {
	n := newNSGNet(t)
	m := n.manager(t, seclist.Options{})
	spread, adjacent := make([]int, 121), make([]int, 121)
	for i := range spread {
		spread[i], adjacent[i] = 8000+2*i, 8000+i
	}
	c := n.claim("default/web", 80, 30080)
	c.ListenerPorts = spread
	front, err := m.FrontendNSG(t.Context(), n.frontend(c.Service.String()), true)
	if err != nil {
		t.Fatal(err)
	}
	before := n.srv.Calls()
	err = m.Reconcile(t.Context(), c)
	var ce *seclist.CapacityError
	if !errors.As(err, &ce) || ce.ListID != front || ce.Limit != 120 || ce.Count != 123 {
		t.Fatalf("Reconcile = %v, want a CapacityError for the frontend NSG: 123 rules over 120", err)
	}
	if got := len(mustRules(t, n, front)); got != 0 {
		t.Errorf("the frontend NSG holds %d rules after the refused write, want 0", got)
	}
	if got := n.srv.Calls().Since(before).Status(400); got != 0 {
		t.Errorf("OCI answered 400 %d times: the limit must be caught before OCI refuses", got)
	}

	c.ListenerPorts = adjacent
	if err := m.Reconcile(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	want := []string{"EGRESS 6 backend:10256", "EGRESS 6 backend:30080", "INGRESS 6 0.0.0.0/0:8000-8120"}
	if diff := cmp.Diff(want, n.owned(t, front, map[string]string{n.backend: "backend"})); diff != "" {
		t.Errorf("frontend NSG rules (-want +got):\n%s", diff)
	}
}

func TestNSGModeLeavingItDeletesTheFrontendNSG(t *testing.T) {
	n := newNSGNet(t)
	m := n.manager(t, seclist.Options{})
	c := n.claim("default/web", 80, 30080)
	front := n.ensure(t, m, c)

	list := n.vcn.claim("default/web", 80, 30080) // the Service moves to mode All
	if err := m.Reconcile(t.Context(), list); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := n.srv.NetworkSecurityGroup(front); ok {
		t.Error("the frontend NSG outlived the Service's mode NSG")
	}
	if diff := cmp.Diff(n.userRules, mustRules(t, n, n.backend)); diff != "" {
		t.Errorf("backend NSG (-want +got): want only the rules that were there before\n%s", diff)
	}
	if diff := cmp.Diff([]string{"0.0.0.0/0:80"}, ownedIngress(n.list(t, n.lbList))); diff != "" {
		t.Errorf("LB list ingress (-want +got):\n%s", diff)
	}
}

func TestNSGModeDeleteWhileTheLoadBalancerStillHoldsTheFrontendNSGFails(t *testing.T) {
	n := newNSGNet(t)
	m := n.manager(t, seclist.Options{})
	front := n.ensure(t, m, n.claim("default/web", 80, 30080))
	n.srv.AddLoadBalancer(loadbalancer.LoadBalancer{NetworkSecurityGroupIds: []string{front}})

	err := m.Delete(t.Context(), seclist.Claim{Service: types.NamespacedName{Namespace: "default", Name: "web"}, LBSubnets: []string{n.lbSubnet}})
	if err == nil {
		t.Fatal("Delete succeeded while a load balancer is in the frontend NSG")
	}
	if _, _, ok := n.srv.NetworkSecurityGroup(front); !ok {
		t.Error("the frontend NSG is gone")
	}
}

func TestNSGModeRuleRemovedByHandIsRereadAndTheChangeReapplied(t *testing.T) {
	n := newNSGNet(t)
	m := n.manager(t, seclist.Options{})
	c := n.claim("default/web", 80, 30080)
	front := n.ensure(t, m, c)
	// Someone removes our node-port rule from the backend NSG: this process's view is stale.
	for _, r := range mustRules(t, n, n.backend) {
		if r.Description != nil && *r.Description == seclist.Owner(cluster) && *r.TcpOptions.DestinationPortRange.Min == 30080 {
			if err := n.vn.RemoveNetworkSecurityGroupSecurityRules(t.Context(), n.backend, []string{*r.Id}); err != nil {
				t.Fatal(err)
			}
		}
	}
	c.NodePorts = []int{30443} // the write removes the 30080 rule by an ID that is gone: OCI refuses
	before := n.srv.Calls()
	n.ensure(t, m, c)
	calls := n.srv.Calls().Since(before)
	if calls.Status(400) != 1 || calls.Op("ListNetworkSecurityGroupSecurityRules") != 1 {
		t.Errorf("want one refused write, then one read of the backend NSG:\n%s", calls)
	}
	names := map[string]string{front: "frontend", n.backend: "backend"}
	if diff := cmp.Diff([]string{"INGRESS 6 frontend:10256", "INGRESS 6 frontend:30443"}, n.owned(t, n.backend, names)); diff != "" {
		t.Errorf("backend NSG rules (-want +got):\n%s", diff)
	}
}

func TestNSGModeAfterARestartPrimedServicesKeepTheirBackendRules(t *testing.T) {
	n := newNSGNet(t)
	first := n.manager(t, seclist.Options{})
	web, api := n.claim("default/web", 80, 30080), n.claim("default/api", 443, 30443)
	webFront, apiFront := n.ensure(t, first, web), n.ensure(t, first, api)

	// A new process: Prime gives it every Service's claim as the orchestrator builds it, without the
	// frontend NSGs; then one Service changes.
	restarted, err := seclist.NewManager(n.vn, seclist.Options{Policy: seclist.Policy{Cluster: cluster}, ListingLag: ocitest.DefaultListingLag})
	if err != nil {
		t.Fatal(err)
	}
	if err := restarted.Prime([]seclist.Claim{web, api}); err != nil {
		t.Fatal(err)
	}
	before := n.srv.Calls()
	api.NodePorts = []int{30444}
	n.ensure(t, restarted, api)
	names := map[string]string{webFront: "web", apiFront: "api"}
	want := []string{"INGRESS 6 api:10256", "INGRESS 6 api:30444", "INGRESS 6 web:10256", "INGRESS 6 web:30080"}
	if diff := cmp.Diff(want, n.owned(t, n.backend, names)); diff != "" {
		t.Errorf("backend NSG rules (-want +got): the primed Service's rules must stay\n%s", diff)
	}
	// While ocitest's listing lags, api's create lists once and web's look once more; the
	// listing after the lag finds every Service's group: not one listing per Service after it.
	if got := n.srv.Calls().Since(before).Op("ListNetworkSecurityGroups"); got > 3 {
		t.Errorf("ListNetworkSecurityGroups calls = %d, want at most 3: one listing after the lag finds every Service's frontend NSG", got)
	}
}

func TestNSGModeLeftWhileNoCCMRanTheFrontendNSGIsDeletedOnceFound(t *testing.T) {
	n := newNSGNet(t)
	first := n.manager(t, seclist.Options{})
	api := n.claim("default/api", 443, 30443)
	webFront := n.ensure(t, first, n.claim("default/web", 80, 30080))
	n.ensure(t, first, api)

	// While no CCM ran, web moved to mode All: the new process is primed with that claim.
	restarted, err := seclist.NewManager(n.vn, seclist.Options{Policy: seclist.Policy{Cluster: cluster}, ListingLag: ocitest.DefaultListingLag})
	if err != nil {
		t.Fatal(err)
	}
	web := n.vcn.claim("default/web", 80, 30080)
	if err := restarted.Prime([]seclist.Claim{web, api}); err != nil {
		t.Fatal(err)
	}
	n.ensure(t, restarted, api) // finds every frontend NSG of the VCN, web's included
	if err := restarted.Reconcile(t.Context(), web); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := n.srv.NetworkSecurityGroup(webFront); ok {
		t.Error("the frontend NSG of a Service that left mode NSG while no CCM ran outlived its next reconcile")
	}
	if got := n.owned(t, n.backend, nil); len(got) != 2 {
		t.Errorf("backend NSG holds %d owned rules, want api's 2: %v", len(got), got)
	}
}

// TestFrontendNSGWithoutCreateOnlyLooks: lb's dry run and drift check pass create false, and
// must not make a group: "" and no write for a Service that has none; the group once made, a
// new Manager (a restart) finds it by its tags, still without writing.
func TestFrontendNSGWithoutCreateOnlyLooks(t *testing.T) {
	n := newNSGNet(t)
	m := n.manager(t, seclist.Options{})
	front := n.frontend("default/web")
	before := n.srv.Calls()
	id, err := m.FrontendNSG(t.Context(), front, false)
	if err != nil || id != "" {
		t.Fatalf("FrontendNSG(create false) = %q, %v; want \"\" for a Service with no group", id, err)
	}
	if w := n.srv.Calls().Since(before).Class(ocitest.ClassWrite); w != 0 {
		t.Fatalf("FrontendNSG(create false) wrote %d times, want 0", w)
	}
	created, err := m.FrontendNSG(t.Context(), front, true)
	if err != nil || created == "" {
		t.Fatalf("FrontendNSG(create true) = %q, %v; want a new group", created, err)
	}
	before = n.srv.Calls()
	for _, mgr := range []*seclist.Manager{m, n.youngManager(t, seclist.Options{})} {
		if id, err := mgr.FrontendNSG(t.Context(), front, false); err != nil || id != created {
			t.Errorf("FrontendNSG(create false) = %q, %v; want the existing %s", id, err, created)
		}
	}
	if w := n.srv.Calls().Since(before).Class(ocitest.ClassWrite); w != 0 {
		t.Errorf("looking the group up wrote %d times, want 0", w)
	}
}

// withoutGet is a VirtualNetwork that cannot read one group (GetNetworkSecurityGroup): only a
// listing can confirm a group gone.
type withoutGet struct{ seclist.VirtualNetwork }

// TestFrontendNSGDeleteAnswering404IsBelievedOnlyOnceOCIShowsTheGroupGone: OCI answers
// DeleteNetworkSecurityGroup with 404 NotAuthorizedOrNotFound also for a group the policy does not
// let the CCM delete. Taken for "gone", the Service forgot a group that still existed (the fault
// soak's orphan). A read, or else a listing made once the listing lag has passed since the group
// was created, must show it gone first; until then the group stays the Service's, and the next
// Delete (or Reconcile) deletes it.
func TestFrontendNSGDeleteAnswering404IsBelievedOnlyOnceOCIShowsTheGroupGone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		leave bool // the Service leaves mode NSG (Reconcile) instead of being deleted
		get   bool // the VirtualNetwork can read one group
	}{
		{"delete, read", false, true},
		{"delete, listing right after the create", false, false},
		{"leaving mode NSG, read", true, true},
		{"leaving mode NSG, listing right after the create", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newNSGNet(t)
			var vn seclist.VirtualNetwork = n.vn
			if !tc.get {
				vn = withoutGet{n.vn}
			}
			m, err := seclist.NewManager(vn, seclist.Options{Policy: seclist.Policy{Cluster: cluster}, ListingLag: ocitest.DefaultListingLag})
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Prime(nil); err != nil {
				t.Fatal(err)
			}
			front := n.ensure(t, m, n.claim("default/web", 80, 30080))
			// The group was created a moment ago: ocitest's listing lacks it for DefaultListingLag.
			step := func() error {
				if tc.leave {
					return m.Reconcile(t.Context(), n.vcn.claim("default/web", 80, 30080))
				}
				return m.Delete(t.Context(), seclist.Claim{Service: types.NamespacedName{Namespace: "default", Name: "web"}, LBSubnets: []string{n.lbSubnet}})
			}
			remove := n.srv.InjectFault(ocitest.Fault{Operation: "DeleteNetworkSecurityGroup", Status: 404, Code: "NotAuthorizedOrNotFound"})
			err = step()
			remove()
			if err == nil {
				t.Fatal("a DeleteNetworkSecurityGroup answered 404 for a group that still exists was taken for success")
			}
			if !strings.Contains(err.Error(), "manage network-security-groups") {
				t.Errorf("error %q does not name the statement the policy most likely lacks", err)
			}
			if _, _, ok := n.srv.NetworkSecurityGroup(front); !ok {
				t.Fatal("the frontend NSG is gone")
			}
			if err := step(); err != nil {
				t.Fatal(err)
			}
			if _, _, ok := n.srv.NetworkSecurityGroup(front); ok {
				t.Error("the frontend NSG outlived the Service's next sync")
			}
			if diff := cmp.Diff(n.userRules, mustRules(t, n, n.backend)); diff != "" {
				t.Errorf("backend NSG (-want +got): want only the rules that were there before\n%s", diff)
			}
		})
	}
}

// TestFrontendNSGDeletedByAnAnswerLostIsConfirmedGone: a DeleteNetworkSecurityGroup that OCI
// applied but whose answer was lost is retried; its 404 then is confirmed by a read or a listing,
// and the Service is done.
func TestFrontendNSGDeletedByAnAnswerLostIsConfirmedGone(t *testing.T) {
	for _, get := range []bool{true, false} {
		t.Run(fmt.Sprintf("read %v", get), func(t *testing.T) {
			n := newNSGNet(t)
			var vn seclist.VirtualNetwork = n.vn
			if !get {
				vn = withoutGet{n.vn}
			}
			m, err := seclist.NewManager(vn, seclist.Options{Policy: seclist.Policy{Cluster: cluster}, ListingLag: ocitest.NoLag})
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Prime(nil); err != nil {
				t.Fatal(err)
			}
			front := n.ensure(t, m, n.claim("default/web", 80, 30080))
			n.srv.InjectFault(ocitest.Fault{Operation: "DeleteNetworkSecurityGroup", Status: 500, AfterHandler: true, Times: 1})
			del := func() error {
				return m.Delete(t.Context(), seclist.Claim{Service: types.NamespacedName{Namespace: "default", Name: "web"}, LBSubnets: []string{n.lbSubnet}})
			}
			if err := del(); err != nil {
				if err := del(); err != nil { // the client did not retry the 500: the next Delete does
					t.Fatal(err)
				}
			}
			if _, _, ok := n.srv.NetworkSecurityGroup(front); ok {
				t.Error("the frontend NSG is still there")
			}
		})
	}
}

// TestFrontendNSGLeftBehindByA500IsFoundThroughTheListingLagAfterARestart: the Service left mode
// NSG, and DeleteNetworkSecurityGroup answered 500 without deleting its group; then the process
// restarted within ocitest's listing lag (the group was created a moment ago, so a listing lacks
// it) and the Service, no longer in mode NSG, is deleted. Delete must wait out the lag and find
// the group by its tags, not take the first listing for its absence.
func TestFrontendNSGLeftBehindByA500IsFoundThroughTheListingLagAfterARestart(t *testing.T) {
	n := newNSGNet(t)
	m := n.manager(t, seclist.Options{})
	front := n.ensure(t, m, n.claim("default/web", 80, 30080))
	all := n.vcn.claim("default/web", 80, 30080) // the Service moves to mode All
	remove := n.srv.InjectFault(ocitest.Fault{Operation: "DeleteNetworkSecurityGroup", Status: 500})
	if err := m.Reconcile(t.Context(), all); err == nil {
		t.Error("the Reconcile whose DeleteNetworkSecurityGroup answered 500 succeeded")
	}
	remove()
	if _, _, ok := n.srv.NetworkSecurityGroup(front); !ok {
		t.Fatal("the frontend NSG is gone, though its delete was not applied")
	}

	restarted := n.youngManager(t, seclist.Options{}) // a new process: nothing in memory
	if err := restarted.Prime([]seclist.Claim{all}); err != nil {
		t.Fatal(err)
	}
	if err := restarted.Delete(t.Context(), all); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := n.srv.NetworkSecurityGroup(front); ok {
		t.Error("the frontend NSG of a Service that left mode NSG outlived its Delete after a restart")
	}
	if diff := cmp.Diff(n.userRules, mustRules(t, n, n.backend)); diff != "" {
		t.Errorf("backend NSG (-want +got): want only the rules that were there before\n%s", diff)
	}
}
