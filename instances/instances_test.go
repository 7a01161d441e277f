// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2/ktesting"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func TestExistsAndShutdownFollowLifecycleState(t *testing.T) {
	for _, tc := range []struct {
		state              core.InstanceLifecycleStateEnum
		exists, isShutdown bool
	}{
		{core.InstanceLifecycleStateProvisioning, true, false},
		{core.InstanceLifecycleStateStarting, true, false},
		{core.InstanceLifecycleStateRunning, true, false},
		{core.InstanceLifecycleStateMoving, true, false},
		{core.InstanceLifecycleStateCreatingImage, true, false},
		{core.InstanceLifecycleStateStopping, true, true},
		{core.InstanceLifecycleStateStopped, true, true},
		{core.InstanceLifecycleStateTerminating, false, false},
		{core.InstanceLifecycleStateTerminated, false, false},
	} {
		t.Run(string(tc.state), func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			e := newEnv(t, envOptions{})
			inst := e.addInstance("node-a", nil)
			e.srv.SetInstanceState(*inst.Id, tc.state)
			node := nodeFor(inst)

			exists, err := e.inst.InstanceExists(ctx, node)
			if err != nil || exists != tc.exists {
				t.Errorf("InstanceExists = %v, %v; want %v, nil", exists, err, tc.exists)
			}
			shutdown, err := e.inst.InstanceShutdown(ctx, node)
			if err != nil || shutdown != tc.isShutdown {
				t.Errorf("InstanceShutdown = %v, %v; want %v, nil", shutdown, err, tc.isShutdown)
			}
		})
	}
}

func TestExistsIsFalseOnlyWhenAbsenceIsConfirmed(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{})
	inst := e.addInstance("node-a", nil)
	if exists, err := e.inst.InstanceExists(ctx, nodeFor(inst)); !exists || err != nil {
		t.Fatalf("InstanceExists while live = %v, %v", exists, err) // learns its compartment
	}
	e.srv.RemoveInstance(*inst.Id)
	e.srv.ResetCalls()

	exists, err := e.inst.InstanceExists(ctx, nodeFor(inst))
	if err != nil || exists {
		t.Fatalf("InstanceExists for a removed instance = %v, %v; want false, nil", exists, err)
	}
	// The confirmation is both reads: the 404, then a fresh listing of its compartment without it.
	calls := e.srv.Calls()
	if calls.Op("ListInstances") != 1 || calls.Op("GetInstance") != 1 {
		t.Errorf("calls = %v; want one ListInstances and one GetInstance", calls)
	}

	_, err = e.inst.InstanceShutdown(ctx, nodeFor(inst))
	if !errors.Is(err, cloudprovider.InstanceNotFound) {
		t.Errorf("InstanceShutdown error = %v; want one wrapping cloudprovider.InstanceNotFound", err)
	}
	if _, err := e.inst.InstanceMetadata(ctx, nodeFor(inst)); !errors.Is(err, cloudprovider.InstanceNotFound) {
		t.Errorf("InstanceMetadata error = %v; want one wrapping cloudprovider.InstanceNotFound", err)
	}
}

