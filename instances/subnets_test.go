// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2/ktesting"
)

// withIP gives a Node an InternalIP.
func withIP(n *v1.Node, ip string) *v1.Node {
	n.Status.Addresses = append(n.Status.Addresses, v1.NodeAddress{Type: v1.NodeInternalIP, Address: ip})
	return n
}

func TestSubnetsPlacesEveryAddressItCanAndReportsTheRest(t *testing.T) {
	e := newEnv(t, envOptions{})
	// A node subnet in a network compartment of its own: not in the configured compartment's
	// listing, so only its instance's VNIC can place an address in it.
	netVCN := e.srv.AddVCN(core.Vcn{CompartmentId: common.String("ocid1.compartment.oc1..network"), CidrBlock: common.String("10.1.0.0/16")})
	netSubnet := e.srv.AddSubnet(core.Subnet{VcnId: netVCN.Id, CidrBlock: common.String("10.1.10.0/24")})

	local := e.addInstance("local", nil)
	remote := e.addInstance("remote", func(_ *core.Instance, v *core.Vnic) { v.SubnetId = netSubnet.Id })
	localIP := *e.srv.InstanceVNICs(*local.Id)[0].PrivateIp
	remoteIP := *e.srv.InstanceVNICs(*remote.Id)[0].PrivateIp
	goneNode := withIP(nodeFor(core.Instance{Id: common.String("ocid1.instance.oc1.phx.gone"), DisplayName: common.String("gone")}), "10.9.0.7")
	nodes := []*v1.Node{withIP(nodeFor(local), localIP), withIP(nodeFor(remote), remoteIP), goneNode,
		withIP(namedNode("no-instance"), "10.9.0.8")}

	tests := []struct {
		name         string
		ips          []string
		wantSubnets  []string
		wantUnplaced []string
	}{
		{"an address in a listed subnet", []string{localIP, localIP}, []string{*e.subnet.Id}, nil},
		{"an address in another compartment's subnet, by its instance's VNIC", []string{remoteIP}, []string{*netSubnet.Id}, nil},
		{"an address no Node has", []string{"10.9.0.6"}, nil, []string{"10.9.0.6"}},
		{"a Node whose instance answers 404", []string{"10.9.0.7"}, nil, []string{"10.9.0.7"}},
		{"a Node without an instance", []string{"10.9.0.8"}, nil, []string{"10.9.0.8"}},
		{"the placeable ones placed, the others reported", []string{"10.9.0.6", remoteIP, localIP},
			sorted(*e.subnet.Id, *netSubnet.Id), []string{"10.9.0.6"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			subnets, unplaced, err := e.inst.Subnets(testContext(t), tc.ips, nodes)
			if err != nil {
				t.Fatalf("Subnets: %v", err)
			}
			if diff := cmp.Diff(tc.wantSubnets, subnets); diff != "" {
				t.Errorf("subnets (-want +got):\n%s", diff)
			}
			var ips []string
			for _, u := range unplaced {
				ips = append(ips, u.IP)
				if !errors.Is(u.Err, ErrUnplaceable) {
					t.Errorf("unplaced %s: %v does not wrap ErrUnplaceable", u.IP, u.Err)
				}
			}
			if diff := cmp.Diff(tc.wantUnplaced, ips); diff != "" {
				t.Errorf("unplaced (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWithAddressesFillsInANewNodesInternalIPAndCopies(t *testing.T) {
	e := newEnv(t, envOptions{})
	inst := e.addInstance("new", nil)
	ip := *e.srv.InstanceVNICs(*inst.Id)[0].PrivateIp
	fresh := nodeFor(inst) // providerID set, addresses not yet
	known := withIP(namedNode("known"), "10.0.0.99")

	got := e.inst.WithAddresses(testContext(t), []*v1.Node{fresh, known})
	if len(fresh.Status.Addresses) != 0 {
		t.Errorf("the Node passed in was modified: %v", fresh.Status.Addresses)
	}
	if got[1] != known {
		t.Error("a Node that has an InternalIP was copied or replaced")
	}
	want := []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: ip}}
	if diff := cmp.Diff(want, got[0].Status.Addresses); diff != "" {
		t.Errorf("addresses of the new Node (-want +got):\n%s", diff)
	}
}

func testContext(t *testing.T) context.Context {
	_, ctx := ktesting.NewTestContext(t)
	return ctx
}

func sorted(ids ...string) []string {
	if ids[0] > ids[1] {
		ids[0], ids[1] = ids[1], ids[0]
	}
	return ids
}
