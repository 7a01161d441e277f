// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func owned(r Rule) Observed { return Observed{Owned: true, Canonical: true, Rule: r} }

// notOurs stands for any rule this cluster does not own: the user's, another cluster's.
var notOurs = Observed{}

func TestDiff(t *testing.T) {
	tests := []struct {
		name    string
		cur     Current
		desired RuleSet
		prune   bool
		want    Update
	}{
		{
			name:    "nothing to do when the owned rules equal the desired ones",
			cur:     Current{Ingress: []Observed{notOurs, owned(in(AnyIPv4, 80))}, Egress: []Observed{owned(out("10.0.10.0/24", 30080))}},
			desired: NewRuleSet(in(AnyIPv4, 80), out("10.0.10.0/24", 30080)),
			prune:   true,
			want: Update{KeepIngress: []bool{true, true}, KeepEgress: []bool{true},
				Before: []Rule{out("10.0.10.0/24", 30080), in(AnyIPv4, 80)}, After: []Rule{out("10.0.10.0/24", 30080), in(AnyIPv4, 80)}},
		},
		{
			name:    "missing rules are added after the kept ones, which stay in place",
			cur:     Current{Ingress: []Observed{notOurs, owned(in(AnyIPv4, 80)), notOurs}},
			desired: NewRuleSet(in(AnyIPv4, 80), in(AnyIPv4, 443), out("10.0.10.0/24", 30443)),
			prune:   true,
			want: Update{KeepIngress: []bool{true, true, true}, KeepEgress: []bool{},
				Add:    []Rule{out("10.0.10.0/24", 30443), in(AnyIPv4, 443)},
				Before: []Rule{in(AnyIPv4, 80)},
				After:  []Rule{out("10.0.10.0/24", 30443), in(AnyIPv4, 80), in(AnyIPv4, 443)}},
		},
		{
			name:    "owned rules no claim needs are removed; rules not owned stay",
			cur:     Current{Ingress: []Observed{owned(in(AnyIPv4, 80)), notOurs, owned(in(AnyIPv4, 8080))}, Egress: []Observed{notOurs}},
			desired: NewRuleSet(in(AnyIPv4, 80)),
			prune:   true,
			want: Update{KeepIngress: []bool{true, true, false}, KeepEgress: []bool{true},
				Remove: []Rule{in(AnyIPv4, 8080)},
				Before: []Rule{in(AnyIPv4, 80), in(AnyIPv4, 8080)}, After: []Rule{in(AnyIPv4, 80)}},
		},
		{
			name:    "when the last claim goes every owned rule goes, and only those",
			cur:     Current{Ingress: []Observed{notOurs, owned(in(AnyIPv4, 80))}, Egress: []Observed{owned(out("10.0.10.0/24", 30080)), notOurs}},
			desired: nil,
			prune:   true,
			want: Update{KeepIngress: []bool{true, false}, KeepEgress: []bool{false, true},
				Remove: []Rule{out("10.0.10.0/24", 30080), in(AnyIPv4, 80)},
				Before: []Rule{out("10.0.10.0/24", 30080), in(AnyIPv4, 80)}},
		},
		{
			name:    "without pruning (claims not yet primed) unneeded rules stay and missing ones are added",
			cur:     Current{Ingress: []Observed{owned(in(AnyIPv4, 8080))}},
			desired: NewRuleSet(in(AnyIPv4, 80)),
			prune:   false,
			want: Update{KeepIngress: []bool{true}, KeepEgress: []bool{},
				Add:    []Rule{in(AnyIPv4, 80)},
				Before: []Rule{in(AnyIPv4, 8080)}, After: []Rule{in(AnyIPv4, 80), in(AnyIPv4, 8080)}},
		},
		{
			name:    "a duplicated owned rule is written once",
			cur:     Current{Ingress: []Observed{owned(in(AnyIPv4, 80)), notOurs, owned(in(AnyIPv4, 80))}},
			desired: NewRuleSet(in(AnyIPv4, 80)),
			prune:   false,
			want: Update{KeepIngress: []bool{true, true, false}, KeepEgress: []bool{},
				Remove: []Rule{in(AnyIPv4, 80)},
				Before: []Rule{in(AnyIPv4, 80)}, After: []Rule{in(AnyIPv4, 80)}},
		},
		{
			name: "an owned rule someone altered (not canonical) is replaced by the canonical one",
			cur: Current{Ingress: []Observed{
				{Owned: true, Canonical: false, Rule: in(AnyIPv4, 80)},
			}},
			desired: NewRuleSet(in(AnyIPv4, 80)),
			prune:   true,
			want: Update{KeepIngress: []bool{false}, KeepEgress: []bool{},
				Add: []Rule{in(AnyIPv4, 80)}, Remove: []Rule{in(AnyIPv4, 80)},
				Before: []Rule{in(AnyIPv4, 80)}, After: []Rule{in(AnyIPv4, 80)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Diff(tt.cur, tt.desired, tt.prune, DefaultLimits)
			if err != nil {
				t.Fatalf("Diff() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Diff() (-want +got):\n%s", diff)
			}
			if empty := len(tt.want.Add) == 0 && len(tt.want.Remove) == 0; got.Empty() != empty {
				t.Errorf("Empty() = %v, want %v", got.Empty(), empty)
			}
		})
	}
}

func TestDiffCapacity(t *testing.T) {
	userRules := func(n int) []Observed {
		return make([]Observed, n) // zero Observed: not ours
	}
	tests := []struct {
		name    string
		cur     Current
		desired RuleSet
		limits  Limits
		want    *CapacityError
	}{
		{
			name:    "the user's rules count towards the limit",
			cur:     Current{ListID: "sl-1", Ingress: userRules(199)},
			desired: NewRuleSet(in(AnyIPv4, 80), in(AnyIPv4, 443)),
			limits:  DefaultLimits,
			want:    &CapacityError{ListID: "sl-1", Direction: Ingress, Count: 201, Limit: 200},
		},
		{
			name:    "exactly at the limit is fine",
			cur:     Current{ListID: "sl-1", Ingress: userRules(198)},
			desired: NewRuleSet(in(AnyIPv4, 80), in(AnyIPv4, 443)),
			limits:  DefaultLimits,
		},
		{
			name:    "egress has its own, configurable limit",
			cur:     Current{ListID: "sl-2", Egress: []Observed{owned(out("10.0.10.0/24", 1))}},
			desired: NewRuleSet(out("10.0.10.0/24", 1), out("10.0.10.0/24", 2), out("10.0.10.0/24", 3)),
			limits:  Limits{Ingress: 200, Egress: 2},
			want:    &CapacityError{ListID: "sl-2", Direction: Egress, Count: 3, Limit: 2},
		},
		{
			name:    "removals make room in the same write",
			cur:     Current{ListID: "sl-3", Ingress: append(userRules(199), owned(in(AnyIPv4, 8080)))},
			desired: NewRuleSet(in(AnyIPv4, 80)),
			limits:  DefaultLimits,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Diff(tt.cur, tt.desired, true, tt.limits)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Diff() error = %v, want none", err)
				}
				return
			}
			var ce *CapacityError
			if !errors.As(err, &ce) {
				t.Fatalf("Diff() error = %v, want a *CapacityError", err)
			}
			if diff := cmp.Diff(tt.want, ce); diff != "" {
				t.Errorf("CapacityError (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCapacityErrorNamesListCountLimitAndTheOptionThatHelps(t *testing.T) {
	tests := []struct {
		name string
		err  *CapacityError
		want string
	}{
		{"node ports fill the list",
			&CapacityError{ListID: "ocid1.securitylist.oc1..x", Direction: Ingress, Count: 201, Limit: 200, Option: OptionOpenNodePortRange},
			`security list ocid1.securitylist.oc1..x would hold 201 ingress rules, more than its limit of 200; nothing was written: ` +
				`node ports have a rule each; set loadBalancer.openNodePortRange: true (and loadBalancer.nodePortRange to the cluster's ` +
				`--service-node-port-range) to open the node port range with one rule per pair of subnets (see seclist/README.md, "Past 200 rules")`},
		{"no option helps",
			&CapacityError{ListID: "ocid1.securitylist.oc1..x", Direction: Egress, Count: 250, Limit: 200},
			`security list ocid1.securitylist.oc1..x would hold 250 egress rules, more than its limit of 200; nothing was written: ` +
				`each listener port, source range and node port outside the open node port range needs a rule of its own; use fewer ` +
				`distinct ports or loadBalancerSourceRanges per subnet, or spread the load balancers over more subnets (see seclist/README.md, "Past 200 rules")`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%s: Error() =\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}
