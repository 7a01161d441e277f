// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// ipv6Fixture is a server whose VCN has the IPv6 prefix 2001:db8::/56 and three subnets: "dual"
// (public, 10.0.1.0/24 and 2001:db8:0:1::/64), "dual-private" (10.0.3.0/24 and
// 2001:db8:0:3::/64) and "v4only" (public, 10.0.2.0/24).
func ipv6Fixture(t *testing.T, opts Options) (*lbFixture, map[string]string) {
	f := newLBFixture(t, opts)
	vcn := f.srv.AddVCN(core.Vcn{Ipv6CidrBlocks: []string{"2001:db8::/56"}})
	sn := map[string]string{}
	add := func(name, cidr, cidr6 string, private bool) {
		s := core.Subnet{VcnId: vcn.Id, CidrBlock: common.String(cidr), ProhibitPublicIpOnVnic: common.Bool(private)}
		if cidr6 != "" {
			s.Ipv6CidrBlock = common.String(cidr6)
		}
		sn[name] = *f.srv.AddSubnet(s).Id
	}
	add("dual", "10.0.1.0/24", "2001:db8:0:1::/64", false)
	add("v4only", "10.0.2.0/24", "", false)
	add("dual-private", "10.0.3.0/24", "2001:db8:0:3::/64", true)
	return f, sn
}

func nlbAddr(ip string, public bool, v nlbapi.IpVersionEnum) nlbapi.IpAddress {
	return nlbapi.IpAddress{IpAddress: common.String(ip), IsPublic: common.Bool(public), IpVersion: v}
}

