// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func TestGetInstanceReturnsSeededInstanceWithDefaults(t *testing.T) {
	// Empty and IAM off (no tenancy means no policy to test under; the test is not about IAM): the test counts what it seeds in the root compartment, without the default tenancy.
	f := newCoreFixture(t, ocitest.Options{EmptyTenancy: true, AllowAll: true})
	_, _, sn := smallNetwork(f.srv)
	f.srv.AddAvailabilityDomain("Uocm:PHX-AD-1")
	seeded := f.srv.AddInstance(ocitest.Instance{
		Instance: core.Instance{DisplayName: new("node-1"), FaultDomain: new("FAULT-DOMAIN-2")},
		VNICs:    []core.Vnic{{SubnetId: sn.Id, PublicIp: new("")}},
	})
	resp, err := f.compute.GetInstance(t.Context(), core.GetInstanceRequest{InstanceId: seeded.Id})
	if err != nil {
		t.Fatal(err)
	}
	got := resp.Instance
	want := map[string]string{
		"displayName": "node-1", "faultDomain": "FAULT-DOMAIN-2", "availabilityDomain": "Uocm:PHX-AD-1",
		"compartmentId": f.srv.TenancyID(), "shape": "VM.Standard.E4.Flex", "region": "phx", "lifecycleState": "RUNNING",
	}
	have := map[string]string{
		"displayName": *got.DisplayName, "faultDomain": *got.FaultDomain, "availabilityDomain": *got.AvailabilityDomain,
		"compartmentId": *got.CompartmentId, "shape": *got.Shape, "region": *got.Region, "lifecycleState": string(got.LifecycleState),
	}
	if diff := cmp.Diff(want, have); diff != "" {
		t.Errorf("instance (-want +got):\n%s", diff)
	}
	if *got.Id != *seeded.Id || got.TimeCreated == nil {
		t.Errorf("id %s timeCreated %v, want %s and a time", *got.Id, got.TimeCreated, *seeded.Id)
	}
}

