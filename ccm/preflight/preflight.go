// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package preflight checks, before a switch from the upstream OCI CCM, what oci-ccm would make of
// a cluster: its cloud-provider.yaml and environment, read as the binary reads them at start-up,
// and every Service of type LoadBalancer it would manage, run through lb.Desired with the cluster's
// Nodes and TLS Secrets. It reports what oci-ccm would refuse, what it would do differently from
// upstream (the documented differences of lb/COMPATIBILITY.md, from internal/compatdata), and what
// would make it create a new load balancer instead of adopting upstream's. It makes no OCI call.
//
// The binary runs it as `oci-cloud-controller-manager check`.
package preflight

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
	"k8s.io/client-go/kubernetes"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/internal/compatdata"
)

// Options says what to check.
type Options struct {
	// CloudConfig is the path of cloud-provider.yaml, the binary's --cloud-config.
	CloudConfig string
	// ClusterName is the binary's --cluster-name (its default is config.DefaultClusterName).
	ClusterName string
	// Getenv reads the environment the binary would run with; nil is os.Getenv.
	Getenv func(string) string
	// UpstreamPrefix is the LOAD_BALANCER_PREFIX the upstream CCM runs with ("" when unset);
	// nil means the same as Getenv's, as when the variable is kept across the switch.
	UpstreamPrefix *string
	// Kube, when set, is the cluster whose Services are checked. It reads Services, Nodes and
	// the Secrets the Services name.
	Kube kubernetes.Interface
}

// Placeholders for a region and compartment the binary would read from instance metadata, so the
// rest of the file is still validated offline.
const (
	placeholderRegion      = "us-phoenix-1"
	placeholderCompartment = "ocid1.compartment.oc1..preflight"
)

// Run checks the configuration and, with Options.Kube, the cluster's Services. An error means the
// check could not run (an unreadable cluster); what oci-ccm refuses is in the Report.
func Run(ctx context.Context, o Options) (*Report, error) {
	table, err := compatdata.Load()
	if err != nil {
		return nil, err
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	r := &Report{CloudConfig: o.CloudConfig, Config: []Finding{}, Services: []ServiceReport{}}
	cfg := checkConfig(r, o, table, getenv(config.UpstreamPrefixVariable))
	defer bySeverity(r.Config)
	if o.Kube == nil {
		return r, nil
	}
	if cfg == nil {
		r.Config = append(r.Config, Finding{Severity: Note, Key: "Services",
			Message: "not checked: the configuration does not load", Fix: "fix the configuration and run the check again"})
		return r, nil
	}
	upstream := getenv(config.UpstreamPrefixVariable)
	if o.UpstreamPrefix != nil {
		upstream = *o.UpstreamPrefix
	} else {
		r.Config = append(r.Config, Finding{Severity: Note, Key: config.UpstreamPrefixVariable,
			Message: fmt.Sprintf("the upstream CCM is taken to run with the same %s as here (%s)", config.UpstreamPrefixVariable, describe(upstream)),
			Fix:     "if it runs with another, pass --upstream-load-balancer-prefix with its value"})
	}
	if err := checkServices(ctx, r, o.Kube, cfg, table, upstream); err != nil {
		return nil, err
	}
	r.ServicesChecked = true
	for _, s := range r.Services {
		bySeverity(s.Findings)
	}
	return r, nil
}

// severities orders findings: what blocks a switch first.
var severities = []Severity{Refused, NewLoadBalancer, Differs, Warning, Note}

// bySeverity sorts findings by severity, keeping their order within one.
func bySeverity(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return slices.Index(severities, a.Severity) - slices.Index(severities, b.Severity)
	})
}

func describe(v string) string {
	if v == "" {
		return "unset"
	}
	return fmt.Sprintf("%q", v)
}

