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

// targetFixture is a server with a private subnet 10.0.10.0/24 and an instance in it whose
// primary VNIC has 10.0.10.9 (and the private IP's OCID).
func targetFixture(t *testing.T) (f *lbFixture, subnet string, inst core.Instance, privateIP string) {
	t.Helper()
	// TestUpdateNetworkLoadBalancerChangesNameTagsAndPreservation lists an NLB it has just made,
	// for its new name, not for when it is listed (the lag is consistency_test.go's).
	f = newLBFixture(t, Options{ListingLag: NoLag})
	vcn := f.srv.AddVCN(core.Vcn{})
	sn := f.srv.AddSubnet(core.Subnet{VcnId: vcn.Id, CidrBlock: common.String("10.0.10.0/24"), ProhibitPublicIpOnVnic: common.Bool(true)})
	inst = f.srv.AddInstance(Instance{VNICs: []core.Vnic{{SubnetId: sn.Id, PrivateIp: common.String("10.0.10.9")}}})
	f.srv.mu.Lock()
	for _, p := range f.srv.vcn.privateIPs.filter(func(p core.PrivateIp) bool { return deref(p.IpAddress) == "10.0.10.9" }) {
		privateIP = *p.Id
	}
	f.srv.mu.Unlock()
	return f, *sn.Id, inst, privateIP
}

func TestNetworkLoadBalancerIsPrivateUnlessAskedToBePublic(t *testing.T) {
	f := newLBFixture(t, Options{})
	d := f.basicNLB("svc")
	d.IsPrivate = nil
	got := f.getNLB(t, f.createNLB(t, d))
	if !deref(got.IsPrivate) || len(got.IpAddresses) != 1 || deref(got.IpAddresses[0].IsPublic) {
		t.Errorf("isPrivate %v, addresses %+v; want a private NLB with one private address (OCI's default)", deref(got.IsPrivate), got.IpAddresses)
	}
}

func TestTCPAndUDPListenersProxyProtocolAndHealthChecks(t *testing.T) {
	udpCheck := &nlbapi.HealthChecker{Protocol: nlbapi.HealthCheckProtocolsUdp, Port: common.Int(53), RequestData: []byte("ping"), ResponseData: []byte("pong")}
	listener := func(name string, port int, proto nlbapi.ListenerProtocolsEnum, ppv2 bool) nlbapi.ListenerDetails {
		return nlbapi.ListenerDetails{Name: common.String(name), DefaultBackendSetName: common.String("set"), Port: common.Int(port),
			Protocol: proto, IsPpv2Enabled: common.Bool(ppv2)}
	}
	tests := []struct {
		name      string
		listeners []nlbapi.ListenerDetails
		check     *nlbapi.HealthChecker
		want      string // "" accepted and ACTIVE, "400" refused, "FAILED" the work request fails
	}{
		{"TCP_AND_UDP with a UDP health check and PPv2", []nlbapi.ListenerDetails{listener("TCP_AND_UDP-53", 53, nlbapi.ListenerProtocolsTcpAndUdp, true)}, udpCheck, ""},
		{"UDP with a TCP health check", []nlbapi.ListenerDetails{listener("UDP-53", 53, nlbapi.ListenerProtocolsUdp, false)},
			&nlbapi.HealthChecker{Protocol: nlbapi.HealthCheckProtocolsTcp, Port: common.Int(10256)}, ""},
		{"TCP and UDP on one port as two listeners", []nlbapi.ListenerDetails{listener("TCP-53", 53, nlbapi.ListenerProtocolsTcp, false),
			listener("UDP-53", 53, nlbapi.ListenerProtocolsUdp, false)}, udpCheck, ""},
		{"PPv2 on UDP", []nlbapi.ListenerDetails{listener("UDP-53", 53, nlbapi.ListenerProtocolsUdp, true)}, udpCheck, "400"},
		{"a UDP health check without its data", []nlbapi.ListenerDetails{listener("UDP-53", 53, nlbapi.ListenerProtocolsUdp, false)},
			&nlbapi.HealthChecker{Protocol: nlbapi.HealthCheckProtocolsUdp, Port: common.Int(53)}, "400"},
		{"TCP_AND_UDP and TCP on one port", []nlbapi.ListenerDetails{listener("TCP_AND_UDP-53", 53, nlbapi.ListenerProtocolsTcpAndUdp, false),
			listener("TCP-53", 53, nlbapi.ListenerProtocolsTcp, false)}, udpCheck, "FAILED"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newLBFixture(t, Options{})
			d := f.basicNLB("svc")
			d.Listeners = map[string]nlbapi.ListenerDetails{}
			for _, l := range tc.listeners {
				d.Listeners[*l.Name] = l
			}
			d.BackendSets = map[string]nlbapi.BackendSetDetails{"set": {HealthChecker: tc.check,
				Backends: []nlbapi.Backend{{IpAddress: common.String("10.0.10.1"), Port: common.Int(30053)}}}}
			resp, err := f.nlb.CreateNetworkLoadBalancer(testCtx(t), nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: d})
			if tc.want == "400" {
				wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
				return
			}
			if err != nil {
				t.Fatalf("CreateNetworkLoadBalancer: %v", err)
			}
			wr := f.waitNLBWork(t, resp.OpcWorkRequestId)
			if want := map[string]nlbapi.OperationStatusEnum{"": nlbapi.OperationStatusSucceeded, "FAILED": nlbapi.OperationStatusFailed}[tc.want]; wr.Status != want {
				t.Fatalf("work request %s, want %s", wr.Status, want)
			}
			if tc.want == "" {
				for _, l := range tc.listeners {
					got := f.getNLB(t, *resp.Id).Listeners[*l.Name]
					if got.Protocol != l.Protocol || deref(got.IsPpv2Enabled) != deref(l.IsPpv2Enabled) {
						t.Errorf("listener %s: %s ppv2=%v, want %s ppv2=%v", *l.Name, got.Protocol, deref(got.IsPpv2Enabled), l.Protocol, deref(l.IsPpv2Enabled))
					}
				}
			}
		})
	}
}

