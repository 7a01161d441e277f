// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import "fmt"

// upstreamPrefixVariable is the environment variable the upstream CCM prefixes load balancer
// names with.
const upstreamPrefixVariable = "LOAD_BALANCER_PREFIX"

// CheckEnvironment refuses the upstream CCM's environment settings oci-ccm does not honour, so a
// migrated deployment fails at start-up instead of quietly naming load balancers differently.
// getenv is os.Getenv in the binary.
func CheckEnvironment(getenv func(string) string) error {
	if v := getenv(upstreamPrefixVariable); v != "" {
		return fmt.Errorf("environment variable %s=%q is not supported: load balancers are named by Service UID "+
			"(as upstream without a prefix) or by loadBalancer.naming (scheme: name, prefix: ...); unset it",
			upstreamPrefixVariable, v)
	}
	return nil
}
