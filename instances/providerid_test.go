// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"errors"
	"strings"
	"testing"
)

const exampleOCID = "ocid1.instance.oc1.phx.anyhqljt4bbqs2aa7p6gtuhcbrqs3slqyj4oj4g2vjpcr3pnkwgvxkq4nwqa"

func TestParseProviderIDAcceptsSchemeAndBareOCID(t *testing.T) {
	for _, in := range []string{
		"oci://" + exampleOCID,
		exampleOCID,
		"oci://ocid1.instance.oc2.us-langley-1.abc_def-1",
		"oci://ocid1.instance.oc1.phx.abc.futureuse.xyz",
	} {
		got, err := ParseProviderID(in)
		if err != nil {
			t.Errorf("ParseProviderID(%q) failed: %v", in, err)
			continue
		}
		if want := strings.TrimPrefix(in, ProviderIDPrefix); got != want {
			t.Errorf("ParseProviderID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseProviderIDRejectsWithAClearError(t *testing.T) {
	for _, tc := range []struct {
		in      string
		mention string // part of the problem the message must name
	}{
		{"", "empty"},
		{"oci://", "empty"},
		{"aws:///us-east-1a/i-0abc", `':'`},
		{"oci:///" + exampleOCID, `'/'`},
		{"OCI://" + exampleOCID, `':'`},
		{"ocid2.instance.oc1.phx.abc", `start with "ocid1."`},
		{"oci://ocid1.instance.oc1.abc", "five"},
		{"oci://ocid1.vnic.oc1.phx.abc", `OCID of a "vnic"`},
		{"oci://ocid1.instance..phx.abc", "must not be empty"},
		{"oci://ocid1.instance.oc1..abc", "must not be empty"},
		{"oci://ocid1.instance.oc1.phx.", "must not be empty"},
		{"oci://ocid1.instance.oc1.phx.abc def", `' '`},
	} {
		_, err := ParseProviderID(tc.in)
		if err == nil {
			t.Errorf("ParseProviderID(%q) succeeded, want an error", tc.in)
			continue
		}
		if !errors.Is(err, ErrInvalidProviderID) {
			t.Errorf("ParseProviderID(%q) error %v does not wrap ErrInvalidProviderID", tc.in, err)
		}
		msg := err.Error()
		for _, want := range []string{tc.mention, `"oci://<instance OCID>"`, "bare instance OCID"} {
			if !strings.Contains(msg, want) {
				t.Errorf("ParseProviderID(%q) error %q does not mention %q", tc.in, msg, want)
			}
		}
		if tc.in != "" && !strings.Contains(msg, tc.in) {
			t.Errorf("ParseProviderID(%q) error %q does not name the value", tc.in, msg)
		}
	}
}

func TestProviderIDRoundTrips(t *testing.T) {
	got, err := ParseProviderID(ProviderID(exampleOCID))
	if err != nil || got != exampleOCID {
		t.Fatalf("ParseProviderID(ProviderID(%q)) = %q, %v", exampleOCID, got, err)
	}
	if want := "oci://" + exampleOCID; ProviderID(exampleOCID) != want {
		t.Errorf("ProviderID = %q, want %q", ProviderID(exampleOCID), want)
	}
}
