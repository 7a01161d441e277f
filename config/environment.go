// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"fmt"
	"strings"
)

// UpstreamPrefixVariable is the environment variable the upstream CCM prefixes load balancer
// names with (upstream CCM v1.35.0, pkg/cloudprovider/providers/oci/load_balancer_util.go,
// GetLoadBalancerName): a load balancer is named "<prefix><uid>", a "-" appended to the prefix
// when it lacks one; network load balancers are not prefixed.
const UpstreamPrefixVariable = "LOAD_BALANCER_PREFIX"

// ApplyUpstreamPrefix carries the value of the upstream CCM's LOAD_BALANCER_PREFIX into
// loadBalancer.naming.prefix, so a deployment migrated from the upstream CCM with the variable
// still set names and finds its load balancers as upstream did; "" (unset) changes nothing. The
// binary reads the variable once at start-up and passes it through ccm.Options.LoadBalancerPrefix.
// Under the uid scheme the value fills an unset prefix; a prefix set in both places must agree
// (up to upstream's trailing "-"). Under the name scheme, whose names the prefix is part of, it
// must agree with naming.prefix: setting it alone would rename, and so lose, every load balancer.
// A Config changed by it must be validated again (Validate); ccm.New does so.
func (c *Config) ApplyUpstreamPrefix(v string) error {
	if v == "" {
		return nil
	}
	n := &c.LoadBalancer.Naming
	same := strings.TrimSuffix(v, "-") == strings.TrimSuffix(n.Prefix, "-")
	switch {
	case n.Scheme == NamingName && !same:
		return fmt.Errorf("environment variable %s=%q: with loadBalancer.naming.scheme: name the prefix is part of every name "+
			"(prefix-namespace-name) and comes from loadBalancer.naming.prefix (%q); set it to the same value or unset the variable",
			UpstreamPrefixVariable, v, n.Prefix)
	case n.Prefix != "" && !same:
		return fmt.Errorf("environment variable %s=%q disagrees with loadBalancer.naming.prefix %q; set one of them",
			UpstreamPrefixVariable, v, n.Prefix)
	case n.Prefix == "":
		n.Prefix = v
	}
	return nil
}

// CheckEnvironment refuses the upstream CCM's LOAD_BALANCER_PREFIX when it is set: for a caller
// that does not pass it on, so that a migrated deployment fails at start-up instead of quietly
// missing the load balancers named with it (and creating second ones). getenv is os.Getenv.
//
// Deprecated: pass the variable on instead, as the binary does: ccm.Options.LoadBalancerPrefix
// (or Config.ApplyUpstreamPrefix), which honours it.
func CheckEnvironment(getenv func(string) string) error {
	if v := getenv(UpstreamPrefixVariable); v != "" {
		return fmt.Errorf("environment variable %s=%q is set but not passed on: pass it to ccm.Options.LoadBalancerPrefix "+
			"(config.Config.ApplyUpstreamPrefix), which names and finds load balancers with it as the upstream CCM does, or unset it",
			UpstreamPrefixVariable, v)
	}
	return nil
}
