// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
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

// A controller asks what Ensure would do to a Service: a dry run against OCI (here the in-memory
// ocitest server, through the real SDK) that writes nothing. Then it applies the plan, and asks
// again.
func ExampleReconciler_Plan() {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	oci, err := ociclient.New(ociclient.Options{
		Provider: srv.ConfigurationProvider(), Region: srv.Region(), Host: srv.URL(), HTTPClient: srv.HTTPClient(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	tenancy := srv.Seeded() // ocitest's default tenancy
	cfg := &config.Config{
		ClusterID:     "example", // this cluster's identity, in the load balancer's ownership tags
		CompartmentID: tenancy.Compartment,
		LoadBalancer: config.LoadBalancer{
			Subnet1: tenancy.Subnets["public"], // a public regional subnet
			Naming:  config.Naming{Scheme: config.NamingName},
		},
	}
	cfg.SetDefaults()
	r, err := engine.NewReconciler(engine.Options{Config: cfg, Client: oci.LoadBalancers, PublicIPs: oci.VirtualNetwork})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	svc, nodes := exampleService(80), exampleNodes("10.0.0.5", "10.0.0.6")

	plan, err := r.Plan(ctx, svc, nodes, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range plan.Changes {
		fmt.Println("would:", c)
	}
	fmt.Println("load balancers in OCI:", len(srv.LoadBalancers()))

	res, err := r.Ensure(ctx, svc, nodes, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("applied:", len(res.Plan.Changes), "change(s), addresses:", len(res.Status.Ingress))

	plan, err = r.Plan(ctx, svc, nodes, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("then up to date:", plan.Empty())
	// Output:
	// would: + load balancer "shop-web"
	// load balancers in OCI: 0
	// applied: 1 change(s), addresses: 1
	// then up to date: true
}
