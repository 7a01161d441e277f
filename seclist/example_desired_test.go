// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist_test

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/seclist"
)

// The rules of every security list, from the claims of all load balancer Services: here one
// Service listening on 443, reached on node port 31443, for clients in 203.0.113.0/24. No OCI
// calls: Manager.Reconcile does the same and writes the lists.
func ExampleDesired() {
	claim := seclist.Claim{
		Service:         types.NamespacedName{Namespace: "shop", Name: "web"},
		LBSubnets:       []string{"ocid1.subnet.oc1..lb"},
		NodeSubnets:     []string{"ocid1.subnet.oc1..nodes"},
		ListenerPorts:   []int{443},
		NodePorts:       []int{31443},
		HealthCheckPort: 10256, // kube-proxy's, for externalTrafficPolicy Cluster
		SourceCIDRs:     []string{"203.0.113.0/24"},
	}
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
