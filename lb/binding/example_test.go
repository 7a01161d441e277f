// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding_test

import (
	"context"
	"fmt"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/oci-ccm/oci-ccm/lb/binding"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// A binding keeps the pods of a Service in backend set "web" of a load balancer Terraform made,
// next to the backend Terraform put there; here against ocitest, the in-memory OCI, through the
// real SDK.
func ExampleSyncer() {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	lb := srv.AddLoadBalancer(loadbalancer.LoadBalancer{ // as Terraform left it
		Listeners: map[string]loadbalancer.Listener{"https": {Name: common.String("https"), DefaultBackendSetName: common.String("web"),
			Port: common.Int(443), Protocol: common.String("TCP")}},
		BackendSets: map[string]loadbalancer.BackendSet{"web": {Name: common.String("web"), Policy: common.String("ROUND_ROBIN"),
			HealthChecker: &loadbalancer.HealthChecker{Protocol: common.String("TCP"), Port: common.Int(8080)},
			Backends:      []loadbalancer.Backend{{IpAddress: common.String("10.0.10.9"), Port: common.Int(8080)}}}},
	})
	oci, err := ociclient.New(ociclient.ForServer(srv))
	if err != nil {
		panic(err)
	}
	s := binding.NewSyncer(binding.Options{LoadBalancers: oci.LoadBalancers, NetworkLoadBalancers: oci.NetworkLoadBalancers, ClusterID: "prod"})
	b := binding.Binding{Name: "shop/web", LoadBalancerID: *lb.Id, BackendSet: "web"}

	slice := &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{{Name: new("http"), Port: new(int32(8080))}},
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"10.0.20.5"}, Conditions: discoveryv1.EndpointConditions{Ready: new(true)}},
			{Addresses: []string{"10.0.20.6"}, Conditions: discoveryv1.EndpointConditions{Ready: new(false), Terminating: new(true)}},
		}}
	want := binding.EndpointTargets([]*discoveryv1.EndpointSlice{slice}, v1.ServicePort{Name: "http"})

	res, err := s.Sync(context.Background(), b, want, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("added:", res.Added)
	for _, be := range res.Backends {
		fmt.Printf("%s:%d drain=%v\n", be.IP, be.Port, be.Drain)
	}
	if _, err := s.Release(context.Background(), b, res.Owned); err != nil {
		panic(err)
	}
	fmt.Println("released", res.Owned)
	// Output:
	// added: [10.0.20.5:8080 10.0.20.6:8080]
	// 10.0.10.9:8080 drain=false
	// 10.0.20.5:8080 drain=false
	// 10.0.20.6:8080 drain=true
	// released [10.0.20.5:8080 10.0.20.6:8080]
}
