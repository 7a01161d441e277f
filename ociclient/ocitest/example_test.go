// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"context"
	"fmt"

	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// Start an in-memory OCI (it starts with DefaultTenancy seeded, its OCIDs by name in Seeded),
// point a client at it, make OCI throttle once, and count the calls the code under test made.
func Example() {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	seeded := srv.Seeded()
	client, err := ociclient.New(ociclient.ForServer(srv))
	if err != nil {
		fmt.Println(err)
		return
	}

	srv.InjectFault(ocitest.Fault{Operation: "ListSubnets", Status: 429, RetryAfter: "0", Times: 1})
	subnets, err := client.VirtualNetwork.ListSubnets(context.Background(), seeded.Compartment, seeded.VCN)
	if err != nil {
		fmt.Println(err)
		return
	}
	calls := srv.Calls()
	fmt.Println(len(subnets), "subnets;", len(seeded.LoadBalancerSubnets), "for load balancers")
	fmt.Println(calls.Op("ListSubnets"), "ListSubnets calls,", calls.Status(429), "throttled")
	// Output:
	// 6 subnets; 2 for load balancers
	// 2 ListSubnets calls, 1 throttled
}
