// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/lb/binding"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// clusterNodes are n Nodes spread over three availability domains and three fault domains, at
// 10.1.x.y.
func clusterNodes(n int) []*v1.Node {
	nodes := make([]*v1.Node, n)
	for i := range nodes {
		nodes[i] = &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%04d", i), Labels: map[string]string{
				v1.LabelTopologyZone: fmt.Sprintf("PHX-AD-%d", i%3+1), "oci.oraclecloud.com/fault-domain": fmt.Sprintf("FAULT-DOMAIN-%d", i/3%3+1)}},
			Spec:   v1.NodeSpec{ProviderID: fmt.Sprintf("oci://ocid1.instance.oc1.phx.%d", i)},
			Status: v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: fmt.Sprintf("10.1.%d.%d", i/250, i%250+1)}}},
		}
	}
	return nodes
}

// TestANodeBindingPastOCIsLimitsKeepsAStableSubset: 700 Nodes do not fit a classic backend set
// (512, less Terraform's backend in it and the one in the other set, for the load balancer's
// 512): with Subset the binding takes as many as fit, spread over the places, and a Node leaving
// moves at most two backends; without it, the same targets are refused before any write.
func TestANodeBindingPastOCIsLimitsKeepsAStableSubset(t *testing.T) {
	e := newEnv(t, ocitest.LBBusyQueue)
	id := classicLB.create(t, e, nil)
	nodes := clusterNodes(700)
	want := binding.NodeTargets(nodes, 30080, nil)

	refused := binding.Binding{Name: "shop/all", LoadBalancerID: id, BackendSet: "web"}
	var r *binding.RefusedError
	if _, err := e.s.Sync(ctx, refused, want, nil); !errors.As(err, &r) || r.Reason != binding.ReasonTooManyBackends {
		t.Fatalf("Sync of 700 Nodes without Subset = %v, want a TooManyBackends refusal", err)
	}

	b := binding.Binding{Name: "shop/web", LoadBalancerID: id, BackendSet: "web", Subset: true}
	res, err := e.s.Sync(ctx, b, want, nil)
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	const room = 512 - 1 - 1 // the load balancer's 512, less Terraform's backends in both sets
	if len(res.Owned) != room || res.Eligible != 700 || len(res.Backends) != room+1 {
		t.Fatalf("owned %d of %d eligible, %d backends in the set; want %d of 700, %d", len(res.Owned), res.Eligible, len(res.Backends), room, room+1)
	}
	if got := classicLB.backends(t, e, id, "web"); !slices.Contains(got, "10.0.10.9:8080") || len(got) != room+1 {
		t.Errorf("the set holds %d backends (Terraform's kept: %v); want %d", len(got), slices.Contains(got, "10.0.10.9:8080"), room+1)
	}
	perPlace := map[string]int{}
	for _, tg := range want {
		if slices.Contains(res.Owned, tg.Name()) {
			perPlace[tg.Place]++
		}
	}
	for place, n := range perPlace {
		if n < room/9 || n > room/9+1 {
			t.Errorf("place %s has %d of the subset, want an even share (%d or %d): %v", place, n, room/9, room/9+1, perPlace)
		}
	}

	// A Node of the subset leaves: its backend goes and one other Node's comes, nothing else.
	gone := slices.IndexFunc(want, func(tg binding.Target) bool { return slices.Contains(res.Owned, tg.Name()) })
	fewer := binding.NodeTargets(slices.Delete(slices.Clone(nodes), gone, gone+1), 30080, nil)
	again, err := e.s.Sync(ctx, b, fewer, res.Owned)
	if err != nil {
		t.Fatalf("Sync after a Node left: %v", err)
	}
	if moved := len(again.Added) + len(again.Removed); moved > 2 || len(again.Owned) != room {
		t.Errorf("a Node leaving moved %d backends (added %v, removed %v), owned %d; want at most 2, %d", moved, again.Added, again.Removed, len(again.Owned), room)
	}
}
