// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"strings"
	"testing"
)

func TestCheckEnvironmentRefusesTheUpstreamNamePrefix(t *testing.T) {
	env := map[string]string{upstreamPrefixVariable: "prod-"}
	err := CheckEnvironment(func(k string) string { return env[k] })
	if err == nil || !strings.Contains(err.Error(), upstreamPrefixVariable) || !strings.Contains(err.Error(), "loadBalancer.naming") {
		t.Fatalf("CheckEnvironment = %v, want a refusal naming %s and what to use instead", err, upstreamPrefixVariable)
	}
	if err := CheckEnvironment(func(string) string { return "" }); err != nil {
		t.Fatalf("CheckEnvironment with nothing set = %v", err)
	}
}
