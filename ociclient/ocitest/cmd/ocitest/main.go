// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Command ocitest serves the in-memory OCI API of package ocitest on a loopback address, seeded
// with a tenancy, for running the cloud-controller-manager binary (or anything else built on
// oci-go-sdk) against it from outside a Go test.
//
//	ocitest [-addr 127.0.0.1:0] [-tls] [-tenancy file.yaml] [-policy file] [-out DIR] [-work-request-duration 200ms]
//	        [-work-request-profile fixed|realistic] [-time-scale 0.01] [-lb-busy queue|reject]
//	        [-policy-delay 10s] [-listing-lag 2s]
//
// With -policy (or a tenancy file's policy field) every call is checked against those OCI IAM
// policy statements, one per line of the file (blank lines and lines starting with # are
// skipped); a call they do not allow answers 404 NotAuthorizedOrNotFound, as OCI does. That
// policy is in force from the start; one set later through the admin API takes -policy-delay to
// apply, and a new load balancer, network load balancer, NSG or certificate is missing from its
// listing for -listing-lag (0 turns either off; see package ocitest, consistency.go).
//
// -work-request-profile realistic runs work requests for OCI's own durations (create 1–2 min,
// listener or backend change 20–40 s) multiplied by -time-scale, instead of the fixed
// -work-request-duration. -lb-busy says what the Load Balancer API does with a change sent while
// a work request runs: queue it (the default, as OCI documents) or refuse it with 409.
//
// It writes into DIR: key.pem (the API signing key it trusts), ca.pem (with -tls),
// cloud-provider.yaml (a CCM configuration using that key, the seeded compartment, VCN and load
// balancer subnets, and an endpoint section pointing at the server), and tenancy.json (the seeded
// OCIDs by name, an ocitest.Seeded). Then it prints "URL=<base URL>" as its first line of output,
// followed by "DIR=" and "CONFIG=" lines, and serves until SIGINT or SIGTERM.
//
// Tests drive it through the admin API under /ocitest/ (faults, call counts, instance state); see
// the package documentation of ocitest.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "ocitest:", err)
		}
		os.Exit(2)
	}
}

