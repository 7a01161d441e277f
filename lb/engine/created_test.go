// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A create lists the compartment once (the name index, to find an existing load balancer) and
// reads the new load balancer by the OCID its work request names: no second listing.
func TestCreateListsLoadBalancersOnceAndReadsTheNewOneByID(t *testing.T) {
	e := newEnv(t)
	_, calls := e.ensure(t, service(), readyNodes(3), nil)
	got := map[string]int{
		"ListLoadBalancers":  calls.Op("ListLoadBalancers"),
		"GetLoadBalancer":    calls.Op("GetLoadBalancer"),
		"CreateLoadBalancer": calls.Op("CreateLoadBalancer"),
	}
	want := map[string]int{"ListLoadBalancers": 1, "GetLoadBalancer": 1, "CreateLoadBalancer": 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls on create (-want +got):\n%s\nall calls:\n%s", diff, calls)
	}
}