func TestNetworkLoadBalancerIPVersionsGiveAddressesOfEachFamily(t *testing.T) {
	const (
		v4, v6      = nlbapi.IpVersionIpv4, nlbapi.IpVersionIpv6
		dual, only6 = nlbapi.NlbIpVersionIpv4AndIpv6, nlbapi.NlbIpVersionIpv6
		reserved6   = "seeded" // a reserved IPv6 AddIPv6 seeds in the "dual" subnet for the case
	)
	withReserved := func(a nlbapi.IpAddress, id string) nlbapi.IpAddress {
		a.ReservedIp = &nlbapi.ReservedIp{Id: common.String(id)}
		return a
	}
	tests := []struct {
		name     string
		subnet   string // a name of ipv6Fixture's, or an OCID it does not know
		version  nlbapi.NlbIpVersionEnum
		private  bool
		cidr     string // subnetIpv6Cidr
		assigned string // assignedIpv6
		reserved string // a reserved IP OCID
		want     []nlbapi.IpAddress
		wantCode int    // when not 0: refused with this status
		wantErr  string // and this code ("": InvalidParameter)
	}{
		{name: "IPv4 by default, public with its private address", subnet: "dual",
			want: []nlbapi.IpAddress{nlbAddr("203.0.113.1", true, v4), nlbAddr("10.0.1.254", false, v4)}},
		{name: "dual-stack public", subnet: "dual", version: dual,
			want: []nlbapi.IpAddress{nlbAddr("203.0.113.1", true, v4), nlbAddr("10.0.1.254", false, v4), nlbAddr("2001:db8:0:1::100", true, v6)}},
		{name: "dual-stack private", subnet: "dual-private", version: dual, private: true,
			want: []nlbapi.IpAddress{nlbAddr("10.0.3.254", false, v4), nlbAddr("2001:db8:0:3::100", false, v6)}},
		{name: "IPv6 only", subnet: "dual", version: only6, want: []nlbapi.IpAddress{nlbAddr("2001:db8:0:1::100", true, v6)}},
		{name: "assigned IPv6", subnet: "dual", version: dual, assigned: "2001:db8:0:1::abcd",
			want: []nlbapi.IpAddress{nlbAddr("203.0.113.1", true, v4), nlbAddr("10.0.1.254", false, v4), nlbAddr("2001:db8:0:1::abcd", true, v6)}},
		{name: "the subnet's IPv6 prefix chosen", subnet: "dual", version: only6, cidr: "2001:db8:0:1::/64",
			want: []nlbapi.IpAddress{nlbAddr("2001:db8:0:1::100", true, v6)}},
		{name: "reserved IPv6", subnet: "dual", version: only6, reserved: reserved6,
			want: []nlbapi.IpAddress{withReserved(nlbAddr("2001:db8:0:1::100", true, v6), reserved6)}},
		{name: "IPv6 in a subnet without IPv6", subnet: "v4only", version: dual, wantCode: http.StatusBadRequest},
		{name: "IPv6-only in a subnet without IPv6", subnet: "v4only", version: only6, wantCode: http.StatusBadRequest},
		{name: "a prefix the subnet does not have", subnet: "dual", version: dual, cidr: "2001:db8:0:9::/64", wantCode: http.StatusBadRequest},
		{name: "an assigned IPv6 outside the subnet", subnet: "dual", version: dual, assigned: "2001:db8:0:9::1", wantCode: http.StatusBadRequest},
		{name: "assignedIpv6 on an IPv4 NLB", subnet: "dual", assigned: "2001:db8:0:1::abcd", wantCode: http.StatusBadRequest},
		{name: "subnetIpv6Cidr on an IPv4 NLB", subnet: "dual", cidr: "2001:db8:0:1::/64", wantCode: http.StatusBadRequest},
		{name: "an IPv4 address as assignedIpv6", subnet: "dual", version: dual, assigned: "10.0.1.9", wantCode: http.StatusBadRequest},
		{name: "reserved IPv6 on an IPv4 NLB", subnet: "dual", reserved: reserved6, wantCode: http.StatusBadRequest},
		{name: "a reserved IPv6 nobody seeded", subnet: "dual", version: dual, reserved: "ocid1.ipv6.oc1..unknown",
			wantCode: http.StatusBadRequest, wantErr: "RelatedResourceNotAuthorizedOrNotFound"},
		{name: "a reserved IPv6 of another subnet", subnet: "dual-private", version: dual, private: true, reserved: reserved6, wantCode: http.StatusBadRequest},
		{name: "reserved public IPv4 on an IPv6-only NLB", subnet: "dual", version: only6, reserved: "ocid1.publicip.oc1..p", wantCode: http.StatusBadRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, sn := ipv6Fixture(t, Options{})
			d := f.basicNLB("nlb")
			d.Listeners, d.BackendSets = nil, nil
			d.SubnetId = common.String(sn[tc.subnet])
			if sn[tc.subnet] == "" {
				d.SubnetId = common.String(tc.subnet)
			}
			d.NlbIpVersion, d.IsPrivate = tc.version, common.Bool(tc.private)
			if tc.cidr != "" {
				d.SubnetIpv6Cidr = common.String(tc.cidr)
			}
			if tc.assigned != "" {
				d.AssignedIpv6 = common.String(tc.assigned)
			}
			if tc.reserved == reserved6 {
				seeded := *f.srv.AddIPv6(core.Ipv6{SubnetId: common.String(sn["dual"])}).Id
				tc.reserved = seeded
				for i, a := range tc.want {
					if a.ReservedIp != nil && *a.ReservedIp.Id == reserved6 {
						tc.want[i] = withReserved(a, seeded)
					}
				}
			}
			if tc.reserved != "" {
				d.ReservedIps = []nlbapi.ReservedIp{{Id: common.String(tc.reserved)}}
			}
			resp, err := f.nlb.CreateNetworkLoadBalancer(testCtx(t), nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: d})
			if tc.wantCode != 0 {
				code := tc.wantErr
				if code == "" {
					code = "InvalidParameter"
				}
				wantServiceError(t, err, tc.wantCode, code)
				return
			}
			if err != nil {
				t.Fatalf("CreateNetworkLoadBalancer: %v", err)
			}
			f.nlbMustSucceed(t, resp.OpcWorkRequestId)
			got := f.getNLB(t, *resp.Id)
			if diff := cmp.Diff(tc.want, got.IpAddresses); diff != "" {
				t.Errorf("ipAddresses (-want +got):\n%s", diff)
			}
			if want := nlbVersionOf(tc.version); got.NlbIpVersion != want {
				t.Errorf("nlbIpVersion %s, want %s", got.NlbIpVersion, want)
			}
		})
	}
}

