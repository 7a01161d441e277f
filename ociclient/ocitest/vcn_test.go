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

func TestGetAndListVCNsAndSubnets(t *testing.T) {
	// Empty and IAM off (no tenancy means no policy to test under; the test is not about IAM): the test counts what it seeds in the root compartment, without the default tenancy.
	f := newCoreFixture(t, ocitest.Options{EmptyTenancy: true, AllowAll: true})
	vcn, sl, sn := smallNetwork(f.srv)
	other := f.srv.AddVCN(core.Vcn{CidrBlock: new("172.16.0.0/16")})
	f.srv.AddSubnet(core.Subnet{VcnId: other.Id, CidrBlock: new("172.16.1.0/24")})
	comp := vcn.CompartmentId

	gotVcn, err := f.vcn.GetVcn(t.Context(), core.GetVcnRequest{VcnId: vcn.Id})
	if err != nil {
		t.Fatal(err)
	}
	if *gotVcn.CidrBlock != "10.0.0.0/16" || gotVcn.LifecycleState != core.VcnLifecycleStateAvailable {
		t.Errorf("VCN %s %s, want 10.0.0.0/16 AVAILABLE", *gotVcn.CidrBlock, gotVcn.LifecycleState)
	}
	vcns, err := f.vcn.ListVcns(t.Context(), core.ListVcnsRequest{CompartmentId: comp})
	if err != nil {
		t.Fatal(err)
	}
	if len(vcns.Items) != 2 {
		t.Errorf("ListVcns: %d VCNs, want 2", len(vcns.Items))
	}

	gotSubnet, err := f.vcn.GetSubnet(t.Context(), core.GetSubnetRequest{SubnetId: sn.Id})
	if err != nil {
		t.Fatal(err)
	}
	want := core.Subnet{
		CidrBlock: new("10.0.10.0/24"), VcnId: vcn.Id, SecurityListIds: []string{*sl.Id},
		VirtualRouterIp: new("10.0.10.1"), LifecycleState: core.SubnetLifecycleStateAvailable,
	}
	got := core.Subnet{CidrBlock: gotSubnet.CidrBlock, VcnId: gotSubnet.VcnId, SecurityListIds: gotSubnet.SecurityListIds,
		VirtualRouterIp: gotSubnet.VirtualRouterIp, LifecycleState: gotSubnet.LifecycleState}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("subnet (-want +got):\n%s", diff)
	}

	all, err := f.vcn.ListSubnets(t.Context(), core.ListSubnetsRequest{CompartmentId: comp})
	if err != nil {
		t.Fatal(err)
	}
	inVcn, err := f.vcn.ListSubnets(t.Context(), core.ListSubnetsRequest{CompartmentId: comp, VcnId: vcn.Id})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Items) != 2 || len(inVcn.Items) != 1 || *inVcn.Items[0].Id != *sn.Id {
		t.Errorf("ListSubnets: %d in the compartment and %d in the VCN, want 2 and just %s", len(all.Items), len(inVcn.Items), *sn.Id)
	}

	_, err = f.vcn.GetVcn(t.Context(), core.GetVcnRequest{VcnId: new("ocid1.vcn.oc1.phx.nope")})
	wantStatus(t, err, 404, "NotAuthorizedOrNotFound")
	_, err = f.vcn.GetSubnet(t.Context(), core.GetSubnetRequest{SubnetId: new("ocid1.subnet.oc1.phx.nope")})
	wantStatus(t, err, 404, "NotAuthorizedOrNotFound")
	_, err = f.vcn.GetVnic(t.Context(), core.GetVnicRequest{VnicId: new("ocid1.vnic.oc1.phx.nope")})
	wantStatus(t, err, 404, "NotAuthorizedOrNotFound")
}

func TestListSubnetsPagesThroughEverySubnet(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{PageSize: 3})
	vcn := f.srv.AddVCN(core.Vcn{})
	for i := range 10 {
		f.srv.AddSubnet(core.Subnet{VcnId: vcn.Id, CidrBlock: new(fmtCIDR(i))})
	}
	req := core.ListSubnetsRequest{CompartmentId: vcn.CompartmentId, VcnId: vcn.Id}
	var cidrs []string
	for {
		resp, err := f.vcn.ListSubnets(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range resp.Items {
			cidrs = append(cidrs, *s.CidrBlock)
		}
		if resp.OpcNextPage == nil {
			break
		}
		req.Page = resp.OpcNextPage
	}
	if len(cidrs) != 10 || cidrs[0] != fmtCIDR(0) || cidrs[9] != fmtCIDR(9) {
		t.Errorf("got %v, want the 10 subnets in creation order", cidrs)
	}
	if n := f.srv.Calls().Op("ListSubnets"); n != 4 {
		t.Errorf("ListSubnets calls = %d, want 4 pages of at most 3", n)
	}
}

