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

// ApplyEnvironment carries the upstream CCM's environment settings into c; getenv is os.Getenv
// in the binary, read once at start-up. LOAD_BALANCER_PREFIX sets loadBalancer.naming.prefix,
// so a deployment migrated from the upstream CCM with the variable still set names and finds
// its load balancers as upstream did. Under the uid scheme the variable fills an unset prefix;
// a prefix set in both places must agree (up to upstream's trailing "-"). Under the name scheme,
// whose names the prefix is part of, the variable must agree with naming.prefix: setting it
// alone would rename, and so lose, every load balancer. Call it before Validate.
func (c *Config) ApplyEnvironment(getenv func(string) string) error {
	if getenv == nil {
		return nil
	}
	v := getenv(UpstreamPrefixVariable)
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