func TestNetworkLoadBalancersInOneSubnetGetDistinctIPv6AddressesFreedOnDelete(t *testing.T) {
	f, sn := ipv6Fixture(t, Options{})
	create := func(name string) (string, string) {
		d := f.basicNLB(name)
		d.SubnetId, d.NlbIpVersion = common.String(sn["dual"]), nlbapi.NlbIpVersionIpv6
		d.Listeners, d.BackendSets = nil, nil
		id := f.createNLB(t, d)
		return id, *f.getNLB(t, id).IpAddresses[0].IpAddress
	}
	a, addrA := create("a")
	_, addrB := create("b")
	if addrA != "2001:db8:0:1::100" || addrB != "2001:db8:0:1::101" {
		t.Fatalf("addresses %s and %s, want 2001:db8:0:1::100 and ::101", addrA, addrB)
	}
	// assignedIpv6 of an address in use is refused.
	d := f.basicNLB("c")
	d.SubnetId, d.NlbIpVersion, d.AssignedIpv6 = common.String(sn["dual"]), nlbapi.NlbIpVersionIpv6, common.String(addrB)
	d.Listeners, d.BackendSets = nil, nil
	_, err := f.nlb.CreateNetworkLoadBalancer(testCtx(t), nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: d})
	wantServiceError(t, err, http.StatusConflict, "Conflict")
	resp, err := f.nlb.DeleteNetworkLoadBalancer(testCtx(t), nlbapi.DeleteNetworkLoadBalancerRequest{NetworkLoadBalancerId: &a})
	if err != nil {
		t.Fatalf("DeleteNetworkLoadBalancer: %v", err)
	}
	f.nlbMustSucceed(t, resp.OpcWorkRequestId)
	if _, addrC := create("c"); addrC != addrA {
		t.Errorf("after the delete the next address is %s, want the freed %s", addrC, addrA)
	}
}

// dualStackNLB is a dual-stack network load balancer with one TCP port on both families, as the
// upstream CCM builds it: listener and backend set "TCP-80" (IPv4) and "TCP-80-IPv6" (IPv6).
func dualStackNLB(f *lbFixture, subnet string) nlbapi.CreateNetworkLoadBalancerDetails {
	d := f.basicNLB("dual")
	d.SubnetId, d.NlbIpVersion = common.String(subnet), nlbapi.NlbIpVersionIpv4AndIpv6
	d.Listeners["TCP-80"] = nlbapi.ListenerDetails{Name: common.String("TCP-80"), DefaultBackendSetName: common.String("TCP-80"),
		Port: common.Int(80), Protocol: nlbapi.ListenerProtocolsTcp, IpVersion: nlbapi.IpVersionIpv4}
	d.Listeners["TCP-80-IPv6"] = nlbapi.ListenerDetails{Name: common.String("TCP-80-IPv6"), DefaultBackendSetName: common.String("TCP-80-IPv6"),
		Port: common.Int(80), Protocol: nlbapi.ListenerProtocolsTcp, IpVersion: nlbapi.IpVersionIpv6}
	d.BackendSets["TCP-80-IPv6"] = nlbapi.BackendSetDetails{
		IpVersion:     nlbapi.IpVersionIpv6,
		Policy:        nlbapi.NetworkLoadBalancingPolicyFiveTuple,
		HealthChecker: &nlbapi.HealthChecker{Protocol: nlbapi.HealthCheckProtocolsTcp, Port: common.Int(10256)},
		Backends:      []nlbapi.Backend{{IpAddress: common.String("2001:db8:0:10::5"), Port: common.Int(30080)}},
	}
	return d
}

