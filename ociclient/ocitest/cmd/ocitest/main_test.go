// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"gopkg.in/yaml.v3"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// started is a run of the command in this process.
type started struct {
	url, dir string
	done     chan error
}

// start runs the command with args until the test ends, and waits for its URL line.
func start(t *testing.T, args ...string) started {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, outW, io.Discard)
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	var s started
	s.done = done
	for lines.Scan() {
		k, v, _ := strings.Cut(lines.Text(), "=")
		switch k {
		case "URL":
			s.url = v
		case "DIR":
			s.dir = v
		}
		if k == "CONFIG" {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	if s.url == "" {
		cancel()
		t.Fatalf("no URL line; run returned %v", <-done)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run returned %v after cancel, want nil", err)
		}
	})
	return s
}

func TestCommandWritesAConfigTheSDKCanUse(t *testing.T) {
	out := t.TempDir()
	s := start(t, "-tls", "-out", out, "-work-request-duration", "10ms")
	if !strings.HasPrefix(s.url, "https://127.0.0.1:") || s.dir != out {
		t.Fatalf("URL %s DIR %s, want https on loopback and %s", s.url, s.dir, out)
	}

	var cfg cloudProviderConfig
	readYAML(t, filepath.Join(out, "cloud-provider.yaml"), &cfg)
	var seeded ocitest.Seeded
	raw, err := os.ReadFile(filepath.Join(out, "tenancy.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &seeded); err != nil {
		t.Fatal(err)
	}
	got := []string{cfg.Endpoint.URL, cfg.Endpoint.CAFile, cfg.Auth.KeyFile, cfg.Compartment, cfg.VCN, cfg.LoadBalancer.Subnet1, cfg.LoadBalancer.Subnet2, cfg.Auth.Region}
	want := []string{s.url, filepath.Join(out, "ca.pem"), filepath.Join(out, "key.pem"), seeded.Compartment, seeded.VCN,
		seeded.Subnets["lb-1"], seeded.Subnets["lb-2"], "us-phoenix-1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if len(cfg.LoadBalancer.SecurityLists) != len(seeded.Subnets) || cfg.LoadBalancer.SecurityLists[seeded.Subnets["lb-1"]] != seeded.SecurityLists["lb-1"] {
		t.Errorf("securityLists %v, want each subnet's list", cfg.LoadBalancer.SecurityLists)
	}
	if info, err := os.Stat(cfg.Auth.KeyFile); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, mode %v; want 0600", err, info.Mode().Perm())
	}

	// Everything an SDK client needs comes from the files.
	key, err := os.ReadFile(cfg.Auth.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(cfg.Endpoint.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	p := common.NewRawConfigurationProvider(cfg.Auth.Tenancy, cfg.Auth.User, cfg.Auth.Region, cfg.Auth.Fingerprint, string(key), nil)
	compute, err := core.NewComputeClientWithConfigurationProvider(p)
	if err != nil {
		t.Fatal(err)
	}
	noRetry := common.NoRetryPolicy()
	compute.Host = cfg.Endpoint.URL
	compute.HTTPClient = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	compute.Configuration.RetryPolicy = &noRetry
	list := func() ([]core.Instance, error) {
		resp, err := compute.ListInstances(t.Context(), core.ListInstancesRequest{CompartmentId: &cfg.Compartment})
		return resp.Items, err
	}
	instances, err := list()
	if err != nil {
		t.Fatal(err)
	}
	if len(instances) != 3 {
		t.Errorf("%d instances, want the default tenancy's 3", len(instances))
	}

	// The admin API steers the process from outside.
	admin := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := admin.Post(s.url+"/ocitest/faults", "application/json", strings.NewReader(`{"operation":"ListInstances","status":503,"times":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := list(); err == nil {
		t.Error("ListInstances succeeded despite the injected 503")
	}
	resp, err = admin.Get(s.url + "/ocitest/calls")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var calls ocitest.Calls
	if err := json.NewDecoder(resp.Body).Decode(&calls); err != nil {
		t.Fatal(err)
	}
	if calls.Op("ListInstances") != 2 || calls.Status(503) != 1 {
		t.Errorf("calls %v, want 2 ListInstances, one 503", calls)
	}
}

func TestCommandSeedsATenancyFileInPlainHTTP(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tenancy.yaml")
	const doc = `
availabilityDomains: ["Uocm:PHX-AD-1"]
vcn: {name: v, cidr: 10.9.0.0/16}
subnets:
  - {name: lb, cidr: 10.9.1.0/24, role: loadBalancer}
instances:
  - {name: only, subnet: lb}
`
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	s := start(t, "-tenancy", file, "-out", filepath.Join(dir, "out"))
	var cfg cloudProviderConfig
	readYAML(t, filepath.Join(dir, "out", "cloud-provider.yaml"), &cfg)
	if !strings.HasPrefix(s.url, "http://") || cfg.Endpoint.CAFile != "" || cfg.LoadBalancer.Subnet1 == "" || cfg.LoadBalancer.Subnet2 != "" {
		t.Errorf("URL %s, caFile %q, subnets %q %q; want plain HTTP, no CA, one subnet", s.url, cfg.Endpoint.CAFile, cfg.LoadBalancer.Subnet1, cfg.LoadBalancer.Subnet2)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "ca.pem")); !os.IsNotExist(err) {
		t.Errorf("ca.pem written without -tls (stat: %v)", err)
	}
}

func TestCommandRefusesBadSetups(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.yaml")
	if err := os.WriteFile(typo, []byte("availabilityDomain: [x]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	invalid := filepath.Join(dir, "invalid.yaml")
	if err := os.WriteFile(invalid, []byte("vcn: {name: v, cidr: nonsense}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	emptyPolicy := filepath.Join(dir, "empty.policy")
	if err := os.WriteFile(emptyPolicy, []byte("# nothing\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badPolicy := filepath.Join(dir, "bad.policy")
	if err := os.WriteFile(badPolicy, []byte("Allow group g to use load-balancer in tenancy\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
	}{
		{"all interfaces", []string{"-addr", "0.0.0.0:0"}},
		{"a public address", []string{"-addr", "192.0.2.1:8443"}},
		{"no port", []string{"-addr", "127.0.0.1"}},
		{"unknown flag", []string{"-bogus"}},
		{"stray argument", []string{"serve"}},
		{"missing tenancy file", []string{"-tenancy", filepath.Join(dir, "missing.yaml")}},
		{"unknown tenancy field", []string{"-tenancy", typo}},
		{"invalid tenancy", []string{"-tenancy", invalid}},
		{"missing policy file", []string{"-policy", filepath.Join(dir, "missing.policy")}},
		{"empty policy", []string{"-policy", emptyPolicy}},
		{"bad policy statement", []string{"-policy", badPolicy}},
		{"unknown work request profile", []string{"-work-request-profile", "slow"}},
		{"zero time scale", []string{"-work-request-profile", "realistic", "-time-scale", "0"}},
		{"unknown busy mode", []string{"-lb-busy", "wait"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout strings.Builder
			if err := run(t.Context(), append(tt.args, "-out", t.TempDir()), &stdout, io.Discard); err == nil {
				t.Error("run accepted it")
			}
			if stdout.Len() != 0 {
				t.Errorf("printed %q before failing", stdout.String())
			}
		})
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestCommandChecksCallsAgainstAPolicyFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ccm.policy")
	doc := "# the CCM's policy\n\nAllow dynamic-group ccm to read load-balancers in compartment cluster\n"
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	s := start(t, "-policy", file, "-out", filepath.Join(dir, "out"))
	resp, err := http.Get(s.url + "/ocitest/policy")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct{ Statements []string }
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := []string{"Allow dynamic-group ccm to read load-balancers in compartment cluster"}
	if diff := cmp.Diff(want, got.Statements); diff != "" {
		t.Errorf("loaded policy (-want +got):\n%s", diff)
	}
}

func TestWorkRequestFlagsChooseTheProfileAndBusyMode(t *testing.T) {
	tests := []struct {
		profile   string
		scale     float64
		busy      string
		realistic bool
		want      ocitest.LBBusyMode
	}{
		{"fixed", 1, "queue", false, ocitest.LBBusyQueue},
		{"realistic", 0.01, "reject", true, ocitest.LBBusyReject},
	}
	for _, tt := range tests {
		opts, err := serverOptions(tt.profile, tt.scale, tt.busy)
		if err != nil {
			t.Fatalf("serverOptions(%s, %v, %s): %v", tt.profile, tt.scale, tt.busy, err)
		}
		if (opts.WorkRequestDurations != nil) != tt.realistic || opts.LBBusy != tt.want {
			t.Errorf("serverOptions(%s, %v, %s): profile set %v, busy %v; want %v, %v",
				tt.profile, tt.scale, tt.busy, opts.WorkRequestDurations != nil, opts.LBBusy, tt.realistic, tt.want)
		}
		if tt.realistic {
			if d := opts.WorkRequestDurations(ocitest.APILoadBalancer, "CreateLoadBalancer", 1); d < 600*time.Millisecond || d > 1200*time.Millisecond {
				t.Errorf("a create at scale %v lasts %v, want 0.6-1.2 s", tt.scale, d)
			}
		}
	}
}
