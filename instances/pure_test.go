// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cloudprovider "k8s.io/cloud-provider"
)

func TestNodeAddressesFromPrimaryVNIC(t *testing.T) {
	for _, tc := range []struct {
		name string
		vnic core.Vnic
		want []v1.NodeAddress
	}{{
		name: "private only",
		vnic: core.Vnic{PrivateIp: common.String("10.0.0.5")},
		want: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "10.0.0.5"}},
	}, {
		name: "dual stack with public IP and hostname, IPv4 first",
		vnic: core.Vnic{
			PrivateIp:     common.String("10.0.0.5"),
			Ipv6Addresses: []string{"2603:c020:4:1::5", "2603:c020:4:1::6"},
			PublicIp:      common.String("129.146.1.2"),
			HostnameLabel: common.String("node-a"),
		},
		want: []v1.NodeAddress{
			{Type: v1.NodeInternalIP, Address: "10.0.0.5"},
			{Type: v1.NodeInternalIP, Address: "2603:c020:4:1::5"},
			{Type: v1.NodeInternalIP, Address: "2603:c020:4:1::6"},
			{Type: v1.NodeExternalIP, Address: "129.146.1.2"},
			{Type: v1.NodeHostName, Address: "node-a"},
		},
	}, {
		name: "IPv6 only",
		vnic: core.Vnic{Ipv6Addresses: []string{"2603:c020:4:1::5"}},
		want: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "2603:c020:4:1::5"}},
	}, {
		name: "duplicates and empty strings dropped",
		vnic: core.Vnic{PrivateIp: common.String("10.0.0.5"), Ipv6Addresses: []string{"", "10.0.0.5"}, PublicIp: common.String("")},
		want: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "10.0.0.5"}},
	}, {
		name: "nothing set",
		vnic: core.Vnic{},
		want: nil,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, nodeAddresses(tc.vnic)); diff != "" {
				t.Errorf("nodeAddresses (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMetadataSanitisesZoneTypeAndFaultDomain(t *testing.T) {
	inst := core.Instance{
		Id:                 common.String(exampleOCID),
		Shape:              common.String("VM.Standard.E4.Flex"),
		AvailabilityDomain: common.String("Uocm:PHX-AD-1"),
		FaultDomain:        common.String("FAULT-DOMAIN-2"),
	}
	vnic := core.Vnic{PrivateIp: common.String("10.0.0.5"), HostnameLabel: common.String("node-a")}
	want := &cloudprovider.InstanceMetadata{
		ProviderID:   "oci://" + exampleOCID,
		InstanceType: "VM.Standard.E4.Flex",
		NodeAddresses: []v1.NodeAddress{
			{Type: v1.NodeInternalIP, Address: "10.0.0.5"},
			{Type: v1.NodeHostName, Address: "node-a"},
		},
		Zone:             "PHX-AD-1",
		Region:           "us-phoenix-1",
		AdditionalLabels: map[string]string{FaultDomainLabel: "FAULT-DOMAIN-2"},
	}
	if diff := cmp.Diff(want, metadata(inst, vnic, "us-phoenix-1")); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}

	inst.FaultDomain = nil
	if got := metadata(inst, vnic, "us-phoenix-1").AdditionalLabels; got != nil {
		t.Errorf("AdditionalLabels without a fault domain = %v, want none", got)
	}
}

func TestAttachedVNICsOnlyAttachedOldestFirst(t *testing.T) {
	at := func(sec int) *common.SDKTime { return &common.SDKTime{Time: time.Unix(int64(sec), 0)} }
	atts := []core.VnicAttachment{
		{Id: common.String("a3"), InstanceId: common.String("i1"), VnicId: common.String("secondary"), TimeCreated: at(30), LifecycleState: core.VnicAttachmentLifecycleStateAttached},
		{Id: common.String("a1"), InstanceId: common.String("i1"), VnicId: common.String("primary"), TimeCreated: at(10), LifecycleState: core.VnicAttachmentLifecycleStateAttached},
		{Id: common.String("a2"), InstanceId: common.String("i1"), VnicId: common.String("gone"), TimeCreated: at(20), LifecycleState: core.VnicAttachmentLifecycleStateDetached},
		{Id: common.String("a4"), InstanceId: common.String("i2"), VnicId: common.String("other"), TimeCreated: at(5), LifecycleState: core.VnicAttachmentLifecycleStateAttached},
		{Id: common.String("a5"), InstanceId: common.String("i1"), TimeCreated: at(1), LifecycleState: core.VnicAttachmentLifecycleStateAttaching},
		{Id: common.String("a6"), InstanceId: common.String("i1"), VnicId: common.String("untimed"), LifecycleState: core.VnicAttachmentLifecycleStateAttached},
	}
	want := map[string][]string{"i1": {"primary", "secondary", "untimed"}}
	if diff := cmp.Diff(want, attachedVNICs(atts, func(id string) bool { return id == "i1" })); diff != "" {
		t.Errorf("attachedVNICs (-want +got):\n%s", diff)
	}
}

