// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// TestAnnotatedRegionalSubnetIsTheLoadBalancersOnlySubnet: a regional subnet hosts both the
// primary and the standby, so a Service naming one in oci-load-balancer-subnet1 (or, when
// subnet1 is not regional, in subnet2) gets that subnet alone, not paired with the configured
// second subnet: the upstream CCM chooses so (load_balancer.go, getOciLoadBalancerSubnets), and
// its load balancers are taken over without a subnet change.
func TestAnnotatedRegionalSubnetIsTheLoadBalancersOnlySubnet(t *testing.T) {
	for _, tc := range []struct {
		name     string
		annotate func(e *env) map[annotation.Name]string
		want     func(e *env) []string
		// reads are the subnets the reconcile of the existing load balancer reads: one in a
		// single subnet where the Service names two might be in a regional one.
		reads int32
	}{
		{"subnet1 regional",
			func(e *env) map[annotation.Name]string {
				return map[annotation.Name]string{annotation.Subnet1: e.seeded.Subnets["public"]}
			},
			func(e *env) []string { return []string{e.seeded.Subnets["public"]} }, 1},
		{"subnet2 regional, subnet1 not",
			func(e *env) map[annotation.Name]string {
				return map[annotation.Name]string{annotation.Subnet1: e.seeded.LoadBalancerSubnets[0], annotation.Subnet2: e.seeded.Subnets["public"]}
			},
			func(e *env) []string { return []string{e.seeded.Subnets["public"]} }, 2},
		{"two AD subnets stay a pair",
			func(e *env) map[annotation.Name]string {
				return map[annotation.Name]string{annotation.Subnet1: e.seeded.LoadBalancerSubnets[1], annotation.Subnet2: e.seeded.LoadBalancerSubnets[0]}
			},
			func(e *env) []string {
				return []string{e.seeded.LoadBalancerSubnets[1], e.seeded.LoadBalancerSubnets[0]}
			}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			var opts []svcOpt
			for a, v := range tc.annotate(e) {
				opts = append(opts, annotate(a, v))
			}
			svc := service(opts...)
			subnets := &countedSubnets{VirtualNetworkClient: e.oci.VirtualNetwork}
			r, err := engine.NewReconciler(engine.Options{ListingLag: ocitest.DefaultListingLag, Config: e.cfg,
				Client: e.oci.LoadBalancers, PublicIPs: subnets, Now: e.clock.Now})
			if err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(ocitest.DefaultListingLag)
			if _, err := r.Ensure(ctx, svc, readyNodes(2), nil); err != nil {
				t.Fatal(err)
			}
			all := e.srv.LoadBalancers()
			if len(all) != 1 {
				t.Fatalf("%d load balancers, want 1", len(all))
			}
			if got, want := all[0].SubnetIds, tc.want(e); !slices.Equal(got, want) {
				t.Errorf("subnets %v, want %v", got, want)
			}
			created := subnets.reads.Load()
			before := e.srv.Calls()
			res, err := r.Ensure(ctx, svc, readyNodes(2), nil)
			if err != nil {
				t.Fatal(err)
			}
			if calls := e.srv.Calls().Since(before); !res.Plan.Empty() || len(writes(calls)) != 0 {
				t.Errorf("the second reconcile changed something: writes %v\n%s", writes(calls), res.Plan)
			}
			if n := subnets.reads.Load() - created; n != tc.reads {
				t.Errorf("the reconcile of the existing load balancer read %d subnets, want %d", n, tc.reads)
			}
		})
	}
}

// TestLoadBalancerWithARegionalSubnetAndTheConfiguredSecondKeepsThem: oci-ccm v0.1.0 paired an
// annotated regional subnet with the configured second subnet; such a load balancer is kept as it
// is (OCI cannot change a load balancer's subnets), not refused as a subnet change.
func TestLoadBalancerWithARegionalSubnetAndTheConfiguredSecondKeepsThem(t *testing.T) {
	e := newEnv(t)
	regional := e.seeded.Subnets["public"]
	svc := service(annotate(annotation.Subnet1, regional))
	e.ensure(t, svc, readyNodes(2), nil)
	// What v0.1.0 made of this Service.
	pair := []string{regional, e.cfg.LoadBalancer.Subnet2}
	id := *e.srv.LoadBalancers()[0].Id
	e.srv.EditLoadBalancer(id, func(l *loadbalancer.LoadBalancer) { l.SubnetIds = pair })

	res, err := e.r.Ensure(ctx, svc, readyNodes(2), nil)
	var ie *lb.ImmutableError
	if errors.As(err, &ie) {
		t.Fatalf("Ensure refused the existing subnets: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !res.Plan.Empty() {
		t.Errorf("plan for the existing load balancer:\n%s", res.Plan)
	}
	if got := e.srv.LoadBalancers()[0].SubnetIds; !slices.Equal(got, pair) {
		t.Errorf("subnets %v, want %v kept", got, pair)
	}
	// Another subnet in the annotation is still a change OCI cannot make.
	moved := service(annotate(annotation.Subnet1, e.seeded.LoadBalancerSubnets[0]))
	if _, err := e.r.Ensure(ctx, moved, readyNodes(2), nil); !errors.As(err, &ie) {
		t.Errorf("Ensure with another subnet1 = %v, want an *lb.ImmutableError", err)
	}
}

// countedSubnets counts the subnets a Reconciler reads (GetSubnet), cached or not.
type countedSubnets struct {
	*ociclient.VirtualNetworkClient
	reads atomic.Int32
}

func (c *countedSubnets) GetSubnet(ctx context.Context, id string) (core.Subnet, error) {
	c.reads.Add(1)
	return c.VirtualNetworkClient.GetSubnet(ctx, id)
}
