// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// mustParse parses doc without validating it, so a test can look at one section alone.
func mustParse(t *testing.T, doc string) (*Config, []Warning) {
	t.Helper()
	cfg, warnings, err := Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("Parse: %v", err)
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
	got, warnings := mustParse(t, doc)
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
	got, warnings := mustParse(t, "auth:\n  region: us-phoenix-1\n")
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
		got, _ := mustParse(t, doc)
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

// minimalDoc is the shortest file Load accepts: a region, a compartment, a way to sign and a
// load balancer subnet.
const minimalDoc = "useInstancePrincipals: true\nauth:\n  region: eu-frankfurt-1\ncompartment: " + compartmentID +
	"\nloadBalancer:\n  subnet1: " + subnet1ID + "\n"

func TestLoadReturnsAReadyConfig(t *testing.T) {
	cfg, _, err := Load(strings.NewReader(minimalDoc))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate after Load: %v", err)
	}
	if cfg.LoadBalancer.SecurityListManagementMode != DefaultSecurityListManagementMode || cfg.RateLimiter.WriteQPS != DefaultWriteQPS {
		t.Errorf("Load did not apply the defaults: %+v", cfg)
	}
}

func TestLoadReportsEveryProblemAtOnce(t *testing.T) {
	cfg, warnings, err := Load(strings.NewReader("auth:\n  region: nowhere!\n  compartment: " + compartmentID +
		"\nloadBalancer:\n  securityListManagementMode: Sometimes\nrateLimiter:\n  readQPS: -1\n"))
	var ve *ValidationError
	if !errors.As(err, &ve) || cfg != nil {
		t.Fatalf("Load = %v, %v; want no Config and a *ValidationError", cfg, err)
	}
	var fields []string
	for _, fe := range ve.Errors {
		fields = append(fields, fe.Field)
	}
	want := []string{"auth.region", "auth.tenancy", "auth.user", "auth.fingerprint", "auth.key",
		"loadBalancer.subnet1", "loadBalancer.securityListManagementMode", "rateLimiter.readQPS"}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if len(warnings) != 1 || warnings[0].Field != "auth.compartment" {
		t.Errorf("warnings = %v, want the one on auth.compartment, even with the error", warnings)
	}
}

func TestLoadLeavesTheWorkloadIdentityExchangeToItsCaller(t *testing.T) {
	// The exchange settings come from the environment, after the file: ccm.New fills them in
	// and validates again. What the file itself says about workload identity is checked.
	doc := "useWorkloadIdentity: true\nauth:\n  region: us-phoenix-1\ncompartment: " + compartmentID +
		"\nloadBalancer:\n  subnet1: " + subnet1ID + "\n"
	cfg, _, err := Load(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var ve *ValidationError
	if err := cfg.Validate(); !errors.As(err, &ve) || ve.Errors[0].Field != EnvWorkloadIdentityDomainURL {
		t.Errorf("Validate without the exchange settings = %v, want them required", err)
	}
	_, _, err = Load(strings.NewReader(doc + "useInstancePrincipals: true\n"))
	if !errors.As(err, &ve) || len(ve.Errors) != 1 || ve.Errors[0].Field != "useWorkloadIdentity" {
		t.Errorf("Load with two ways to sign = %v, want the one problem on useWorkloadIdentity", err)
	}
}

func TestLoadWithEnvironmentChecksWhatTheFileCannotHold(t *testing.T) {
	doc := "useWorkloadIdentity: true\nauth:\n  region: us-phoenix-1\ncompartment: " + compartmentID +
		"\nloadBalancer:\n  subnet1: " + subnet1ID + "\n"
	env := map[string]string{UpstreamPrefixVariable: "prod", EnvWorkloadIdentityDomainURL: "https://idcs-x.identity.oraclecloud.com"}
	getenv := func(name string) string { return env[name] }

	_, _, err := Load(strings.NewReader(doc), WithEnvironment(getenv))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Errors) != 3 || ve.Errors[0].Field != EnvWorkloadIdentityResourceType {
		t.Fatalf("Load = %v, want the three missing exchange settings", err)
	}

	env[EnvWorkloadIdentityResourceType], env[EnvWorkloadIdentityClientID], env[EnvWorkloadIdentityClientSecret] = "ccm", "id", "s3cr3t"
	cfg, _, err := Load(strings.NewReader(doc), WithEnvironment(getenv))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if cfg.LoadBalancer.Naming.Prefix != "prod" || cfg.WorkloadIdentity.ResourceType != "ccm" {
		t.Errorf("prefix %q, workload identity %+v; want both from the environment", cfg.LoadBalancer.Naming.Prefix, cfg.WorkloadIdentity)
	}

	// The prefix is refused before the file is validated, as ccm.New has always refused it.
	_, _, err = Load(strings.NewReader(doc+"  naming: {scheme: name, prefix: dev}\nrateLimiter: {readQPS: -1}\n"), WithEnvironment(getenv))
	if err == nil || errors.As(err, &ve) || !strings.Contains(err.Error(), UpstreamPrefixVariable) {
		t.Errorf("Load with a disagreeing prefix = %v, want the prefix's error alone", err)
	}
}

func TestOpenReadsAPathAndWrapsErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cloud-provider.yaml")
	if err := os.WriteFile(path, []byte(minimalDoc), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if cfg.Auth.Region != "eu-frankfurt-1" {
		t.Errorf("region = %q, want eu-frankfurt-1", cfg.Auth.Region)
	}

	_, _, err = Open(context.Background(), filepath.Join(dir, "missing.yaml"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(missing) error = %v, want fs.ErrNotExist", err)
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("nope: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = Open(context.Background(), bad)
	var te *yaml.TypeError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), bad) {
		t.Errorf("Open(bad) error = %v, want a *yaml.TypeError naming the path", err)
	}

	// A validation error is the binary's message, which names the path itself.
	invalid := filepath.Join(dir, "invalid.yaml")
	if err := os.WriteFile(invalid, []byte(minimalDoc+"rateLimiter:\n  readQPS: -1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = Open(context.Background(), invalid)
	var ve *ValidationError
	if !errors.As(err, &ve) || strings.Contains(err.Error(), invalid) {
		t.Errorf("Open(invalid) error = %v, want a *ValidationError without the path", err)
	}
}

func TestOpenFillsRegionAndCompartmentFromInstanceMetadata(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cloud-provider.yaml")
	if err := os.WriteFile(path, []byte("useInstancePrincipals: true\nloadBalancer:\n  subnet1: "+subnet1ID+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := &fakeMetadata{md: InstanceMetadata{CanonicalRegionName: "us-ashburn-1", CompartmentID: compartmentID}}
	cfg, _, err := open(context.Background(), path, src, loadOptions{})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if cfg.Auth.Region != "us-ashburn-1" || cfg.CompartmentID != compartmentID || src.calls != 1 {
		t.Errorf("region, compartment, calls = %q, %q, %d", cfg.Auth.Region, cfg.CompartmentID, src.calls)
	}

	_, _, err = open(context.Background(), path, &fakeMetadata{md: InstanceMetadata{CompartmentID: compartmentID}}, loadOptions{})
	if !errors.Is(err, ErrIncompleteMetadata) || !strings.HasPrefix(err.Error(), "region or compartment not set and not readable from instance metadata: ") {
		t.Errorf("open with no region anywhere = %v, want ErrIncompleteMetadata", err)
	}
}