func TestDualStackNetworkLoadBalancerTakesListenersAndBackendSetsOfBothFamiliesOnOnePort(t *testing.T) {
	f, sn := ipv6Fixture(t, Options{})
	id := f.createNLB(t, dualStackNLB(f, sn["dual"]))
	got := f.getNLB(t, id)
	if l := got.Listeners["TCP-80-IPv6"]; l.IpVersion != nlbapi.IpVersionIpv6 || got.Listeners["TCP-80"].IpVersion != nlbapi.IpVersionIpv4 {
		t.Errorf("listener ipVersions %s (TCP-80), %s (TCP-80-IPv6)", got.Listeners["TCP-80"].IpVersion, l.IpVersion)
	}
	bs, err := f.nlb.GetBackendSet(testCtx(t), nlbapi.GetBackendSetRequest{NetworkLoadBalancerId: &id, BackendSetName: common.String("TCP-80-IPv6")})
	if err != nil {
		t.Fatalf("GetBackendSet: %v", err)
	}
	want := []nlbapi.Backend{{Name: common.String("[2001:db8:0:10::5]:30080"), IpAddress: common.String("2001:db8:0:10::5"), Port: common.Int(30080),
		Weight: common.Int(1), IsDrain: common.Bool(false), IsBackup: common.Bool(false), IsOffline: common.Bool(false)}}
	if diff := cmp.Diff(want, bs.Backends); diff != "" || bs.IpVersion != nlbapi.IpVersionIpv6 {
		t.Errorf("IPv6 backend set %s, backends (-want +got):\n%s", bs.IpVersion, diff)
	}
}

func TestListenersAndBackendSetsMustMatchTheFamiliesOfTheirNetworkLoadBalancer(t *testing.T) {
	tcp := func(name, set string, v nlbapi.IpVersionEnum) nlbapi.CreateListenerDetails {
		return nlbapi.CreateListenerDetails{Name: common.String(name), DefaultBackendSetName: common.String(set), Port: common.Int(443),
			Protocol: nlbapi.ListenerProtocolsTcp, IpVersion: v}
	}
	set := func(name string, v nlbapi.IpVersionEnum, ip string) nlbapi.CreateBackendSetDetails {
		return nlbapi.CreateBackendSetDetails{Name: common.String(name), Policy: nlbapi.NetworkLoadBalancingPolicyFiveTuple, IpVersion: v,
			HealthChecker: &nlbapi.HealthCheckerDetails{Protocol: nlbapi.HealthCheckProtocolsTcp, Port: common.Int(10256)},
			Backends:      []nlbapi.BackendDetails{{IpAddress: common.String(ip), Port: common.Int(30443)}}}
	}
	tests := []struct {
		name     string
		version  nlbapi.NlbIpVersionEnum
		set      *nlbapi.CreateBackendSetDetails
		listener *nlbapi.CreateListenerDetails
		wantFail bool // the work request fails (else the request is refused with 400)
	}{
		{name: "an IPv6 backend set on an IPv4 NLB", set: new(set("s6", nlbapi.IpVersionIpv6, "2001:db8:0:10::5"))},
		{name: "an IPv6 listener on an IPv4 NLB", listener: new(tcp("l6", "TCP-80", nlbapi.IpVersionIpv6))},
		{name: "an IPv4 listener on an IPv6-only NLB", version: nlbapi.NlbIpVersionIpv6, listener: new(tcp("l4", "TCP-80", nlbapi.IpVersionIpv4))},
		{name: "an IPv4 address in an IPv6 backend set", version: nlbapi.NlbIpVersionIpv4AndIpv6, set: new(set("s6", nlbapi.IpVersionIpv6, "10.0.10.5"))},
		{name: "an IPv6 address in an IPv4 backend set", version: nlbapi.NlbIpVersionIpv4AndIpv6, set: new(set("s4", nlbapi.IpVersionIpv4, "2001:db8:0:10::5"))},
		{name: "an IPv6 listener on an IPv4 backend set", version: nlbapi.NlbIpVersionIpv4AndIpv6,
			listener: new(tcp("l6", "TCP-80", nlbapi.IpVersionIpv6)), wantFail: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, sn := ipv6Fixture(t, Options{})
			d := f.basicNLB("nlb")
			d.SubnetId, d.NlbIpVersion = common.String(sn["dual"]), tc.version
			if tc.version == nlbapi.NlbIpVersionIpv6 {
				d.Listeners, d.BackendSets = nil, nil
			}
			id := f.createNLB(t, d)
			var wr *string
			var err error
			if tc.set != nil {
				var resp nlbapi.CreateBackendSetResponse
				resp, err = f.nlb.CreateBackendSet(testCtx(t), nlbapi.CreateBackendSetRequest{NetworkLoadBalancerId: &id, CreateBackendSetDetails: *tc.set})
				wr = resp.OpcWorkRequestId
			} else {
				var resp nlbapi.CreateListenerResponse
				resp, err = f.nlb.CreateListener(testCtx(t), nlbapi.CreateListenerRequest{NetworkLoadBalancerId: &id, CreateListenerDetails: *tc.listener})
				wr = resp.OpcWorkRequestId
			}
			if !tc.wantFail {
				wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
				return
			}
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			if got := f.waitNLBWork(t, wr); got.Status != nlbapi.OperationStatusFailed {
				t.Errorf("work request %s, want FAILED", got.Status)
			}
		})
	}
}

