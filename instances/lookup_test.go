// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"errors"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2/ktesting"
)

func TestLookupPaths(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{ipv6: true})
	a := e.addInstance("node-a", func(_ *core.Instance, v *core.Vnic) { v.PrivateIp = common.String("10.0.0.11") })
	b := e.addInstance("Instance 7", func(_ *core.Instance, v *core.Vnic) {
		v.HostnameLabel = common.String("worker-7")
		v.PrivateIp = common.String("10.0.0.40")
		v.Ipv6Addresses = []string{"2603:c020:4:1::40"}
	})
	e.addInstance("other", func(_ *core.Instance, v *core.Vnic) { v.PrivateIp = common.String("10.0.0.50") })

	bare := namedNode("node-a")
	bare.Spec.ProviderID = *a.Id
	for _, tc := range []struct {
		name string
		node *v1.Node
		want core.Instance
	}{
		{"providerID oci://", nodeFor(a), a},
		{"providerID bare OCID", bare, a},
		{"display name", namedNode("node-a"), a},
		{"hostname label", namedNode("worker-7"), b},
		{"hostname label of an FQDN node name", namedNode("worker-7.nodes.vcn.oraclevcn.com"), b},
		{"private IP as node name", namedNode("10.0.0.40"), b},
		{"private IP in the node's InternalIP addresses", namedNode("some-name", "10.0.0.40"), b},
		{"IPv6 in the node's InternalIP addresses", namedNode("some-name", "2603:c020:4:1::40"), b},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, err := e.inst.InstanceMetadata(ctx, tc.node)
			if err != nil {
				t.Fatalf("InstanceMetadata: %v", err)
			}
			if want := ProviderID(*tc.want.Id); md.ProviderID != want {
				t.Errorf("found %s, want %s (%s)", md.ProviderID, want, *tc.want.DisplayName)
			}
			if exists, err := e.inst.InstanceExists(ctx, tc.node); !exists || err != nil {
				t.Errorf("InstanceExists = %v, %v; want true, nil", exists, err)
			}
		})
	}
}

func TestLookupByDisplayNameReadsNoVNICs(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{})
	e.addInstances(5)
	e.srv.ResetCalls()

	if exists, err := e.inst.InstanceExists(ctx, namedNode("node-3")); !exists || err != nil {
		t.Fatalf("InstanceExists = %v, %v; want true, nil", exists, err)
	}
	// The listing, then the match read fresh, as InstanceExists reads every instance.
	if c := e.srv.Calls(); c.Total() != 2 || c.Op("ListInstances") != 1 || c.Op("GetInstance") != 1 {
		t.Errorf("calls = %v; want one ListInstances and one GetInstance, no VNIC reads", c)
	}
}

func TestLookupByNamePrefersLiveInstancesAndRefusesToGuess(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{})
	terminated := func(i *core.Instance, _ *core.Vnic) { i.LifecycleState = core.InstanceLifecycleStateTerminated }
	e.addInstance("dup", nil)
	e.addInstance("dup", nil)
	e.addInstance("reused", terminated)
	live := e.addInstance("reused", nil)
	e.addInstance("gone", terminated)

	t.Run("two live instances with the node's name", func(t *testing.T) {
		exists, err := e.inst.InstanceExists(ctx, namedNode("dup"))
		if err == nil || errors.Is(err, cloudprovider.InstanceNotFound) {
			t.Errorf("InstanceExists = %v, %v; want an ambiguity error", exists, err)
		}
	})
	t.Run("a live instance wins over a terminated one of the same name", func(t *testing.T) {
		md, err := e.inst.InstanceMetadata(ctx, namedNode("reused"))
		if err != nil || md.ProviderID != ProviderID(*live.Id) {
			t.Errorf("InstanceMetadata = %v, %v; want the live instance %s", md, err, *live.Id)
		}
	})
	t.Run("only a terminated instance has the name", func(t *testing.T) {
		if exists, err := e.inst.InstanceExists(ctx, namedNode("gone")); exists || err != nil {
			t.Errorf("InstanceExists = %v, %v; want false, nil", exists, err)
		}
	})
	t.Run("nothing matches: not found, but not reported gone", func(t *testing.T) {
		exists, err := e.inst.InstanceExists(ctx, namedNode("stranger", "10.9.9.9"))
		if !errors.Is(err, cloudprovider.InstanceNotFound) {
			t.Errorf("InstanceExists = %v, %v; want an error wrapping cloudprovider.InstanceNotFound", exists, err)
		}
	})
}

