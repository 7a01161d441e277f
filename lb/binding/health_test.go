// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oci-ccm/oci-ccm/lb/binding"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// TestHealthReadsTheSetOnlyWhenABackendIsOK: GetBackendSetHealth names the backends that are not
// OK; only when it counts more backends than it names is the set read, for the OK ones' names.
func TestHealthReadsTheSetOnlyWhenABackendIsOK(t *testing.T) {
	for _, p := range products {
		t.Run(p.name, func(t *testing.T) {
			e := newEnv(t, ocitest.LBBusyQueue)
			id := p.create(t, e, nil)
			b := binding.Binding{Name: "shop/web", LoadBalancerID: id, BackendSet: "web"}
			if _, err := e.s.Sync(ctx, b, []binding.Target{{IP: "10.0.20.5", Port: 8080}, {IP: "10.0.20.6", Port: 8080}}, nil); err != nil {
				t.Fatalf("Sync: %v", err)
			}
			for _, tt := range []struct {
				name  string
				set   map[string]ocitest.BackendHealthStatus
				want  map[string]binding.Health
				reads int
			}{
				{"none OK: one read", map[string]ocitest.BackendHealthStatus{"10.0.20.6:8080": ocitest.BackendHealthCritical, "10.0.10.9:8080": ocitest.BackendHealthWarning},
					map[string]binding.Health{"10.0.10.9:8080": binding.HealthWarning, "10.0.20.5:8080": binding.HealthUnknown, "10.0.20.6:8080": binding.HealthCritical}, 1},
				{"one OK: two reads", map[string]ocitest.BackendHealthStatus{"10.0.20.5:8080": ocitest.BackendHealthOK},
					map[string]binding.Health{"10.0.10.9:8080": binding.HealthWarning, "10.0.20.5:8080": binding.HealthOK, "10.0.20.6:8080": binding.HealthCritical}, 2},
			} {
				t.Run(tt.name, func(t *testing.T) {
					for name, h := range tt.set {
						if err := e.srv.SetBackendHealth(id, "web", name, h); err != nil {
							t.Fatal(err)
						}
					}
					calls := e.srv.Calls()
					got, err := e.s.Health(ctx, b)
					if err != nil {
						t.Fatalf("Health: %v", err)
					}
					if diff := cmp.Diff(tt.want, got); diff != "" {
						t.Errorf("Health (-want +got):\n%s", diff)
					}
					if n := e.srv.Calls().Since(calls).Total(); n != tt.reads {
						t.Errorf("%d calls, want %d", n, tt.reads)
					}
				})
			}
		})
	}
}
