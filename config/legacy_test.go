// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadAcceptsUpstreamFieldNamesWithWarnings(t *testing.T) {
	tests := []struct {
		name         string
		doc          string
		want         func(*Config) // applied to a defaulted empty Config
		wantWarnings []Warning
	}{
		{
			name: "auth.useInstancePrincipals true moves to the top level",
			doc:  "auth:\n  useInstancePrincipals: true\n",
			want: func(c *Config) { c.UseInstancePrincipals = true },
			wantWarnings: []Warning{{"auth.useInstancePrincipals",
				"deprecated; write useInstancePrincipals at the top level"}},
		},
		{
			name: "auth.useInstancePrincipals false still warns",
			doc:  "auth:\n  useInstancePrincipals: false\n",
			want: func(*Config) {},
			wantWarnings: []Warning{{"auth.useInstancePrincipals",
				"deprecated; write useInstancePrincipals at the top level"}},
		},
		{
			name:         "auth.key_passphrase becomes auth.passphrase",
			doc:          "auth:\n  key_passphrase: " + testPassphrase + "\n",
			want:         func(c *Config) { c.Auth.Passphrase = testPassphrase },
			wantWarnings: []Warning{{"auth.key_passphrase", "deprecated; write auth.passphrase"}},
		},
		{
			name: "auth.passphrase wins over auth.key_passphrase",
			doc:  "auth:\n  passphrase: new\n  key_passphrase: old\n",
			want: func(c *Config) { c.Auth.Passphrase = "new" },
			wantWarnings: []Warning{{"auth.key_passphrase",
				"deprecated and ignored because auth.passphrase is set"}},
		},
		{
			name:         "auth.compartment moves to the top level",
			doc:          "auth:\n  compartment: " + compartmentID + "\n",
			want:         func(c *Config) { c.CompartmentID = compartmentID },
			wantWarnings: []Warning{{"auth.compartment", "deprecated; write compartment at the top level"}},
		},
		{
			name: "top-level compartment wins over auth.compartment",
			doc:  "compartment: " + compartmentID + "\nauth:\n  compartment: ocid1.compartment.oc1..other\n",
			want: func(c *Config) { c.CompartmentID = compartmentID },
			wantWarnings: []Warning{{"auth.compartment",
				"deprecated and ignored because compartment is set"}},
		},
		{
			name: "regionKey in auth and at the top level is ignored",
			doc:  "regionKey: PHX\nauth:\n  regionKey: PHX\n",
			want: func(*Config) {},
			wantWarnings: []Warning{
				{"auth.regionKey", "ignored; oci-ccm derives everything it needs from auth.region"},
				{"regionKey", "ignored; oci-ccm derives everything it needs from auth.region"},
			},
		},
		{
			name: "disableSecurityListManagement true means mode None",
			doc:  "loadBalancer:\n  disableSecurityListManagement: true\n",
			want: func(c *Config) { c.LoadBalancer.SecurityListManagementMode = SecurityListModeNone },
			wantWarnings: []Warning{{"loadBalancer.disableSecurityListManagement",
				"deprecated; write loadBalancer.securityListManagementMode: None"}},
		},
		{
			name: "disableSecurityListManagement false keeps the default mode",
			doc:  "loadBalancer:\n  disableSecurityListManagement: false\n",
			want: func(*Config) {},
			wantWarnings: []Warning{{"loadBalancer.disableSecurityListManagement",
				"deprecated; remove it (false is the default) or write loadBalancer.securityListManagementMode"}},
		},
		{
			name: "securityListManagementMode wins over disableSecurityListManagement",
			doc:  "loadBalancer:\n  securityListManagementMode: Frontend\n  disableSecurityListManagement: true\n",
			want: func(c *Config) { c.LoadBalancer.SecurityListManagementMode = SecurityListModeFrontend },
			wantWarnings: []Warning{{"loadBalancer.disableSecurityListManagement",
				"deprecated and ignored because loadBalancer.securityListManagementMode is set"}},
		},
		{
			name: "upstream rate limiter names",
			doc: "rateLimiter:\n  rateLimitQPSRead: 3\n  rateLimitBucketRead: 4\n" +
				"  rateLimitQPSWrite: 1.5\n  rateLimitBucketWrite: 2\n  disableRateLimiter: true\n",
			want: func(c *Config) {
				c.RateLimiter = RateLimiter{Disabled: true, ReadQPS: 3, ReadBurst: 4, WriteQPS: 1.5, WriteBurst: 2}
			},
			wantWarnings: []Warning{
				{"rateLimiter.rateLimitQPSRead", "deprecated; write rateLimiter.readQPS"},
				{"rateLimiter.rateLimitBucketRead", "deprecated; write rateLimiter.readBurst"},
				{"rateLimiter.rateLimitQPSWrite", "deprecated; write rateLimiter.writeQPS"},
				{"rateLimiter.rateLimitBucketWrite", "deprecated; write rateLimiter.writeBurst"},
				{"rateLimiter.disableRateLimiter", "deprecated; write rateLimiter.disabled"},
			},
		},
		{
			name: "current rate limiter names win",
			doc:  "rateLimiter:\n  readQPS: 9\n  rateLimitQPSRead: 3\n  writeBurst: 8\n  rateLimitBucketWrite: 2\n",
			want: func(c *Config) { c.RateLimiter.ReadQPS = 9; c.RateLimiter.WriteBurst = 8 },
			wantWarnings: []Warning{
				{"rateLimiter.rateLimitQPSRead", "deprecated and ignored because rateLimiter.readQPS is set"},
				{"rateLimiter.rateLimitBucketWrite", "deprecated and ignored because rateLimiter.writeBurst is set"},
			},
		},
		{
			name: "upstream tags merge into loadBalancer.tags, load balancer set over common, current over both",
			doc: `loadBalancer:
  tags:
    freeformTags: {owner: current}
    definedTags: {Ops: {Tier: current}}
tags:
  loadBalancer:
    freeform: {owner: lb, app: lb}
    defined: {Ops: {Tier: lb, Env: lb}}
  common:
    freeform: {app: common, cluster: common}
    defined: {Ops: {Env: common}, Fin: {Budget: 7}}
  blockVolume:
    freeform: {x: y}
  fss: {}
  lustre: {}
`,
			want: func(c *Config) {
				c.LoadBalancer.Tags = Tags{
					FreeformTags: map[string]string{"owner": "current", "app": "lb", "cluster": "common"},
					DefinedTags: map[string]map[string]any{
						"Ops": {"Tier": "current", "Env": "lb"},
						"Fin": {"Budget": 7},
					},
				}
			},
			wantWarnings: []Warning{
				{"tags.loadBalancer", "deprecated; write loadBalancer.tags (freeformTags, definedTags)"},
				{"tags.common", "deprecated; write loadBalancer.tags (freeformTags, definedTags)"},
				{"tags.blockVolume", "ignored; oci-ccm manages load balancers only"},
				{"tags.fss", "ignored; oci-ccm manages load balancers only"},
				{"tags.lustre", "ignored; oci-ccm manages load balancers only"},
			},
		},
		{
			name: "metrics are ignored; useWorkloadIdentity is read",
			doc:  "metrics:\n  namespace: x\nuseWorkloadIdentity: true\n",
			want: func(c *Config) { c.UseWorkloadIdentity = true },
			wantWarnings: []Warning{
				{"metrics", "ignored; oci-ccm exposes Prometheus metrics and does not push to OCI Monitoring"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warnings := mustParse(t, tt.doc)
			want := &Config{}
			tt.want(want)
			want.SetDefaults()
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Config mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWarnings, warnings); diff != "" {
				t.Errorf("warnings mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWarningStringNamesTheField(t *testing.T) {
	w := Warning{Field: "auth.key_passphrase", Message: "deprecated; write auth.passphrase"}
	if got, want := w.String(), "auth.key_passphrase: deprecated; write auth.passphrase"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