func TestBackendsByTargetIdNameAnInstanceOrPrivateIPThatExists(t *testing.T) {
	tests := []struct {
		name     string
		backend  func(inst, privateIP string) nlbapi.Backend
		want     []string // name and ipAddress; nil: 400
		wantCode string
	}{
		{"an instance", func(inst, _ string) nlbapi.Backend { return nlbapi.Backend{TargetId: &inst, Port: common.Int(80)} },
			[]string{":80", "10.0.10.9"}, ""},
		{"an instance with its address, as the upstream CCM sends it", func(inst, _ string) nlbapi.Backend {
			return nlbapi.Backend{TargetId: &inst, IpAddress: common.String("10.0.10.9"), Port: common.Int(80)}
		}, []string{":80", "10.0.10.9"}, ""},
		{"a private IP", func(_, pip string) nlbapi.Backend { return nlbapi.Backend{TargetId: &pip, Port: common.Int(80)} },
			[]string{":80", "10.0.10.9"}, ""},
		{"an instance that does not exist", func(string, string) nlbapi.Backend {
			return nlbapi.Backend{TargetId: common.String("ocid1.instance.oc1..gone"), Port: common.Int(80)}
		}, nil, "InvalidParameter"},
		{"an address that is not the instance's", func(inst, _ string) nlbapi.Backend {
			return nlbapi.Backend{TargetId: &inst, IpAddress: common.String("10.0.10.10"), Port: common.Int(80)}
		}, nil, "InvalidParameter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, subnet, inst, pip := targetFixture(t)
			d := f.basicNLB("svc")
			d.SubnetId, d.IsPrivate = &subnet, common.Bool(true)
			b := tc.backend(*inst.Id, pip)
			bs := d.BackendSets["TCP-80"]
			bs.Backends = []nlbapi.Backend{b}
			d.BackendSets["TCP-80"] = bs
			resp, err := f.nlb.CreateNetworkLoadBalancer(testCtx(t), nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: d})
			if tc.want == nil {
				wantServiceError(t, err, http.StatusBadRequest, tc.wantCode)
				return
			}
			if err != nil {
				t.Fatalf("CreateNetworkLoadBalancer: %v", err)
			}
			f.nlbMustSucceed(t, resp.OpcWorkRequestId)
			got := f.getNLB(t, *resp.Id).BackendSets["TCP-80"].Backends[0]
			want := []string{*b.TargetId + tc.want[0], tc.want[1]}
			if diff := cmp.Diff(want, []string{deref(got.Name), deref(got.IpAddress)}); diff != "" {
				t.Errorf("backend name and ipAddress (-want +got):\n%s", diff)
			}
			// CreateBackend resolves its target the same way.
			_, err = f.nlb.CreateBackend(testCtx(t), nlbapi.CreateBackendRequest{NetworkLoadBalancerId: resp.Id, BackendSetName: common.String("TCP-80"),
				CreateBackendDetails: nlbapi.CreateBackendDetails{TargetId: common.String("ocid1.instance.oc1..gone"), Port: common.Int(81)}})
			wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
		})
	}
}

