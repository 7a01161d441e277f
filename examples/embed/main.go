// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Command embed shows a custom controller using oci-ccm's lb package on its own: it computes the
// load balancer a Service needs, plans its creation, then plans a port change against the load
// balancer the first plan would have made. No credentials, no OCI, no cluster.
//
//	go run ./examples/embed
package main

import (
	"fmt"
	"io"
	"maps"
	"os"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// run computes and prints the two plans.
func run(out io.Writer) error {
	// What cloud-provider.yaml would say; only what Desired reads is needed. A file would go
	// through config.Load, which also demands a region and credentials; a Config built in code
	// takes config's advanced path instead: SetDefaults, as Load does to a file.
	cfg := &config.Config{
		ClusterID:     "embed", // this cluster's identity, in every load balancer's ownership tags
		CompartmentID: "ocid1.compartment.oc1..example",
		LoadBalancer: config.LoadBalancer{
			Subnet1: "ocid1.subnet.oc1.phx.example-lb-1",
			Naming:  config.Naming{Scheme: config.NamingName},
		},
	}
	cfg.SetDefaults()
	svc := service()
	nodes := []*v1.Node{node("node-1", "10.0.10.2"), node("node-2", "10.0.10.3"), node("node-3", "10.0.10.4")}

	// 1. Nothing exists yet: the plan is one CreateLoadBalancer carrying everything.
	desired, err := lb.Desired(svc, nodes, cfg, lb.Known{})
	if err != nil {
		return err // a *lb.ValidationError listing every bad annotation at once
	}
	create, err := lb.Diff(nil, desired)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Service %s/%s, first reconcile:\n%s\n", svc.Namespace, svc.Name, create)

	// 2. The load balancer as OCI would report it once the create succeeded: the plan's target,
	// with the OCID OCI assigned and the ownership tags the create adds. A real controller gets
	// this from OCI: engine.Reconciler.Get's Result.Spec (or lets Reconciler.Plan do the whole dry run).
	observed := create.Target.Clone()
	observed.ID = "ocid1.loadbalancer.oc1.phx.example"
	observed.FreeformTags = mergeTags(observed.FreeformTags, observed.Owner.Tags())

	// 3. The user moves port 80 to 8080. Diff keeps the load balancer and orders the changes so
	// no listener ever points at a missing backend set.
	changed := svc.DeepCopy()
	changed.Spec.Ports[0].Port = 8080
	desired, err = lb.Desired(changed, nodes, cfg, lb.Known{})
	if err != nil {
		return err
	}
	move, err := lb.Diff(observed, desired)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "Port 80 → 8080:\n%s", move)
	return err
}

// service is a public TCP Service on port 80, as the API server stores it (node port allocated).
func service() *v1.Service {
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "5f0c6a4e-0000-4000-8000-000000000001",
			Annotations: map[string]string{string(annotation.Policy): "LEAST_CONNECTIONS"}},
		Spec: v1.ServiceSpec{
			Type: v1.ServiceTypeLoadBalancer,
			Ports: []v1.ServicePort{{Name: "http", Protocol: v1.ProtocolTCP, Port: 80,
				TargetPort: intstr.FromInt32(8080), NodePort: 31080}},
		},
	}
}

// node is a Ready Node with an InternalIP, the address backends use, and the providerID the cloud
// node controller gives it (a Node without one is not a backend until it has one).
func node(name, ip string) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1.NodeSpec{ProviderID: "oci://ocid1.instance.oc1.phx.example-" + name},
		Status: v1.NodeStatus{
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
			Addresses:  []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: ip}},
		},
	}
}

func mergeTags(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, b)
	return out
}
