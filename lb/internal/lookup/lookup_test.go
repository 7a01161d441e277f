// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lookup

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// testService is Service default/web with a fixed UID, changed by opts.
func testService(opts ...func(*v1.Service)) *v1.Service {
	s := &v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default",
		UID: types.UID("0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33"), Annotations: map[string]string{}}}
	for _, o := range opts {
		o(s)
	}
	return s
}

func TestNamer(t *testing.T) {
	const uid = "0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33"
	const lb, nlb = model.KindLoadBalancer, model.KindNetworkLoadBalancer
	asNLB := func(s *v1.Service) {
		s.Annotations = map[string]string{"oci.oraclecloud.com/load-balancer-type": "nlb"}
	}
	tests := []struct {
		name       string
		namer      Naming
		svc        *v1.Service
		kind       model.Kind
		want       string
		candidates []string
	}{
		{"uid scheme is the upstream name", Naming{Scheme: config.NamingUID}, testService(), lb,
			uid, []string{uid}},
		{"empty scheme means uid", Naming{}, testService(), lb,
			uid, []string{uid}},
		{"uid scheme with upstream's prefix, '-' appended", Naming{Scheme: config.NamingUID, Prefix: "prod"}, testService(), lb,
			"prod-" + uid, []string{"prod-" + uid, uid}},
		{"uid scheme with upstream's prefix ending in '-'", Naming{Scheme: config.NamingUID, Prefix: "prod-"}, testService(), lb,
			"prod-" + uid, []string{"prod-" + uid, uid}},
		{"uid scheme network load balancer: namespace/name/uid, prefix not used", Naming{Scheme: config.NamingUID, Prefix: "prod"}, testService(asNLB), nlb,
			"default/web/" + uid, []string{"default/web/" + uid, uid}},
		{"name scheme falls back to the upstream names", Naming{Scheme: config.NamingName}, testService(), lb,
			"default-web", []string{"default-web", uid}},
		{"name scheme network load balancer", Naming{Scheme: config.NamingName}, testService(asNLB), nlb,
			"default-web", []string{"default-web", "default/web/" + uid, uid}},
		{"prefix", Naming{Scheme: config.NamingName, Prefix: "prod-"}, testService(), lb,
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
		n := Naming{Scheme: config.NamingUID}
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
			if got := (Naming{Scheme: config.NamingUID}).KeepsName(svc, nlb, observed); got != keep {
				t.Errorf("uid scheme keepsName(%q) = %v, want %v", observed, got, keep)
			}
			if got := (Naming{Scheme: config.NamingName}).KeepsName(svc, nlb, observed); got {
				t.Errorf("name scheme keepsName(%q) = true, want false", observed)
			}
		}
		if got := (Naming{}).TargetName(svc, &model.Spec{Name: uid}, desired); got != uid {
			t.Errorf("targetName of an NLB named by its UID = %q, want it kept", got)
		}
		if got := (Naming{}).TargetName(svc, nil, desired); got != desired.Name {
			t.Errorf("targetName of a new NLB = %q, want %q", got, desired.Name)
		}
	})

	t.Run("names over OCI's 1024 characters are cut as upstream cuts them", func(t *testing.T) {
		n := Naming{Prefix: strings.Repeat("p", 2000)}
		if got := n.Name(testService()); len(got) != MaxDisplayName {
			t.Errorf("name of %d characters, want %d", len(got), MaxDisplayName)
		}
	})

	long := strings.Repeat("n", 63)
	t.Run("long names are cut with a hash that keeps them distinct", func(t *testing.T) {
		n := Naming{Scheme: config.NamingName, Prefix: strings.Repeat("p", 40)}
		a := n.Name(testService(func(s *v1.Service) { s.Namespace, s.Name = long, long+"a" }))
		b := n.Name(testService(func(s *v1.Service) { s.Namespace, s.Name = long, long+"b" }))
		if len(a) != MaxNameLength || len(b) != MaxNameLength || a == b {
			t.Errorf("names %q (%d) and %q (%d): want distinct, %d long", a, len(a), b, len(b), MaxNameLength)
		}
	})
}

func TestStatusReadsTheIPModeAndPublicOnlyAnnotationsAndIgnoresInvalidOnes(t *testing.T) {
	vip, proxy := v1.LoadBalancerIPModeVIP, v1.LoadBalancerIPModeProxy
	for _, tc := range []struct {
		name       string
		ann        map[string]string
		ipMode     *v1.LoadBalancerIPMode
		publicOnly bool
	}{
		{"neither", nil, nil, false},
		{"VIP", map[string]string{string(annotation.IngressIPMode): "VIP"}, &vip, false},
		{"proxy in any case, spaced", map[string]string{string(annotation.IngressIPMode): " proxy "}, &proxy, false},
		{"an invalid mode is none", map[string]string{string(annotation.IngressIPMode): "direct"}, nil, false},
		{"public only", map[string]string{string(annotation.NLBExternalIPOnly): "true"}, nil, true},
		{"an invalid boolean is false", map[string]string{string(annotation.NLBExternalIPOnly): "yes"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ipMode, publicOnly := Status(testService(func(s *v1.Service) { s.Annotations = tc.ann }))
			if diff := cmp.Diff(tc.ipMode, ipMode); diff != "" || publicOnly != tc.publicOnly {
				t.Errorf("Status = %v, %v; want %v, %v", ipMode, publicOnly, tc.ipMode, tc.publicOnly)
			}
		})
	}
}