func TestSourceDestinationPreservationIsForPrivateNLBsWithBackendsByTargetOnly(t *testing.T) {
	f, subnet, inst, _ := targetFixture(t)
	ctx := testCtx(t)
	byTarget := func(d *nlbapi.CreateNetworkLoadBalancerDetails) {
		bs := d.BackendSets["TCP-80"]
		bs.Backends = []nlbapi.Backend{{TargetId: inst.Id, Port: common.Int(80)}}
		d.BackendSets["TCP-80"] = bs
	}
	// Public: refused at once.
	d := f.basicNLB("public")
	d.IsPreserveSourceDestination = common.Bool(true)
	byTarget(&d)
	_, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: d})
	wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
	public := f.createNLB(t, f.basicNLB("public"))
	_, err = f.nlb.UpdateNetworkLoadBalancer(ctx, nlbapi.UpdateNetworkLoadBalancerRequest{NetworkLoadBalancerId: &public,
		UpdateNetworkLoadBalancerDetails: nlbapi.UpdateNetworkLoadBalancerDetails{IsPreserveSourceDestination: common.Bool(true)}})
	wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")

	// Private with backends by IP address: the work request fails.
	private := func(name string) nlbapi.CreateNetworkLoadBalancerDetails {
		d := f.basicNLB(name)
		d.SubnetId, d.IsPrivate, d.IsPreserveSourceDestination = &subnet, common.Bool(true), common.Bool(true)
		return d
	}
	resp, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: private("by-ip")})
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	if wr := f.waitNLBWork(t, resp.OpcWorkRequestId); wr.Status != nlbapi.OperationStatusFailed {
		t.Errorf("transparent mode with backends by IP: %s, want FAILED", wr.Status)
	}
	// Private with backends by target: fine, but no proxy protocol on its listeners.
	ok := private("by-target")
	byTarget(&ok)
	id := f.createNLB(t, ok)
	u, err := f.nlb.UpdateListener(ctx, nlbapi.UpdateListenerRequest{NetworkLoadBalancerId: &id, ListenerName: common.String("TCP-80"),
		UpdateListenerDetails: nlbapi.UpdateListenerDetails{IsPpv2Enabled: common.Bool(true)}})
	if err != nil {
		t.Fatalf("UpdateListener: %v", err)
	}
	if wr := f.waitNLBWork(t, u.OpcWorkRequestId); wr.Status != nlbapi.OperationStatusFailed {
		t.Errorf("proxy protocol in transparent mode: %s, want FAILED", wr.Status)
	}
}

func TestUpdateNetworkLoadBalancerChangesNameTagsAndPreservation(t *testing.T) {
	f, subnet, inst, _ := targetFixture(t) // the default tenancy: it defines Operations.CostCenter
	ctx := testCtx(t)
	d := f.basicNLB("old")
	d.SubnetId, d.IsPrivate = &subnet, common.Bool(true)
	bs := d.BackendSets["TCP-80"]
	bs.Backends = []nlbapi.Backend{{TargetId: inst.Id, Port: common.Int(80)}}
	d.BackendSets["TCP-80"] = bs
	id := f.createNLB(t, d)
	resp, err := f.nlb.UpdateNetworkLoadBalancer(ctx, nlbapi.UpdateNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id,
		UpdateNetworkLoadBalancerDetails: nlbapi.UpdateNetworkLoadBalancerDetails{
			DisplayName: common.String("new"), IsPreserveSourceDestination: common.Bool(true),
			FreeformTags: map[string]string{"owner": "oci-ccm"}, DefinedTags: map[string]map[string]any{"Operations": {"CostCenter": "42"}}}})
	if err != nil {
		t.Fatalf("UpdateNetworkLoadBalancer: %v", err)
	}
	if wr := f.waitNLBWork(t, resp.OpcWorkRequestId); wr.Status != nlbapi.OperationStatusSucceeded ||
		wr.OperationType != nlbapi.OperationTypeUpdateNetworkLoadBalancer || *wr.Resources[0].Identifier != id {
		t.Fatalf("work request %s %s %+v", wr.Status, wr.OperationType, wr.Resources)
	}
	got := f.getNLB(t, id)
	want := []any{"new", true, map[string]string{"owner": "oci-ccm"}, map[string]map[string]any{"Operations": {"CostCenter": "42"}}, nlbapi.LifecycleStateActive}
	if diff := cmp.Diff(want, []any{deref(got.DisplayName), deref(got.IsPreserveSourceDestination), got.FreeformTags, got.DefinedTags, got.LifecycleState}); diff != "" {
		t.Errorf("after the update (-want +got):\n%s", diff)
	}
	list, err := f.nlb.ListNetworkLoadBalancers(ctx, nlbapi.ListNetworkLoadBalancersRequest{CompartmentId: &f.comp, DisplayName: common.String("new")})
	if err != nil || len(list.Items) != 1 {
		t.Errorf("listing by the new name: %d, %v", len(list.Items), err)
	}
}

