// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// TestUnchangedClaimAsksNoWriterOnceItsListsAreSettled: a node sync reconciles every Service
// with the claim it had; once its lists were written since the last change, such a Reconcile
// returns without asking their writers (which would compute every Service's rules again). A
// change, a failed write, or a list older than MaxListAge brings the writers back.
func TestUnchangedClaimAsksNoWriterOnceItsListsAreSettled(t *testing.T) {
	v := newVCN(t)
	m := v.manager(t, seclist.Options{})
	var clk ocitest.Clock
	m.SetClock(clk.Now)
	web, api := v.claim("default/web", 80, 30080), v.claim("default/api", 443, 30443)
	reconcile := func(c seclist.Claim) (requests uint64) {
		t.Helper()
		before := m.WriteRequests()
		if err := m.Reconcile(t.Context(), c); err != nil {
			t.Fatalf("Reconcile %s: %v", c.Service, err)
		}
		return m.WriteRequests() - before
	}
	if reconcile(web) == 0 || reconcile(api) == 0 {
		t.Fatal("new claims asked no writer")
	}

	before := v.srv.Calls()
	for range 3 {
		if n := reconcile(web); n != 0 {
			t.Errorf("an unchanged claim with settled lists asked %d writers, want none", n)
		}
	}
	if calls := v.srv.Calls().Since(before); calls.Total() != 0 {
		t.Errorf("unchanged claims made these calls, want none:\n%s", calls)
	}

	// A change of any claim: its lists sync, and so are settled again for the others.
	api.ListenerPorts = []int{443, 8443}
	if reconcile(api) == 0 {
		t.Error("a changed claim asked no writer")
	}
	if n := reconcile(web); n != 0 {
		t.Errorf("after the other claim's lists synced, an unchanged claim asked %d writers, want none", n)
	}

	// A write that fails leaves its list unsettled: the same claim again syncs and succeeds.
	remove := v.srv.InjectFault(ocitest.Fault{Operation: "UpdateSecurityList", Status: http.StatusInternalServerError, Code: "InternalError"})
	web.ListenerPorts = []int{80, 8080}
	if err := m.Reconcile(t.Context(), web); err == nil {
		t.Fatal("Reconcile with UpdateSecurityList failing succeeded")
	}
	remove()
	if reconcile(web) == 0 {
		t.Error("after a failed write, the same claim asked no writer")
	}
	if got := ownedIngress(v.list(t, v.lbList)); !slices.Contains(got, "0.0.0.0/0:8080") {
		t.Errorf("LB ingress %v lacks the port added after the failure", got)
	}

	// Lists older than MaxListAge are read again, as every sync does past it.
	clk.Advance(seclist.DefaultMaxListAge + time.Second)
	before = v.srv.Calls()
	if reconcile(web) == 0 {
		t.Error("past MaxListAge, an unchanged claim asked no writer")
	}
	if got := v.srv.Calls().Since(before).Op("GetSecurityList"); got == 0 {
		t.Error("past MaxListAge, no list was read again")
	}
}

// TestARoundThatCouldNotRemoveRulesSettlesNothing: while a subnet some claim names cannot be
// read, a sync adds but removes nothing; it does not settle its lists, so the same claim syncs
// again (and reads the subnet again) rather than waiting for a change.
func TestARoundThatCouldNotRemoveRulesSettlesNothing(t *testing.T) {
	v := newVCN(t)
	m, err := seclist.NewManager(v.vn, seclist.Options{Policy: seclist.Policy{Cluster: cluster}})
	if err != nil {
		t.Fatal(err)
	}
	stale := v.claim("default/old", 9090, 30909)
	stale.NodeSubnets = []string{"ocid1.subnet.oc1.phx.gone"}
	if err := m.Prime([]seclist.Claim{stale}); err != nil {
		t.Fatal(err)
	}
	web := v.claim("default/web", 80, 30080)
	for i := range 2 {
		before := m.WriteRequests()
		if err := m.Reconcile(t.Context(), web); err != nil {
			t.Fatal(err)
		}
		if m.WriteRequests() == before {
			t.Errorf("Reconcile %d asked no writer while a subnet cannot be read", i+1)
		}
	}
}

// TestClaimInAnotherOrderIsUnchanged: a claim's subnets and CIDRs are sets. After a restart,
// Prime's claim of a Service lists its load balancer's subnets in the configured order, while its
// reconcile's lists them as OCI reports them; were another order a change, every Service's first
// reconcile after a restart would recompute every Service's rules.
func TestClaimInAnotherOrderIsUnchanged(t *testing.T) {
	v := newVCN(t)
	m := v.manager(t, seclist.Options{})
	lbSubnet, err := v.vn.GetSubnet(t.Context(), v.lbSubnet)
	if err != nil {
		t.Fatal(err)
	}
	second := v.srv.AddSubnet(core.Subnet{VcnId: lbSubnet.VcnId, CidrBlock: common.String("10.0.2.0/24"), SecurityListIds: []string{v.lbList}})
	web := v.claim("default/web", 80, 30080)
	web.LBSubnets = []string{v.lbSubnet, *second.Id}
	web.SourceCIDRs = []string{"192.0.2.0/24", "198.51.100.0/24"}
	if err := m.Reconcile(t.Context(), web); err != nil {
		t.Fatal(err)
	}

	reordered := web
	reordered.LBSubnets = []string{*second.Id, v.lbSubnet}
	reordered.SourceCIDRs = []string{"198.51.100.0/24", "192.0.2.0/24"}
	before, calls := m.WriteRequests(), v.srv.Calls()
	if err := m.Reconcile(t.Context(), reordered); err != nil {
		t.Fatal(err)
	}
	if n := m.WriteRequests() - before; n != 0 {
		t.Errorf("the same claim with its subnets and CIDRs in another order asked %d writers, want none", n)
	}
	if got := v.srv.Calls().Since(calls); got.Total() != 0 {
		t.Errorf("the reordered claim made these calls, want none:\n%s", got)
	}
}
