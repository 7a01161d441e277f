// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"strings"
	"testing"
)

// OCIDs used across the tests; shaped like real ones, unique parts obviously made up.
const (
	tenancyID     = "ocid1.tenancy.oc1..aaaaaaaatenancy"
	userID        = "ocid1.user.oc1..aaaaaaaauser"
	compartmentID = "ocid1.compartment.oc1..aaaaaaaacompartment"
	vcnID         = "ocid1.vcn.oc1.phx.aaaaaaaavcn"
	subnet1ID     = "ocid1.subnet.oc1.phx.aaaaaaaasubnetone"
	subnet2ID     = "ocid1.subnet.oc1.phx.aaaaaaaasubnettwo"
	nodeSubnetID  = "ocid1.subnet.oc1.phx.aaaaaaaanodesubnet"
	seclist1ID    = "ocid1.securitylist.oc1.phx.aaaaaaaaseclistone"
	seclist2ID    = "ocid1.securitylist.oc1.phx.aaaaaaaaseclisttwo"
)

// validConfig is a defaulted user-principal Config that Validate accepts; tests mutate copies.
func validConfig(t testing.TB) *Config {
	t.Helper()
	c := &Config{
		Auth: Auth{
			Region:      "us-phoenix-1",
			Tenancy:     tenancyID,
			User:        userID,
			Key:         Secret(plainPEM(t)),
			Fingerprint: testFingerprint(t),
		},
		CompartmentID: compartmentID,
		VCNID:         vcnID,
		LoadBalancer: LoadBalancer{
			Subnet1: subnet1ID,
			Subnet2: subnet2ID,
		},
	}
	c.SetDefaults()
	return c
}

// indent prefixes every line of s with n spaces, for embedding a PEM block in YAML.
func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = pad + lines[i]
	}
	return strings.Join(lines, "\n")
}
