// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package service_test

import (
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/ccm/service"
	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// The rules a load balancer Service needs: its security claim from the load balancer's Spec and
// the subnets of its nodes, then the rules of every security list from the claims of all
// Services. No OCI calls: seclist's Manager.Reconcile does the same and writes the lists.
func ExampleClaimFor() {
	cfg := &config.Config{CompartmentID: "ocid1.compartment.oc1..example",
		LoadBalancer: config.LoadBalancer{Subnet1: "ocid1.subnet.oc1..lb"}}
	cfg.SetDefaults()
	svc := &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "1111-2222"},
		Spec: v1.ServiceSpec{
			Type:                     v1.ServiceTypeLoadBalancer,
			Ports:                    []v1.ServicePort{{Protocol: v1.ProtocolTCP, Port: 443, NodePort: 31443}},
			LoadBalancerSourceRanges: []string{"203.0.113.0/24"},
		},
	}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"},
		Status: v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "10.0.10.5"}}}}
	// A reconciler returns the Spec as reconciled (engine.Result.Spec); Desired is the same here.
	spec, err := lb.Desired(svc, []*v1.Node{node}, cfg, lb.Known{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The node's subnet (instances.Subnets finds it from spec.BackendIPs()).
	claim := service.ClaimFor(types.NamespacedName{Namespace: "shop", Name: "web"}, spec, []string{"ocid1.subnet.oc1..nodes"})

	subnets := map[string]seclist.Subnet{
		"ocid1.subnet.oc1..lb":    {ID: "ocid1.subnet.oc1..lb", CIDR: "10.0.1.0/24", SecurityListIDs: []string{"lb-list"}},
		"ocid1.subnet.oc1..nodes": {ID: "ocid1.subnet.oc1..nodes", CIDR: "10.0.10.0/24", SecurityListIDs: []string{"nodes-list"}},
	}
	lists, err := seclist.Desired([]seclist.Claim{claim}, subnets, seclist.Policy{Cluster: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, id := range slices.Sorted(maps.Keys(lists)) {
		fmt.Println(id)
		for _, r := range lists[id].Sorted() {
			fmt.Println("  ", r)
		}
	}
	// Output:
	// lb-list
	//    egress 6 to 10.0.10.0/24 port 10256
	//    egress 6 to 10.0.10.0/24 port 31443
	//    ingress 6 from 203.0.113.0/24 to port 443
	// nodes-list
	//    ingress 6 from 10.0.1.0/24 to port 10256
	//    ingress 6 from 10.0.1.0/24 to port 31443
}
