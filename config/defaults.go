// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

// Defaults for fields left empty. Load and Open apply them; code that builds a Config by hand
// calls SetDefaults. The reasons for the rate-limiter numbers are in README.md.
//
// The rate-limiter defaults are the only ones in the module: ociclient.New applies them too
// (through RateLimiter.SetDefaults), so a library user who builds a client without a
// cloud-provider.yaml gets the limits operators read about in README.md, not a second set.
const (
	// DefaultSecurityListManagementMode manages every rule a load balancer needs.
	DefaultSecurityListManagementMode = SecurityListModeAll
	// DefaultNamingScheme keeps load balancer names compatible with the upstream CCM.
	DefaultNamingScheme = NamingUID
	// DefaultSourceCIDR is the ingress source used when a Service sets no source ranges.
	DefaultSourceCIDR = "0.0.0.0/0"
	// DefaultReadQPS is the sustained read rate, the rate the upstream CCM has used for years.
	DefaultReadQPS = 20.0
	// DefaultReadBurst lets a startup sync issue a few dozen reads without queueing.
	DefaultReadBurst = 40
	// DefaultWriteQPS is the sustained write rate; OCI throttles mutations harder than reads.
	DefaultWriteQPS = 5.0
	// DefaultWriteBurst lets one reconcile's writes go out together.
	DefaultWriteBurst = 10
)

// SetDefaults fills every empty field that has a default. Load and Open apply it already, so it
// is for advanced use: a Config built in code, which then goes to Validate (or to ccm.New,
// which validates). It never sets the region or the compartment: those come from the file or
// from instance metadata (Open), never a guess. A zero rate or burst is treated as unset; turn
// rate limiting off with RateLimiter.Disabled.
func (c *Config) SetDefaults() {
	lb := &c.LoadBalancer
	if lb.SecurityListManagementMode == "" {
		lb.SecurityListManagementMode = DefaultSecurityListManagementMode
	}
	if len(lb.DefaultSourceCIDRs) == 0 {
		lb.DefaultSourceCIDRs = []string{DefaultSourceCIDR}
	}
	if lb.Naming.Scheme == "" {
		lb.Naming.Scheme = DefaultNamingScheme
	}

	c.RateLimiter.SetDefaults()
}

// SetDefaults fills every zero rate and burst with its default, each on its own. Disabled is
// left as it is.
func (rl *RateLimiter) SetDefaults() {
	if rl.ReadQPS == 0 {
		rl.ReadQPS = DefaultReadQPS
	}
	if rl.ReadBurst == 0 {
		rl.ReadBurst = DefaultReadBurst
	}
	if rl.WriteQPS == 0 {
		rl.WriteQPS = DefaultWriteQPS
	}
	if rl.WriteBurst == 0 {
		rl.WriteBurst = DefaultWriteBurst
	}
}
