// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/lb/binding"
	"github.com/oci-ccm/oci-ccm/ociclient"
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

// growingLB adds a backend to the set right after each health read: the set changes between
// Health's two reads, every time.
type growingLB struct {
	*ociclient.LoadBalancerClient
	add func()
}

func (g *growingLB) GetBackendSetHealth(ctx context.Context, id, set string) (loadbalancer.BackendSetHealth, error) {
	h, err := g.LoadBalancerClient.GetBackendSetHealth(ctx, id, set)
	g.add()
	return h, err
}

// TestHealthOfASetThatKeepsChanging: when the health read's count and the set's names disagree
// twice, a backend the health read did not name is UNKNOWN, not OK.
func TestHealthOfASetThatKeepsChanging(t *testing.T) {
	e := newEnv(t, ocitest.LBBusyQueue)
	id := classicLB.create(t, e, nil)
	b := binding.Binding{Name: "shop/web", LoadBalancerID: id, BackendSet: "web"}
	if _, err := e.s.Sync(ctx, b, []binding.Target{{IP: "10.0.20.5", Port: 8080}}, nil); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if err := e.srv.SetBackendHealth(id, "web", "10.0.20.5:8080", ocitest.BackendHealthOK); err != nil {
		t.Fatal(err)
	}
	n := 0
	s := binding.NewSyncer(binding.Options{LoadBalancers: &growingLB{LoadBalancerClient: e.oci.LoadBalancers, add: func() {
		n++
		classicLB.addBackend(e, id, "web", "10.0.30."+itoa(n), 8080)
	}}})
	calls := e.srv.Calls()
	got, err := s.Health(ctx, b)
	if err != nil {
		t.Fatalf("Health: %v", err)
	}
	want := map[string]binding.Health{"10.0.10.9:8080": binding.HealthUnknown, "10.0.20.5:8080": binding.HealthUnknown,
		"10.0.30.1:8080": binding.HealthUnknown, "10.0.30.2:8080": binding.HealthUnknown}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Health (-want +got):\n%s", diff)
	}
	if c := e.srv.Calls().Since(calls).Total(); c != 4 {
		t.Errorf("%d calls, want 4", c)
	}
}
