// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"strings"
	"testing"
)

func TestApplyUpstreamPrefixCarriesTheUpstreamNamePrefix(t *testing.T) {
	tests := []struct {
		name       string
		naming     Naming
		variable   string
		wantPrefix string
		wantErr    string
	}{
		{"unset changes nothing", Naming{Scheme: NamingUID}, "", "", ""},
		{"unset keeps the file's prefix", Naming{Scheme: NamingUID, Prefix: "prod"}, "", "prod", ""},
		{"uid scheme takes it", Naming{Scheme: NamingUID}, "prod-", "prod-", ""},
		{"empty scheme is uid", Naming{}, "prod", "prod", ""},
		{"uid scheme, same prefix in the file", Naming{Scheme: NamingUID, Prefix: "prod"}, "prod-", "prod", ""},
		{"uid scheme, another prefix in the file", Naming{Scheme: NamingUID, Prefix: "test"}, "prod-", "", "disagrees with loadBalancer.naming.prefix"},
		{"name scheme, same prefix", Naming{Scheme: NamingName, Prefix: "prod"}, "prod-", "prod", ""},
		{"name scheme without a prefix", Naming{Scheme: NamingName}, "prod-", "", "scheme: name"},
		{"name scheme, another prefix", Naming{Scheme: NamingName, Prefix: "test"}, "prod-", "", "scheme: name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Config{LoadBalancer: LoadBalancer{Naming: tc.naming}}
			err := c.ApplyUpstreamPrefix(tc.variable)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), UpstreamPrefixVariable) {
					t.Fatalf("ApplyUpstreamPrefix = %v, want an error naming %s and %q", err, UpstreamPrefixVariable, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.LoadBalancer.Naming.Prefix; got != tc.wantPrefix {
				t.Errorf("naming.prefix = %q, want %q", got, tc.wantPrefix)
			}
		})
	}
}

// TestCheckEnvironmentRefusesThePrefixNotPassedOn: the deprecated CheckEnvironment still refuses
// the variable (its caller does not pass it on), and names what honours it.
func TestCheckEnvironmentRefusesThePrefixNotPassedOn(t *testing.T) {
	env := map[string]string{UpstreamPrefixVariable: "prod-"}
	err := CheckEnvironment(func(k string) string { return env[k] })
	if err == nil || !strings.Contains(err.Error(), UpstreamPrefixVariable) || !strings.Contains(err.Error(), "ccm.Options.LoadBalancerPrefix") {
		t.Fatalf("CheckEnvironment = %v, want a refusal naming %s and ccm.Options.LoadBalancerPrefix", err, UpstreamPrefixVariable)
	}
	if err := CheckEnvironment(func(string) string { return "" }); err != nil {
		t.Fatalf("CheckEnvironment with nothing set = %v", err)
	}
}
