// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ipaddr

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSortOrdersNumericallyAsCompareDoes(t *testing.T) {
	ips := []string{"10.0.1.10", "fd00::1", "10.0.1.9", "10.0.1.9", "2001:db8::1", "10.0.0.200"}
	want := slices.Clone(ips)
	slices.SortStableFunc(want, Compare)
	Sort(ips)
	if diff := cmp.Diff(want, ips); diff != "" {
		t.Errorf("(-Compare +Sort):\n%s", diff)
	}
	if ips[0] != "10.0.0.200" || ips[1] != "10.0.1.9" || ips[3] != "10.0.1.10" {
		t.Errorf("not numeric: %v", ips)
	}
}

func TestSortByBreaksTiesWithTheGivenOrder(t *testing.T) {
	type backend struct {
		ip   string
		port int
	}
	bs := []backend{{"10.0.0.2", 2}, {"10.0.0.10", 1}, {"10.0.0.2", 1}}
	SortBy(bs, func(b backend) string { return b.ip }, func(x, y backend) int { return x.port - y.port })
	want := []backend{{"10.0.0.2", 1}, {"10.0.0.2", 2}, {"10.0.0.10", 1}}
	if diff := cmp.Diff(want, bs, cmp.AllowUnexported(backend{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
