// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package preflight

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/config"
)

func TestAdoptionFindsTheUpstreamNameOrSaysALoadBalancerWouldBeCreated(t *testing.T) {
	service := func(ann map[string]string, address string) *v1.Service {
		svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "u1", Annotations: ann},
			Spec: v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer}}
		if address != "" {
			svc.Status.LoadBalancer.Ingress = []v1.LoadBalancerIngress{{IP: address}}
		}
		return svc
	}
	nlb := map[string]string{o + "load-balancer-type": "NLB"}
	for _, tc := range []struct {
		name         string
		svc          *v1.Service
		naming       config.Naming
		upstream     string
		wantSeverity Severity
		wantNone     bool
	}{
		{name: "no prefix on either side", svc: service(nil, "192.0.2.1"), wantNone: true},
		{name: "the same prefix, written with and without its dash", svc: service(nil, "192.0.2.1"),
			naming: config.Naming{Prefix: "prod"}, upstream: "prod-", wantNone: true},
		{name: "oci-ccm has a prefix upstream had not: the bare UID is looked up too", svc: service(nil, "192.0.2.1"),
			naming: config.Naming{Prefix: "prod"}, wantNone: true},
		{name: "upstream had a prefix oci-ccm has not", svc: service(nil, "192.0.2.1"), upstream: "prod", wantSeverity: NewLoadBalancer},
		{name: "another prefix", svc: service(nil, "192.0.2.1"), naming: config.Naming{Prefix: "staging"}, upstream: "prod",
			wantSeverity: NewLoadBalancer},
		{name: "a network load balancer is not prefixed", svc: service(nlb, "192.0.2.1"), upstream: "prod", wantNone: true},
		{name: "no address: nothing to adopt", svc: service(nil, ""), upstream: "prod", wantNone: true},
		{name: "the name scheme adopts and renames", svc: service(nil, "192.0.2.1"),
			naming: config.Naming{Scheme: config.NamingName, Prefix: "prod"}, upstream: "prod", wantSeverity: Differs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &config.Config{LoadBalancer: config.LoadBalancer{Naming: tc.naming}}
			got := adoption(tc.svc, cfg, tc.upstream)
			var severities []Severity
			for _, f := range got {
				severities = append(severities, f.Severity)
			}
			var want []Severity
			if !tc.wantNone {
				want = []Severity{tc.wantSeverity}
			}
			if diff := cmp.Diff(want, severities); diff != "" {
				t.Errorf("findings %+v (-want +got severities):\n%s", got, diff)
			}
		})
	}
}