func fmtCIDR(i int) string { return fmt.Sprintf("10.0.%d.0/24", i) }

func TestPrivateIPsListBySubnetOrVnic(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	_, _, sn := smallNetwork(f.srv)
	a := f.srv.AddInstance(ocitest.Instance{VNICs: []core.Vnic{{SubnetId: sn.Id}}})
	f.srv.AddInstance(ocitest.Instance{VNICs: []core.Vnic{{SubnetId: sn.Id}}})
	vnicA := f.srv.InstanceVNICs(*a.Id)[0]

	bySubnet, err := f.vcn.ListPrivateIps(t.Context(), core.ListPrivateIpsRequest{SubnetId: sn.Id})
	if err != nil {
		t.Fatal(err)
	}
	byVnic, err := f.vcn.ListPrivateIps(t.Context(), core.ListPrivateIpsRequest{VnicId: vnicA.Id})
	if err != nil {
		t.Fatal(err)
	}
	byAddr, err := f.vcn.ListPrivateIps(t.Context(), core.ListPrivateIpsRequest{SubnetId: sn.Id, IpAddress: new("10.0.10.3")})
	if err != nil {
		t.Fatal(err)
	}
	addrs := func(items []core.PrivateIp) []string {
		var out []string
		for _, p := range items {
			out = append(out, *p.IpAddress)
		}
		return out
	}
	got := [][]string{addrs(bySubnet.Items), addrs(byVnic.Items), addrs(byAddr.Items)}
	want := [][]string{{"10.0.10.2", "10.0.10.3"}, {"10.0.10.2"}, {"10.0.10.3"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("by subnet, by VNIC, by address (-want +got):\n%s", diff)
	}

	one, err := f.vcn.GetPrivateIp(t.Context(), core.GetPrivateIpRequest{PrivateIpId: byVnic.Items[0].Id})
	if err != nil {
		t.Fatal(err)
	}
	if *one.VnicId != *vnicA.Id || !*one.IsPrimary {
		t.Errorf("private IP belongs to %s (primary %v), want primary of %s", *one.VnicId, *one.IsPrimary, *vnicA.Id)
	}
	_, err = f.vcn.ListPrivateIps(t.Context(), core.ListPrivateIpsRequest{})
	wantStatus(t, err, 400, "MissingParameter")
	_, err = f.vcn.GetPrivateIp(t.Context(), core.GetPrivateIpRequest{PrivateIpId: new("ocid1.privateip.oc1.phx.nope")})
	wantStatus(t, err, 404, "NotAuthorizedOrNotFound")
}

func TestPublicIPsByScopeLifetimeAndAddress(t *testing.T) {
	// Empty and IAM off (no tenancy means no policy to test under; the test is not about IAM): the test counts what it seeds in the root compartment, without the default tenancy.
	f := newCoreFixture(t, ocitest.Options{EmptyTenancy: true, AllowAll: true})
	_, _, sn := smallNetwork(f.srv)
	ad := *f.srv.AddAvailabilityDomain("Uocm:PHX-AD-1").Name
	reserved := f.srv.AddPublicIP(core.PublicIp{IpAddress: new("192.0.2.10"), DisplayName: new("ingress")})
	inst := f.srv.AddInstance(ocitest.Instance{VNICs: []core.Vnic{{SubnetId: sn.Id, PublicIp: new("")}}})
	comp := f.srv.TenancyID()

	regional, err := f.vcn.ListPublicIps(t.Context(), core.ListPublicIpsRequest{
		Scope: core.ListPublicIpsScopeRegion, CompartmentId: &comp, Lifetime: core.ListPublicIpsLifetimeReserved})
	if err != nil {
		t.Fatal(err)
	}
	if len(regional.Items) != 1 || *regional.Items[0].Id != *reserved.Id {
		t.Fatalf("reserved regional IPs = %d, want just %s", len(regional.Items), *reserved.Id)
	}
	if r := regional.Items[0]; r.Lifetime != core.PublicIpLifetimeReserved || r.LifecycleState != core.PublicIpLifecycleStateAvailable {
		t.Errorf("reserved IP is %s %s, want RESERVED AVAILABLE", r.Lifetime, r.LifecycleState)
	}

	ephemeral, err := f.vcn.ListPublicIps(t.Context(), core.ListPublicIpsRequest{
		Scope: core.ListPublicIpsScopeAvailabilityDomain, CompartmentId: &comp, AvailabilityDomain: &ad})
	if err != nil {
		t.Fatal(err)
	}
	vnic := f.srv.InstanceVNICs(*inst.Id)[0]
	if len(ephemeral.Items) != 1 || *ephemeral.Items[0].IpAddress != *vnic.PublicIp ||
		ephemeral.Items[0].LifecycleState != core.PublicIpLifecycleStateAssigned {
		t.Fatalf("AD-scoped IPs = %+v, want the instance's assigned ephemeral %s", ephemeral.Items, *vnic.PublicIp)
	}

	byAddr, err := f.vcn.GetPublicIpByIpAddress(t.Context(), core.GetPublicIpByIpAddressRequest{
		GetPublicIpByIpAddressDetails: core.GetPublicIpByIpAddressDetails{IpAddress: new("192.0.2.10")}})
	if err != nil {
		t.Fatal(err)
	}
	byID, err := f.vcn.GetPublicIp(t.Context(), core.GetPublicIpRequest{PublicIpId: reserved.Id})
	if err != nil {
		t.Fatal(err)
	}
	if *byAddr.Id != *reserved.Id || *byID.IpAddress != "192.0.2.10" {
		t.Errorf("by address %s, by id %s; want %s and 192.0.2.10", *byAddr.Id, *byID.IpAddress, *reserved.Id)
	}

	_, err = f.vcn.GetPublicIpByIpAddress(t.Context(), core.GetPublicIpByIpAddressRequest{
		GetPublicIpByIpAddressDetails: core.GetPublicIpByIpAddressDetails{IpAddress: new("192.0.2.99")}})
	wantStatus(t, err, 404, "NotAuthorizedOrNotFound")
	_, err = f.vcn.GetPublicIp(t.Context(), core.GetPublicIpRequest{PublicIpId: new("ocid1.publicip.oc1.phx.nope")})
	wantStatus(t, err, 404, "NotAuthorizedOrNotFound")
	_, err = f.vcn.ListPublicIps(t.Context(), core.ListPublicIpsRequest{
		Scope: core.ListPublicIpsScopeAvailabilityDomain, CompartmentId: &comp})
	wantStatus(t, err, 400, "MissingParameter")
	if calls := f.srv.Calls(); calls.Op("GetPublicIpByIpAddress") != 2 || calls.Class(ocitest.ClassWrite) != 0 {
		t.Errorf("GetPublicIpByIpAddress calls %d, writes %d; want 2 and 0 (it is a read)", calls.Op("GetPublicIpByIpAddress"), calls.Class(ocitest.ClassWrite))
	}
}

func TestListOperationsRequireTheirCompartment(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	none := new("")
	tests := map[string]func() error{
		"ListVcns": func() error {
			_, err := f.vcn.ListVcns(t.Context(), core.ListVcnsRequest{CompartmentId: none})
			return err
		},
		"ListSubnets": func() error {
			_, err := f.vcn.ListSubnets(t.Context(), core.ListSubnetsRequest{CompartmentId: none})
			return err
		},
		"ListSecurityLists": func() error {
			_, err := f.vcn.ListSecurityLists(t.Context(), core.ListSecurityListsRequest{CompartmentId: none})
			return err
		},
		"ListPublicIps": func() error {
			_, err := f.vcn.ListPublicIps(t.Context(), core.ListPublicIpsRequest{Scope: core.ListPublicIpsScopeRegion, CompartmentId: none})
			return err
		},
		"ListVnicAttachments": func() error {
			_, err := f.compute.ListVnicAttachments(t.Context(), core.ListVnicAttachmentsRequest{CompartmentId: none})
			return err
		},
	}
	for op, call := range tests {
		t.Run(op, func(t *testing.T) {
			wantStatus(t, call(), 400, "MissingParameter")
			if n := f.srv.Calls().Op(op); n != 1 {
				t.Errorf("%s calls = %d, want 1", op, n)
			}
		})
	}
}
