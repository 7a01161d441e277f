// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/oci-ccm/oci-ccm/lb/binding"
)

// be is an observed backend as OCI reports one added by address (weight 1).
func be(ip string, port int) binding.Backend {
	return binding.Backend{Name: ip + ":" + itoa(port), IP: ip, Port: port, Weight: 1}
}

func TestPlan(t *testing.T) {
	terraform := be("10.0.0.9", 8080)
	drained := be("10.0.1.2", 8080)
	drained.Drain = true
	weighted := be("10.0.1.2", 8080)
	weighted.Weight = 5
	offline := be("10.0.1.2", 8080)
	offline.Offline = true
	tests := []struct {
		name     string
		b        binding.Binding
		observed []binding.Backend
		owned    []string
		want     []binding.Target
		change   binding.Change
	}{{
		name:     "first sync adds the targets and keeps Terraform's backend",
		observed: []binding.Backend{terraform},
		want:     []binding.Target{{IP: "10.0.1.3", Port: 8080}, {IP: "10.0.1.2", Port: 8080}},
		change: binding.Change{
			Backends: []binding.Backend{terraform, {Name: "10.0.1.2:8080", IP: "10.0.1.2", Port: 8080}, {Name: "10.0.1.3:8080", IP: "10.0.1.3", Port: 8080}},
			Owned:    []string{"10.0.1.2:8080", "10.0.1.3:8080"}, Added: []string{"10.0.1.2:8080", "10.0.1.3:8080"},
		},
	}, {
		name:     "a target that is Terraform's backend stays Terraform's",
		observed: []binding.Backend{terraform},
		want:     []binding.Target{{IP: "10.0.0.9", Port: 8080, Drain: true}},
		change:   binding.Change{Backends: []binding.Backend{terraform}, Theirs: []string{"10.0.0.9:8080"}},
	}, {
		name:     "an owned backend no longer wanted is removed, Terraform's stays",
		observed: []binding.Backend{be("10.0.1.2", 8080), terraform},
		owned:    []string{"10.0.1.2:8080"},
		change:   binding.Change{Backends: []binding.Backend{terraform}, Removed: []string{"10.0.1.2:8080"}},
	}, {
		name:     "an owned name missing from the set is forgotten; Terraform's backend is untouched",
		observed: []binding.Backend{terraform},
		owned:    []string{"10.0.1.2:8080"},
		change:   binding.Change{Backends: []binding.Backend{terraform}},
	}, {
		name:     "a terminating target drains its backend",
		observed: []binding.Backend{be("10.0.1.2", 8080)},
		owned:    []string{"10.0.1.2:8080"},
		want:     []binding.Target{{IP: "10.0.1.2", Port: 8080, Drain: true}},
		change: binding.Change{Backends: []binding.Backend{{Name: "10.0.1.2:8080", IP: "10.0.1.2", Port: 8080, Drain: true}},
			Owned: []string{"10.0.1.2:8080"}, Updated: []string{"10.0.1.2:8080"}, Drained: []string{"10.0.1.2:8080"}},
	}, {
		name:     "a ready target again stops draining",
		observed: []binding.Backend{drained},
		owned:    []string{"10.0.1.2:8080"},
		want:     []binding.Target{{IP: "10.0.1.2", Port: 8080}},
		change: binding.Change{Backends: []binding.Backend{{Name: "10.0.1.2:8080", IP: "10.0.1.2", Port: 8080}},
			Owned: []string{"10.0.1.2:8080"}, Updated: []string{"10.0.1.2:8080"}},
	}, {
		name:     "nothing to change: OCI's weight 1 is the default zero",
		observed: []binding.Backend{be("10.0.1.2", 8080), terraform},
		owned:    []string{"10.0.1.2:8080"},
		want:     []binding.Target{{IP: "10.0.1.2", Port: 8080}},
		change:   binding.Change{Backends: []binding.Backend{terraform, be("10.0.1.2", 8080)}, Owned: []string{"10.0.1.2:8080"}},
	}, {
		name:     "a new weight updates the binding's backends",
		b:        binding.Binding{Weight: 5, Backup: true},
		observed: []binding.Backend{be("10.0.1.2", 8080)},
		owned:    []string{"10.0.1.2:8080"},
		want:     []binding.Target{{IP: "10.0.1.2", Port: 8080}},
		change: binding.Change{Backends: []binding.Backend{{Name: "10.0.1.2:8080", IP: "10.0.1.2", Port: 8080, Weight: 5, Backup: true}},
			Owned: []string{"10.0.1.2:8080"}, Updated: []string{"10.0.1.2:8080"}},
	}, {
		name:     "weight back to the default",
		observed: []binding.Backend{weighted},
		owned:    []string{"10.0.1.2:8080"},
		want:     []binding.Target{{IP: "10.0.1.2", Port: 8080}},
		change: binding.Change{Backends: []binding.Backend{{Name: "10.0.1.2:8080", IP: "10.0.1.2", Port: 8080}},
			Owned: []string{"10.0.1.2:8080"}, Updated: []string{"10.0.1.2:8080"}},
	}, {
		name:     "an owned backend taken offline by hand stays offline",
		observed: []binding.Backend{offline},
		owned:    []string{"10.0.1.2:8080"},
		want:     []binding.Target{{IP: "10.0.1.2", Port: 8080}},
		change:   binding.Change{Backends: []binding.Backend{offline}, Owned: []string{"10.0.1.2:8080"}},
	}, {
		name:  "an owned backend someone removed is forgotten, or added again while wanted",
		owned: []string{"10.0.1.2:8080", "10.0.1.3:8080"},
		want:  []binding.Target{{IP: "10.0.1.3", Port: 8080}},
		change: binding.Change{Backends: []binding.Backend{{Name: "10.0.1.3:8080", IP: "10.0.1.3", Port: 8080}},
			Owned: []string{"10.0.1.3:8080"}, Added: []string{"10.0.1.3:8080"}},
	}, {
		name: "one target listed twice is one backend, active if either is",
		want: []binding.Target{{IP: "10.0.1.2", Port: 80, Drain: true}, {IP: "10.0.1.2", Port: 80}, {IP: "10.0.1.2", Port: 80, Drain: true}},
		change: binding.Change{Backends: []binding.Backend{{Name: "10.0.1.2:80", IP: "10.0.1.2", Port: 80}},
			Owned: []string{"10.0.1.2:80"}, Added: []string{"10.0.1.2:80"}},
	}, {
		name:     "IPv6 addresses match whatever their spelling",
		observed: []binding.Backend{{Name: "2001:db8::5:80", IP: "2001:db8:0:0::5", Port: 80, Weight: 1}},
		owned:    []string{"2001:db8::5:80"},
		want:     []binding.Target{{IP: "2001:0db8::5", Port: 80}},
		change: binding.Change{Backends: []binding.Backend{{Name: "2001:db8::5:80", IP: "2001:db8:0:0::5", Port: 80, Weight: 1}},
			Owned: []string{"2001:db8::5:80"}},
	}, {
		name:     "order is by address, numerically, then port",
		observed: []binding.Backend{be("10.0.0.10", 80), be("10.0.0.9", 81), be("10.0.0.9", 80)},
		change:   binding.Change{Backends: []binding.Backend{be("10.0.0.9", 80), be("10.0.0.9", 81), be("10.0.0.10", 80)}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := binding.Plan(tt.b, tt.observed, tt.owned, tt.want)
			if diff := cmp.Diff(tt.change, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Plan (-want +got):\n%s", diff)
			}
			if got.Empty() != (len(tt.change.Added)+len(tt.change.Removed)+len(tt.change.Updated) == 0) {
				t.Errorf("Empty() = %v", got.Empty())
			}
		})
	}
}