// checkConfig reads the file as the binary does at start-up (config.Open's reading, the
// environment's LOAD_BALANCER_PREFIX, the validation, the cluster identity) and reports every
// error and warning, and every key the file sets that oci-ccm reads differently from upstream.
// It parses without validating (config.Parse), so that a file with problems still gives the
// configuration Services are checked with; it returns nil when the file does not parse.
func checkConfig(r *Report, o Options, table *compatdata.Table, prefix string) *config.Config {
	cfg, warnings, err := parseFile(o.CloudConfig)
	for _, w := range warnings {
		// The message says what to write instead, or that nothing reads the key.
		r.Config = append(r.Config, Finding{Severity: Warning, Key: w.Field, Message: w.Message})
	}
	if err != nil {
		r.Config = append(r.Config, fieldErrors(err, "cloud-provider.yaml", "correct the file: the binary refuses to start with it")...)
		return nil
	}
	r.Config = append(r.Config, differentKeys(o.CloudConfig, table, warnings)...)
	for _, m := range []struct {
		field   string
		missing bool
	}{{"auth.region", cfg.Auth.Region == ""}, {"compartment", cfg.CompartmentID == ""}} {
		if m.missing {
			r.Config = append(r.Config, Finding{Severity: Note, Key: m.field,
				Message: "not set: the binary reads it from the instance metadata service at start-up (on an OCI instance only); checked with a placeholder",
				Fix:     "none needed on OCI; set it in the file for the binary to start anywhere"})
		}
	}
	if err := cfg.ApplyUpstreamPrefix(prefix); err != nil {
		r.Config = append(r.Config, Finding{Severity: Refused, Key: config.UpstreamPrefixVariable, Value: prefix, Message: err.Error(),
			Fix: "make the variable and loadBalancer.naming agree: the binary refuses to start"})
	} else if prefix != "" {
		r.Config = append(r.Config, Finding{Severity: Note, Key: config.UpstreamPrefixVariable, Value: prefix,
			Message: fmt.Sprintf("read into loadBalancer.naming.prefix: a load balancer named %q, as the upstream CCM names it with the variable, "+
				"is found and adopted (a network load balancer is not prefixed)", strings.TrimSuffix(prefix, "-")+"-<uid>")})
	}
	check := *cfg
	if check.Auth.Region == "" {
		check.Auth.Region = placeholderRegion
	}
	if check.CompartmentID == "" {
		check.CompartmentID = placeholderCompartment
	}
	const fix = "correct it: the binary refuses to start"
	r.Config = append(r.Config, fieldErrors(check.Validate(), "cloud-provider.yaml", fix)...)
	if _, err := check.ClusterIdentity(o.ClusterName); err != nil {
		r.Config = append(r.Config, fieldErrors(err, "clusterID", fix)...)
	}
	return &check
}

// parseFile is config.Parse on the file at path, with the errors config.Open gives for it.
func parseFile(path string) (*config.Config, []config.Warning, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open cloud-provider config: %w", err)
	}
	defer f.Close()
	cfg, warnings, err := config.Parse(f)
	if err != nil {
		return nil, warnings, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, warnings, nil
}

// fieldErrors turns a configuration error into refused findings, one per field when it is a
// *config.ValidationError; nil for nil.
func fieldErrors(err error, key, fix string) []Finding {
	if err == nil {
		return nil
	}
	var ve *config.ValidationError
	if !errors.As(err, &ve) {
		return []Finding{{Severity: Refused, Key: key, Message: err.Error(), Fix: fix}}
	}
	out := make([]Finding, 0, len(ve.Errors))
	for _, fe := range ve.Errors {
		out = append(out, Finding{Severity: Refused, Key: fe.Field, Value: fe.Value, Message: fe.Detail, Fix: fix})
	}
	return out
}

// differentKeys reports the keys the file at path sets whose comparison row is "supported, with
// a difference", with the documented difference, sorted; a difference a warning on the key says
// already is left out.
func differentKeys(path string, table *compatdata.Table, warnings []config.Warning) []Finding {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil // parseFile read it a moment ago; nothing more to say
	}
	var doc map[string]any
	if yaml.Unmarshal(data, &doc) != nil {
		return nil
	}
	set := map[string]bool{}
	for k, v := range doc {
		set[k] = true
		if section, ok := v.(map[string]any); ok {
			for sub := range section {
				set[k+"."+sub] = true
			}
		}
	}
	var out []Finding
	for _, key := range slices.Sorted(maps.Keys(table.Config)) {
		row := table.Config[key]
		warned := slices.ContainsFunc(warnings, func(w config.Warning) bool { return w.Field == key && strings.Contains(w.Message, row.Note) })
		if set[key] && row.Status == compatdata.SupportedDifferently && row.Note != "" && !warned {
			out = append(out, Finding{Severity: Differs, Key: key, Message: row.Note})
		}
	}
	return out
}
