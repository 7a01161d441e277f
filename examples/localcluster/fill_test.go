// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oci-ccm/oci-ccm/config"
)

// keyLine is a line of examples/cloud-provider.yaml that sets a key, or would once uncommented
// ("# " at the start of the line): the comment mark, the indentation, the key.
var keyLine = regexp.MustCompile(`^(# ?)?( *)([A-Za-z0-9]+):( |$)`)

// fillIn does to the example what the tutorial's step 4 tells a user to: each field set to its
// value, uncommented (with its section) where the example has it commented out, and the
// loadBalancer.securityLists section deleted. Every other line stays as it is. A field the
// example does not have exactly once is an error.
func fillIn(example string, fields []field) (string, error) {
	lines := strings.Split(example, "\n")
	type keyAt struct {
		line      int
		commented bool
	}
	paths := map[string][]keyAt{}
	section := ""
	for i, line := range lines {
		m := keyLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		path := m[3]
		switch len(m[2]) {
		case 0:
			section = m[3]
		case 2:
			path = section + "." + m[3]
		default:
			continue
		}
		paths[path] = append(paths[path], keyAt{i, m[1] != ""})
	}
	for _, f := range fields {
		at := paths[f.path]
		if len(at) != 1 {
			return "", fmt.Errorf("field %s: found %d times in the example, want once", f.path, len(at))
		}
		parent, key, nested := strings.Cut(f.path, ".")
		if !nested {
			lines[at[0].line] = f.path + ": " + f.value
			continue
		}
		lines[at[0].line] = "  " + key + ": " + f.value
		if p := paths[parent]; len(p) == 1 && p[0].commented {
			lines[p[0].line] = parent + ":"
		}
	}
	// Delete loadBalancer.securityLists and the lines nested under it.
	if at := paths["loadBalancer.securityLists"]; len(at) == 1 {
		end := at[0].line + 1
		for end < len(lines) && strings.HasPrefix(lines[end], "    ") {
			end++
		}
		lines = append(lines[:at[0].line], lines[end:]...)
	} else {
		return "", fmt.Errorf("loadBalancer.securityLists: found %d times in the example, want once", len(at))
	}
	return strings.Join(lines, "\n"), nil
}

// TestTheExampleTakesTheTutorialsFields fills examples/cloud-provider.yaml in as the tutorial's
// step 4 says (with localcluster's fields) and loads it as the binary does: it validates, and
// holds exactly the values filled in.
func TestTheExampleTakesTheTutorialsFields(t *testing.T) {
	example, err := os.ReadFile("../cloud-provider.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keyPEM := []byte("-----BEGIN PRIVATE KEY-----\nplaceholder\n-----END PRIVATE KEY-----\n")
	if err := os.WriteFile(dir+"/"+keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/"+caFile, []byte("ca"), 0o600); err != nil {
		t.Fatal(err)
	}
	fields := []field{
		{"clusterID", "local-1"},
		{"auth.region", "us-ashburn-1"},
		{"auth.tenancy", "ocid1.tenancy.oc1..filled"},
		{"auth.user", "ocid1.user.oc1..filled"},
		{"auth.fingerprint", "aa:bb:cc:dd:ee:ff:00:11:22:33:44:55:66:77:88:99"},
		{"auth.keyFile", dir + "/" + keyFile},
		{"compartment", "ocid1.compartment.oc1..filled"},
		{"vcn", "ocid1.vcn.oc1.iad.filled"},
		{"loadBalancer.subnet1", "ocid1.subnet.oc1.iad.filled1"},
		{"loadBalancer.subnet2", "ocid1.subnet.oc1.iad.filled2"},
		{"endpoint.url", "https://127.0.0.1:8443"},
		{"endpoint.caFile", dir + "/" + caFile},
	}
	filled, err := fillIn(string(example), fields)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Parse(strings.NewReader(filled))
	if err != nil {
		t.Fatalf("the filled-in example:\n%s\n%v", filled, err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("the filled-in example does not validate: %v", err)
	}
	got := []field{
		{"clusterID", cfg.ClusterID},
		{"auth.region", cfg.Auth.Region},
		{"auth.tenancy", cfg.Auth.Tenancy},
		{"auth.user", cfg.Auth.User},
		{"auth.fingerprint", cfg.Auth.Fingerprint},
		{"auth.keyFile", cfg.Auth.KeyFile},
		{"compartment", cfg.CompartmentID},
		{"vcn", cfg.VCNID},
		{"loadBalancer.subnet1", cfg.LoadBalancer.Subnet1},
		{"loadBalancer.subnet2", cfg.LoadBalancer.Subnet2},
		{"endpoint.url", cfg.Endpoint.URL},
		{"endpoint.caFile", cfg.Endpoint.CAFile},
	}
	if diff := cmp.Diff(fields, got, cmp.AllowUnexported(field{})); diff != "" {
		t.Errorf("the loaded configuration (-filled in +loaded):\n%s", diff)
	}
	if len(cfg.LoadBalancer.SecurityLists) != 0 {
		t.Errorf("securityLists = %v, want the section deleted", cfg.LoadBalancer.SecurityLists)
	}
	// Nothing else changed: the example's other lines are all still there.
	for _, line := range strings.Split(string(example), "\n") {
		if !strings.Contains(filled, line) && !filledOrDeleted(line, fields) {
			t.Errorf("line %q of the example is gone", line)
		}
	}
}

// filledOrDeleted says whether line is one fillIn may change: a field's own line, its commented
// section, or the securityLists section.
func filledOrDeleted(line string, fields []field) bool {
	m := keyLine.FindStringSubmatch(line)
	if strings.HasPrefix(line, "    ocid1.subnet") {
		return true
	}
	if m == nil {
		return false
	}
	for _, f := range fields {
		parent, key, _ := strings.Cut(f.path, ".")
		if m[3] == key || m[3] == parent || m[3] == f.path {
			return true
		}
	}
	return m[3] == "securityLists"
}
