// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package service_test

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"

	"github.com/oci-ccm/oci-ccm/ccm/service"
	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/instances"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// A custom controller runs a Service's way as the CCM does: one Reconciler over lb and seclist,
// here against ocitest, the in-memory OCI, through the real SDK, and a fake Kubernetes API.
// Ensure reads the Service's Secrets and its Nodes' addresses, makes the load balancer, records
// the plan as an Event and opens the security rules it needs; it returns the Service's status.
func Example() {
	srv := ocitest.New(ocitest.Options{}) // in production: cfg.ConfigurationProvider() and OCI's endpoints
	defer srv.Close()
	tenancy := srv.Seeded()
	// What cloud-provider.yaml would say, built in code: ocitest signs the requests, so there
	// are no credentials for config.Load to check. SetDefaults does what Load does to a file.
	cfg := &config.Config{ClusterID: "example", Auth: config.Auth{Region: srv.Region()}, CompartmentID: tenancy.Compartment, VCNID: tenancy.VCN,
		LoadBalancer: config.LoadBalancer{Subnet1: tenancy.LoadBalancerSubnets[0], Subnet2: tenancy.LoadBalancerSubnets[1],
			SecurityLists: tenancy.SubnetSecurityLists}}
	cfg.SetDefaults()
	oci, err := ociclient.New(ociclient.Options{Provider: srv.ConfigurationProvider(), Region: srv.Region(), Host: srv.URL(), HTTPClient: srv.HTTPClient()})
	check(err)
	nodes, err := instances.New(instances.Options{Compute: oci.Compute, VirtualNetwork: oci.VirtualNetwork,
		CompartmentID: cfg.CompartmentID, VCNID: cfg.VCNID, Region: cfg.Auth.Region})
	check(err)
	r, err := service.New(service.Options{Config: cfg, Client: oci, Nodes: nodes})
	check(err)
	events := record.NewFakeRecorder(10)
	svc := &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "1111-2222"},
		Spec: v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer,
			Ports: []v1.ServicePort{{Protocol: v1.ProtocolTCP, Port: 80, NodePort: 31000}}},
	}
	r.Initialize(fake.NewClientset(svc), events, nil) // a stop channel would start the watchers too

	var cluster []*v1.Node
	for _, name := range []string{"node-1", "node-2"} {
		cluster = append(cluster, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1.NodeSpec{ProviderID: "oci://" + tenancy.Instances[name]}})
	}
	status, err := r.Ensure(context.Background(), svc, cluster)
	check(err)
	fmt.Println("addresses:", len(status.Ingress))
	fmt.Println(strings.SplitN(<-events.Events, ":", 2)[0])
	nodeList, _ := srv.SecurityList(tenancy.SubnetSecurityLists[tenancy.NodeSubnets[0]])
	for _, rule := range nodeList.IngressSecurityRules {
		if o := rule.TcpOptions; o != nil && o.DestinationPortRange != nil && *o.DestinationPortRange.Min == 31000 {
			fmt.Println("node subnet admits the node port from", *rule.Source)
		}
	}
	// Output:
	// addresses: 1
	// Normal LoadBalancerPlanApplied load balancer "1111-2222"
	// node subnet admits the node port from 10.0.1.0/24
	// node subnet admits the node port from 10.0.2.0/24
}

// check stops an example at its first error.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