func TestMetadataOfARunningInstance(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{ipv6: true})
	inst := e.addInstance("node-a", func(i *core.Instance, v *core.Vnic) {
		i.Shape = common.String("VM.Standard.A1.Flex")
		i.FaultDomain = common.String("FAULT-DOMAIN-3")
		v.PrivateIp = common.String("10.0.0.10")
		v.PublicIp = common.String("") // an ephemeral public IP from the server's pool
		v.Ipv6Addresses = []string{"2603:c020:4:1::a"}
		v.HostnameLabel = common.String("node-a-host")
	})
	public := *e.srv.InstanceVNICs(*inst.Id)[0].PublicIp

	got, err := e.inst.InstanceMetadata(ctx, nodeFor(inst))
	if err != nil {
		t.Fatalf("InstanceMetadata: %v", err)
	}
	want := &cloudprovider.InstanceMetadata{
		ProviderID:   "oci://" + *inst.Id,
		InstanceType: "VM.Standard.A1.Flex",
		NodeAddresses: []v1.NodeAddress{
			{Type: v1.NodeInternalIP, Address: "10.0.0.10"},
			{Type: v1.NodeInternalIP, Address: "2603:c020:4:1::a"},
			{Type: v1.NodeExternalIP, Address: public},
			{Type: v1.NodeHostName, Address: "node-a-host"},
		},
		Zone:             "PHX-AD-1",
		Region:           "us-phoenix-1",
		AdditionalLabels: map[string]string{FaultDomainLabel: "FAULT-DOMAIN-3"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("InstanceMetadata (-want +got):\n%s", diff)
	}
}

func TestMetadataUsesThePrimaryVNICOnly(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{})
	inst := e.srv.AddInstance(ocitest.Instance{
		Instance: core.Instance{DisplayName: common.String("node-a"), AvailabilityDomain: common.String(testAD)},
		VNICs: []core.Vnic{
			{SubnetId: e.subnet.Id, PrivateIp: common.String("10.0.0.20")},
			{SubnetId: e.subnet.Id, PrivateIp: common.String("10.0.0.21"), HostnameLabel: common.String("pods")},
		},
	})

	got, err := e.inst.InstanceMetadata(ctx, nodeFor(inst))
	if err != nil {
		t.Fatalf("InstanceMetadata: %v", err)
	}
	want := []v1.NodeAddress{
		{Type: v1.NodeInternalIP, Address: "10.0.0.20"},
		{Type: v1.NodeHostName, Address: "node-a"},
	}
	if diff := cmp.Diff(want, got.NodeAddresses); diff != "" {
		t.Errorf("NodeAddresses (-want +got):\n%s", diff)
	}
}

func TestMetadataSanitisesAnAvailabilityDomainThatIsNoLabelValue(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{})
	const odd = "Uocm:PHX AD/1"
	e.srv.AddAvailabilityDomain(odd)
	inst := e.addInstance("node-a", func(i *core.Instance, _ *core.Vnic) { i.AvailabilityDomain = common.String(odd) })

	got, err := e.inst.InstanceMetadata(ctx, nodeFor(inst))
	if err != nil {
		t.Fatalf("InstanceMetadata: %v", err)
	}
	if got.Zone != "PHX-AD-1" {
		t.Errorf("Zone = %q, want %q", got.Zone, "PHX-AD-1")
	}
}

func TestMethodsNeverMutateTheNode(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{})
	inst := e.addInstance("node-a", func(_ *core.Instance, v *core.Vnic) { v.PrivateIp = common.String("10.0.0.30") })
	for _, node := range []*v1.Node{nodeFor(inst), namedNode("10.0.0.30", "10.0.0.30")} {
		before := node.DeepCopy()
		if _, err := e.inst.InstanceExists(ctx, node); err != nil {
			t.Fatal(err)
		}
		if _, err := e.inst.InstanceShutdown(ctx, node); err != nil {
			t.Fatal(err)
		}
		if _, err := e.inst.InstanceMetadata(ctx, node); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, node); diff != "" {
			t.Errorf("node changed (-before +after):\n%s", diff)
		}
	}
}

func TestMalformedProviderIDIsAnErrorNotAbsence(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{})
	node := namedNode("node-a")
	node.Spec.ProviderID = "aws:///us-east-1a/i-0abc"

	exists, err := e.inst.InstanceExists(ctx, node)
	if !errors.Is(err, ErrInvalidProviderID) {
		t.Errorf("InstanceExists = %v, %v; want an error wrapping ErrInvalidProviderID", exists, err)
	}
	if e.srv.Calls().Total() != 0 {
		t.Errorf("a malformed providerID made OCI calls: %v", e.srv.Calls())
	}
}
