// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// nlbSubnets are the tenancy's IPv4-only lb-1 subnet and its dual-stack public subnet.
func nlbSubnets(e *env) (v4only, dual string) {
	return e.seeded.Subnets["lb-1"], e.seeded.Subnets["public"]
}

func dualStackService(policy v1.IPFamilyPolicy, subnet string) *v1.Service {
	return service(asNLB, ports(80), annotate(annotation.NLBSubnet, subnet), func(s *v1.Service) {
		s.Spec.IPFamilyPolicy = &policy
		s.Spec.IPFamilies = []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol}
	})
}

func listenerNames(s *model.Spec) []string { return slices.Sorted(maps.Keys(s.Listeners)) }

// TestNLBDualStackFollowsTheSubnet: PreferDualStack in an IPv4-only subnet does not fail (an IPv4
// network load balancer); RequireDualStack there is a clear error naming the subnet, before any
// write; PreferDualStack in a subnet with an IPv6 prefix plans an IPv4 and an IPv6 listener.
func TestNLBDualStackFollowsTheSubnet(t *testing.T) {
	e := newEnv(t, withNLBs())
	v4only, _ := nlbSubnets(e)

	res, _ := e.ensure(t, dualStackService(v1.IPFamilyPolicyPreferDualStack, v4only), readyNodes(1), nil)
	if diff := cmp.Diff([]string{"TCP-80"}, listenerNames(res.Spec)); diff != "" {
		t.Errorf("PreferDualStack in an IPv4-only subnet: listeners (-want +got):\n%s", diff)
	}

	other := newEnv(t, withNLBs())
	v4only, dual := nlbSubnets(other)
	before := other.srv.Calls()
	_, err := other.r.Ensure(ctx, dualStackService(v1.IPFamilyPolicyRequireDualStack, v4only), readyNodes(1), nil)
	var ve *lb.ValidationError
	if !errors.As(err, &ve) || ve.Problems[0].Field != "spec.ipFamilyPolicy" || ve.Problems[0].Value != "RequireDualStack" {
		t.Fatalf("RequireDualStack in an IPv4-only subnet = %v, want a ValidationError on spec.ipFamilyPolicy", err)
	}
	if n := other.srv.Calls().Since(before).Class(ocitest.ClassWrite); n != 0 {
		t.Errorf("the refused Service made %d writes", n)
	}

	plan, err := other.r.Plan(ctx, dualStackService(v1.IPFamilyPolicyPreferDualStack, dual), readyNodes(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"TCP-80", "TCP-80-IPv6"}, listenerNames(plan.Target)); diff != "" {
		t.Errorf("PreferDualStack in a dual-stack subnet: listeners (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol}, plan.Target.IPFamilies); diff != "" {
		t.Errorf("families (-want +got):\n%s", diff)
	}

	// Without a client that reads subnets, PreferDualStack is served single-stack.
	blind, err := engine.NewReconciler(engine.Options{ListingLag: ocitest.DefaultListingLag, Config: other.cfg, Client: other.oci.LoadBalancers,
		NetworkLoadBalancers: other.oci.NetworkLoadBalancers})
	if err != nil {
		t.Fatal(err)
	}
	plan, err = blind.Plan(ctx, dualStackService(v1.IPFamilyPolicyPreferDualStack, dual), readyNodes(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"TCP-80"}, listenerNames(plan.Target)); diff != "" {
		t.Errorf("PreferDualStack without a subnet reader: listeners (-want +got):\n%s", diff)
	}
}

// TestNLBDualStackIsCreatedAndThenLeftAlone: PreferDualStack in a subnet with an IPv6 prefix
// creates an IPV4_AND_IPV6 network load balancer through ocitest (IPv4 and IPv6 listeners),
// reports an IPv6 address among its ingress, and a repeat writes nothing.
func TestNLBDualStackIsCreatedAndThenLeftAlone(t *testing.T) {
	e := newEnv(t, withNLBs())
	_, dual := nlbSubnets(e)
	svc := dualStackService(v1.IPFamilyPolicyPreferDualStack, dual)

	res, _ := e.ensure(t, svc, readyNodes(1), nil)
	all := e.srv.NetworkLoadBalancers()
	if len(all) != 1 || all[0].NlbIpVersion != networkloadbalancer.NlbIpVersionIpv4AndIpv6 {
		t.Fatalf("OCI has %d network load balancers (first: %+v), want one IPV4_AND_IPV6", len(all), all)
	}
	if diff := cmp.Diff([]string{"TCP-80", "TCP-80-IPv6"}, listenerNames(e.onlyNLB(t))); diff != "" {
		t.Errorf("listeners in OCI (-want +got):\n%s", diff)
	}
	if !slices.ContainsFunc(res.Status.Ingress, func(in v1.LoadBalancerIngress) bool { return strings.Contains(in.IP, ":") }) {
		t.Errorf("status %+v has no IPv6 address", res.Status)
	}
	if _, calls := e.ensure(t, svc, readyNodes(1), nil); calls.Class(ocitest.ClassWrite) != 0 {
		t.Errorf("repeat wrote:\n%s", calls)
	}
}

// TestNLBIPFamiliesChangeInPlace: a Service may move between SingleStack and PreferDualStack
// (Kubernetes allows both ways). The network load balancer follows in place: to dual stack, its
// IP version is updated before the IPv6 backend set and listener are created; back, they are
// deleted before the version returns to IPv4. Each direction then repeats with no write. The
// order is the plan's, so it holds with changes running concurrently.
func TestNLBIPFamiliesChangeInPlace(t *testing.T) {
	e := newEnv(t, withNLBs(), withConcurrency(4))
	_, dual := nlbSubnets(e)
	single := service(asNLB, ports(80), annotate(annotation.NLBSubnet, dual))
	e.ensure(t, single, readyNodes(1), nil)
	id := e.onlyNLB(t).ID

	for _, step := range []struct {
		name      string
		svc       *v1.Service
		version   networkloadbalancer.NlbIpVersionEnum
		listeners []string
		plan      []string // each change, then the changes it requires
	}{
		{"to PreferDualStack", dualStackService(v1.IPFamilyPolicyPreferDualStack, dual), networkloadbalancer.NlbIpVersionIpv4AndIpv6, []string{"TCP-80", "TCP-80-IPv6"},
			[]string{`~ load balancer "ocid1.networkloadbalancer" after []`, `+ backend set "TCP-80-IPv6" after [0]`, `+ listener "TCP-80-IPv6" after [0 1]`}},
		{"back to SingleStack", single, networkloadbalancer.NlbIpVersionIpv4, []string{"TCP-80"},
			[]string{`- listener "TCP-80-IPv6" after []`, `- backend set "TCP-80-IPv6" after [0]`, `~ load balancer "ocid1.networkloadbalancer" after [0 1]`}},
	} {
		svc := step.svc.DeepCopy()
		svc.UID = single.UID
		plan, err := e.r.Plan(ctx, svc, readyNodes(1), nil)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		var got []string
		for _, c := range plan.Changes {
			name := c.String()
			if c.Verb() == "update load balancer" {
				name = `~ load balancer "ocid1.networkloadbalancer"`
			}
			got = append(got, fmt.Sprintf("%s after %v", name, c.Requires))
		}
		if diff := cmp.Diff(step.plan, got); diff != "" {
			t.Errorf("%s: plan (-want +got):\n%s\n%s", step.name, diff, plan)
		}
		if _, err := e.r.Ensure(ctx, svc, readyNodes(1), nil); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		n, ok := e.srv.NetworkLoadBalancer(id)
		if !ok || n.NlbIpVersion != step.version {
			t.Errorf("%s: network load balancer %s version %s, want %s (the same one, changed in place)", step.name, id, n.NlbIpVersion, step.version)
		}
		if diff := cmp.Diff(step.listeners, slices.Sorted(maps.Keys(n.Listeners))); diff != "" {
			t.Errorf("%s: listeners (-want +got):\n%s", step.name, diff)
		}
		if _, calls := e.ensure(t, svc, readyNodes(1), nil); calls.Class(ocitest.ClassWrite) != 0 {
			t.Errorf("%s: repeat wrote:\n%s", step.name, calls)
		}
	}
}
