// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestRuleChangesPrintANarrowedRangeAsOneChange(t *testing.T) {
	const nodes = "to 10.0.10.0/24"
	egress := func(list string, ports ...portRange) []rule {
		var out []rule
		for _, p := range ports {
			out = append(out, rule{list, "egress", nodes, "tcp", p})
		}
		return out
	}
	ingress := func(list, peer, protocol string, p portRange) rule {
		return rule{list, "ingress", peer, protocol, p}
	}
	port := func(p int) portRange { return portRange{p, p} }
	tests := []struct {
		name          string
		before, after []rule
		want          [][]string
	}{
		{"nothing changed", egress("lb-1", port(10256)), egress("lb-1", port(10256)), nil},
		{"a narrowed range is one change",
			egress("lb-1", port(10256), portRange{30080, 30083}), egress("lb-1", port(10256), portRange{30080, 30082}),
			[][]string{{"~", "lb-1", "egress", nodes, "tcp 30080-30083 → 30080-30082"}}},
		{"a widened range is one change",
			egress("lb-1", portRange{30080, 30082}), egress("lb-1", portRange{30080, 30083}),
			[][]string{{"~", "lb-1", "egress", nodes, "tcp 30080-30082 → 30080-30083"}}},
		// What deleting Service api does in the demo: its health port goes, its node port leaves
		// the range.
		{"a narrowed range and a removed port are a change and a removal",
			egress("lb-1", port(10256), port(32000), portRange{30080, 30083}), egress("lb-1", port(10256), portRange{30080, 30082}),
			[][]string{
				{"~", "lb-1", "egress", nodes, "tcp 30080-30083 → 30080-30082"},
				{"-", "lb-1", "egress", nodes, "tcp 32000"},
			}},
		{"a range split in two is one change",
			egress("lb-1", portRange{30080, 30083}), egress("lb-1", portRange{30080, 30081}, port(30083)),
			[][]string{{"~", "lb-1", "egress", nodes, "tcp 30080-30083 → 30080-30081, 30083"}}},
		{"ranges merged into one are one change",
			egress("lb-1", port(30082), portRange{30080, 30081}), egress("lb-1", portRange{30080, 30082}),
			[][]string{{"~", "lb-1", "egress", nodes, "tcp 30080-30081, 30082 → 30080-30082"}}},
		{"a port moved to one it does not overlap is an addition and a removal",
			[]rule{ingress("lb-1", "from 0.0.0.0/0", "tcp", port(80))}, []rule{ingress("lb-1", "from 0.0.0.0/0", "tcp", port(8080))},
			[][]string{
				{"+", "lb-1", "ingress", "from 0.0.0.0/0", "tcp 8080"},
				{"-", "lb-1", "ingress", "from 0.0.0.0/0", "tcp 80"},
			}},
		{"another protocol on the same port is not a change of the rule",
			[]rule{ingress("lb-1", "from 0.0.0.0/0", "tcp", port(53))}, []rule{ingress("lb-1", "from 0.0.0.0/0", "udp", port(53))},
			[][]string{
				{"-", "lb-1", "ingress", "from 0.0.0.0/0", "tcp 53"},
				{"+", "lb-1", "ingress", "from 0.0.0.0/0", "udp 53"},
			}},
		{"another peer is not a change of the rule",
			egress("lb-1", portRange{30080, 30083}), []rule{{"lb-1", "egress", "to 10.0.20.0/24", "tcp", portRange{30080, 30082}}},
			[][]string{
				{"-", "lb-1", "egress", nodes, "tcp 30080-30083"},
				{"+", "lb-1", "egress", "to 10.0.20.0/24", "tcp 30080-30082"},
			}},
		{"additions of one place are one row, ports in numeric order, lists in name order and ingress first",
			nil,
			append(egress("lb-2", portRange{30080, 30082}, port(32000), port(10256)),
				ingress("lb-2", "from 0.0.0.0/0", "tcp", port(443)), ingress("lb-1", "from 0.0.0.0/0", "tcp", port(80))),
			[][]string{
				{"+", "lb-1", "ingress", "from 0.0.0.0/0", "tcp 80"},
				{"+", "lb-2", "ingress", "from 0.0.0.0/0", "tcp 443"},
				{"+", "lb-2", "egress", nodes, "tcp 10256, 30080-30082, 32000"},
			}},
		{"a rule for all ports narrowed to some is one change",
			[]rule{ingress("nodes", "from 10.0.1.0/24", "tcp", portRange{})}, []rule{ingress("nodes", "from 10.0.1.0/24", "tcp", portRange{30000, 32767})},
			[][]string{{"~", "nodes", "ingress", "from 10.0.1.0/24", "tcp all → 30000-32767"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ruleChanges(tc.before, tc.after), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
