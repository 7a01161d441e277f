// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"

	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oci-ccm/oci-ccm/lb/oci/loadbalancer"
	"github.com/oci-ccm/oci-ccm/lb/oci/nlb"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// The engine calls OCI through the two products' clients (loadbalancer.Client, with
// loadbalancer.RuleSets, and nlb.Client), given in Options, and through PublicIPs. Each product
// package declares the methods it calls; ociclient satisfies them (see the assertions below).

// PublicIPs is the part of the OCI Networking API the engine calls, to check a reserved public
// IP before creating a load balancer with it. An *ociclient.Client's VirtualNetwork satisfies it.
type PublicIPs interface {
	GetPublicIPByIPAddress(ctx context.Context, ipAddress string) (core.PublicIp, error)
}

// The ociclient types satisfy what the engine calls; a change on either side fails the build here.
var (
	_ loadbalancer.Client   = (*ociclient.LoadBalancerClient)(nil)
	_ loadbalancer.Client   = ociclient.LoadBalancers(nil)
	_ loadbalancer.RuleSets = (*ociclient.LoadBalancerClient)(nil)
	_ loadbalancer.RuleSets = ociclient.RuleSets(nil)
	_ nlb.Client            = (*ociclient.NetworkLoadBalancerClient)(nil)
	_ PublicIPs             = (*ociclient.VirtualNetworkClient)(nil)
)
