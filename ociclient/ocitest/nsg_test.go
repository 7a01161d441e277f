// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/core"

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
