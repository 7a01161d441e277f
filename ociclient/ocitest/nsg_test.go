// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func TestNSGRulesAddListRemove(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	vcn := f.srv.AddVCN(core.Vcn{})
	nsg := f.srv.AddNetworkSecurityGroup(core.NetworkSecurityGroup{VcnId: vcn.Id, DisplayName: new("lb")})
	peer := f.srv.AddNetworkSecurityGroup(core.NetworkSecurityGroup{VcnId: vcn.Id, DisplayName: new("nodes")})

	added, err := f.vcn.AddNetworkSecurityGroupSecurityRules(t.Context(), core.AddNetworkSecurityGroupSecurityRulesRequest{
		NetworkSecurityGroupId: nsg.Id,
		AddNetworkSecurityGroupSecurityRulesDetails: core.AddNetworkSecurityGroupSecurityRulesDetails{SecurityRules: []core.AddSecurityRuleDetails{
			{Direction: core.AddSecurityRuleDetailsDirectionIngress, Protocol: new("6"), Source: new("0.0.0.0/0"),
				TcpOptions: &core.TcpOptions{DestinationPortRange: &core.PortRange{Min: new(443), Max: new(443)}}},
			{Direction: core.AddSecurityRuleDetailsDirectionEgress, Protocol: new("6"), Destination: peer.Id,
				DestinationType: core.AddSecurityRuleDetailsDestinationTypeNetworkSecurityGroup},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(added.SecurityRules) != 2 || added.SecurityRules[0].Id == nil || *added.SecurityRules[0].Id == *added.SecurityRules[1].Id {
		t.Fatalf("added rules %+v, want two with distinct IDs", added.SecurityRules)
	}

	list := func(dir core.ListNetworkSecurityGroupSecurityRulesDirectionEnum) []string {
		t.Helper()
		resp, err := f.vcn.ListNetworkSecurityGroupSecurityRules(t.Context(), core.ListNetworkSecurityGroupSecurityRulesRequest{
			NetworkSecurityGroupId: nsg.Id, Direction: dir})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range resp.Items {
			ids = append(ids, *r.Id)
		}
		return ids
	}
	ingressID, egressID := *added.SecurityRules[0].Id, *added.SecurityRules[1].Id
	got := [][]string{list(""), list(core.ListNetworkSecurityGroupSecurityRulesDirectionIngress), list(core.ListNetworkSecurityGroupSecurityRulesDirectionEgress)}
	if diff := cmp.Diff([][]string{{ingressID, egressID}, {ingressID}, {egressID}}, got); diff != "" {
		t.Errorf("all, ingress, egress rule IDs (-want +got):\n%s", diff)
	}

	_, err = f.vcn.RemoveNetworkSecurityGroupSecurityRules(t.Context(), core.RemoveNetworkSecurityGroupSecurityRulesRequest{
		NetworkSecurityGroupId:                         nsg.Id,
		RemoveNetworkSecurityGroupSecurityRulesDetails: core.RemoveNetworkSecurityGroupSecurityRulesDetails{SecurityRuleIds: []string{ingressID}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{egressID}, list("")); diff != "" {
		t.Errorf("after remove (-want +got):\n%s", diff)
	}
	_, rules, _ := f.srv.NetworkSecurityGroup(*nsg.Id)
	if len(rules) != 1 || *rules[0].Id != egressID {
		t.Errorf("stored rules %+v, want just %s", rules, egressID)
	}
}

func TestNSGErrors(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	vcn := f.srv.AddVCN(core.Vcn{})
	nsg := f.srv.AddNetworkSecurityGroup(core.NetworkSecurityGroup{VcnId: vcn.Id})
	unknown := new("ocid1.networksecuritygroup.oc1.phx.nope")
	add := func(id *string, rules ...core.AddSecurityRuleDetails) error {
		_, err := f.vcn.AddNetworkSecurityGroupSecurityRules(t.Context(), core.AddNetworkSecurityGroupSecurityRulesRequest{
			NetworkSecurityGroupId:                      id,
			AddNetworkSecurityGroupSecurityRulesDetails: core.AddNetworkSecurityGroupSecurityRulesDetails{SecurityRules: rules}})
		return err
	}
	ingress := core.AddSecurityRuleDetails{Direction: core.AddSecurityRuleDetailsDirectionIngress, Protocol: new("all"), Source: new("0.0.0.0/0")}
	tooMany := make([]core.AddSecurityRuleDetails, 121)
	for i := range tooMany {
		tooMany[i] = ingress
	}

	_, err := f.vcn.GetNetworkSecurityGroup(t.Context(), core.GetNetworkSecurityGroupRequest{NetworkSecurityGroupId: unknown})
	wantStatus(t, err, 404, "NotAuthorizedOrNotFound")
	wantStatus(t, add(unknown, ingress), 404, "NotAuthorizedOrNotFound")
	wantStatus(t, add(nsg.Id, tooMany...), http.StatusBadRequest, "InvalidParameter")
	wantStatus(t, add(nsg.Id, core.AddSecurityRuleDetails{Direction: core.AddSecurityRuleDetailsDirectionIngress, Protocol: new("all")}),
		http.StatusBadRequest, "InvalidParameter")
	wantStatus(t, add(nsg.Id, core.AddSecurityRuleDetails{Direction: core.AddSecurityRuleDetailsDirectionEgress, Protocol: new("all"),
		Destination: unknown, DestinationType: core.AddSecurityRuleDetailsDestinationTypeNetworkSecurityGroup}),
		http.StatusBadRequest, "InvalidParameter")
	_, err = f.vcn.RemoveNetworkSecurityGroupSecurityRules(t.Context(), core.RemoveNetworkSecurityGroupSecurityRulesRequest{
		NetworkSecurityGroupId:                         nsg.Id,
		RemoveNetworkSecurityGroupSecurityRulesDetails: core.RemoveNetworkSecurityGroupSecurityRulesDetails{SecurityRuleIds: []string{"ABCDEF"}}})
	wantStatus(t, err, http.StatusBadRequest, "InvalidParameter")
	_, err = f.vcn.ListNetworkSecurityGroupSecurityRules(t.Context(), core.ListNetworkSecurityGroupSecurityRulesRequest{NetworkSecurityGroupId: unknown})
	wantStatus(t, err, 404, "NotAuthorizedOrNotFound")
	_, err = f.vcn.ListNetworkSecurityGroups(t.Context(), core.ListNetworkSecurityGroupsRequest{})
	wantStatus(t, err, http.StatusBadRequest, "MissingParameter")
	if _, rules, _ := f.srv.NetworkSecurityGroup(*nsg.Id); len(rules) != 0 {
		t.Errorf("rejected requests left %d rules", len(rules))
	}
}

func TestGetAndListNSGs(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	vcn := f.srv.AddVCN(core.Vcn{})
	a := f.srv.AddNetworkSecurityGroup(core.NetworkSecurityGroup{VcnId: vcn.Id, DisplayName: new("a")})
	f.srv.AddNetworkSecurityGroup(core.NetworkSecurityGroup{VcnId: vcn.Id, DisplayName: new("b")})
	got, err := f.vcn.GetNetworkSecurityGroup(t.Context(), core.GetNetworkSecurityGroupRequest{NetworkSecurityGroupId: a.Id})
	if err != nil {
		t.Fatal(err)
	}
	if *got.DisplayName != "a" || *got.VcnId != *vcn.Id || got.LifecycleState != core.NetworkSecurityGroupLifecycleStateAvailable {
		t.Errorf("got %s in %s (%s), want a in %s AVAILABLE", *got.DisplayName, *got.VcnId, got.LifecycleState, *vcn.Id)
	}
	byVcn, err := f.vcn.ListNetworkSecurityGroups(t.Context(), core.ListNetworkSecurityGroupsRequest{VcnId: vcn.Id})
	if err != nil {
		t.Fatal(err)
	}
	byName, err := f.vcn.ListNetworkSecurityGroups(t.Context(), core.ListNetworkSecurityGroupsRequest{CompartmentId: vcn.CompartmentId, DisplayName: new("b")})
	if err != nil {
		t.Fatal(err)
	}
	if len(byVcn.Items) != 2 || len(byName.Items) != 1 || *byName.Items[0].DisplayName != "b" {
		t.Errorf("by VCN %d, by name %d; want 2 and just b", len(byVcn.Items), len(byName.Items))
	}
}

func TestCreateNSGKeepsTagsAndIsListedByCompartmentVCNAndName(t *testing.T) {
	// The filters of a listing of a group just created, not when it is listed (the lag is
	// consistency_test.go's).
	f := newCoreFixture(t, ocitest.Options{ListingLag: ocitest.NoLag})
	vcn := f.srv.AddVCN(core.Vcn{})
	tags := map[string]string{"oci-ccm-cluster": "prod", "oci-ccm-service": "default/web"}
	resp, err := f.vcn.CreateNetworkSecurityGroup(t.Context(), core.CreateNetworkSecurityGroupRequest{
		CreateNetworkSecurityGroupDetails: core.CreateNetworkSecurityGroupDetails{CompartmentId: vcn.CompartmentId, VcnId: vcn.Id,
			DisplayName: new("web-frontend"), FreeformTags: tags}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.LifecycleState != core.NetworkSecurityGroupLifecycleStateAvailable || resp.Etag == nil {
		t.Errorf("created group is %s with ETag %v, want AVAILABLE with an ETag", resp.LifecycleState, resp.Etag)
	}
	for _, req := range []core.ListNetworkSecurityGroupsRequest{
		{CompartmentId: vcn.CompartmentId},
		{VcnId: vcn.Id},
		{CompartmentId: vcn.CompartmentId, VcnId: vcn.Id, DisplayName: new("web-frontend")},
	} {
		list, err := f.vcn.ListNetworkSecurityGroups(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 || *list.Items[0].Id != *resp.Id {
			t.Fatalf("list %+v: %d groups, want just the created one", req, len(list.Items))
		}
		if diff := cmp.Diff(tags, list.Items[0].FreeformTags); diff != "" {
			t.Errorf("tags (-want +got):\n%s", diff)
		}
	}
	none, err := f.vcn.ListNetworkSecurityGroups(t.Context(), core.ListNetworkSecurityGroupsRequest{VcnId: vcn.Id, DisplayName: new("other")})
	if err != nil || len(none.Items) != 0 {
		t.Errorf("listing another name: %d groups, err %v; want none", len(none.Items), err)
	}
}

// createNSGWithToken creates a group in vcn with an opc-retry-token.
func createNSGWithToken(t *testing.T, f *coreFixture, vcn core.Vcn, token string) (core.CreateNetworkSecurityGroupResponse, error) {
	return f.vcn.CreateNetworkSecurityGroup(t.Context(), core.CreateNetworkSecurityGroupRequest{OpcRetryToken: &token,
		CreateNetworkSecurityGroupDetails: core.CreateNetworkSecurityGroupDetails{CompartmentId: vcn.CompartmentId, VcnId: vcn.Id}})
}

func TestCreateNSGRetryTokenAnswersTheSameGroup(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	vcn := f.srv.AddVCN(core.Vcn{})
	create := func() (core.CreateNetworkSecurityGroupResponse, error) {
		return createNSGWithToken(t, f, vcn, "token-1")
	}
	first, err := create()
	if err != nil {
		t.Fatal(err)
	}
	again, err := create()
	if err != nil || *again.Id != *first.Id {
		t.Fatalf("retry answered %v, %v; want the first group %s", again.Id, err, *first.Id)
	}
	if _, err := f.vcn.DeleteNetworkSecurityGroup(t.Context(), core.DeleteNetworkSecurityGroupRequest{NetworkSecurityGroupId: first.Id}); err != nil {
		t.Fatal(err)
	}
	_, err = create()
	wantStatus(t, err, http.StatusConflict, "InvalidatedRetryToken")
}

// TestCreateNSGRetryTokenWithAnotherBodyIsRefused: a token reused with a different body is 409
// InvalidatedRetryToken, as the load balancer APIs answer it, not the first group replayed.
func TestCreateNSGRetryTokenWithAnotherBodyIsRefused(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	vcn := f.srv.AddVCN(core.Vcn{})
	first, err := createNSGWithToken(t, f, vcn, "token-1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.vcn.CreateNetworkSecurityGroup(t.Context(), core.CreateNetworkSecurityGroupRequest{OpcRetryToken: new("token-1"),
		CreateNetworkSecurityGroupDetails: core.CreateNetworkSecurityGroupDetails{CompartmentId: vcn.CompartmentId, VcnId: vcn.Id,
			DisplayName: new("another")}})
	wantStatus(t, err, http.StatusConflict, "InvalidatedRetryToken")
	if got := f.srv.NetworkSecurityGroups(); len(got) != 1 || *got[0].Id != *first.Id {
		t.Errorf("groups after the refused retry: %d; want only the first", len(got))
	}
	if again, err := createNSGWithToken(t, f, vcn, "token-1"); err != nil || *again.Id != *first.Id {
		t.Errorf("the same body again answered %v, %v; want the first group %s", again.Id, err, *first.Id)
	}
}

// TestCreateNSGRetryTokenExpiresAfter24Hours: OCI forgets a retry token after 24 hours ("Retry
// tokens expire after 24 hours", every opc-retry-token parameter), for NSGs as for load
// balancers; the same token then creates a new group, even after its first group was deleted.
func TestCreateNSGRetryTokenExpiresAfter24Hours(t *testing.T) {
	clock := &ocitest.Clock{}
	f := newCoreFixture(t, ocitest.Options{Now: clock.Now})
	vcn := f.srv.AddVCN(core.Vcn{})
	create := func() (core.CreateNetworkSecurityGroupResponse, error) {
		return createNSGWithToken(t, f, vcn, "token-1")
	}
	first, err := create()
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(24*time.Hour - time.Second)
	if again, err := create(); err != nil || *again.Id != *first.Id {
		t.Fatalf("retry within 24 h answered %v, %v; want the first group %s", again.Id, err, *first.Id)
	}
	if _, err := f.vcn.DeleteNetworkSecurityGroup(t.Context(), core.DeleteNetworkSecurityGroupRequest{NetworkSecurityGroupId: first.Id}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	later, err := create()
	if err != nil || *later.Id == *first.Id {
		t.Fatalf("the token after 24 h answered %v, %v; want a new group", later.Id, err)
	}
}

func TestDeleteNSGRefusedWhileALoadBalancerOrVNICIsInIt(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	vcn := f.srv.AddVCN(core.Vcn{})
	nsg := f.srv.AddNetworkSecurityGroup(core.NetworkSecurityGroup{VcnId: vcn.Id})
	lb := f.srv.AddLoadBalancer(loadbalancer.LoadBalancer{NetworkSecurityGroupIds: []string{*nsg.Id}})
	del := func() error {
		_, err := f.vcn.DeleteNetworkSecurityGroup(t.Context(), core.DeleteNetworkSecurityGroupRequest{NetworkSecurityGroupId: nsg.Id})
		return err
	}
	wantStatus(t, del(), http.StatusConflict, "Conflict")
	f.srv.RemoveLoadBalancer(*lb.Id)
	if err := del(); err != nil {
		t.Fatalf("deleting the group once the load balancer is gone: %v", err)
	}
	if _, _, ok := f.srv.NetworkSecurityGroup(*nsg.Id); ok {
		t.Error("the group is still stored")
	}
	wantStatus(t, del(), http.StatusNotFound, "NotAuthorizedOrNotFound")
}

func TestNSGAddTakesAtMost25RulesAndUpdateReplacesByID(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	vcn := f.srv.AddVCN(core.Vcn{})
	nsg := f.srv.AddNetworkSecurityGroup(core.NetworkSecurityGroup{VcnId: vcn.Id})
	rule := core.AddSecurityRuleDetails{Direction: core.AddSecurityRuleDetailsDirectionIngress, Protocol: new("6"), Source: new("0.0.0.0/0"),
		Description: new("d")}
	add := func(n int) (core.AddNetworkSecurityGroupSecurityRulesResponse, error) {
		rules := make([]core.AddSecurityRuleDetails, n)
		for i := range rules {
			rules[i] = rule
		}
		return f.vcn.AddNetworkSecurityGroupSecurityRules(t.Context(), core.AddNetworkSecurityGroupSecurityRulesRequest{NetworkSecurityGroupId: nsg.Id,
			AddNetworkSecurityGroupSecurityRulesDetails: core.AddNetworkSecurityGroupSecurityRulesDetails{SecurityRules: rules}})
	}
	_, err := add(26)
	wantStatus(t, err, http.StatusBadRequest, "InvalidParameter")
	added, err := add(25)
	if err != nil {
		t.Fatal(err)
	}
	if got := *added.SecurityRules[0].Description; got != "d" {
		t.Errorf("description %q, want d", got)
	}
	id := added.SecurityRules[0].Id
	_, err = f.vcn.UpdateNetworkSecurityGroupSecurityRules(t.Context(), core.UpdateNetworkSecurityGroupSecurityRulesRequest{NetworkSecurityGroupId: nsg.Id,
		UpdateNetworkSecurityGroupSecurityRulesDetails: core.UpdateNetworkSecurityGroupSecurityRulesDetails{SecurityRules: []core.UpdateSecurityRuleDetails{
			{Id: id, Direction: core.UpdateSecurityRuleDetailsDirectionIngress, Protocol: new("17"), Source: new("10.0.0.0/8"),
				UdpOptions: &core.UdpOptions{DestinationPortRange: &core.PortRange{Min: new(53), Max: new(53)}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	_, rules, _ := f.srv.NetworkSecurityGroup(*nsg.Id)
	if len(rules) != 25 || *rules[0].Id != *id || *rules[0].Protocol != "17" || *rules[0].Source != "10.0.0.0/8" {
		t.Errorf("after update: %d rules, first %+v; want 25 with the first now UDP from 10.0.0.0/8", len(rules), rules[0])
	}
	_, err = f.vcn.UpdateNetworkSecurityGroupSecurityRules(t.Context(), core.UpdateNetworkSecurityGroupSecurityRulesRequest{NetworkSecurityGroupId: nsg.Id,
		UpdateNetworkSecurityGroupSecurityRulesDetails: core.UpdateNetworkSecurityGroupSecurityRulesDetails{SecurityRules: []core.UpdateSecurityRuleDetails{
			{Id: new("NOSUCH"), Direction: core.UpdateSecurityRuleDetailsDirectionIngress, Protocol: new("all"), Source: new("0.0.0.0/0")}}}})
	wantStatus(t, err, http.StatusBadRequest, "InvalidParameter")
}
