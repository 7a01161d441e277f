// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/validate/content"
)

func TestZoneDropsTenancyPrefixAndIsAValidLabelValue(t *testing.T) {
	for _, tc := range []struct{ ad, want string }{
		{"Uocm:PHX-AD-1", "PHX-AD-1"},
		{"Uocm:US-ASHBURN-AD-3", "US-ASHBURN-AD-3"},
		{"PHX-AD-2", "PHX-AD-2"},
		{"a:b:PHX-AD-1", "PHX-AD-1"},
		{"Uocm:", ""},
		{"", ""},
		{"Uocm:PHX AD 1", "PHX-AD-1"},
		{"Uocm:-PHX-AD-1-", "PHX-AD-1"},
	} {
		got := Zone(tc.ad)
		if got != tc.want {
			t.Errorf("Zone(%q) = %q, want %q", tc.ad, got, tc.want)
		}
		if errs := content.IsLabelValue(got); len(errs) > 0 {
			t.Errorf("Zone(%q) = %q is not a valid label value: %v", tc.ad, got, errs)
		}
	}
}

func TestLabelValueSanitisesAnythingInvalid(t *testing.T) {
	long := strings.Repeat("a", 62) + "-b" // 64 characters; cutting at 63 leaves a trailing '-'
	for _, tc := range []struct{ in, want string }{
		{"FAULT-DOMAIN-1", "FAULT-DOMAIN-1"},
		{"VM.Standard.E4.Flex", "VM.Standard.E4.Flex"},
		{"us-phoenix-1", "us-phoenix-1"},
		{"a:b/c d", "a-b-c-d"},
		{"_x_", "x"},
		{"..", ""},
		{"zone-é", "zone"},
		{"é-zone", "zone"},
		{long, strings.Repeat("a", 62)},
		{strings.Repeat("x", 100), strings.Repeat("x", 63)},
	} {
		got := LabelValue(tc.in)
		if got != tc.want {
			t.Errorf("LabelValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if errs := content.IsLabelValue(got); len(errs) > 0 {
			t.Errorf("LabelValue(%q) = %q is not a valid label value: %v", tc.in, got, errs)
		}
	}
}
