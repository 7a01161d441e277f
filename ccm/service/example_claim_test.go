// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package service_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/ccm/service"
	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
)

// A load balancer Service's security claim, from the load balancer's Spec and the subnets of its
// nodes: what seclist needs to know of it, as plain values. No OCI calls.
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

	// seclist computes the rules from the claims of all Services (see its ExampleDesired).
	fmt.Printf("%s: listeners %v from %v on %v; node ports %v and health check %d on %v\n", claim.Service,
		claim.ListenerPorts, claim.SourceCIDRs, claim.LBSubnets, claim.NodePorts, claim.HealthCheckPort, claim.NodeSubnets)
	// Output:
	// shop/web: listeners [443] from [203.0.113.0/24] on [ocid1.subnet.oc1..lb]; node ports [31443] and health check 10256 on [ocid1.subnet.oc1..nodes]
}
