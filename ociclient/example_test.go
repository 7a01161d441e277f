// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient_test

import (
	"context"
	"fmt"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// Create a load balancer and wait for OCI to finish, against the in-memory OCI server.
func Example() {
	// The example lists what it has just created; OCI's listings may lag behind a create, and
	// ocitest's do unless told not to.
	srv := ocitest.New(ocitest.Options{ListingLag: ocitest.NoLag})
	defer srv.Close()

	c, err := ociclient.New(ociclient.ForServer(srv)) // its key, region, URL and TLS trust
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	wr, err := c.LoadBalancers.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerDetails{
		CompartmentId: common.String(srv.Seeded().Compartment),
		DisplayName:   common.String("web"),
		ShapeName:     common.String("flexible"),
		ShapeDetails:  &loadbalancer.ShapeDetails{MinimumBandwidthInMbps: common.Int(10), MaximumBandwidthInMbps: common.Int(100)},
		SubnetIds:     []string{srv.Seeded().Subnets["public"]}, // the default tenancy's public regional subnet
	}, "service-uid-1") // the same token on a repeated call never creates a second load balancer
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := c.LoadBalancers.WaitForWorkRequest(ctx, wr); err != nil {
		fmt.Println(err)
		return
	}
	lbs, err := c.LoadBalancers.ListLoadBalancers(ctx, srv.Seeded().Compartment, "web")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(lbs), *lbs[0].DisplayName, lbs[0].LifecycleState)

	// A missing load balancer: 404 NotAuthorizedOrNotFound, which may also mean "no permission".
	_, err = c.LoadBalancers.GetLoadBalancer(ctx, srv.NewID("loadbalancer"))
	fmt.Println(ociclient.IsNotFound(err), ociclient.IsAmbiguousNotFound(err), ociclient.IsRetryable(err))
	// Output:
	// 1 web ACTIVE
	// true true false
}
