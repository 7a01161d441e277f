// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"errors"
	"testing"
)

func TestAKeyOciCCMWouldIgnoreSilentlyFailsGeneration(t *testing.T) {
	_, err := classifyAnnotation(upstreamAnnotation{Key: "oci.oraclecloud.com/not-a-real-annotation", Value: "x", Upstream: Facets{}})
	if !errors.Is(err, errUnknown) {
		t.Fatalf("classify = %v, want errUnknown", err)
	}
}

func TestAConfigKeyOciCCMDoesNotKnowFailsGeneration(t *testing.T) {
	if _, err := classifyConfigKey(upstreamConfigKey{Key: "loadBalancer.notAKey", YAML: "loadBalancer: {notAKey: 1}", Upstream: Facets{}}); err == nil {
		t.Fatal("classify of an unknown config key succeeded")
	}
}

// An expectation that differs from what oci-ccm builds, with no Difference saying why, fails
// the generation: the row of the idle-timeout annotation, with upstream said to build 600 s.
func TestAnUndocumentedDifferenceFailsGeneration(t *testing.T) {
	a := upstreamAnnotation{Key: s + "oci-load-balancer-connection-idle-timeout", Value: "120", Upstream: Facets{IdleTimeout: "600s"}}
	if _, err := classifyAnnotation(a); !errors.Is(err, errUndocumented) {
		t.Fatalf("classify = %v, want errUndocumented", err)
	}
	a.Difference = "documented"
	r, err := classifyAnnotation(a)
	if err != nil || r.Status != SupportedDifferently || r.OCI != "idle timeout: 120s" || r.Upstream != "idle timeout: 600s" {
		t.Fatalf("with a Difference: %+v, %v; want supported with a difference, both sides shown", r, err)
	}

	k := upstreamConfigKey{Key: "vcn", YAML: "vcn: ocid1.vcn.oc1..v", Upstream: Facets{VCN: "ocid1.vcn.oc1..other"}}
	if _, err := classifyConfigKey(k); !errors.Is(err, errUndocumented) {
		t.Fatalf("classify config = %v, want errUndocumented", err)
	}
}

// A difference upstream has in a facet the sample does not otherwise touch counts too: an
// expectation that says nothing changes, where oci-ccm changes something, fails.
func TestAnExpectationOfNoChangeWhereOciCCMChangesFails(t *testing.T) {
	a := upstreamAnnotation{Key: s + "oci-load-balancer-health-check-retries", Value: "5", Upstream: Facets{}}
	if _, err := classifyAnnotation(a); !errors.Is(err, errUndocumented) {
		t.Fatalf("classify = %v, want errUndocumented", err)
	}
}

func TestADifferenceTextWithoutADifferenceFailsGeneration(t *testing.T) {
	a := upstreamAnnotation{Key: s + "oci-load-balancer-connection-idle-timeout", Value: "120", Upstream: Facets{IdleTimeout: "120s"},
		Difference: "stale"}
	if _, err := classifyAnnotation(a); !errors.Is(err, errStaleDifference) {
		t.Fatalf("classify = %v, want errStaleDifference", err)
	}
}

func TestARowWithoutAnExpectationFailsGeneration(t *testing.T) {
	if _, err := classifyAnnotation(upstreamAnnotation{Key: s + "oci-load-balancer-internal", Value: "true"}); err == nil {
		t.Fatal("an annotation row without Upstream classified")
	}
	if _, err := classifyConfigKey(upstreamConfigKey{Key: "vcn", YAML: "vcn: ocid1.vcn.oc1..v"}); err == nil {
		t.Fatal("a config row without Upstream classified")
	}
}

// Both CCMs refusing a value is a row of its own kind, never "supported".
func TestAValueBothRefuseIsRefusedAsUpstream(t *testing.T) {
	r, err := classifyAnnotation(upstreamAnnotation{Key: s + "oci-load-balancer-health-check-interval", Value: "500",
		Upstream: Facets{Refusal: "out of range"}})
	if err != nil || r.Status != RefusedAsUpstream {
		t.Fatalf("classify = %+v, %v; want refused, as upstream", r, err)
	}
}

// upstreamAnnotationCount is the number of Service annotations the upstream CCM v1.35.0 reads:
// the 47 ServiceAnnotation constants of load_balancer_spec.go, load-balancer-source-ranges (read
// through k8s.io/kubernetes' GetLoadBalancerSourceRanges) and compartment-id (pkg/util).
const upstreamAnnotationCount = 49

func TestEveryUpstreamKeyHasAnExpectationAndAStatus(t *testing.T) {
	if _, _, _, err := render(); err != nil {
		t.Fatal(err)
	}
	if len(upstreamAnnotations) != upstreamAnnotationCount {
		t.Errorf("%d annotations, want the upstream CCM's %d", len(upstreamAnnotations), upstreamAnnotationCount)
	}
	seen := map[string]bool{}
	for _, a := range upstreamAnnotations {
		if seen[a.Key] {
			t.Errorf("annotation %s listed twice", a.Key)
		}
		seen[a.Key] = true
		if a.Upstream == nil {
			t.Errorf("annotation %s has no Upstream expectation", a.Key)
		}
	}
	for _, a := range edgeAnnotations {
		if !seen[a.Key] {
			t.Errorf("edge sample of %s, which is not an upstream annotation", a.Key)
		}
		if a.Upstream == nil {
			t.Errorf("edge sample %s=%q has no Upstream expectation", a.Key, a.Value)
		}
	}
	keys := map[string]bool{}
	for _, k := range upstreamConfigKeys {
		if keys[k.Key] {
			t.Errorf("config key %s listed twice", k.Key)
		}
		keys[k.Key] = true
		if k.Upstream == nil {
			t.Errorf("config key %s has no Upstream expectation", k.Key)
		}
	}
}
