// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseBackendSubset(t *testing.T) {
	tests := []struct {
		in   string
		size int
		on   bool
		ok   bool
	}{
		{"", 0, true, true},
		{"auto", 0, true, true},
		{" auto ", 0, true, true},
		{"off", 0, false, true},
		{"1", 1, true, true},
		{"250", 250, true, true},
		{"0", 0, false, false},
		{"-3", 0, false, false},
		{"Auto", 0, false, false},
		{"all", 0, false, false},
		{"2.5", 0, false, false},
	}
	for _, tt := range tests {
		size, on, err := ParseBackendSubset(tt.in)
		if size != tt.size || on != tt.on || (err == nil) != tt.ok {
			t.Errorf("ParseBackendSubset(%q) = %d, %v, %v; want %d, %v, ok=%v", tt.in, size, on, err, tt.size, tt.on, tt.ok)
		}
	}
}

func TestValidateNamesABadBackendSubset(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  []FieldError
	}{
		{"", nil},
		{"off", nil},
		{"100", nil},
		{"0", []FieldError{{"loadBalancer.backendSubset", "0", backendSubsetDetail}}},
		{"half", []FieldError{{"loadBalancer.backendSubset", "half", backendSubsetDetail}}},
	} {
		c := validConfig(t)
		c.LoadBalancer.BackendSubset = tt.value
		var got []FieldError
		var ve *ValidationError
		if err := c.Validate(); errors.As(err, &ve) {
			got = ve.Errors
		} else if err != nil {
			t.Fatalf("Validate() = %v, want a *ValidationError or nil", err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("backendSubset %q (-want +got):\n%s", tt.value, diff)
		}
	}
}

func TestLoadReadsABackendSubsetGivenAsANumber(t *testing.T) {
	cfg, _ := mustParse(t, "loadBalancer:\n  backendSubset: 64\n")
	if size, on, err := ParseBackendSubset(cfg.LoadBalancer.BackendSubset); size != 64 || !on || err != nil {
		t.Errorf("backendSubset: 64 read as %q (%d, %v, %v)", cfg.LoadBalancer.BackendSubset, size, on, err)
	}
}