// run is the whole command, callable from tests: it returns when ctx ends or setup fails.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ocitest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "loopback `address` to listen on (port 0 picks a free one)")
	useTLS := fs.Bool("tls", false, "serve HTTPS with a self-signed certificate, written to DIR/ca.pem")
	tenancyFile := fs.String("tenancy", "", "YAML or JSON `file` describing the tenancy to seed (default: the built-in small tenancy)")
	policyFile := fs.String("policy", "", "`file` of OCI IAM policy statements, one per line, to check every call against (default: the tenancy file's, or none: everything allowed)")
	outDir := fs.String("out", "", "`directory` to write key.pem, ca.pem, cloud-provider.yaml and tenancy.json to (default: a new temporary directory)")
	wrDuration := fs.Duration("work-request-duration", 200*time.Millisecond, "how long load balancer work requests stay in progress")
	profile := fs.String("work-request-profile", "fixed", "`fixed` (every work request lasts -work-request-duration) or realistic (OCI's durations times -time-scale)")
	scale := fs.Float64("time-scale", 1, "`factor` for the realistic profile's durations, e.g. 0.01 for real OCI time ÷ 100")
	policyDelay := fs.Duration("policy-delay", ocitest.DefaultPolicyDelay, "how long a policy set through the admin API takes to apply (0: at once)")
	listingLag := fs.Duration("listing-lag", ocitest.DefaultListingLag, "how long a new load balancer, network load balancer, NSG or certificate is missing from its listing (0: never)")
	healthDelay := fs.Duration("backend-health-delay", 0, "how long a new load balancer backend reports UNKNOWN before it reports OK on its own (0: until set through the admin API)")
	busy := fs.String("lb-busy", "queue", "what the Load Balancer API does with a change while a work request runs: `queue` or reject (409)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := checkLoopback(*addr); err != nil {
		return err
	}
	tenancy := ocitest.DefaultTenancy()
	if *tenancyFile != "" {
		var err error
		if tenancy, err = readTenancy(*tenancyFile); err != nil {
			return err
		}
	}

	if *policyFile != "" {
		// The tenancy as it is when the server starts: in force at once, not propagating.
		statements, err := readPolicy(*policyFile)
		if err != nil {
			return err
		}
		tenancy.Policy = statements
	}

	opts, err := serverOptions(*profile, *scale, *busy)
	if err != nil {
		return err
	}
	opts.Addr, opts.TLS, opts.WorkRequestDuration, opts.Region = *addr, *useTLS, *wrDuration, tenancy.Region
	opts.Tenancy = &tenancy
	opts.PolicyDelay, opts.ListingLag = lagOption(*policyDelay), lagOption(*listingLag)
	opts.BackendHealthDelay = *healthDelay
	srv, err := ocitest.Listen(opts)
	if err != nil {
		if *policyFile != "" {
			return fmt.Errorf("%s with policy %s: %w", orDefault(*tenancyFile, "the default tenancy"), *policyFile, err)
		}
		return fmt.Errorf("%s: %w", orDefault(*tenancyFile, "the default tenancy"), err)
	}
	defer srv.Close()
	seeded := srv.Seeded()
	creds, err := srv.NewCredentials()
	if err != nil {
		return err
	}
	dir, err := prepareDir(*outDir)
	if err != nil {
		return err
	}
	configPath, err := writeFiles(dir, srv, seeded, creds)
	if err != nil {
		return err
	}

	fmt.Fprintf(stdout, "URL=%s\nDIR=%s\nCONFIG=%s\n", srv.URL(), dir, configPath)
	policy := "IAM off: every call allowed"
	if statements, ok := srv.Policy(); ok {
		policy = fmt.Sprintf("%d IAM policy statements", len(statements))
	}
	fmt.Fprintf(stderr, "ocitest: serving %s (region %s, %d instances, %s); stop with Ctrl-C\n",
		srv.URL(), seeded.Region, len(seeded.Instances), policy)
	<-ctx.Done()
	return nil
}

// serverOptions turns the work-request flags into server options.
func serverOptions(profile string, scale float64, busy string) (ocitest.Options, error) {
	var opts ocitest.Options
	switch profile {
	case "fixed":
	case "realistic":
		if !(scale > 0) {
			return opts, fmt.Errorf("-time-scale %v: want a factor above 0, e.g. 0.01", scale)
		}
		opts.WorkRequestDurations = ocitest.RealisticDurations(scale)
	default:
		return opts, fmt.Errorf("-work-request-profile %q: want fixed or realistic", profile)
	}
	switch busy {
	case ocitest.LBBusyQueue.String():
		opts.LBBusy = ocitest.LBBusyQueue
	case ocitest.LBBusyReject.String():
		opts.LBBusy = ocitest.LBBusyReject
	default:
		return opts, fmt.Errorf("-lb-busy %q: want queue or reject", busy)
	}
	return opts, nil
}

// checkLoopback refuses any address but a loopback one: the server trusts a key it writes to
// disk and its admin API takes no credentials at all.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("-addr %q: refusing a non-loopback address; ocitest has an unauthenticated admin API", addr)
}

// readTenancy reads a YAML (or JSON, which YAML includes) tenancy, refusing unknown fields so a
// typo does not silently seed something else.
func readTenancy(path string) (ocitest.Tenancy, error) {
	f, err := os.Open(path)
	if err != nil {
		return ocitest.Tenancy{}, err
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	dec.KnownFields(true)
	var t ocitest.Tenancy
	if err := dec.Decode(&t); err != nil {
		return ocitest.Tenancy{}, fmt.Errorf("read tenancy %s: %w", path, err)
	}
	return t, nil
}

// readPolicy reads policy statements, one per line, skipping blank lines and # comments.
func readPolicy(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read policy: %w", err)
	}
	var statements []string
	for line := range strings.SplitSeq(string(raw), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			statements = append(statements, line)
		}
	}
	if len(statements) == 0 {
		return nil, fmt.Errorf("policy %s holds no statements", path)
	}
	return statements, nil
}