func TestUpdateNetworkLoadBalancerMovesBetweenSingleAndDualStack(t *testing.T) {
	// Work requests run until the test finishes them, so "while it runs" is not a race.
	f, sn := ipv6Fixture(t, slowWork())
	ctx := testCtx(t)
	finish := func(wr *string) {
		t.Helper()
		f.srv.CompleteWorkRequests()
		f.nlbMustSucceed(t, wr)
	}
	d := f.basicNLB("nlb")
	d.SubnetId = common.String(sn["dual"])
	created, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: d})
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	finish(created.OpcWorkRequestId)
	id := *created.Id
	update := func(u nlbapi.UpdateNetworkLoadBalancerDetails) (*string, error) {
		resp, err := f.nlb.UpdateNetworkLoadBalancer(ctx, nlbapi.UpdateNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id, UpdateNetworkLoadBalancerDetails: u})
		return resp.OpcWorkRequestId, err
	}
	// IPV4 -> IPV6 in one step is refused; so is a reserved IPv6 on an update that adds none, and
	// one nobody seeded.
	reserved := f.srv.AddIPv6(core.Ipv6{SubnetId: common.String(sn["dual"])}).Id
	_, err = update(nlbapi.UpdateNetworkLoadBalancerDetails{NlbIpVersion: nlbapi.NlbIpVersionIpv6})
	wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
	_, err = update(nlbapi.UpdateNetworkLoadBalancerDetails{DisplayName: common.String("x"), ReservedIpv6Id: reserved})
	wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
	_, err = update(nlbapi.UpdateNetworkLoadBalancerDetails{NlbIpVersion: nlbapi.NlbIpVersionIpv4AndIpv6, ReservedIpv6Id: common.String("ocid1.ipv6.oc1..r")})
	wantServiceError(t, err, http.StatusBadRequest, "RelatedResourceNotAuthorizedOrNotFound")

	wr, err := update(nlbapi.UpdateNetworkLoadBalancerDetails{NlbIpVersion: nlbapi.NlbIpVersionIpv4AndIpv6, ReservedIpv6Id: reserved})
	if err != nil {
		t.Fatalf("update to IPV4_AND_IPV6: %v", err)
	}
	if got := f.getNLB(t, id); got.NlbIpVersion != nlbapi.NlbIpVersionIpv4 || len(got.IpAddresses) != 2 {
		t.Errorf("while the work request runs: %s %v; want IPV4 with its public and private address", got.NlbIpVersion, got.IpAddresses)
	}
	finish(wr)
	six := nlbAddr("2001:db8:0:1::100", true, nlbapi.IpVersionIpv6)
	six.ReservedIp = &nlbapi.ReservedIp{Id: reserved}
	want := []nlbapi.IpAddress{nlbAddr("203.0.113.1", true, nlbapi.IpVersionIpv4), nlbAddr("10.0.1.254", false, nlbapi.IpVersionIpv4), six}
	got := f.getNLB(t, id)
	if diff := cmp.Diff(want, got.IpAddresses); diff != "" || got.NlbIpVersion != nlbapi.NlbIpVersionIpv4AndIpv6 {
		t.Fatalf("dual-stack %s, addresses (-want +got):\n%s", got.NlbIpVersion, diff)
	}

	// An IPv6 listener now fits; back to IPV4 is refused while it (or its backend set) remains.
	ds := dualStackNLB(f, sn["dual"])
	bsResp, err := f.nlb.CreateBackendSet(ctx, nlbapi.CreateBackendSetRequest{NetworkLoadBalancerId: &id,
		CreateBackendSetDetails: nlbConvert[nlbapi.CreateBackendSetDetails](withName(ds.BackendSets["TCP-80-IPv6"], "TCP-80-IPv6"))})
	if err != nil {
		t.Fatalf("CreateBackendSet IPv6: %v", err)
	}
	finish(bsResp.OpcWorkRequestId)
	_, err = update(nlbapi.UpdateNetworkLoadBalancerDetails{NlbIpVersion: nlbapi.NlbIpVersionIpv4})
	wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
	del, err := f.nlb.DeleteBackendSet(ctx, nlbapi.DeleteBackendSetRequest{NetworkLoadBalancerId: &id, BackendSetName: common.String("TCP-80-IPv6")})
	if err != nil {
		t.Fatalf("DeleteBackendSet: %v", err)
	}
	finish(del.OpcWorkRequestId)
	wr, err = update(nlbapi.UpdateNetworkLoadBalancerDetails{NlbIpVersion: nlbapi.NlbIpVersionIpv4})
	if err != nil {
		t.Fatalf("update to IPV4: %v", err)
	}
	finish(wr)
	got = f.getNLB(t, id)
	if diff := cmp.Diff(want[:2], got.IpAddresses); diff != "" || got.NlbIpVersion != nlbapi.NlbIpVersionIpv4 {
		t.Errorf("back to IPV4 %s, addresses (-want +got):\n%s", got.NlbIpVersion, diff)
	}
}

