// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// seedNetworkCompartment adds, in a compartment and VCN of their own (a network compartment),
// a node subnet with its security list and an instance in it, and returns that instance's Node.
// The policy gets the documented statements for nodes and security lists once more for the
// network compartment, as seclist/README.md tells users to write them per compartment.
func (e *env) seedNetworkCompartment(t *testing.T) (*v1.Node, ocitest.Seeded) {
	t.Helper()
	net, err := e.srv.Seed(ocitest.Tenancy{
		CompartmentName:     "network",
		AvailabilityDomains: []string{"Uocm:PHX-AD-1"},
		VCN:                 ocitest.TenancyVCN{Name: "network-vcn", CIDR: "10.1.0.0/16"},
		SecurityLists:       []ocitest.TenancySecurityList{{Name: "net-nodes"}},
		Subnets: []ocitest.TenancySubnet{{Name: "net-nodes", CIDR: "10.1.10.0/24", Role: ocitest.RoleNode,
			SecurityLists: []string{"net-nodes"}}},
		Instances: []ocitest.TenancyInstance{{Name: "node-x", Shape: "VM.Standard.E4.Flex", Subnet: "net-nodes"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	policy := ocitest.DefaultPolicy()
	for _, grant := range []string{"read instance-family", "read virtual-network-family", "manage security-lists"} {
		policy = append(policy, "Allow dynamic-group ccm to "+grant+" in compartment id "+net.Compartment)
	}
	if err := e.srv.SetPolicy(policy...); err != nil {
		t.Fatal(err)
	}
	ip := *e.srv.InstanceVNICs(net.Instances["node-x"])[0].PrivateIp
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-x"},
		Spec:       v1.NodeSpec{ProviderID: "oci://" + net.Instances["node-x"]},
		Status:     v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: ip}}},
	}, net
}

func TestNodeInASubnetOfAnotherCompartmentIsPlacedByItsVNIC(t *testing.T) {
	e := newEnv(t)
	lbs, _ := e.cloud.LoadBalancer()
	nodeX, net := e.seedNetworkCompartment(t)
	nodes := append(slices.Clone(e.nodes), nodeX)

	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", service("web", nil, 80), nodes); err != nil {
		t.Fatalf("a Node outside the configured compartment and VCN failed the Service: %v", err)
	}
	l, ok := e.srv.SecurityList(net.SecurityLists["net-nodes"])
	if !ok {
		t.Fatal("network compartment's security list not found")
	}
	if !hasIngress(l, 30080, "10.0.1.0/24") {
		t.Errorf("the network compartment's node subnet list has no ingress from the LB subnet on 30080: %+v", l.IngressSecurityRules)
	}
}

func TestNodeThatCannotBePlacedIsSkippedWithWarningsAndBlocksNobody(t *testing.T) {
	e := newEnv(t)
	kube, ctx := startProvider(t, e)
	lbs, _ := e.cloud.LoadBalancer()
	// An address in no subnet the CCM can find, and no instance behind its providerID.
	ghost := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "ghost"},
		Spec:       v1.NodeSpec{ProviderID: "oci://ocid1.instance.oc1.phx.ghost"},
		Status:     v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "192.168.7.7"}}},
	}
	nodes := append(slices.Clone(e.nodes), ghost)

	web, api := service("web", nil, 80), service("api", nil, 9000)
	for _, svc := range []*v1.Service{web, api} {
		if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, nodes); err != nil {
			t.Fatalf("%s: one Node that cannot be placed failed the Service: %v", svc.Name, err)
		}
	}
	if !hasIngress(e.securityList(t, "nodes"), 39000, "10.0.1.0/24") {
		t.Error("the other Nodes' subnet did not get api's rules")
	}
	// Pruning is not blocked: web's rules go when it is deleted.
	if err := lbs.EnsureLoadBalancerDeleted(ctxFor(t), "test-cluster", web); err != nil {
		t.Fatal(err)
	}
	if hasIngress(e.securityList(t, "lb-1"), 80, "0.0.0.0/0") {
		t.Error("web's rule survived its deletion: a Node that cannot be placed blocked pruning")
	}
	for _, want := range []v1.ObjectReference{{Kind: "Node", Name: "ghost"}, {Kind: "Service", Namespace: "default", Name: "api"}} {
		if err := waitForWarning(ctx, kube, want, "ghost"); err != nil {
			t.Errorf("no Warning Event on %s %s naming the Node: %v", want.Kind, want.Name, err)
		}
	}
}

// waitForWarning waits for a Warning Event about obj whose message contains text.
func waitForWarning(ctx context.Context, kube kubernetes.Interface, obj v1.ObjectReference, text string) error {
	return wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		events, err := kube.CoreV1().Events("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, ev := range events.Items {
			if ev.Type == v1.EventTypeWarning && ev.InvolvedObject.Kind == obj.Kind && ev.InvolvedObject.Name == obj.Name &&
				ev.InvolvedObject.Namespace == obj.Namespace && strings.Contains(ev.Message, text) {
				return true, nil
			}
		}
		return false, nil
	})
}
