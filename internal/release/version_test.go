// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"errors"
	"strings"
	"testing"
)

func TestOnlySemverTagsAreReleaseVersions(t *testing.T) {
	for _, c := range []struct {
		version string
		ok      bool
	}{
		{"v0.1.0", true},
		{"v1.2.3", true},
		{"v10.20.30", true},
		{"v1.2.3-rc.1", true},
		{"v1.2.3-alpha", true},
		{"v1.2.3-0.3.7", true},
		{"v1.2.3-x-y-z.--", true},
		{"v1.2.3-0alpha", true},
		{"", false},
		{"1.2.3", false},          // no v
		{"V1.2.3", false},         // capital V
		{"v1.2", false},           // no patch
		{"v1.2.3.4", false},       // four numbers
		{"v01.2.3", false},        // leading zero
		{"v1.2.03", false},        // leading zero
		{"v1.2.3-01", false},      // numeric pre-release with a leading zero
		{"v1.2.3-", false},        // empty pre-release
		{"v1.2.3-rc..1", false},   // empty identifier
		{"v1.2.3+build.1", false}, // build metadata: not allowed in an image tag
		{"v0.0.0-dev+4c58774", false},
		{"v1.2.3-rc_1", false},
		{"v1.2.3 ", false},
		{"latest", false},
	} {
		err := CheckVersion(c.version)
		if c.ok != (err == nil) {
			t.Errorf("CheckVersion(%q) = %v, want ok=%v", c.version, err, c.ok)
		}
		if err != nil && (!errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "vMAJOR.MINOR.PATCH")) {
			t.Errorf("CheckVersion(%q) = %v: not ErrVersion or does not say what is allowed", c.version, err)
		}
	}
}
