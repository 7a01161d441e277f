// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// The library in one page, for a Go developer: a configuration read as the binary reads
// cloud-provider.yaml, the load balancer a Service needs (lb.Desired, pure, no credentials), and
// the plan that would make it in a tenancy: here ocitest, the in-memory OCI, through the real
// SDK. Reconciler.Plan is a dry run that only reads; Reconciler.Ensure applies the plan.
// exampleService and exampleNodes (example_test.go) build a Service on port 80 and two Nodes.
func Example_quickstart() {
	srv := ocitest.New(ocitest.Options{}) // in production: cfg.ConfigurationProvider() and OCI's endpoints
	defer srv.Close()
	tenancy := srv.Seeded()
	yaml := fmt.Sprintf("clusterID: quickstart\nuseInstancePrincipals: true\nauth: {region: %s}\ncompartment: %s\nloadBalancer: {subnet1: %s}\n", srv.Region(), tenancy.Compartment, tenancy.Subnets["public"])
	cfg, _, err := config.Load(strings.NewReader(yaml)) // strict: an unknown key is an error
	check(err)
	svc, nodes := exampleService(80), exampleNodes("10.0.0.5", "10.0.0.6")
	spec, err := lb.Desired(svc, nodes, cfg, lb.Known{}) // a *lb.ValidationError names every bad annotation
	check(err)
	fmt.Println("listeners:", spec.ListenerPorts())

	oci, err := ociclient.New(ociclient.Options{Provider: srv.ConfigurationProvider(), Region: srv.Region(), Host: srv.URL(), HTTPClient: srv.HTTPClient()})
	check(err)
	r, err := engine.NewReconciler(engine.Options{Config: cfg, Client: oci.LoadBalancers, PublicIPs: oci.VirtualNetwork})
	check(err)
	plan, err := r.Plan(context.Background(), svc, nodes, nil)
	check(err)
	for _, c := range plan.Changes {
		fmt.Println("would:", c)
	}
	// Output:
	// listeners: [80]
	// would: + load balancer "1111-2222"
}

// check stops an example at its first error.
func check(err error) {
	if err != nil {
		panic(err)
	}
}
