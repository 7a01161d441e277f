// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

func mustLoad(t *testing.T, doc string) (*Config, []Warning) {
	t.Helper()
	cfg, warnings, err := Load(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return cfg, warnings
}

func TestLoadReadsEveryField(t *testing.T) {
	key := legacyEncryptedPEM(t, testPassphrase)
	doc := `
clusterID: prod-phx-1
allowDefaultClusterName: true
auth:
  region: us-ashburn-1
  tenancy: ` + tenancyID + `
  user: ` + userID + `
  key: |
` + indent(key, 4) + `
  keyFile: /etc/oci/key.pem
  fingerprint: aa:bb:cc:dd:ee:ff:00:11:22:33:44:55:66:77:88:99
  passphrase: ` + testPassphrase + `
useInstancePrincipals: true
compartment: ` + compartmentID + `
vcn: ` + vcnID + `
loadBalancer:
  disabled: true
  subnet1: ` + subnet1ID + `
  subnet2: ` + subnet2ID + `
  securityListManagementMode: Frontend
  securityLists:
    ` + subnet1ID + `: ` + seclist1ID + `
    ` + nodeSubnetID + `: ` + seclist2ID + `
  defaultSourceCIDRs: [10.0.0.0/8, "2001:db8::/32"]
  naming:
    scheme: name
    prefix: prod
  tags:
    freeformTags:
      team: platform
    definedTags:
      Operations:
        CostCenter: "42"
        Priority: 3
rateLimiter:
  disabled: true
  readQPS: 7.5
  readBurst: 11
  writeQPS: 2.5
  writeBurst: 3
endpoint:
  url: https://127.0.0.1:8443
  caFile: /tmp/ca.pem
`
	got, warnings := mustLoad(t, doc)
	want := &Config{
		ClusterID:               "prod-phx-1",
		AllowDefaultClusterName: true,
		Auth: Auth{
			Region:      "us-ashburn-1",
			Tenancy:     tenancyID,
			User:        userID,
			Key:         Secret(key),
			KeyFile:     "/etc/oci/key.pem",
			Fingerprint: "aa:bb:cc:dd:ee:ff:00:11:22:33:44:55:66:77:88:99",
			Passphrase:  testPassphrase,
		},
		UseInstancePrincipals: true,
		CompartmentID:         compartmentID,
		VCNID:                 vcnID,
		LoadBalancer: LoadBalancer{
			Disabled:                   true,
			Subnet1:                    subnet1ID,
			Subnet2:                    subnet2ID,
			SecurityListManagementMode: SecurityListModeFrontend,
			SecurityLists:              map[string]string{subnet1ID: seclist1ID, nodeSubnetID: seclist2ID},
			DefaultSourceCIDRs:         []string{"10.0.0.0/8", "2001:db8::/32"},
			Naming:                     Naming{Scheme: NamingName, Prefix: "prod"},
			Tags: Tags{
				FreeformTags: map[string]string{"team": "platform"},
				DefinedTags:  map[string]map[string]any{"Operations": {"CostCenter": "42", "Priority": 3}},
			},
		},
		RateLimiter: RateLimiter{Disabled: true, ReadQPS: 7.5, ReadBurst: 11, WriteQPS: 2.5, WriteBurst: 3},
		Endpoint:    Endpoint{URL: "https://127.0.0.1:8443", CAFile: "/tmp/ca.pem"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load mismatch (-want +got):\n%s", diff)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings = %v, want none for current field names", warnings)
	}
}

func TestLoadAppliesEveryDefault(t *testing.T) {
	got, warnings := mustLoad(t, "auth:\n  region: us-phoenix-1\n")
	want := &Config{
		Auth: Auth{Region: "us-phoenix-1"},
		LoadBalancer: LoadBalancer{
			SecurityListManagementMode: SecurityListModeAll,
			DefaultSourceCIDRs:         []string{"0.0.0.0/0"},
			Naming:                     Naming{Scheme: NamingUID},
		},
		RateLimiter: RateLimiter{ReadQPS: 20, ReadBurst: 40, WriteQPS: 5, WriteBurst: 10},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults mismatch (-want +got):\n%s", diff)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings = %v, want none", warnings)
	}
}

func TestSetDefaultsKeepsValuesThatAreSet(t *testing.T) {
	c := &Config{
		LoadBalancer: LoadBalancer{
			SecurityListManagementMode: SecurityListModeBackend,
			DefaultSourceCIDRs:         []string{"10.0.0.0/8"},
			Naming:                     Naming{Scheme: NamingName},
		},
		RateLimiter: RateLimiter{ReadQPS: 1, ReadBurst: 2, WriteQPS: 3, WriteBurst: 4},
	}
	want := *c
	want.LoadBalancer.DefaultSourceCIDRs = []string{"10.0.0.0/8"}
	c.SetDefaults()
	if diff := cmp.Diff(&want, c); diff != "" {
		t.Errorf("SetDefaults changed set values (-want +got):\n%s", diff)
	}
}