func prepareDir(dir string) (string, error) {
	if dir == "" {
		return os.MkdirTemp("", "ocitest-")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return filepath.Abs(dir)
}

// cloudProviderConfig is the part of cloud-provider.yaml (package config) ocitest fills in.
type cloudProviderConfig struct {
	Auth struct {
		Region      string `yaml:"region"`
		Tenancy     string `yaml:"tenancy"`
		User        string `yaml:"user"`
		Fingerprint string `yaml:"fingerprint"`
		KeyFile     string `yaml:"keyFile"`
	} `yaml:"auth"`
	Compartment  string `yaml:"compartment"`
	VCN          string `yaml:"vcn"`
	LoadBalancer struct {
		Subnet1       string            `yaml:"subnet1,omitempty"`
		Subnet2       string            `yaml:"subnet2,omitempty"`
		SecurityLists map[string]string `yaml:"securityLists,omitempty"`
	} `yaml:"loadBalancer"`
	Endpoint struct {
		URL    string `yaml:"url"`
		CAFile string `yaml:"caFile,omitempty"`
	} `yaml:"endpoint"`
}

// writeFiles writes key.pem, ca.pem (TLS only), cloud-provider.yaml and tenancy.json, and
// returns the configuration's path.
func writeFiles(dir string, srv *ocitest.Server, seeded ocitest.Seeded, creds ocitest.Credentials) (string, error) {
	var cfg cloudProviderConfig
	cfg.Auth.Region = seeded.Region
	cfg.Auth.Tenancy = creds.TenancyID
	cfg.Auth.User = creds.UserID
	cfg.Auth.Fingerprint = creds.Fingerprint
	cfg.Auth.KeyFile = filepath.Join(dir, "key.pem")
	cfg.Compartment = seeded.Compartment
	cfg.VCN = seeded.VCN
	if n := len(seeded.LoadBalancerSubnets); n > 0 {
		cfg.LoadBalancer.Subnet1 = seeded.LoadBalancerSubnets[0]
		if n > 1 {
			cfg.LoadBalancer.Subnet2 = seeded.LoadBalancerSubnets[1]
		}
	}
	cfg.LoadBalancer.SecurityLists = seeded.SubnetSecurityLists
	cfg.Endpoint.URL = srv.URL()

	if err := os.WriteFile(cfg.Auth.KeyFile, creds.PrivateKeyPEM, 0o600); err != nil {
		return "", err
	}
	if ca := srv.CACertPEM(); ca != nil {
		cfg.Endpoint.CAFile = filepath.Join(dir, "ca.pem")
		if err := os.WriteFile(cfg.Endpoint.CAFile, ca, 0o644); err != nil {
			return "", err
		}
	}
	configYAML, err := yaml.Marshal(cfg)
	if err != nil {
		return "", err
	}
	configPath := filepath.Join(dir, "cloud-provider.yaml")
	header := []byte("# Written by ocitest for its server at " + srv.URL() + "; valid while it runs.\n")
	if err := os.WriteFile(configPath, append(header, configYAML...), 0o600); err != nil {
		return "", err
	}
	seededJSON, err := json.MarshalIndent(seeded, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "tenancy.json"), append(seededJSON, '\n'), 0o644); err != nil {
		return "", err
	}
	return configPath, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// lagOption is a lag flag as an Options field: 0 on the command line turns the lag off.
func lagOption(d time.Duration) time.Duration {
	if d <= 0 {
		return ocitest.NoLag
	}
	return d
}