func TestHostnameMatcher(t *testing.T) {
	vnic := func(label string) core.Vnic { return core.Vnic{HostnameLabel: common.String(label)} }
	for _, tc := range []struct {
		node  string
		vnic  core.Vnic
		match bool
	}{
		{"node-a", vnic("node-a"), true},
		{"node-a.sub.vcn.oraclevcn.com", vnic("node-a"), true},
		{"NODE-A", vnic("node-a"), true},
		{"node-b", vnic("node-a"), false},
		{"node-a", core.Vnic{}, false},
		{"", core.Vnic{}, false},
		{"10.0.0.5", vnic("10"), false},
	} {
		if got := hostnameMatcher(tc.node)(tc.vnic); got != tc.match {
			t.Errorf("hostnameMatcher(%q)(label %q) = %v, want %v", tc.node, deref(tc.vnic.HostnameLabel), got, tc.match)
		}
	}
}

func TestPrivateIPMatcher(t *testing.T) {
	node := func(name string, addrs ...v1.NodeAddress) *v1.Node {
		return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Addresses: addrs}}
	}
	v4 := core.Vnic{PrivateIp: common.String("10.0.0.5"), PublicIp: common.String("129.146.1.2")}
	v6 := core.Vnic{Ipv6Addresses: []string{"2603:c020:4:1::5"}}
	for _, tc := range []struct {
		name  string
		node  *v1.Node
		vnic  core.Vnic
		match bool
	}{
		{"node named by its IP", node("10.0.0.5"), v4, true},
		{"InternalIP address", node("n", v1.NodeAddress{Type: v1.NodeInternalIP, Address: "10.0.0.5"}), v4, true},
		{"IPv6 in another spelling", node("n", v1.NodeAddress{Type: v1.NodeInternalIP, Address: "2603:c020:4:1:0:0:0:5"}), v6, true},
		{"public IP is not a private match", node("n", v1.NodeAddress{Type: v1.NodeExternalIP, Address: "129.146.1.2"}), v4, false},
		{"other IP", node("10.0.0.6"), v4, false},
		{"no addresses at all", node("n"), v4, false},
	} {
		if got := privateIPMatcher(tc.node)(tc.vnic); got != tc.match {
			t.Errorf("%s: match = %v, want %v", tc.name, got, tc.match)
		}
	}
}

func TestChooseLive(t *testing.T) {
	inst := func(id string, s core.InstanceLifecycleStateEnum) core.Instance {
		return core.Instance{Id: common.String(id), LifecycleState: s}
	}
	running, stopped := core.InstanceLifecycleStateRunning, core.InstanceLifecycleStateStopped
	terminated, terminating := core.InstanceLifecycleStateTerminated, core.InstanceLifecycleStateTerminating
	for _, tc := range []struct {
		name      string
		matches   []core.Instance
		wantID    string
		wantOK    bool
		wantError string
	}{
		{name: "none", matches: nil},
		{name: "only terminated", matches: []core.Instance{inst("a", terminated), inst("b", terminating)}},
		{name: "live beats terminated", matches: []core.Instance{inst("a", terminated), inst("b", stopped)}, wantID: "b", wantOK: true},
		{name: "two live is ambiguous", matches: []core.Instance{inst("a", running), inst("b", stopped)}, wantError: "matches 2 live instances by display name (a, b)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := chooseLive("node-a", byDisplayName, tc.matches)
			if tc.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantError)
				}
				return
			}
			if err != nil || ok != tc.wantOK || deref(got.Id) != tc.wantID {
				t.Errorf("chooseLive = (%q, %v, %v), want (%q, %v, nil)", deref(got.Id), ok, err, tc.wantID, tc.wantOK)
			}
		})
	}
}

func TestNewNamesEveryMissingOptionAndCanonicalisesRegion(t *testing.T) {
	_, err := New(Options{})
	if err == nil {
		t.Fatal("New(Options{}) succeeded")
	}
	for _, want := range []string{"Compute", "VirtualNetwork", "CompartmentID", "Region"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("New error %q does not name %s", err, want)
		}
	}
	for short, canonical := range map[string]string{"phx": "us-phoenix-1", "us-ashburn-1": "us-ashburn-1", "IAD": "us-ashburn-1"} {
		i, err := New(Options{Compute: nopCompute{}, VirtualNetwork: nopNetwork{}, CompartmentID: "c", Region: short})
		if err != nil {
			t.Fatal(err)
		}
		if i.region != canonical {
			t.Errorf("region %q became %q, want %q", short, i.region, canonical)
		}
	}
}

// nopCompute and nopNetwork satisfy New's non-nil checks in tests that make no OCI calls; any
// call fails loudly instead of pretending to answer.
type (
	nopCompute struct{}
	nopNetwork struct{}
)

var errNoOCI = errors.New("this test makes no OCI calls")

func (nopCompute) GetInstance(context.Context, string) (core.Instance, error) {
	return core.Instance{}, errNoOCI
}
func (nopCompute) GetInstanceFresh(context.Context, string) (core.Instance, error) {
	return core.Instance{}, errNoOCI
}
func (nopCompute) ListInstances(context.Context, string) ([]core.Instance, error) {
	return nil, errNoOCI
}
func (nopCompute) ListInstancesFresh(context.Context, string) ([]core.Instance, error) {
	return nil, errNoOCI
}
func (nopCompute) ListVnicAttachments(context.Context, string, string) ([]core.VnicAttachment, error) {
	return nil, errNoOCI
}
func (nopCompute) InvalidateCompartment(string)                       {}
func (nopNetwork) GetVnic(context.Context, string) (core.Vnic, error) { return core.Vnic{}, errNoOCI }
func (nopNetwork) SubnetForIP(context.Context, string, string, string) (core.Subnet, error) {
	return core.Subnet{}, errNoOCI
}
