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
	long := strings.Repeat("n", 63)
	tests := []struct {
		name       string
		namer      naming
		svc        *v1.Service
		want       string
		candidates []string
	}{
		{"uid scheme is the upstream name", naming{Scheme: config.NamingUID}, testService(),
			"0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33", []string{"0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33"}},
		{"empty scheme means uid", naming{}, testService(),
			"0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33", []string{"0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33"}},
		{"name scheme falls back to the uid name", naming{Scheme: config.NamingName}, testService(),
			"default-web", []string{"default-web", "0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33"}},
		{"prefix", naming{Scheme: config.NamingName, Prefix: "prod-"}, testService(),
			"prod-default-web", []string{"prod-default-web", "0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.namer.Name(tc.svc); got != tc.want {
				t.Errorf("Name = %q, want %q", got, tc.want)
			}
			if diff := cmp.Diff(tc.candidates, tc.namer.Candidates(tc.svc)); diff != "" {
				t.Errorf("Candidates (-want +got):\n%s", diff)
			}
		})
	}

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
