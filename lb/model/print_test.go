// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBackendOnlyDiffsPrintsEachBackendAddedOrRemoved(t *testing.T) {
	set := func(ips ...string) BackendSet {
		bs := BackendSet{Name: "TCP-80", Policy: "ROUND_ROBIN", HealthCheck: HealthCheck{Protocol: "TCP", Port: 10256}}
		for _, ip := range ips {
			bs.Backends = append(bs.Backends, Backend{IP: ip, Port: 30080})
		}
		return bs
	}
	tests := []struct {
		name          string
		before, after BackendSet
		want          []string
	}{
		{"a node added", set("10.0.1.1", "10.0.1.2"), set("10.0.1.2", "10.0.1.1", "10.0.1.10"),
			[]string{"Backends: + 10.0.1.10:30080"}},
		{"a node removed", set("10.0.1.1", "10.0.1.2", "10.0.1.3"), set("10.0.1.1", "10.0.1.3"),
			[]string{"Backends: - 10.0.1.2:30080"}},
		// In address order (10.0.1.9 before 10.0.1.10), where cmp's reporter printed
		// `Backends.IP: "10.0.1.1" → "10.0.1.2"`, as if a node had changed its address.
		{"nodes replaced", set("10.0.1.1", "10.0.1.9"), set("10.0.1.2", "10.0.1.10"),
			[]string{"Backends: - 10.0.1.1:30080", "Backends: + 10.0.1.2:30080", "Backends: - 10.0.1.9:30080", "Backends: + 10.0.1.10:30080"}},
		{"all nodes gone", set("10.0.1.1"), set(), []string{"Backends: - 10.0.1.1:30080"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Change{Op: OpUpdate, Name: "TCP-80", Before: tc.before, After: tc.after}
			got, ok := backendOnlyDiffs(c)
			if !ok {
				t.Fatal("not taken for a change of backends alone")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	other := set("10.0.1.1")
	other.Policy = "IP_HASH"
	if _, ok := backendOnlyDiffs(Change{Op: OpUpdate, Before: set(), After: other}); ok {
		t.Error("taken for a change of the policy too")
	}
}
