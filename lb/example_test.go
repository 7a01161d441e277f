// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// exampleService is a public TCP Service on port, as the API server stores it.
func exampleService(port int32) *v1.Service {
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "1111-2222",
			Annotations: map[string]string{string(annotation.Policy): "LEAST_CONNECTIONS"}},
		Spec: v1.ServiceSpec{
			Type:  v1.ServiceTypeLoadBalancer,
			Ports: []v1.ServicePort{{Protocol: v1.ProtocolTCP, Port: port, NodePort: 31000}},
		},
	}
}

// exampleNodes are Nodes with these InternalIPs.
func exampleNodes(ips ...string) []*v1.Node {
	var out []*v1.Node
	for i, ip := range ips {
		out = append(out, &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i+1)},
			Spec:       v1.NodeSpec{ProviderID: fmt.Sprintf("oci://ocid1.instance.oc1.phx.example%d", i+1)},
			Status:     v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: ip}}},
		})
	}
	return out
}

// A custom controller computes what a Service needs and compares it with a load balancer, and
// prints the plan, without credentials or calls to OCI. Here the load balancer compared with is
// the one a first plan creates; a controller gets it from Reconciler.Get (Result.Spec).
func ExampleDiff() {
	cfg := &config.Config{
		CompartmentID: "ocid1.compartment.oc1..example",
		LoadBalancer: config.LoadBalancer{
			Subnet1: "ocid1.subnet.oc1.phx.example",
			Naming:  config.Naming{Scheme: config.NamingName},
		},
	}
	cfg.SetDefaults()
	first, err := lb.Desired(exampleService(80), exampleNodes("10.0.0.5"), cfg, lb.Known{})
	if err != nil {
		fmt.Println(err) // a *lb.ValidationError names every bad annotation at once
		return
	}
	create, err := lb.Diff(nil, first) // nothing exists: one CreateLoadBalancer
	if err != nil {
		fmt.Println(err)
		return
	}
	observed := create.Target.Clone() // as OCI reports it once created: an OCID, ownership tags
	observed.ID = "ocid1.loadbalancer.oc1.phx.example"
	observed.FreeformTags = observed.Owner.Tags()

	// The Service moves to port 8080 and a second node joins.
	move, err := lb.Diff(observed, must(lb.Desired(exampleService(8080), exampleNodes("10.0.0.5", "10.0.0.6"), cfg, lb.Known{})))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(move)
	// Output:
	// load balancer "shop-web" (ocid1.loadbalancer.oc1.phx.example): 4 changes
	//   1. + backend set "TCP-8080"
	//        LEAST_CONNECTIONS, 2 backend(s) [10.0.0.5:31000 10.0.0.6:31000], health HTTP :10256/healthz
	//   2. + listener "TCP-8080" (after 1)
	//        TCP :8080 → backend set "TCP-8080"
	//   3. - listener "TCP-80"
	//   4. - backend set "TCP-80" (after 3)
}

func must(s *model.Spec, err error) *model.Spec {
	if err != nil {
		panic(err)
	}
	return s
}
