// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Command thirdparty is a program outside oci-ccm that uses only its public API: against an
// in-memory OCI tenancy it plans a Service's load balancer, applies the plan, plans again (and
// fails unless nothing is left to do), then opens the Service's ports in the security lists.
//
//	cd examples/thirdparty && go run .
package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/ccm/service"
	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
	"github.com/oci-ccm/oci-ccm/seclist"
)

const cluster = "thirdparty" // this cluster's identity in ownership tags and rule descriptions

func main() {
	ctx := context.Background()
	tenancy := ocitest.DefaultTenancy() // a VCN, load balancer and node subnets, three instances
	for i := range tenancy.Instances {
		tenancy.Instances[i].PrivateIP = fmt.Sprintf("10.0.10.%d", 11+i)
	}
	srv := ocitest.New(ocitest.Options{Tenancy: &tenancy})
	defer srv.Close()
	seeded := srv.Seeded()
	var nodes []*v1.Node // the instances' Nodes, as the cloud node controller initialises them
	for _, in := range tenancy.Instances {
		nodes = append(nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: in.Name},
			Spec:   v1.NodeSpec{ProviderID: "oci://" + seeded.Instances[in.Name]},
			Status: v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: in.PrivateIP}}}})
	}
	oci, err := ociclient.New(ociclient.ForServer(srv)) // srv's signing key, URL and TLS trust
	check(err)
	cfg := &config.Config{ClusterID: cluster, CompartmentID: seeded.Compartment, LoadBalancer: config.LoadBalancer{
		Subnet1: seeded.LoadBalancerSubnets[0], Subnet2: seeded.LoadBalancerSubnets[1]}}
	cfg.SetDefaults()
	lbs, err := engine.NewReconciler(engine.Options{Config: cfg, Client: oci.LoadBalancers, PublicIPs: oci.VirtualNetwork})
	check(err)
	svc := &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "5f0c6a4e-0000-4000-8000-000000000001"},
		Spec: v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, Ports: []v1.ServicePort{
			{Name: "http", Protocol: v1.ProtocolTCP, Port: 80, NodePort: 31080}}},
	}
	p, err := lbs.Plan(ctx, svc, nodes, nil) // (1) what would change, with no write to OCI
	check(err)
	fmt.Printf("1. plan for %s/%s:\n%s\n", svc.Namespace, svc.Name, p)
	res, err := lbs.Ensure(ctx, svc, nodes, nil) // (2) apply it
	check(err)
	fmt.Printf("2. applied %d change(s): %s at %s\n", len(res.Plan.Changes), res.Spec.ID, res.Status.Ingress[0].IP)
	p, err = lbs.Plan(ctx, svc, nodes, nil) // (3) plan again: nothing is left to do
	check(err)
	if !p.Empty() {
		check(fmt.Errorf("the plan after applying is not empty:\n%s", p))
	}
	fmt.Println("3. plan after applying: empty")

	// (4) The Service's rules: listener ports on the LB subnets, node ports on the nodes'.
	rules, err := seclist.NewManager(oci.VirtualNetwork, seclist.Options{Policy: seclist.PolicyFromConfig(cfg)})
	check(err)
	claim := service.ClaimFor(types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}, res.Spec, seeded.NodeSubnets)
	check(rules.Reconcile(ctx, claim))
	var owned []string
	for _, name := range slices.Sorted(maps.Keys(seeded.SecurityLists)) {
		list, _ := srv.SecurityList(seeded.SecurityLists[name])
		for _, r := range list.IngressSecurityRules {
			if strings.Contains(*r.Description, seclist.Owner(cluster)) {
				owned = append(owned, fmt.Sprintf("%-5s from %-11s to port %d", name, *r.Source, *r.TcpOptions.DestinationPortRange.Min))
			}
		}
	}
	if len(owned) == 0 {
		check(fmt.Errorf("no security rule of %s after reconciling %s", cluster, claim.Service))
	}
	fmt.Printf("4. ingress rules of %s:\n   %s\n", cluster, strings.Join(owned, "\n   "))
}

// check ends the program on an error, with a non-zero exit status.
func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "thirdparty:", err)
		os.Exit(1)
	}
}
