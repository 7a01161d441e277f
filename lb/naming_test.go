// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"strings"
	"testing"

	"github.com/oci-ccm/oci-ccm/lb/model"
)

func TestCertificateNameKeepsOnlyAllowedCharacters(t *testing.T) {
	got := certificateName("my.secret/with spaces", model.Certificate{PublicCertificate: "x"})
	if strings.ContainsAny(got, "./ ") || !strings.HasPrefix(got, "my-secret-with-spaces-") {
		t.Errorf("certificateName = %q", got)
	}
	if long := certificateName(strings.Repeat("s", 300), model.Certificate{}); len(long) != maxCertificateBase+13 {
		t.Errorf("long certificate name has %d characters", len(long))
	}
}
