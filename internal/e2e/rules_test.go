// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import "testing"

// TestARuleIsFoundInTheRangeItWasMergedInto: the rules the scenarios want name one port each;
// seclist merges a Service's node port with a neighbouring Service's into one rule, which allows
// both (TwoClustersShareSubnets failed once on 31133-31134 for a wanted 31134).
func TestARuleIsFoundInTheRangeItWasMergedInto(t *testing.T) {
	owned := []rule{{"lb-1", "egress", "10.0.10.0/24", 31133, 31134}, {"nodes", "ingress", "10.0.1.0/24", 80, 80}}
	for _, tc := range []struct {
		want    rule
		missing bool
	}{
		{rule{"lb-1", "egress", "10.0.10.0/24", 31134, 31134}, false},
		{rule{"lb-1", "egress", "10.0.10.0/24", 31133, 31134}, false},
		{rule{"lb-1", "egress", "10.0.10.0/24", 31135, 31135}, true},
		{rule{"lb-1", "ingress", "10.0.10.0/24", 31134, 31134}, true},
		{rule{"lb-2", "egress", "10.0.10.0/24", 31134, 31134}, true},
		{rule{"lb-1", "egress", "10.0.20.0/24", 31134, 31134}, true},
		{rule{"nodes", "ingress", "10.0.1.0/24", 80, 81}, true},
	} {
		if got := len(missingRules(owned, []rule{tc.want})) == 1; got != tc.missing {
			t.Errorf("%v missing from %v: %v, want %v", tc.want, owned, got, tc.missing)
		}
	}
}