func TestUpdateToDualStackIsRefusedInASubnetWithoutIPv6(t *testing.T) {
	f, sn := ipv6Fixture(t, Options{})
	d := f.basicNLB("nlb")
	d.SubnetId = common.String(sn["v4only"])
	id := f.createNLB(t, d)
	_, err := f.nlb.UpdateNetworkLoadBalancer(testCtx(t), nlbapi.UpdateNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id,
		UpdateNetworkLoadBalancerDetails: nlbapi.UpdateNetworkLoadBalancerDetails{NlbIpVersion: nlbapi.NlbIpVersionIpv4AndIpv6}})
	wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
	if got := f.getNLB(t, id); got.LifecycleState != nlbapi.LifecycleStateActive || got.NlbIpVersion != nlbapi.NlbIpVersionIpv4 {
		t.Errorf("after the refusal: %s %s, want ACTIVE IPV4", got.LifecycleState, got.NlbIpVersion)
	}
}

func withName(d nlbapi.BackendSetDetails, name string) nlbapi.BackendSet {
	bs := nlbConvert[nlbapi.BackendSet](d)
	bs.Name = common.String(name)
	return bs
}

// TestSeededReservedIPv6HoldsItsAddress: an unused reserved IPv6 keeps its address; a network
// load balancer without it gets the next free one, and may not assign it to itself.
func TestSeededReservedIPv6HoldsItsAddress(t *testing.T) {
	f, sn := ipv6Fixture(t, Options{})
	v6 := f.srv.AddIPv6(core.Ipv6{SubnetId: common.String(sn["dual"])})
	if *v6.IpAddress != "2001:db8:0:1::100" || v6.Lifetime != core.Ipv6LifetimeReserved {
		t.Fatalf("seeded IPv6 %s %s; want 2001:db8:0:1::100 RESERVED", *v6.IpAddress, v6.Lifetime)
	}
	d := f.basicNLB("nlb")
	d.Listeners, d.BackendSets = nil, nil
	d.SubnetId, d.NlbIpVersion = common.String(sn["dual"]), nlbapi.NlbIpVersionIpv6
	got := f.getNLB(t, f.createNLB(t, d))
	if a := *got.IpAddresses[0].IpAddress; a == *v6.IpAddress {
		t.Errorf("an NLB without the reserved IPv6 got its address %s", a)
	}
	d.AssignedIpv6 = v6.IpAddress
	_, err := f.nlb.CreateNetworkLoadBalancer(testCtx(t), nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: d})
	wantServiceError(t, err, http.StatusConflict, "Conflict")
}