func TestSetDefaultsNeverSetsRegionOrCompartment(t *testing.T) {
	var c Config
	c.SetDefaults()
	if c.Auth.Region != "" || c.CompartmentID != "" {
		t.Errorf("SetDefaults set region %q, compartment %q; both must stay empty", c.Auth.Region, c.CompartmentID)
	}
}

func TestLoadEmptyDocumentYieldsDefaults(t *testing.T) {
	for _, doc := range []string{"", "\n", "# only a comment\n", "---\n"} {
		got, _ := mustLoad(t, doc)
		var want Config
		want.SetDefaults()
		if diff := cmp.Diff(&want, got); diff != "" {
			t.Errorf("Load(%q) mismatch (-want +got):\n%s", doc, diff)
		}
	}
}

func TestLoadRejectsUnknownFieldsWithLineNumbers(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want string // the yaml.v3 message for the offending key
	}{
		{"top level", "auth:\n  region: r\nbogus: 1\n", "line 3: field bogus not found"},
		{"in auth", "auth:\n  region: r\n  keyfile: /x\n", "line 3: field keyfile not found"},
		{"in loadBalancer", "loadBalancer:\n  subnet3: x\n", "line 2: field subnet3 not found"},
		{"in naming", "loadBalancer:\n  naming:\n    scheme: uid\n    suffix: x\n", "line 4: field suffix not found"},
		{"in tags", "loadBalancer:\n  tags:\n    freeform: {a: b}\n", "line 3: field freeform not found"},
		{"in rateLimiter", "rateLimiter:\n  qps: 1\n", "line 2: field qps not found"},
		{"in endpoint", "endpoint:\n  url: http://x\n  insecure: true\n", "line 3: field insecure not found"},
		{"in upstream tags", "tags:\n  loadBalancer:\n    freeformTags: {a: b}\n", "line 3: field freeformTags not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Load(strings.NewReader(tt.doc))
			var te *yaml.TypeError
			if !errors.As(err, &te) {
				t.Fatalf("Load error = %v, want a *yaml.TypeError", err)
			}
			if len(te.Errors) != 1 || !strings.HasPrefix(te.Errors[0], tt.want) {
				t.Errorf("errors = %q, want one starting %q", te.Errors, tt.want)
			}
		})
	}
}

func TestLoadReportsEveryUnknownField(t *testing.T) {
	_, _, err := Load(strings.NewReader("a: 1\nauth:\n  b: 2\nloadBalancer:\n  c: 3\n"))
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		t.Fatalf("Load error = %v, want a *yaml.TypeError", err)
	}
	if len(te.Errors) != 3 {
		t.Errorf("got %d errors %q, want 3 (one per unknown field)", len(te.Errors), te.Errors)
	}
}

func TestLoadRejectsBadInput(t *testing.T) {
	tests := []struct {
		name string
		doc  string
	}{
		{"wrong type", "rateLimiter:\n  readQPS: fast\n"},
		{"list for a map", "loadBalancer:\n  securityLists: [a, b]\n"},
		{"syntax error", "auth:\n  region: [unclosed\n"},
		{"second document", "auth:\n  region: a\n---\nauth:\n  region: b\n"},
		{"scalar document", "just a string\n"},
		{"tab indentation", "auth:\n\tregion: x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := Load(strings.NewReader(tt.doc))
			if err == nil {
				t.Fatalf("Load succeeded with %+v, want an error", cfg)
			}
			if cfg != nil {
				t.Errorf("Load returned a Config alongside error %v", err)
			}
		})
	}
}

func TestLoadRejectsInputLargerThanASecret(t *testing.T) {
	doc := "# " + strings.Repeat("x", MaxFileSize) + "\n"
	if _, _, err := Load(strings.NewReader(doc)); err == nil {
		t.Fatal("Load accepted a file over MaxFileSize")
	}
}

func TestLoadFileReadsAPathAndWrapsErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cloud-provider.yaml")
	if err := os.WriteFile(path, []byte("auth:\n  region: eu-frankfurt-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := LoadFile(path)
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	if cfg.Auth.Region != "eu-frankfurt-1" {
		t.Errorf("region = %q, want eu-frankfurt-1", cfg.Auth.Region)
	}

	_, _, err = LoadFile(filepath.Join(dir, "missing.yaml"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadFile(missing) error = %v, want fs.ErrNotExist", err)
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("nope: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = LoadFile(bad)
	var te *yaml.TypeError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), bad) {
		t.Errorf("LoadFile(bad) error = %v, want a *yaml.TypeError naming the path", err)
	}
}
