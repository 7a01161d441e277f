// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/config"
)

func ingressRule(src string, port int, desc string) core.IngressSecurityRule {
	r := toIngress(in(src, port), desc)
	if desc == "" {
		r.Description = nil
	}
	return r
}

func egressRule(dst string, port int, desc string) core.EgressSecurityRule {
	r := toEgress(out(dst, port), desc)
	if desc == "" {
		r.Description = nil
	}
	return r
}

// TestRewritePreservesRulesNotOwned runs the whole pure path — Desired, observe, Diff, apply —
// over a list that holds the user's rules, another cluster's rules (one whose name merely starts
// like ours) and a stale rule of ours, and checks the rules written.
func TestRewritePreservesRulesNotOwned(t *testing.T) {
	const mine = "oci-ccm cluster=prod"
	userSSH := ingressRule("0.0.0.0/0", 22, "")
	userSameAsOurs := ingressRule("0.0.0.0/0", 80, "") // same rule as one we need, but the user's
	otherCluster := ingressRule("0.0.0.0/0", 8443, "oci-ccm cluster=staging")
	prefixCluster := ingressRule("0.0.0.0/0", 9000, "oci-ccm cluster=prod2")
	annotated := ingressRule("0.0.0.0/0", 9001, "oci-ccm cluster=prod (copied by alice)")
	stale := ingressRule("0.0.0.0/0", 8080, mine)
	userEgress := core.EgressSecurityRule{Destination: common.String("0.0.0.0/0"), Protocol: common.String("all")}

	list := core.SecurityList{
		Id:                   common.String("sl-lb-a"),
		IngressSecurityRules: []core.IngressSecurityRule{userSSH, stale, otherCluster, userSameAsOurs, prefixCluster, annotated},
		EgressSecurityRules:  []core.EgressSecurityRule{userEgress},
	}
	claims := []Claim{{Service: types.NamespacedName{Namespace: "default", Name: "web"}, Mode: config.SecurityListModeAll, LBSubnets: []string{"lb-a"},
		NodeSubnets: []string{"nodes"}, ListenerPorts: []int{80}, NodePorts: []int{30080}}}

	desired, err := Desired(claims, testSubnets, Policy{Cluster: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := Diff(observe(list, Owner("prod")), desired["sl-lb-a"], true, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	ingress, egress := apply(list, u, Owner("prod"))

	wantIngress := []core.IngressSecurityRule{userSSH, otherCluster, userSameAsOurs, prefixCluster, annotated,
		ingressRule("0.0.0.0/0", 80, mine)}
	wantEgress := []core.EgressSecurityRule{userEgress, egressRule("10.0.10.0/24", 30080, mine)}
	if diff := cmp.Diff(wantIngress, ingress); diff != "" {
		t.Errorf("ingress rules written (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantEgress, egress); diff != "" {
		t.Errorf("egress rules written (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Rule{in(AnyIPv4, 8080)}, u.Remove); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
}

func TestApplyNeverReturnsNilSlices(t *testing.T) {
	// The SDK drops a nil slice from the request body, and OCI then keeps the old rules; removing
	// the last rule must send an empty list instead.
	list := core.SecurityList{IngressSecurityRules: []core.IngressSecurityRule{ingressRule("0.0.0.0/0", 80, Owner("prod"))}}
	u, err := Diff(observe(list, Owner("prod")), nil, true, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	ingress, egress := apply(list, u, Owner("prod"))
	if ingress == nil || egress == nil || len(ingress) != 0 || len(egress) != 0 {
		t.Errorf("apply() = %#v, %#v; want two empty, non-nil slices", ingress, egress)
	}
}

func TestObserveCanonicalForm(t *testing.T) {
	const mine = "oci-ccm cluster=prod"
	altered := func(f func(*core.IngressSecurityRule)) core.IngressSecurityRule {
		r := ingressRule("0.0.0.0/0", 80, mine)
		f(&r)
		return r
	}
	tests := []struct {
		name string
		rule core.IngressSecurityRule
		want Observed
	}{
		{name: "a rule we wrote", rule: ingressRule("0.0.0.0/0", 80, mine), want: owned(in(AnyIPv4, 80))},
		{name: "someone else's rule is not owned", rule: ingressRule("0.0.0.0/0", 80, "mine"), want: Observed{}},
		{
			name: "a CIDR written with host bits is the same rule",
			rule: altered(func(r *core.IngressSecurityRule) { r.Source = common.String("10.0.1.7/24") }),
			want: owned(in("10.0.1.0/24", 80)),
		},
		{
			name: "no source type means a CIDR block",
			rule: altered(func(r *core.IngressSecurityRule) { r.SourceType = "" }),
			want: owned(in(AnyIPv4, 80)),
		},
		{
			name: "stateless is not our form",
			rule: altered(func(r *core.IngressSecurityRule) { r.IsStateless = common.Bool(true) }),
			want: Observed{Owned: true, Rule: in(AnyIPv4, 80)},
		},
		{
			name: "a source port range is not our form",
			rule: altered(func(r *core.IngressSecurityRule) {
				r.TcpOptions.SourcePortRange = &core.PortRange{Min: common.Int(1), Max: common.Int(2)}
			}),
			want: Observed{Owned: true, Rule: in(AnyIPv4, 80)},
		},
		{
			name: "another protocol is not our form",
			rule: altered(func(r *core.IngressSecurityRule) { r.Protocol = common.String("17"); r.TcpOptions = nil }),
			want: Observed{Owned: true, Rule: Rule{Direction: Ingress, CIDR: AnyIPv4, Protocol: "17"}},
		},
		{
			name: "a service CIDR source is not our form",
			rule: altered(func(r *core.IngressSecurityRule) {
				r.SourceType = core.IngressSecurityRuleSourceTypeServiceCidrBlock
				r.Source = common.String("all-phx-services-in-oracle-services-network")
			}),
			want: Observed{Owned: true, Rule: Rule{Direction: Ingress, CIDR: "all-phx-services-in-oracle-services-network", Protocol: "6", Ports: PortRange{80, 80}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := observe(core.SecurityList{IngressSecurityRules: []core.IngressSecurityRule{tt.rule}}, mine)
			if diff := cmp.Diff(tt.want, got.Ingress[0]); diff != "" {
				t.Errorf("observe() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWrittenRulesReadBackAsCanonical(t *testing.T) {
	r := out("10.0.10.0/24", 30080)
	got := observe(core.SecurityList{EgressSecurityRules: []core.EgressSecurityRule{toEgress(r, "x")}}, "x")
	if diff := cmp.Diff(owned(r), got.Egress[0]); diff != "" {
		t.Errorf("a written egress rule reads back as (-want +got):\n%s", diff)
	}
}
