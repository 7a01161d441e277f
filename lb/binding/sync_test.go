// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oci-ccm/oci-ccm/lb/binding"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// TestSyncKeepsOnlyItsOwnBackends runs a binding's life on a load balancer Terraform made, for
// both APIs: the binding adds, drains and removes its own backends; Terraform's backend, the
// listener, the other backend set and every other field of the bound set stay as they were; a
// sync with nothing to change writes nothing; Release leaves the load balancer as it found it.
func TestSyncKeepsOnlyItsOwnBackends(t *testing.T) {
	for _, p := range products {
		t.Run(p.name, func(t *testing.T) {
			e := newEnv(t, ocitest.LBBusyQueue)
			id := p.create(t, e, map[string]string{"managed-by": "terraform"})
			before := p.get(t, e, id)
			b := binding.Binding{Name: "shop/web", LoadBalancerID: id, BackendSet: "web"}
			reads := 1 // classic: GetLoadBalancer
			if p.name == "network" {
				reads = 2 // GetNetworkLoadBalancer, GetBackendSet (for the set's own ETag)
			}

			// 1. Two pods, one of them terminating.
			want := []binding.Target{{IP: "10.0.20.5", Port: 8080}, {IP: "10.0.20.6", Port: 8080, Drain: true}}
			calls := e.srv.Calls()
			res, err := e.s.Sync(ctx, b, want, nil)
			if err != nil {
				t.Fatalf("Sync: %v", err)
			}
			if diff := cmp.Diff([]string{"10.0.20.5:8080", "10.0.20.6:8080"}, res.Owned); diff != "" {
				t.Errorf("Owned (-want +got):\n%s", diff)
			}
			if len(res.Added) != 2 || res.WorkRequest == "" || len(res.Backends) != 3 || res.Reads != reads || res.Writes != 1 {
				t.Errorf("Result: %+v", res)
			}
			subnets := e.seeded.LoadBalancerSubnets
			if p.name == "network" {
				subnets = []string{e.seeded.Subnets["public"]}
			}
			if !slices.Equal(res.Subnets, subnets) || res.HealthCheckPort != 8080 {
				t.Errorf("Result.Subnets, HealthCheckPort = %v, %d; want the load balancer's %v and the set's health checker port 8080",
					res.Subnets, res.HealthCheckPort, subnets)
			}
			if got := e.srv.Calls().Since(calls).Op(p.op("UpdateBackendSet")); got != 1 {
				t.Errorf("UpdateBackendSet calls = %d, want 1", got)
			}
			if diff := cmp.Diff([]string{"10.0.10.9:8080", "10.0.20.5:8080", "10.0.20.6:8080 drain"}, p.backends(t, e, id, "web")); diff != "" {
				t.Errorf("backends (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(p.withoutBackends(before, "web"), p.withoutBackends(p.get(t, e, id), "web")); diff != "" {
				t.Errorf("the load balancer changed beyond the bound set's backends (-before +after):\n%s", diff)
			}

			// 2. The same again: nothing written.
			calls = e.srv.Calls()
			res, err = e.s.Sync(ctx, b, want, res.Owned)
			if err != nil {
				t.Fatalf("Sync: %v", err)
			}
			if got := e.srv.Calls().Since(calls); got.Class(ocitest.ClassWrite) != 0 || got.Total() != reads || res.WorkRequest != "" || res.Writes != 0 {
				t.Errorf("a sync with nothing to change made calls %v (Result %+v); want %d reads only", got, res, reads)
			}

			// 3. One pod gone, the terminating one ready again, a third whose address and port
			// are Terraform's backend: that one stays Terraform's, unchanged and not owned.
			want = []binding.Target{{IP: "10.0.20.6", Port: 8080}, {IP: "10.0.10.9", Port: 8080, Drain: true}}
			res, err = e.s.Sync(ctx, b, want, res.Owned)
			if err != nil {
				t.Fatalf("Sync: %v", err)
			}
			if diff := cmp.Diff(binding.Change{Owned: []string{"10.0.20.6:8080"}, Removed: []string{"10.0.20.5:8080"},
				Updated: []string{"10.0.20.6:8080"}, Theirs: []string{"10.0.10.9:8080"}}, res.Change, ignoreBackends); diff != "" {
				t.Errorf("Change (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"10.0.10.9:8080", "10.0.20.6:8080"}, p.backends(t, e, id, "web")); diff != "" {
				t.Errorf("backends (-want +got):\n%s", diff)
			}

			// 4. Health, for readiness gates.
			if err := e.srv.SetBackendHealth(id, "web", "10.0.20.6:8080", ocitest.BackendHealthOK); err != nil {
				t.Fatal(err)
			}
			health, err := e.s.Health(ctx, b)
			if err != nil {
				t.Fatalf("Health: %v", err)
			}
			if diff := cmp.Diff(map[string]binding.Health{"10.0.10.9:8080": binding.HealthUnknown, "10.0.20.6:8080": binding.HealthOK}, health); diff != "" {
				t.Errorf("Health (-want +got):\n%s", diff)
			}

			// 5. Release: the load balancer as Terraform left it.
			if _, err := e.s.Release(ctx, b, res.Owned); err != nil {
				t.Fatalf("Release: %v", err)
			}
			if diff := cmp.Diff(before, p.get(t, e, id)); diff != "" {
				t.Errorf("after Release the load balancer differs from before the binding (-before +after):\n%s", diff)
			}
		})
	}
}

// ignoreBackends leaves Change.Backends out of a comparison.
var ignoreBackends = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Backends" }, cmp.Ignore())
