// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/oci-ccm/oci-ccm/config"
)

// Load a cloud-provider.yaml: one call returns a Config ready to use, or every problem at once,
// each with its field path, the bad value and what is allowed. Deprecated names are warnings.
func ExampleLoad() {
	const yaml = `
auth:
  region: us-phoenix-1
  useInstancePrincipals: true
compartment: ocid1.compartment.oc1..aaaa
clusterID: prod-eu-1
loadBalancer:
  subnet1: ocid1.subnet.oc1.phx.aaaa
  securityListManagementMode: Sometimes
rateLimiter:
  readQPS: -1
`
	_, warnings, err := config.Load(strings.NewReader(yaml))
	for _, w := range warnings {
		fmt.Println("warning:", w.Field, "-", w.Message)
	}
	var invalid *config.ValidationError
	if errors.As(err, &invalid) {
		for _, p := range invalid.Errors {
			fmt.Printf("%s %q: %s\n", p.Field, p.Value, p.Detail)
		}
	}

	cfg, _, err := config.Load(strings.NewReader(strings.NewReplacer("Sometimes", "Frontend", "-1", "0").Replace(yaml)))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("fixed; write rate when not set:", cfg.RateLimiter.WriteQPS)
	// Output:
	// warning: auth.useInstancePrincipals - deprecated; write useInstancePrincipals at the top level
	// loadBalancer.securityListManagementMode "Sometimes": must be one of All, Frontend, Backend, None
	// rateLimiter.readQPS "-1": must be a non-negative number of calls per second
	// fixed; write rate when not set: 5
}
