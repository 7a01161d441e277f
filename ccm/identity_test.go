// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"errors"
	"strings"
	"testing"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

func TestProviderRefusesToStartWithoutAClusterIdentity(t *testing.T) {
	e := newEnv(t)
	for _, name := range []string{"kubernetes", "", "<unique-cluster-id>"} {
		_, err := New(e.cfg, Options{ClusterName: name, Client: e.client})
		var ve *config.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("New with --cluster-name=%q: err = %v, want a *config.ValidationError naming the identity", name, err)
			continue
		}
		if f := ve.Errors[0].Field; f != "clusterID" && f != "--cluster-name" {
			t.Errorf("New with --cluster-name=%q: problem names %q, want clusterID or --cluster-name", name, f)
		}
	}
}

func TestLoadBalancerTagsAndRuleDescriptionsCarryTheSameIdentity(t *testing.T) {
	e := newEnv(t) // identity "test-cluster"
	lbs, _ := e.cloud.LoadBalancer()
	// The service controller passes its own --cluster-name to every call; with the identity in
	// clusterID that is the framework default, and it must not leak into the tags.
	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "kubernetes", service("web", nil, 80), e.nodes); err != nil {
		t.Fatal(err)
	}
	got := e.srv.LoadBalancers()
	if len(got) != 1 {
		t.Fatalf("%d load balancers, want 1", len(got))
	}
	if tag := got[0].FreeformTags[model.TagCluster]; tag != "test-cluster" {
		t.Errorf("load balancer tag %s = %q, want the identity its security rules carry, %q", model.TagCluster, tag, "test-cluster")
	}
	for _, r := range e.securityList(t, "lb-1").IngressSecurityRules {
		if r.Description != nil && strings.HasPrefix(*r.Description, "oci-ccm") && *r.Description != "oci-ccm cluster=test-cluster" {
			t.Errorf("rule description %q, want %q", *r.Description, "oci-ccm cluster=test-cluster")
		}
	}
}
