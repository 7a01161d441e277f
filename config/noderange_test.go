// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseNodePortRange(t *testing.T) {
	tests := []struct {
		in     string
		lo, hi int
		ok     bool
	}{
		{"", 30000, 32767, true},
		{"30000-32767", 30000, 32767, true},
		{" 20000-22767 ", 20000, 22767, true},
		{"30000+2768", 30000, 32767, true},
		{"8080-8080", 8080, 8080, true},
		{"32767-30000", 0, 0, false},
		{"0-100", 0, 0, false},
		{"30000-65536", 0, 0, false},
		{"30000+0", 0, 0, false},
		{"30000", 0, 0, false},
		{"30000:32767", 0, 0, false},
		{"a-b", 0, 0, false},
	}
	for _, tt := range tests {
		lo, hi, err := ParseNodePortRange(tt.in)
		if tt.ok != (err == nil) || lo != tt.lo || hi != tt.hi {
			t.Errorf("ParseNodePortRange(%q) = %d, %d, %v; want %d, %d, ok=%v", tt.in, lo, hi, err, tt.lo, tt.hi, tt.ok)
		}
	}
}

func TestValidateNodePortRange(t *testing.T) {
	tests := []struct {
		value string
		want  []FieldError
	}{
		{"", nil},
		{"30000-32767", nil},
		{"30000+2768", nil},
		{"32767-30000", []FieldError{{"loadBalancer.nodePortRange", "32767-30000", nodePortRangeDetail}}},
		{"30000", []FieldError{{"loadBalancer.nodePortRange", "30000", nodePortRangeDetail}}},
	}
	for _, tt := range tests {
		c := validConfig(t)
		c.LoadBalancer.OpenNodePortRange = true
		c.LoadBalancer.NodePortRange = tt.value
		err := c.Validate()
		var got []FieldError
		var ve *ValidationError
		if errors.As(err, &ve) {
			got = ve.Errors
		} else if err != nil {
			t.Fatalf("Validate() = %v, want a *ValidationError or nil", err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("nodePortRange %q (-want +got):\n%s", tt.value, diff)
		}
	}
	want := "loadBalancer.nodePortRange: must be MIN-MAX (or BASE+SIZE) within 1-65535 with MIN <= MAX, as given to kube-apiserver's --service-node-port-range, e.g. 30000-32767 (got \"32767-30000\")"
	if got := (FieldError{"loadBalancer.nodePortRange", "32767-30000", nodePortRangeDetail}).Error(); got != want {
		t.Errorf("message = %s\nwant %s", got, want)
	}
}

func TestLoadReadsTheSecurityRuleOptions(t *testing.T) {
	cfg, _ := mustParse(t, "loadBalancer:\n  openNodePortRange: true\n  nodePortRange: 20000-22767\n  adoptUndescribedRules: true\n")
	got := []any{cfg.LoadBalancer.OpenNodePortRange, cfg.LoadBalancer.NodePortRange, cfg.LoadBalancer.AdoptUndescribedRules}
	if diff := cmp.Diff([]any{true, "20000-22767", true}, got); diff != "" {
		t.Errorf("loadBalancer options (-want +got):\n%s", diff)
	}
	if c := validConfig(t); c.LoadBalancer.OpenNodePortRange || c.LoadBalancer.AdoptUndescribedRules {
		t.Error("both options must default to off")
	}
}