func TestAFailedNetworkLoadBalancerIsRepairedByABackendSetOrListenerUpdate(t *testing.T) {
	tests := []struct {
		name string
		op   string
		call func(f *lbFixture, id string) (*string, error)
	}{
		{"UpdateBackendSet", "UpdateBackendSet", func(f *lbFixture, id string) (*string, error) {
			r, err := f.nlb.UpdateBackendSet(testCtx(t), nlbapi.UpdateBackendSetRequest{NetworkLoadBalancerId: &id, BackendSetName: common.String("TCP-80"),
				UpdateBackendSetDetails: nlbapi.UpdateBackendSetDetails{Backends: []nlbapi.BackendDetails{{IpAddress: common.String("10.0.10.7"), Port: common.Int(30080)}}}})
			return r.OpcWorkRequestId, err
		}},
		{"UpdateListener", "UpdateListener", func(f *lbFixture, id string) (*string, error) {
			r, err := f.nlb.UpdateListener(testCtx(t), nlbapi.UpdateListenerRequest{NetworkLoadBalancerId: &id, ListenerName: common.String("TCP-80"),
				UpdateListenerDetails: nlbapi.UpdateListenerDetails{Port: common.Int(8080)}})
			return r.OpcWorkRequestId, err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newLBFixture(t, Options{})
			id := f.createNLB(t, f.basicNLB("svc"))
			remove := f.srv.FailWorkRequests(func(wr WorkRequestInfo) bool { return wr.Operation == tc.op }, "Internal error")
			wr, err := tc.call(f, id)
			if err != nil {
				t.Fatalf("%s: %v", tc.op, err)
			}
			f.waitNLBWork(t, wr)
			if got := f.getNLB(t, id); got.LifecycleState != nlbapi.LifecycleStateFailed || deref(got.LifecycleDetails) != "Internal error" {
				t.Fatalf("after a failed %s: %s %q, want FAILED with the error", tc.op, got.LifecycleState, deref(got.LifecycleDetails))
			}
			remove()
			wr, err = tc.call(f, id)
			if err != nil {
				t.Fatalf("%s on a FAILED NLB: %v", tc.op, err)
			}
			f.nlbMustSucceed(t, wr)
			if got := f.getNLB(t, id); got.LifecycleState != nlbapi.LifecycleStateActive || got.LifecycleDetails != nil {
				t.Errorf("after a successful %s: %s %v, want ACTIVE without details", tc.op, got.LifecycleState, got.LifecycleDetails)
			}
		})
	}
}

// TestAnyAndL3IPListenerRules: an ANY listener needs transparent mode; an L3IP listener listens
// on port 0 and is the NLB's only one. Otherwise the create's work request fails.
func TestAnyAndL3IPListenerRules(t *testing.T) {
	f, subnet, _, _ := targetFixture(t)
	ctx := testCtx(t)
	tests := []struct {
		name        string
		listeners   map[string]nlbapi.ListenerDetails
		transparent bool
		ok          bool
	}{
		{"ANY without transparent mode", map[string]nlbapi.ListenerDetails{"any": {Protocol: nlbapi.ListenerProtocolsAny, Port: common.Int(0)}}, false, false},
		{"ANY in transparent mode", map[string]nlbapi.ListenerDetails{"any": {Protocol: nlbapi.ListenerProtocolsAny, Port: common.Int(0)}}, true, true},
		{"L3IP on port 0", map[string]nlbapi.ListenerDetails{"l3": {Protocol: nlbapi.ListenerProtocolsL3Ip, Port: common.Int(0)}}, false, true},
		{"L3IP on port 80", map[string]nlbapi.ListenerDetails{"l3": {Protocol: nlbapi.ListenerProtocolsL3Ip, Port: common.Int(80)}}, false, false},
		{"L3IP with another listener", map[string]nlbapi.ListenerDetails{"l3": {Protocol: nlbapi.ListenerProtocolsL3Ip, Port: common.Int(0)},
			"TCP-80": {Protocol: nlbapi.ListenerProtocolsTcp, Port: common.Int(80)}}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := f.basicNLB("nlb")
			d.SubnetId, d.IsPrivate, d.IsPreserveSourceDestination = &subnet, common.Bool(true), common.Bool(tc.transparent)
			bs := d.BackendSets["TCP-80"]
			bs.Backends = nil
			d.BackendSets["TCP-80"] = bs
			d.Listeners = map[string]nlbapi.ListenerDetails{}
			for name, l := range tc.listeners {
				l.Name, l.DefaultBackendSetName = common.String(name), common.String("TCP-80")
				d.Listeners[name] = l
			}
			resp, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: d})
			if err != nil {
				t.Fatalf("CreateNetworkLoadBalancer: %v", err)
			}
			want := nlbapi.OperationStatusFailed
			if tc.ok {
				want = nlbapi.OperationStatusSucceeded
			}
			if wr := f.waitNLBWork(t, resp.OpcWorkRequestId); wr.Status != want {
				t.Errorf("work request %s, want %s", wr.Status, want)
			}
		})
	}
}