func TestInstanceInAnotherCompartmentIsReadByIDAndJudgedByItsOwnCompartment(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{})
	other := e.otherCompartment(t)
	inst := e.addInstance("node-x", inCompartment(other))
	node := nodeFor(inst)

	e.srv.ResetCalls()
	if _, err := e.inst.InstanceMetadata(ctx, node); err != nil {
		t.Fatalf("InstanceMetadata: %v", err)
	}
	if c := e.srv.Calls(); c.Op("GetInstance") != 1 || c.Op("ListInstances") != 0 {
		t.Errorf("lookup calls = %v; want one GetInstance and no listing", c)
	}

	// Its own compartment's listing now decides absence: a failing one is an error.
	e.srv.RemoveInstance(*inst.Id)
	remove := e.srv.InjectFault(faultNoPolicy("ListInstances"))
	if exists, err := e.inst.InstanceExists(ctx, node); err == nil {
		t.Errorf("InstanceExists with its compartment unlistable = %v, nil; want an error", exists)
	}
	remove()
	if exists, err := e.inst.InstanceExists(ctx, node); exists || err != nil {
		t.Errorf("InstanceExists once removed = %v, %v; want false, nil", exists, err)
	}
}

func TestInstanceNewerThanTheCachedListingIsStillFound(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{cacheTTL: time.Hour})
	old := e.addInstance("node-old", nil)
	if _, err := e.inst.InstanceMetadata(ctx, nodeFor(old)); err != nil {
		t.Fatal(err)
	}
	fresh := e.addInstance("node-new", func(_ *core.Instance, v *core.Vnic) { v.PrivateIp = common.String("10.0.0.99") })
	e.srv.ResetCalls()

	md, err := e.inst.InstanceMetadata(ctx, nodeFor(fresh))
	if err != nil {
		t.Fatalf("InstanceMetadata: %v", err)
	}
	if md.NodeAddresses[0].Address != "10.0.0.99" {
		t.Errorf("addresses = %v; want 10.0.0.99 first", md.NodeAddresses)
	}
	c := e.srv.Calls()
	if c.Op("ListInstances") != 0 || c.Op("GetInstance") != 1 || c.Op("ListVnicAttachments") != 1 || c.Op("GetVnic") != 1 {
		t.Errorf("calls = %v; want one GetInstance, one narrowed ListVnicAttachments and one GetVnic", c)
	}
}

func TestInstanceBootedAfterTheListingWasCachedIsFoundByNameAndIP(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{cacheTTL: time.Hour})
	e.addInstances(2)
	if _, err := e.inst.InstanceMetadata(ctx, namedNode("node-1")); err != nil {
		t.Fatal(err) // caches the compartment's instance and VNIC attachment listings
	}
	byName := e.addInstance("late-by-name", nil)
	byIP := e.addInstance("late-by-ip", nil)
	ip := *e.srv.InstanceVNICs(*byIP.Id)[0].PrivateIp

	for _, tc := range []struct {
		node *v1.Node
		want string
	}{
		{namedNode("late-by-name"), *byName.Id},
		{namedNode("renamed-by-the-user", ip), *byIP.Id},
	} {
		md, err := e.inst.InstanceMetadata(ctx, tc.node)
		if err != nil || md.ProviderID != ProviderID(tc.want) {
			t.Errorf("node %s: InstanceMetadata = %v, %v; want the new instance %s", tc.node.Name, md, err, tc.want)
		}
	}
}
