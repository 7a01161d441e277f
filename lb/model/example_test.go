// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package model_test

import (
	"fmt"

	"github.com/oci-ccm/oci-ccm/lb/model"
)

// A plan prints as a numbered diff; a change of backends alone lists the nodes that come and go.
func ExamplePlan_String() {
	set := func(ips ...string) model.BackendSet {
		bs := model.BackendSet{Name: "TCP-80", Policy: "ROUND_ROBIN", HealthCheck: model.HealthCheck{Protocol: "HTTP", Port: 10256, Path: "/healthz"}}
		for _, ip := range ips {
			bs.Backends = append(bs.Backends, model.Backend{IP: ip, Port: 30080})
		}
		return bs
	}
	plan := &model.Plan{Name: "default-web", LoadBalancerID: "ocid1.loadbalancer.oc1..example", Changes: []model.Change{
		{Op: model.OpUpdate, Name: "TCP-80", Before: set("10.0.1.1", "10.0.1.2"), After: set("10.0.1.2", "10.0.1.3")},
	}}
	fmt.Print(plan)
	// Output:
	// load balancer "default-web" (ocid1.loadbalancer.oc1..example): 1 change
	//   1. ~ backend set "TCP-80"
	//        Backends: - 10.0.1.1:30080
	//        Backends: + 10.0.1.3:30080
}

// Equal compares as OCI does: the order of backends does not matter; FieldDiffs says what does.
func ExampleFieldDiffs() {
	before := model.Listener{Name: "TCP-80", Protocol: "TCP", Port: 80, BackendSet: "TCP-80"}
	after := before
	after.IdleTimeoutSeconds = 300
	fmt.Println(model.Equal(before, after))
	fmt.Println(model.FieldDiffs(before, after))
	// Output:
	// false
	// [IdleTimeoutSeconds: 0 → 300]
}
