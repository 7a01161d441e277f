// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oci-ccm/oci-ccm/lb/binding"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// leastPrivilege is the policy README.md documents for a binding's controller: use on the load
// balancers, in their compartment. use grants every call a Syncer makes (GetLoadBalancer,
// GetNetworkLoadBalancer, GetBackendSet, GetBackendSetHealth and work-request reads are read;
// UpdateBackendSet is use) and none of create, delete or the other APIs (OCI "Details for Load
// Balancing" and "Details for Network Load Balancer", verb tables; ocitest/iam_ops.go).
var leastPrivilege = []string{
	"Allow dynamic-group ccm to use load-balancers in compartment cluster",
	"Allow dynamic-group ccm to use network-load-balancers in compartment cluster",
}

// TestSyncReleaseAndHealthNeedOnlyUseOnTheLoadBalancers runs a binding's life under exactly the
// documented policy, nothing refused, and shows read is not enough.
func TestSyncReleaseAndHealthNeedOnlyUseOnTheLoadBalancers(t *testing.T) {
	for _, p := range products {
		t.Run(p.name, func(t *testing.T) {
			e := newEnv(t, ocitest.LBBusyQueue)
			id := p.create(t, e, nil) // by Terraform, under the tenancy's broader policy
			if err := e.srv.SetPolicy(leastPrivilege...); err != nil {
				t.Fatal(err)
			}
			b := binding.Binding{Name: "shop/web", LoadBalancerID: id, BackendSet: "web"}
			res, err := e.s.Sync(ctx, b, []binding.Target{{IP: "10.0.20.5", Port: 8080}, {IP: "10.0.20.6", Port: 8080, Drain: true}}, nil)
			if err != nil {
				t.Fatalf("Sync: %v", err)
			}
			// One backend OK, so Health reads the set for its name too.
			if err := e.srv.SetBackendHealth(id, "web", "10.0.20.5:8080", ocitest.BackendHealthOK); err != nil {
				t.Fatal(err)
			}
			if _, err := e.s.Health(ctx, b); err != nil {
				t.Fatalf("Health: %v", err)
			}
			if _, err := e.s.Release(ctx, b, res.Owned); err != nil {
				t.Fatalf("Release: %v", err)
			}
			if d := e.srv.Denials(); len(d) != 0 {
				t.Fatalf("refused under the documented policy: %+v", d)
			}

			weaker := []string{
				"Allow dynamic-group ccm to read load-balancers in compartment cluster",
				"Allow dynamic-group ccm to read network-load-balancers in compartment cluster",
			}
			if err := e.srv.SetPolicy(weaker...); err != nil {
				t.Fatal(err)
			}
			_, err = e.s.Sync(ctx, b, []binding.Target{{IP: "10.0.20.5", Port: 8080}}, nil)
			if !ociclient.IsAmbiguousNotFound(err) {
				t.Fatalf("Sync with read only: %v; want 404 NotAuthorizedOrNotFound", err)
			}
			want := []ocitest.Denial{{Operation: p.op("UpdateBackendSet"), Verb: "use", ResourceType: p.resourceType,
				Compartment: e.seeded.Compartment, Resource: id}}
			if diff := cmp.Diff(want, e.srv.Denials()); diff != "" {
				t.Errorf("Denials (-want +got):\n%s", diff)
			}
		})
	}
}
