// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

func TestDesiredBacksALocalServiceWithTheNodesKnownToRunItsEndpoints(t *testing.T) {
	local := func(s *v1.Service) {
		s.Spec.ExternalTrafficPolicy, s.Spec.HealthCheckNodePort = v1.ServiceExternalTrafficPolicyLocal, 32000
	}
	for _, tc := range []struct {
		name      string
		opts      []svcOpt
		endpoints map[string]bool
		want      []string // backend IPs
		left      []string // Nodes excluded for lacking an endpoint
	}{
		{"Local, endpoints unknown: every Node", []svcOpt{local}, nil, []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"}, nil},
		{"Local, known: the Nodes running one", []svcOpt{local}, map[string]bool{"node-2": true}, []string{"10.0.0.2"}, []string{"node-1", "node-3"}},
		{"Local, known to have none: no backend", []svcOpt{local}, map[string]bool{}, nil, []string{"node-1", "node-2", "node-3"}},
		{"Cluster: endpoints do not matter", nil, map[string]bool{"node-2": true}, []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := Desired(testService(tc.opts...), nodes(1, 2, 3), testConfig(), Known{EndpointNodes: tc.endpoints})
			if err != nil {
				t.Fatalf("Desired: %v", err)
			}
			var got []string
			for _, b := range spec.BackendSets["TCP-80"].Backends {
				got = append(got, b.IP)
			}
			var left []string
			for name, reason := range spec.ExcludedNodes {
				if reason == reasonNoLocalEndpoint {
					left = append(left, name)
				}
			}
			slices.Sort(left)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("backends (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.left, left); diff != "" {
				t.Errorf("Nodes left out for lacking an endpoint (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDesiredGivesADualStackNetworkLoadBalancerWhatItsSubnetIsKnownToAllow(t *testing.T) {
	policy := func(p v1.IPFamilyPolicy) svcOpt {
		return func(s *v1.Service) {
			// The API server fills in the first family of a cluster.
			s.Spec.IPFamilyPolicy, s.Spec.IPFamilies = &p, []v1.IPFamily{v1.IPv4Protocol}
			s.Annotations[string(annotation.LoadBalancerType)] = "nlb"
		}
	}
	cfg := testConfig()
	subnet := cfg.LoadBalancer.Subnet1
	for _, tc := range []struct {
		name    string
		policy  v1.IPFamilyPolicy
		ipv6    map[string]bool
		want    []v1.IPFamily
		refused bool
	}{
		{"prefer, subnet has IPv6", v1.IPFamilyPolicyPreferDualStack, map[string]bool{subnet: true}, []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol}, false},
		{"prefer, subnet lacks it", v1.IPFamilyPolicyPreferDualStack, map[string]bool{subnet: false}, []v1.IPFamily{v1.IPv4Protocol}, false},
		{"prefer, subnet unknown", v1.IPFamilyPolicyPreferDualStack, nil, []v1.IPFamily{v1.IPv4Protocol}, false},
		{"require, subnet lacks it: refused", v1.IPFamilyPolicyRequireDualStack, map[string]bool{subnet: false}, nil, true},
		{"require, subnet unknown: left to OCI", v1.IPFamilyPolicyRequireDualStack, nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := Desired(testService(policy(tc.policy)), nodes(1), cfg, Known{SubnetIPv6: tc.ipv6})
			var verr *ValidationError
			if tc.refused {
				if !errors.As(err, &verr) || verr.Problems[0].Field != "spec.ipFamilyPolicy" {
					t.Fatalf("Desired = %v, want a problem on spec.ipFamilyPolicy", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Desired: %v", err)
			}
			if spec.Kind != model.KindNetworkLoadBalancer {
				t.Fatalf("kind %s", spec.Kind)
			}
			if tc.want != nil {
				if diff := cmp.Diff(tc.want, spec.IPFamilies); diff != "" {
					t.Errorf("IP families (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestDesiredAttachesTheKnownFrontendNSGBesidesTheAnnotatedOnes(t *testing.T) {
	const frontend = "ocid1.networksecuritygroup.oc1..front"
	namedIn := func(a annotation.Name, n int) svcOpt {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("ocid1.networksecuritygroup.oc1..n%d", i)
		}
		return withAnnotation(a, strings.Join(ids, ","))
	}
	named := func(n int) svcOpt { return namedIn(annotation.NetworkSecurityGroups, n) }
	nlb := withAnnotation(annotation.LoadBalancerType, "nlb")
	for _, tc := range []struct {
		name     string
		opts     []svcOpt
		frontend string
		want     int    // NSGs of the Spec
		refused  string // the field of the one problem, if refused
	}{
		{"network load balancer, known: joins them", []svcOpt{nlb, namedIn(annotation.NLBNetworkSecurityGroups, 2)}, frontend, 3, ""},
		{"network load balancer, one too many: its own annotation is named", []svcOpt{nlb, namedIn(annotation.NLBNetworkSecurityGroups, 5)}, frontend, 0,
			string(annotation.NLBNetworkSecurityGroups)},
		{"none known: the annotation's", []svcOpt{named(2)}, "", 2, ""},
		{"known: joins them", []svcOpt{named(2)}, frontend, 3, ""},
		{"known, annotation names none", nil, frontend, 1, ""},
		{"known, annotation names four: five in all", []svcOpt{named(4)}, frontend, 5, ""},
		{"known, annotation names five: one too many", []svcOpt{named(5)}, frontend, 0, string(annotation.NetworkSecurityGroups)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := Desired(testService(tc.opts...), nodes(1), testConfig(), Known{FrontendNSG: tc.frontend})
			if tc.refused != "" {
				var ve *ValidationError
				if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Field != tc.refused {
					t.Fatalf("Desired = %v, want a ValidationError naming %s", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatalf("Desired: %v", err)
			}
			if len(spec.NetworkSecurityGroups) != tc.want || tc.frontend != "" && !slices.Contains(spec.NetworkSecurityGroups, tc.frontend) {
				t.Errorf("NSGs %v, want %d including %q", spec.NetworkSecurityGroups, tc.want, tc.frontend)
			}
			if !slices.IsSorted(spec.NetworkSecurityGroups) {
				t.Errorf("NSGs %v are not sorted", spec.NetworkSecurityGroups)
			}
		})
	}
}

func TestDesiredKeepsTheExistingLoadBalancersUpstreamNameUnderTheUIDScheme(t *testing.T) {
	const uid = "0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33"
	prefixed := func(scheme config.NamingScheme) *config.Config {
		cfg := testConfig()
		cfg.LoadBalancer.Naming = config.Naming{Scheme: scheme, Prefix: "prod"}
		return cfg
	}
	for _, tc := range []struct {
		name     string
		cfg      *config.Config
		existing *model.Spec
		want     string
	}{
		{"none exists: the scheme's name", prefixed(config.NamingUID), nil, "prod-" + uid},
		{"uid scheme, existing under the bare UID (upstream without a prefix): kept", prefixed(config.NamingUID), &model.Spec{Name: uid}, uid},
		{"uid scheme, existing under another name: renamed", prefixed(config.NamingUID), &model.Spec{Name: "renamed-in-the-console"}, "prod-" + uid},
		{"name scheme, existing under the bare UID: renamed", prefixed(config.NamingName), &model.Spec{Name: uid}, "prod-default-web"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := Desired(testService(), nodes(1), tc.cfg, Known{Existing: tc.existing})
			if err != nil {
				t.Fatalf("Desired: %v", err)
			}
			if spec.Name != tc.want {
				t.Errorf("name %q, want %q", spec.Name, tc.want)
			}
		})
	}
}

func TestDesiredPutsALoadBalancerInTheFirstAnnotatedSubnetKnownToBeRegional(t *testing.T) {
	const regional, ad1, ad2 = "ocid1.subnet.oc1.phx.regional", "ocid1.subnet.oc1.phx.ad1", "ocid1.subnet.oc1.phx.ad2"
	inOne := &model.Spec{Subnets: []string{regional}}
	inTwo := &model.Spec{Subnets: []string{ad1, ad2}}
	known := map[string]bool{regional: true, ad1: false, ad2: false}
	subnet1, subnet2 := func(id string) svcOpt { return withAnnotation(annotation.Subnet1, id) },
		func(id string) svcOpt { return withAnnotation(annotation.Subnet2, id) }
	for _, tc := range []struct {
		name     string
		opts     []svcOpt
		existing *model.Spec
		regional map[string]bool
		want     []string
	}{
		{"create, subnet1 regional: alone", []svcOpt{subnet1(regional)}, nil, known, []string{regional}},
		{"create, subnet2 regional, subnet1 not: subnet2 alone", []svcOpt{subnet1(ad1), subnet2(regional)}, nil, known, []string{regional}},
		{"create, both regional: subnet1 is asked first", []svcOpt{subnet1(ad2), subnet2(regional)}, nil, map[string]bool{regional: true, ad2: true}, []string{ad2}},
		{"create, two AD subnets: the pair", []svcOpt{subnet1(ad1), subnet2(ad2)}, nil, known, []string{ad1, ad2}},
		{"create, regional not known: the pair", []svcOpt{subnet1(regional)}, nil, nil, []string{regional, testSubnet2}},
		{"configured subnets are not asked", nil, nil, map[string]bool{testSubnet1: true}, []string{testSubnet1, testSubnet2}},
		{"existing in one subnet where two are named: alone", []svcOpt{subnet1(regional)}, inOne, known, []string{regional}},
		{"existing in two subnets: the pair stays", []svcOpt{subnet1(regional)}, inTwo, known, []string{regional, testSubnet2}},
		{"internal: one subnet anyway", []svcOpt{subnet1(ad1), withAnnotation(annotation.Internal, "true")}, nil, known, []string{ad1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := Desired(testService(tc.opts...), nodes(1), testConfig(), Known{Existing: tc.existing, SubnetRegional: tc.regional})
			if err != nil {
				t.Fatalf("Desired: %v", err)
			}
			if diff := cmp.Diff(tc.want, spec.Subnets); diff != "" {
				t.Errorf("subnets (-want +got):\n%s", diff)
			}
		})
	}
}