func TestListInstancesFiltersByQuery(t *testing.T) {
	// Empty and IAM off (no tenancy means no policy to test under; the test is not about IAM): the test counts what it seeds in the root compartment, without the default tenancy.
	f := newCoreFixture(t, ocitest.Options{EmptyTenancy: true, AllowAll: true})
	ad1 := *f.srv.AddAvailabilityDomain("Uocm:PHX-AD-1").Name
	ad2 := *f.srv.AddAvailabilityDomain("Uocm:PHX-AD-2").Name
	other := "ocid1.compartment.oc1..other"
	for _, in := range []core.Instance{
		{DisplayName: new("a"), AvailabilityDomain: &ad1},
		{DisplayName: new("b"), AvailabilityDomain: &ad2},
		{DisplayName: new("c"), AvailabilityDomain: &ad2, LifecycleState: core.InstanceLifecycleStateStopped},
		{DisplayName: new("d"), CompartmentId: &other},
	} {
		f.srv.AddInstance(ocitest.Instance{Instance: in})
	}
	tenancy := f.srv.TenancyID()
	tests := []struct {
		name string
		req  core.ListInstancesRequest
		want []string
	}{
		{"compartment only", core.ListInstancesRequest{CompartmentId: &tenancy}, []string{"a", "b", "c"}},
		{"other compartment", core.ListInstancesRequest{CompartmentId: &other}, []string{"d"}},
		{"display name", core.ListInstancesRequest{CompartmentId: &tenancy, DisplayName: new("b")}, []string{"b"}},
		{"lifecycle state", core.ListInstancesRequest{CompartmentId: &tenancy, LifecycleState: core.InstanceLifecycleStateStopped}, []string{"c"}},
		{"availability domain", core.ListInstancesRequest{CompartmentId: &tenancy, AvailabilityDomain: &ad2}, []string{"b", "c"}},
		{"no match", core.ListInstancesRequest{CompartmentId: &tenancy, DisplayName: new("zz")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.compute.ListInstances(t.Context(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, i := range resp.Items {
				got = append(got, *i.DisplayName)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListInstancesPagesThroughEveryInstance(t *testing.T) {
	// Empty and IAM off (no tenancy means no policy to test under; the test is not about IAM): the test counts what it seeds in the root compartment, without the default tenancy.
	f := newCoreFixture(t, ocitest.Options{PageSize: 2, EmptyTenancy: true, AllowAll: true})
	var want []string
	for i := range 7 {
		want = append(want, *f.srv.AddInstance(ocitest.Instance{Instance: core.Instance{DisplayName: new(fmt.Sprint("n", i))}}).Id)
	}
	tenancy := f.srv.TenancyID()
	var got []string
	req := core.ListInstancesRequest{CompartmentId: &tenancy}
	for {
		resp, err := f.compute.ListInstances(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range resp.Items {
			got = append(got, *i.Id)
		}
		if resp.OpcNextPage == nil {
			break
		}
		req.Page = resp.OpcNextPage
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if n := f.srv.Calls().Op("ListInstances"); n != 4 {
		t.Errorf("ListInstances calls = %d, want 4 pages of at most 2", n)
	}
}

func TestListInstancesHonoursSmallerClientLimit(t *testing.T) {
	// Empty and IAM off (no tenancy means no policy to test under; the test is not about IAM): the test counts what it seeds in the root compartment, without the default tenancy.
	f := newCoreFixture(t, ocitest.Options{EmptyTenancy: true, AllowAll: true})
	for range 5 {
		f.srv.AddInstance(ocitest.Instance{})
	}
	tenancy := f.srv.TenancyID()
	resp, err := f.compute.ListInstances(t.Context(), core.ListInstancesRequest{CompartmentId: &tenancy, Limit: new(3)})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Items) != 3 || resp.OpcNextPage == nil {
		t.Fatalf("got %d items, next page %v; want 3 and a next page", len(resp.Items), resp.OpcNextPage)
	}
	resp, err = f.compute.ListInstances(t.Context(), core.ListInstancesRequest{CompartmentId: &tenancy, Limit: new(3), Page: resp.OpcNextPage})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Items) != 2 || resp.OpcNextPage != nil {
		t.Fatalf("second page: %d items, next page %v; want 2 and none", len(resp.Items), resp.OpcNextPage)
	}
}

func TestGetInstanceOfUnknownIDIsNotFound(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	_, err := f.compute.GetInstance(t.Context(), core.GetInstanceRequest{InstanceId: new("ocid1.instance.oc1.phx.nope")})
	wantStatus(t, err, 404, "NotAuthorizedOrNotFound")
}

func TestListInstancesWithoutCompartmentIsBadRequest(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	_, err := f.compute.ListInstances(t.Context(), core.ListInstancesRequest{CompartmentId: new("")})
	wantStatus(t, err, 400, "MissingParameter")
}

func TestVnicAttachmentsLeadToTheInstanceAddresses(t *testing.T) {
	// Empty and IAM off (no tenancy means no policy to test under; the test is not about IAM): the test expects the public pool's first address, which the default tenancy's
	// instances would have taken.
	f := newCoreFixture(t, ocitest.Options{EmptyTenancy: true, AllowAll: true})
	_, _, sn := smallNetwork(f.srv)
	inst := f.srv.AddInstance(ocitest.Instance{
		Instance: core.Instance{DisplayName: new("Node-1")},
		VNICs: []core.Vnic{
			{SubnetId: sn.Id, PublicIp: new(""), Ipv6Addresses: []string{"2001:db8::10"}},
			{SubnetId: sn.Id, PrivateIp: new("10.0.10.50")},
		},
	})
	f.srv.AddInstance(ocitest.Instance{VNICs: []core.Vnic{{SubnetId: sn.Id}}}) // another instance's attachment

	resp, err := f.compute.ListVnicAttachments(t.Context(), core.ListVnicAttachmentsRequest{
		CompartmentId: inst.CompartmentId, InstanceId: inst.Id,
	})
	if err != nil {
		t.Fatal(err)
	}
	type addr struct {
		Primary      bool
		Private      string
		Public       string
		IPv6         []string
		Hostname     string
		NicIndex     int
		AttachedTo   string
		AttachmentIs core.VnicAttachmentLifecycleStateEnum
	}
	var got []addr
	for _, att := range resp.Items {
		v, err := f.vcn.GetVnic(t.Context(), core.GetVnicRequest{VnicId: att.VnicId})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, addr{
			Primary: *v.IsPrimary, Private: *v.PrivateIp, Public: textOr(v.PublicIp), IPv6: v.Ipv6Addresses,
			Hostname: textOr(v.HostnameLabel), NicIndex: *att.NicIndex, AttachedTo: *att.InstanceId, AttachmentIs: att.LifecycleState,
		})
	}
	want := []addr{
		{Primary: true, Private: "10.0.10.2", Public: "198.51.100.1", IPv6: []string{"2001:db8::10"}, Hostname: "node-1",
			NicIndex: 0, AttachedTo: *inst.Id, AttachmentIs: core.VnicAttachmentLifecycleStateAttached},
		{Primary: false, Private: "10.0.10.50", NicIndex: 1, AttachedTo: *inst.Id, AttachmentIs: core.VnicAttachmentLifecycleStateAttached},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("VNICs (-want +got):\n%s", diff)
	}
	if vnics := f.srv.InstanceVNICs(*inst.Id); len(vnics) != 2 || *vnics[0].PrivateIp != "10.0.10.2" {
		t.Errorf("InstanceVNICs = %d VNICs, want 2 with the primary first", len(vnics))
	}
}

func TestInstanceStateChangesAreVisible(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	inst := f.srv.AddInstance(ocitest.Instance{})
	if !f.srv.SetInstanceState(*inst.Id, core.InstanceLifecycleStateTerminated) {
		t.Fatal("SetInstanceState reported no such instance")
	}
	resp, err := f.compute.GetInstance(t.Context(), core.GetInstanceRequest{InstanceId: inst.Id})
	if err != nil {
		t.Fatal(err)
	}
	if resp.LifecycleState != core.InstanceLifecycleStateTerminated {
		t.Errorf("state %s, want TERMINATED", resp.LifecycleState)
	}
	if f.srv.SetInstanceState("ocid1.instance.oc1.phx.nope", core.InstanceLifecycleStateStopped) {
		t.Error("SetInstanceState of an unknown instance reported success")
	}
}

func TestRemovedInstanceAndItsVNICsAreNotFound(t *testing.T) {
	// Empty and IAM off (no tenancy means no policy to test under; the test is not about IAM): the test counts what it seeds in the root compartment, without the default tenancy.
	f := newCoreFixture(t, ocitest.Options{EmptyTenancy: true, AllowAll: true})
	_, _, sn := smallNetwork(f.srv)
	reserved := f.srv.AddPublicIP(core.PublicIp{})
	inst := f.srv.AddInstance(ocitest.Instance{VNICs: []core.Vnic{{SubnetId: sn.Id, PublicIp: new("")}}})
	vnic := f.srv.InstanceVNICs(*inst.Id)[0]

	if !f.srv.RemoveInstance(*inst.Id) {
		t.Fatal("RemoveInstance reported no such instance")
	}
	_, err := f.compute.GetInstance(t.Context(), core.GetInstanceRequest{InstanceId: inst.Id})
	wantStatus(t, err, 404, "NotAuthorizedOrNotFound")
	_, err = f.vcn.GetVnic(t.Context(), core.GetVnicRequest{VnicId: vnic.Id})
	wantStatus(t, err, 404, "NotAuthorizedOrNotFound")
	_, err = f.vcn.GetPublicIpByIpAddress(t.Context(), core.GetPublicIpByIpAddressRequest{
		GetPublicIpByIpAddressDetails: core.GetPublicIpByIpAddressDetails{IpAddress: vnic.PublicIp}})
	wantStatus(t, err, 404, "NotAuthorizedOrNotFound")
	atts, err := f.compute.ListVnicAttachments(t.Context(), core.ListVnicAttachmentsRequest{CompartmentId: inst.CompartmentId})
	if err != nil {
		t.Fatal(err)
	}
	if len(atts.Items) != 0 {
		t.Errorf("%d VNIC attachments left, want 0", len(atts.Items))
	}
	if _, err := f.vcn.GetPublicIp(t.Context(), core.GetPublicIpRequest{PublicIpId: reserved.Id}); err != nil {
		t.Errorf("the unrelated reserved IP went away: %v", err)
	}
	if f.srv.RemoveInstance(*inst.Id) {
		t.Error("removing twice reported success")
	}
}

func TestAddInstancePanicsOnAnAddressOutsideItsSubnet(t *testing.T) {
	// Empty and IAM off (no tenancy means no policy to test under; the test is not about IAM):
	// the test counts the instances of the root compartment.
	f := newCoreFixture(t, ocitest.Options{EmptyTenancy: true, AllowAll: true})
	_, _, sn := smallNetwork(f.srv)
	defer func() {
		if recover() == nil {
			t.Error("AddInstance accepted 192.168.1.1 in 10.0.10.0/24")
		}
		tenancy := f.srv.TenancyID()
		resp, err := f.compute.ListInstances(t.Context(), core.ListInstancesRequest{CompartmentId: &tenancy})
		if err != nil || len(resp.Items) != 0 {
			t.Errorf("after the panic: %d instances (err %v), want none left behind", len(resp.Items), err)
		}
	}()
	f.srv.AddInstance(ocitest.Instance{VNICs: []core.Vnic{{SubnetId: sn.Id, PrivateIp: new("192.168.1.1")}}})
}

func textOr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
