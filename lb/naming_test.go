// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

func TestNamer(t *testing.T) {
	const uid = "0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33"
	const lb, nlb = model.KindLoadBalancer, model.KindNetworkLoadBalancer
	asNLB := func(s *v1.Service) {
		s.Annotations = map[string]string{"oci.oraclecloud.com/load-balancer-type": "nlb"}
	}
	tests := []struct {
		name       string
		namer      naming
		svc        *v1.Service
		kind       model.Kind
		want       string
		candidates []string
	}{
		{"uid scheme is the upstream name", naming{Scheme: config.NamingUID}, testService(), lb,
			uid, []string{uid}},
		{"empty scheme means uid", naming{}, testService(), lb,
			uid, []string{uid}},
		{"uid scheme with upstream's prefix, '-' appended", naming{Scheme: config.NamingUID, Prefix: "prod"}, testService(), lb,
			"prod-" + uid, []string{"prod-" + uid, uid}},
		{"uid scheme with upstream's prefix ending in '-'", naming{Scheme: config.NamingUID, Prefix: "prod-"}, testService(), lb,
			"prod-" + uid, []string{"prod-" + uid, uid}},
		{"uid scheme network load balancer: namespace/name/uid, prefix not used", naming{Scheme: config.NamingUID, Prefix: "prod"}, testService(asNLB), nlb,
			"default/web/" + uid, []string{"default/web/" + uid, uid}},
		{"name scheme falls back to the upstream names", naming{Scheme: config.NamingName}, testService(), lb,
			"default-web", []string{"default-web", uid}},
		{"name scheme network load balancer", naming{Scheme: config.NamingName}, testService(asNLB), nlb,
			"default-web", []string{"default-web", "default/web/" + uid, uid}},
		{"prefix", naming{Scheme: config.NamingName, Prefix: "prod-"}, testService(), lb,
			"prod-default-web", []string{"prod-default-web", "prod-" + uid, uid}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.namer.Name(tc.svc); got != tc.want {
				t.Errorf("Name = %q, want %q", got, tc.want)
			}
			if diff := cmp.Diff(tc.candidates, tc.namer.Candidates(tc.svc, tc.kind)); diff != "" {
				t.Errorf("Candidates (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("a Service switched between kinds looks for the other kind under that kind's names", func(t *testing.T) {
		n := naming{Scheme: config.NamingUID}
		if diff := cmp.Diff([]string{"default/web/" + uid, uid}, n.Candidates(testService(), nlb)); diff != "" {
			t.Errorf("nlb Candidates of an lb Service (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{uid}, n.Candidates(testService(asNLB), lb)); diff != "" {
			t.Errorf("lb Candidates of an nlb Service (-want +got):\n%s", diff)
		}
	})

	t.Run("the uid scheme keeps an upstream name, the name scheme renames", func(t *testing.T) {
		svc := testService(asNLB)
		desired := &model.Spec{Kind: nlb, Name: "default/web/" + uid}
		for observed, keep := range map[string]bool{uid: true, "default/web/" + uid: true, "renamed-in-console": false} {
			if got := (naming{Scheme: config.NamingUID}).keepsName(svc, nlb, observed); got != keep {
				t.Errorf("uid scheme keepsName(%q) = %v, want %v", observed, got, keep)
			}
			if got := (naming{Scheme: config.NamingName}).keepsName(svc, nlb, observed); got {
				t.Errorf("name scheme keepsName(%q) = true, want false", observed)
			}
		}
		if got := (naming{}).targetName(svc, &model.Spec{Name: uid}, desired); got != uid {
			t.Errorf("targetName of an NLB named by its UID = %q, want it kept", got)
		}
		if got := (naming{}).targetName(svc, nil, desired); got != desired.Name {
			t.Errorf("targetName of a new NLB = %q, want %q", got, desired.Name)
		}
	})

	t.Run("names over OCI's 1024 characters are cut as upstream cuts them", func(t *testing.T) {
		n := naming{Prefix: strings.Repeat("p", 2000)}
		if got := n.Name(testService()); len(got) != maxDisplayName {
			t.Errorf("name of %d characters, want %d", len(got), maxDisplayName)
		}
	})

	long := strings.Repeat("n", 63)
	t.Run("long names are cut with a hash that keeps them distinct", func(t *testing.T) {
		n := naming{Scheme: config.NamingName, Prefix: strings.Repeat("p", 40)}
		a := n.Name(testService(func(s *v1.Service) { s.Namespace, s.Name = long, long+"a" }))
		b := n.Name(testService(func(s *v1.Service) { s.Namespace, s.Name = long, long+"b" }))
		if len(a) != maxNameLength || len(b) != maxNameLength || a == b {
			t.Errorf("names %q (%d) and %q (%d): want distinct, %d long", a, len(a), b, len(b), maxNameLength)
		}
	})
}

func TestCertificateNameKeepsOnlyAllowedCharacters(t *testing.T) {
	got := certificateName("my.secret/with spaces", model.Certificate{PublicCertificate: "x"})
	if strings.ContainsAny(got, "./ ") || !strings.HasPrefix(got, "my-secret-with-spaces-") {
		t.Errorf("certificateName = %q", got)
	}
	if long := certificateName(strings.Repeat("s", 300), model.Certificate{}); len(long) != maxCertificateBase+13 {
		t.Errorf("long certificate name has %d characters", len(long))
	}
}

func TestCheckOwnership(t *testing.T) {
	desired := &model.Spec{Owner: model.Owner{Cluster: "prod", Service: "default/web", UID: "uid-1"}}
	tagged := func(o model.Owner) *model.Spec {
		return &model.Spec{ID: "ocid1.loadbalancer.x", Name: "lb", FreeformTags: o.Tags()}
	}
	untagged := &model.Spec{ID: "ocid1.loadbalancer.x", Name: "lb", FreeformTags: map[string]string{"team": "web"}}
	tests := []struct {
		name     string
		observed *model.Spec
		claim    foundBy
		ok       bool
	}{
		{"our tags", tagged(desired.Owner), foundByName, true},
		{"restored Service: same name, new UID", tagged(model.Owner{Cluster: "prod", Service: "default/web", UID: "uid-0"}), foundByName, true},
		{"another cluster", tagged(model.Owner{Cluster: "staging", Service: "default/web", UID: "uid-1"}), foundByCachedID, false},
		{"another Service", tagged(model.Owner{Cluster: "prod", Service: "default/api", UID: "uid-9"}), foundByAdoption, false},
		{"untagged, found by UID name (upstream CCM)", untagged, foundByUIDName, true},
		{"untagged, adopted explicitly", untagged, foundByAdoption, true},
		{"untagged, found by name only", untagged, foundByName, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkOwnership(tc.observed, desired, tc.claim)
			if tc.ok && err != nil {
				t.Errorf("checkOwnership = %v, want ok", err)
			}
			if !tc.ok && !errors.Is(err, ErrNotOwned) {
				t.Errorf("checkOwnership = %v, want ErrNotOwned", err)
			}
		})
	}
}
