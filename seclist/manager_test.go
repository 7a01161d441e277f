// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist_test

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
	"github.com/oci-ccm/oci-ccm/seclist"
)

func TestReconcileWritesEachListOnceAndKeepsRulesNotOwned(t *testing.T) {
	v := newVCN(t)
	m := v.manager(t, seclist.Options{})
	before := v.srv.Calls()

	if err := m.Reconcile(t.Context(), v.claim("default/web", 80, 30080)); err != nil {
		t.Fatal(err)
	}

	calls := v.srv.Calls().Since(before)
	if got := calls.Op("UpdateSecurityList"); got != 2 {
		t.Errorf("UpdateSecurityList calls = %d, want 2 (one per list)", got)
	}
	lb, nodes := v.list(t, v.lbList), v.list(t, v.nodeList)
	if diff := cmp.Diff([]string{"0.0.0.0/0:80"}, ownedIngress(lb)); diff != "" {
		t.Errorf("LB list ingress (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"10.0.10.0/24:10256", "10.0.10.0/24:30080"}, ownedEgress(lb)); diff != "" {
		t.Errorf("LB list egress (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"10.0.1.0/24:10256", "10.0.1.0/24:30080"}, ownedIngress(nodes)); diff != "" {
		t.Errorf("node list ingress (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(v.userIngress, notOwnedIngress(lb)); diff != "" {
		t.Errorf("rules not owned by the cluster changed (-want +got):\n%s", diff)
	}
	if n := len(lb.EgressSecurityRules); n != 3 || *lb.EgressSecurityRules[0].Protocol != "all" {
		t.Errorf("LB list egress = %d rules starting %v; want the user's allow-all rule first, then ours", n, lb.EgressSecurityRules[0])
	}
}

func TestReconcileWithNothingChangedCallsNothing(t *testing.T) {
	v := newVCN(t)
	m := v.manager(t, seclist.Options{})
	c := v.claim("default/web", 80, 30080)
	if err := m.Reconcile(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	before := v.srv.Calls()

	for range 3 {
		if err := m.Reconcile(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}

	calls := v.srv.Calls().Since(before)
	if got := calls.Op("GetSecurityList"); got != 0 {
		t.Errorf("GetSecurityList calls = %d, want 0 (both lists are as this process wrote them)", got)
	}
	if got := calls.Op("UpdateSecurityList"); got != 0 {
		t.Errorf("UpdateSecurityList calls = %d, want 0", got)
	}
	if got := calls.Total(); got != 0 {
		t.Errorf("calls to OCI = %d, want 0", got)
	}
}

// TestChangeMadeElsewhereIsKeptWhenOurNextWriteMeetsA412 is the safety net of remembering lists:
// someone edits the LB list after our last write, our next real change writes with the ETag we
// remember, OCI refuses it with 412, and the list is read again and the change re-applied, so
// both their edit and our change are in the list.
func TestChangeMadeElsewhereIsKeptWhenOurNextWriteMeetsA412(t *testing.T) {
	v := newVCN(t)
	m := v.manager(t, seclist.Options{})
	if err := m.Reconcile(t.Context(), v.claim("default/a", 80, 30080)); err != nil {
		t.Fatal(err)
	}
	theirs := userRule("192.168.0.0/16", 2222, "added in the console")
	v.srv.EditSecurityList(v.lbList, func(l *core.SecurityList) {
		l.IngressSecurityRules = append(l.IngressSecurityRules, theirs)
	})
	before := v.srv.Calls()

	if err := m.Reconcile(t.Context(), v.claim("default/b", 443, 30443)); err != nil {
		t.Fatal(err)
	}

	calls := v.srv.Calls().Since(before)
	got := map[string]int{
		"GetSecurityList":       calls.Op("GetSecurityList"),
		"UpdateSecurityList":    calls.Op("UpdateSecurityList"),
		"412 NoEtagMatch":       calls.Status(http.StatusPreconditionFailed),
		"GetSubnet on the wire": calls.Op("GetSubnet"),
	}
	want := map[string]int{
		"GetSecurityList":       1, // the LB list, after its 412; the node list is as we left it
		"UpdateSecurityList":    3, // LB list refused, LB list again, node list
		"412 NoEtagMatch":       1,
		"GetSubnet on the wire": 0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	lb := v.list(t, v.lbList)
	if diff := cmp.Diff([]string{"0.0.0.0/0:443", "0.0.0.0/0:80"}, ownedIngress(lb)); diff != "" {
		t.Errorf("LB ingress of ours (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(append(slices.Clone(v.userIngress), theirs), notOwnedIngress(lb)); diff != "" {
		t.Errorf("the other writer's change was lost (-want +got):\n%s", diff)
	}
}

func TestRulesStayWhileAnotherServiceNeedsThem(t *testing.T) {
	v := newVCN(t)
	m := v.manager(t, seclist.Options{})
	a := v.claim("default/a", 80, 30001)
	b := v.claim("default/b", 80, 30002) // shares listener port 80 and the health port
	for _, c := range []seclist.Claim{a, b} {
		if err := m.Reconcile(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"0.0.0.0/0:80"}, ownedIngress(v.list(t, v.lbList))); diff != "" {
		t.Errorf("a port two Services share must be one rule (-want +got):\n%s", diff)
	}

	if err := m.Delete(t.Context(), seclist.Claim{Service: a.Service}); err != nil {
		t.Fatal(err)
	}
	lb := v.list(t, v.lbList)
	if diff := cmp.Diff([]string{"0.0.0.0/0:80"}, ownedIngress(lb)); diff != "" {
		t.Errorf("LB ingress after deleting a (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"10.0.10.0/24:10256", "10.0.10.0/24:30002"}, ownedEgress(lb)); diff != "" {
		t.Errorf("LB egress after deleting a (-want +got):\n%s", diff)
	}

	if err := m.Delete(t.Context(), seclist.Claim{Service: b.Service}); err != nil {
		t.Fatal(err)
	}
	lb, nodes := v.list(t, v.lbList), v.list(t, v.nodeList)
	if got := append(append(ownedIngress(lb), ownedEgress(lb)...), ownedIngress(nodes)...); len(got) != 0 {
		t.Errorf("owned rules left after the last Service went: %v", got)
	}
	if diff := cmp.Diff(v.userIngress, lb.IngressSecurityRules); diff != "" {
		t.Errorf("LB list should hold exactly the user's rules again (-want +got):\n%s", diff)
	}
}

func TestPortChangeLeavesNoStaleRule(t *testing.T) {
	v := newVCN(t)
	m := v.manager(t, seclist.Options{})
	if err := m.Reconcile(t.Context(), v.claim("default/web", 80, 30080)); err != nil {
		t.Fatal(err)
	}
	if err := m.Reconcile(t.Context(), v.claim("default/web", 8080, 30081)); err != nil {
		t.Fatal(err)
	}
	lb, nodes := v.list(t, v.lbList), v.list(t, v.nodeList)
	if diff := cmp.Diff([]string{"0.0.0.0/0:8080"}, ownedIngress(lb)); diff != "" {
		t.Errorf("LB ingress (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"10.0.1.0/24:10256", "10.0.1.0/24:30081"}, ownedIngress(nodes)); diff != "" {
		t.Errorf("node ingress (-want +got):\n%s", diff)
	}
}

func TestStaleETagIsRetriedAfterRereading(t *testing.T) {
	v := newVCN(t)
	m := v.manager(t, seclist.Options{})
	v.srv.InjectFault(ocitest.Fault{Operation: "UpdateSecurityList", Status: http.StatusPreconditionFailed, Code: "NoEtagMatch", Times: 3})
	before := v.srv.Calls()

	c := v.claim("default/web", 80, 30080)
	c.Mode = config.SecurityListModeFrontend // one list, so the counts are that list's
	if err := m.Reconcile(t.Context(), c); err != nil {
		t.Fatalf("Reconcile() = %v, want the 412s retried", err)
	}

	calls := v.srv.Calls().Since(before)
	if got := calls.Status(http.StatusPreconditionFailed); got != 3 {
		t.Errorf("412 answers = %d, want 3", got)
	}
	if got := calls.Op("UpdateSecurityList"); got != 4 {
		t.Errorf("UpdateSecurityList calls = %d, want 4 (3 refused, 1 accepted)", got)
	}
	if got := calls.Op("GetSecurityList"); got != 4 {
		t.Errorf("GetSecurityList calls = %d, want 4 (a fresh read before every write)", got)
	}
	if diff := cmp.Diff([]string{"0.0.0.0/0:80"}, ownedIngress(v.list(t, v.lbList))); diff != "" {
		t.Errorf("LB ingress (-want +got):\n%s", diff)
	}
}

func TestStaleETagRetriesAreBounded(t *testing.T) {
	v := newVCN(t)
	m := v.manager(t, seclist.Options{Attempts: 3})
	v.srv.InjectFault(ocitest.Fault{Operation: "UpdateSecurityList", Status: http.StatusPreconditionFailed, Code: "NoEtagMatch"})
	before := v.srv.Calls()

	c := v.claim("default/web", 80, 30080)
	c.Mode = config.SecurityListModeFrontend
	err := m.Reconcile(t.Context(), c)

	if !ociclient.IsPreconditionFailed(err) {
		t.Fatalf("Reconcile() = %v, want the last 412 after the attempts ran out", err)
	}
	if got := v.srv.Calls().Since(before).Op("UpdateSecurityList"); got != 3 {
		t.Errorf("UpdateSecurityList calls = %d, want 3", got)
	}
}

// TestRuleRemovedByHandIsRestored: a rule of ours removed by hand is put back by the next
// write to its list (which meets a 412 and reads the list again), by the first reconcile once
// the remembered list is older than MaxListAge, or after ForgetLists. A no-op reconcile within
// MaxListAge calls nothing, by design (see DefaultMaxListAge).
func TestRuleRemovedByHandIsRestored(t *testing.T) {
	tests := []struct {
		name string
		// then runs after the removal and must lead to the rule being restored.
		then func(t *testing.T, v *vcn, m *seclist.Manager, c seclist.Claim, clock *fakeClock)
	}{
		{"by the next change to the list", func(t *testing.T, v *vcn, m *seclist.Manager, _ seclist.Claim, _ *fakeClock) {
			other := v.claim("default/other", 443, 30443)
			if err := m.Reconcile(t.Context(), other); err != nil {
				t.Fatal(err)
			}
		}},
		{"by a no-op reconcile once the list is older than MaxListAge", func(t *testing.T, _ *vcn, m *seclist.Manager, c seclist.Claim, clock *fakeClock) {
			clock.advance(seclist.DefaultMaxListAge)
			if err := m.Reconcile(t.Context(), c); err != nil {
				t.Fatal(err)
			}
		}},
		{"by a no-op reconcile after ForgetLists", func(t *testing.T, _ *vcn, m *seclist.Manager, c seclist.Claim, _ *fakeClock) {
			m.ForgetLists()
			if err := m.Reconcile(t.Context(), c); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newVCN(t)
			m := v.manager(t, seclist.Options{})
			clock := &fakeClock{t: time.Date(2026, 12, 2, 23, 0, 0, 0, time.UTC)}
			m.SetClock(clock.now)
			c := v.claim("default/web", 80, 30080)
			if err := m.Reconcile(t.Context(), c); err != nil {
				t.Fatal(err)
			}
			v.srv.EditSecurityList(v.lbList, func(l *core.SecurityList) {
				l.IngressSecurityRules = notOwnedIngress(*l)
			})

			tt.then(t, v, m, c, clock)

			if got := ownedIngress(v.list(t, v.lbList)); !slices.Contains(got, "0.0.0.0/0:80") {
				t.Errorf("LB ingress of ours = %v, want 0.0.0.0/0:80 restored", got)
			}
		})
	}
}

func TestCapacityErrorNamesListAndWritesNothing(t *testing.T) {
	v := newVCN(t)
	m := v.manager(t, seclist.Options{Limits: seclist.Limits{Ingress: 4}})
	before := v.srv.Calls()
	c := v.claim("default/web", 80, 30080)
	c.Mode = config.SecurityListModeFrontend
	c.ListenerPorts = []int{80, 443, 8080} // 2 rules not ours + 3 = 5 > 4

	err := m.Reconcile(t.Context(), c)

	var ce *seclist.CapacityError
	if !errors.As(err, &ce) {
		t.Fatalf("Reconcile() = %v, want a *CapacityError", err)
	}
	want := &seclist.CapacityError{ListID: v.lbList, Direction: seclist.Ingress, Count: 5, Limit: 4}
	if diff := cmp.Diff(want, ce); diff != "" {
		t.Errorf("CapacityError (-want +got):\n%s", diff)
	}
	if got := v.srv.Calls().Since(before).Op("UpdateSecurityList"); got != 0 {
		t.Errorf("UpdateSecurityList calls = %d, want 0", got)
	}
}

// TestModeNoneMakesNoSecurityListCalls: a Service in mode None reads and writes no security
// list. The first Reconcile in a VCN looks for a frontend NSG a Service left behind (one listing
// of the VCN's groups per process, see Manager.Reconcile); after it, none calls anything.
func TestModeNoneMakesNoSecurityListCalls(t *testing.T) {
	v := newVCN(t)
	m := v.manager(t, seclist.Options{})
	before := v.srv.Calls()
	c := v.claim("default/web", 80, 30080)
	c.Mode = config.SecurityListModeNone
	if err := m.Reconcile(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	calls := v.srv.Calls().Since(before)
	if n := calls.Op("GetSecurityList") + calls.Op("UpdateSecurityList"); n != 0 {
		t.Errorf("security-list calls = %d, want 0:\n%s", n, calls)
	}
	if n := calls.Op("ListNetworkSecurityGroups"); n != 1 {
		t.Errorf("ListNetworkSecurityGroups = %d, want 1 (the VCN's first Reconcile looks for a group left behind):\n%s", n, calls)
	}
	before = v.srv.Calls()
	c2 := v.claim("default/api", 8080, 30081)
	c2.Mode = config.SecurityListModeNone
	for _, claim := range []seclist.Claim{c, c2} {
		if err := m.Reconcile(t.Context(), claim); err != nil {
			t.Fatal(err)
		}
	}
	if calls := v.srv.Calls().Since(before); calls.Total() != 0 {
		t.Errorf("later Reconciles in mode None made %d calls, want 0:\n%s", calls.Total(), calls)
	}
}

func TestSwitchingToModeNoneRemovesTheServicesRules(t *testing.T) {
	v := newVCN(t)
	m := v.manager(t, seclist.Options{})
	c := v.claim("default/web", 80, 30080)
	if err := m.Reconcile(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	c.Mode = config.SecurityListModeNone
	if err := m.Reconcile(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	lb, nodes := v.list(t, v.lbList), v.list(t, v.nodeList)
	if got := append(append(ownedIngress(lb), ownedEgress(lb)...), ownedIngress(nodes)...); len(got) != 0 {
		t.Errorf("owned rules left after switching to None: %v", got)
	}
}

func TestUnprimedManagerOnlyAdds(t *testing.T) {
	v := newVCN(t)
	// A rule of ours from before a restart, needed by a Service the new process has not seen yet.
	v.srv.EditSecurityList(v.lbList, func(l *core.SecurityList) {
		l.IngressSecurityRules = append(l.IngressSecurityRules, userRule("0.0.0.0/0", 9090, seclist.Owner(cluster)))
	})
	m, err := seclist.NewManager(v.vn, seclist.Options{Policy: seclist.Policy{Cluster: cluster}})
	if err != nil {
		t.Fatal(err)
	}
	c := v.claim("default/web", 80, 30080)
	c.Mode = config.SecurityListModeFrontend

	if err := m.Reconcile(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"0.0.0.0/0:80", "0.0.0.0/0:9090"}, ownedIngress(v.list(t, v.lbList))); diff != "" {
		t.Errorf("before Prime, nothing may be removed (-want +got):\n%s", diff)
	}

	if err := m.Prime([]seclist.Claim{c}); err != nil {
		t.Fatal(err)
	}
	if err := m.Reconcile(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"0.0.0.0/0:80"}, ownedIngress(v.list(t, v.lbList))); diff != "" {
		t.Errorf("after Prime, unneeded rules go (-want +got):\n%s", diff)
	}
}

func TestDeleteCleansUpAServiceThisProcessNeverSaw(t *testing.T) {
	v := newVCN(t)
	first := v.manager(t, seclist.Options{})
	if err := first.Reconcile(t.Context(), v.claim("default/web", 80, 30080)); err != nil {
		t.Fatal(err)
	}
	// A restart: the Service was deleted while no CCM ran, so it is not among the primed claims.
	m := v.manager(t, seclist.Options{})

	err := m.Delete(t.Context(), seclist.Claim{Service: types.NamespacedName{Namespace: "default", Name: "web"},
		LBSubnets: []string{v.lbSubnet}, NodeSubnets: []string{v.nodeSubnet}})
	if err != nil {
		t.Fatal(err)
	}
	lb, nodes := v.list(t, v.lbList), v.list(t, v.nodeList)
	if got := append(append(ownedIngress(lb), ownedEgress(lb)...), ownedIngress(nodes)...); len(got) != 0 {
		t.Errorf("owned rules left: %v", got)
	}
}

func TestSubnetThatCannotBeReadStopsRemovalsButNotAdditions(t *testing.T) {
	v := newVCN(t)
	v.srv.EditSecurityList(v.lbList, func(l *core.SecurityList) {
		l.IngressSecurityRules = append(l.IngressSecurityRules, userRule("0.0.0.0/0", 9090, seclist.Owner(cluster)))
	})
	m, err := seclist.NewManager(v.vn, seclist.Options{Policy: seclist.Policy{Cluster: cluster}})
	if err != nil {
		t.Fatal(err)
	}
	// A Service whose claim (from the informer cache) names a subnet OCI answers 404 for.
	stale := v.claim("default/old", 9090, 30909)
	stale.NodeSubnets = []string{"ocid1.subnet.oc1.phx.gone"}
	if err := m.Prime([]seclist.Claim{stale}); err != nil {
		t.Fatal(err)
	}

	c := v.claim("default/web", 80, 30080)
	if err := m.Reconcile(t.Context(), c); err != nil {
		t.Fatalf("Reconcile() = %v; a subnet only another Service names must not fail this one", err)
	}
	if diff := cmp.Diff([]string{"0.0.0.0/0:80", "0.0.0.0/0:9090"}, ownedIngress(v.list(t, v.lbList))); diff != "" {
		t.Errorf("rules are added, none removed, while a subnet cannot be read (-want +got):\n%s", diff)
	}

	if err := m.Delete(t.Context(), seclist.Claim{Service: stale.Service}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"0.0.0.0/0:80"}, ownedIngress(v.list(t, v.lbList))); diff != "" {
		t.Errorf("once no claim names the subnet, unneeded rules go (-want +got):\n%s", diff)
	}
}

func TestSubnetWithoutListFailsTheServiceAndWritesNothing(t *testing.T) {
	v := newVCN(t)
	net, _ := v.srv.SecurityList(v.lbList)
	bare := v.srv.AddSubnet(core.Subnet{VcnId: net.VcnId, CidrBlock: common.String("10.0.30.0/24")})
	m := v.manager(t, seclist.Options{})
	before := v.srv.Calls()
	c := v.claim("default/web", 80, 30080)
	c.NodeSubnets = []string{*bare.Id}

	err := m.Reconcile(t.Context(), c)

	if !errors.Is(err, seclist.ErrNoSecurityList) {
		t.Fatalf("Reconcile() = %v, want ErrNoSecurityList", err)
	}
	if got := v.srv.Calls().Since(before).Op("UpdateSecurityList"); got != 0 {
		t.Errorf("UpdateSecurityList calls = %d, want 0", got)
	}
}

func TestInvalidClaimCallsNothing(t *testing.T) {
	v := newVCN(t)
	m := v.manager(t, seclist.Options{})
	before := v.srv.Calls()
	c := v.claim("default/web", 80, 30080)
	c.SourceCIDRs = []string{"10.0.0.0/33"}

	if err := m.Reconcile(t.Context(), c); !errors.Is(err, seclist.ErrInvalid) {
		t.Fatalf("Reconcile() = %v, want ErrInvalid", err)
	}
	if got := v.srv.Calls().Since(before).Total(); got != 0 {
		t.Errorf("calls to OCI = %d, want 0", got)
	}
}

// TestFiftyServicesAtOnceWhileSomeoneEditsTheList is the concurrency test: 50 Services reconcile
// at the same time while another actor keeps adding and removing its own rules in the LB list
// and OCI refuses a few writes with 412. The final list must hold exactly the actor's rules (in
// its order) plus the union of the claims, and coalescing must keep the writes far below one per
// Service.
func TestFiftyServicesAtOnceWhileSomeoneEditsTheList(t *testing.T) {
	const services = 50
	v := newVCN(t)
	m := v.manager(t, seclist.Options{Attempts: 30})
	v.srv.InjectFault(ocitest.Fault{Operation: "UpdateSecurityList", Status: http.StatusPreconditionFailed, Code: "NoEtagMatch", Times: 5})
	before := v.srv.Calls()

	// The actor makes 15 edits, 3ms apart: it appends rules on ports 2000.. and every third edit
	// removes its oldest rule. Its edits are bounded, so at most 15+5 writes can be refused and
	// Attempts (30) is enough whatever the timing: the test checks the outcome, not a race.
	const edits = 15
	actorRules := append([]core.IngressSecurityRule(nil), v.userIngress...)
	actorDone := make(chan struct{})
	go func() {
		defer close(actorDone)
		for i := range edits {
			v.srv.EditSecurityList(v.lbList, func(l *core.SecurityList) {
				if i%3 == 2 {
					victim := actorRules[0]
					actorRules = actorRules[1:]
					l.IngressSecurityRules = removeRule(l.IngressSecurityRules, victim)
					return
				}
				r := userRule("192.168.0.0/16", 2000+i, fmt.Sprintf("edited by hand %d", i))
				actorRules = append(actorRules, r)
				l.IngressSecurityRules = append(l.IngressSecurityRules, r)
			})
			time.Sleep(3 * time.Millisecond) // a busy person, not a tight loop
		}
	}()

	claims := make([]seclist.Claim, services)
	errs := make([]error, services)
	var wg sync.WaitGroup
	for i := range services {
		claims[i] = v.claim(fmt.Sprintf("ns/svc-%02d", i), 1000+i%10, 30000+i) // listener ports shared by 5 each
		wg.Go(func() { errs[i] = m.Reconcile(t.Context(), claims[i]) })
	}
	wg.Wait()
	<-actorDone
	for i, err := range errs {
		if err != nil {
			t.Errorf("Reconcile(%s) = %v", claims[i].Service, err)
		}
	}

	calls := v.srv.Calls().Since(before)
	puts, refused := calls.Op("UpdateSecurityList"), calls.Status(http.StatusPreconditionFailed)
	t.Logf("%d Services: %d UpdateSecurityList calls (%d refused with 412), %d GetSecurityList calls, %d GetSubnet calls",
		services, puts, refused, calls.Op("GetSecurityList"), calls.Op("GetSubnet"))
	if refused < 5 {
		t.Errorf("412 answers = %d, want at least the 5 injected", refused)
	}
	if accepted := puts - refused; accepted >= 25 {
		t.Errorf("accepted writes = %d for %d Services on 2 lists; coalescing should keep them far below one per Service", accepted, services)
	}

	lb, nodes := v.list(t, v.lbList), v.list(t, v.nodeList)
	if diff := cmp.Diff(actorRules, notOwnedIngress(lb)); diff != "" {
		t.Errorf("rules not owned by the cluster (-want +got):\n%s", diff)
	}
	// Listener ports 1000-1009 and node ports 30000-30049 are adjacent, so each makes one rule.
	wantLBIn := []string{"0.0.0.0/0:1000-1009"}
	wantLBOut := []string{v.nodeCIDR + ":10256", v.nodeCIDR + ":30000-30049"}
	wantNodeIn := []string{v.lbCIDR + ":10256", v.lbCIDR + ":30000-30049"}
	sorted := cmpopts.SortSlices(func(a, b string) bool { return a < b })
	if diff := cmp.Diff(wantLBIn, ownedIngress(lb), sorted); diff != "" {
		t.Errorf("LB ingress (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantLBOut, ownedEgress(lb), sorted); diff != "" {
		t.Errorf("LB egress (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantNodeIn, ownedIngress(nodes), sorted); diff != "" {
		t.Errorf("node ingress (-want +got):\n%s", diff)
	}
}

func removeRule(rules []core.IngressSecurityRule, victim core.IngressSecurityRule) []core.IngressSecurityRule {
	out := rules[:0:0]
	for _, r := range rules {
		if !cmp.Equal(r, victim) {
			out = append(out, r)
		}
	}
	return out
}

func TestUnknownClaimStopsRemovalsUntilItsServiceIsReconciled(t *testing.T) {
	v := newVCN(t)
	// A rule of ours from before a restart, needed by a Service whose claim cannot be computed.
	v.srv.EditSecurityList(v.lbList, func(l *core.SecurityList) {
		l.IngressSecurityRules = append(l.IngressSecurityRules, userRule("0.0.0.0/0", 9090, seclist.Owner(cluster)))
	})
	m, err := seclist.NewManager(v.vn, seclist.Options{Policy: seclist.Policy{Cluster: cluster}})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Prime([]seclist.Claim{{Service: types.NamespacedName{Namespace: "default", Name: "invalid"}, Unknown: true}}); err != nil {
		t.Fatal(err)
	}
	if err := m.Reconcile(t.Context(), v.claim("default/web", 80, 30080)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"0.0.0.0/0:80", "0.0.0.0/0:9090"}, ownedIngress(v.list(t, v.lbList))); diff != "" {
		t.Errorf("while a claim is unknown, rules are added and none removed (-want +got):\n%s", diff)
	}
	if err := m.Reconcile(t.Context(), seclist.Claim{Service: types.NamespacedName{Namespace: "default", Name: "x"}, Unknown: true}); !errors.Is(err, seclist.ErrInvalid) {
		t.Errorf("Reconcile(unknown claim) = %v, want ErrInvalid", err)
	}

	// The Service is valid again: its claim is known, and what nobody needs goes.
	if err := m.Reconcile(t.Context(), v.claim("default/invalid", 9091, 30991)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"0.0.0.0/0:80", "0.0.0.0/0:9091"}, ownedIngress(v.list(t, v.lbList))); diff != "" {
		t.Errorf("once the claim is known, unneeded rules go (-want +got):\n%s", diff)
	}
}

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestAnExpectedSourceStopsRemovalsUntilItPrimes(t *testing.T) {
	v := newVCN(t)
	// A rule of ours from before a restart, which a BackendSetBinding (another source of
	// claims, under a name no Service can have) needs.
	v.srv.EditSecurityList(v.lbList, func(l *core.SecurityList) {
		l.IngressSecurityRules = append(l.IngressSecurityRules, userRule("0.0.0.0/0", 9090, seclist.Owner(cluster)))
	})
	m := v.manager(t, seclist.Options{})
	prime := m.Expect("bindings")
	if err := m.Prime(nil); err != nil { // the Services' snapshot comes first
		t.Fatal(err)
	}
	web := v.claim("default/web", 80, 30080)
	if err := m.Reconcile(t.Context(), web); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"0.0.0.0/0:80", "0.0.0.0/0:9090"}, ownedIngress(v.list(t, v.lbList))); diff != "" {
		t.Errorf("before the expected source primed, nothing may be removed (-want +got):\n%s", diff)
	}
	if _, err := m.UndescribedRules(t.Context()); !errors.Is(err, seclist.ErrNotPrimed) {
		t.Errorf("UndescribedRules() before the expected source primed = %v, want ErrNotPrimed", err)
	}

	// The source lists its claims at start-up as unknown: still nothing is removed.
	bound := v.claim("default/backendsetbinding:web", 9090, 30090)
	if err := prime([]seclist.Claim{{Service: bound.Service, Unknown: true}}); err != nil {
		t.Fatal(err)
	}
	if err := m.Reconcile(t.Context(), web); err != nil {
		t.Fatal(err)
	}
	if got := ownedIngress(v.list(t, v.lbList)); !slices.Contains(got, "0.0.0.0/0:9090") {
		t.Errorf("a rule of an unknown claim of the source was removed: %v", got)
	}
	// Its claim is known now; a second prime (an old snapshot) changes nothing.
	bound.ListenerPorts = []int{9091}
	if err := m.Reconcile(t.Context(), bound); err != nil {
		t.Fatal(err)
	}
	if err := prime([]seclist.Claim{{Service: bound.Service, Unknown: true}}); err != nil {
		t.Fatal(err)
	}
	if err := m.Reconcile(t.Context(), web); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"0.0.0.0/0:80", "0.0.0.0/0:9091"}, ownedIngress(v.list(t, v.lbList))); diff != "" {
		t.Errorf("once every source primed and every claim is known, unneeded rules go (-want +got):\n%s", diff)
	}
}

func TestAClaimReconciledBeforeItsSourcePrimedIsKept(t *testing.T) {
	v := newVCN(t)
	m := v.manager(t, seclist.Options{})
	prime := m.Expect("bindings")
	if err := m.Prime(nil); err != nil {
		t.Fatal(err)
	}
	bound := v.claim("default/backendsetbinding:web", 9090, 30090)
	if err := m.Reconcile(t.Context(), bound); err != nil {
		t.Fatal(err)
	}
	// The source's snapshot, older than the Reconcile, says it is unknown: the Reconcile wins, so
	// removals are not held up by it.
	if err := prime([]seclist.Claim{{Service: bound.Service, Unknown: true}}); err != nil {
		t.Fatal(err)
	}
	v.srv.EditSecurityList(v.lbList, func(l *core.SecurityList) {
		l.IngressSecurityRules = append(l.IngressSecurityRules, userRule("0.0.0.0/0", 7070, seclist.Owner(cluster)))
	})
	m.ForgetLists()
	if err := m.Reconcile(t.Context(), v.claim("default/web", 80, 30080)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"0.0.0.0/0:80", "0.0.0.0/0:9090"}, ownedIngress(v.list(t, v.lbList))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
