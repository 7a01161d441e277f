// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package preflight

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Severity is what a finding means for a switch from the upstream CCM.
type Severity string

// The severities. Refused and NewLoadBalancer block a switch (Report.Blocking).
const (
	// Refused: oci-ccm refuses it. A refused configuration stops the binary at start-up; a
	// refused Service is not reconciled.
	Refused Severity = "refused"
	// NewLoadBalancer: oci-ccm would not find the upstream CCM's load balancer of the Service and
	// would create a second one, with a new address.
	NewLoadBalancer Severity = "new load balancer"
	// Differs: oci-ccm accepts it and does something different from upstream (lb/COMPATIBILITY.md).
	Differs Severity = "differs"
	// Warning: oci-ccm accepts it and warns at start-up (a deprecated or ignored upstream key).
	Warning Severity = "warning"
	// Note: what the check assumed or could not see.
	Note Severity = "note"
)

// Finding is one thing the check found, with what to do about it.
type Finding struct {
	Severity Severity `json:"severity"`
	// Key is the annotation, cloud-provider.yaml field or environment variable.
	Key string `json:"key"`
	// Value is the value found, when there is one.
	Value string `json:"value,omitempty"`
	// Message says what oci-ccm does with it.
	Message string `json:"message"`
	// Fix says what to change before switching; empty when nothing needs to change.
	Fix string `json:"fix,omitempty"`
}

// ServiceReport is what the check found on one Service.
type ServiceReport struct {
	// Service is "namespace/name".
	Service  string    `json:"service"`
	Findings []Finding `json:"findings"`
}

// Report is the check's outcome.
type Report struct {
	// CloudConfig is the file read.
	CloudConfig string `json:"cloudConfig"`
	// Config are the findings on the configuration: the file, the environment, the flags.
	Config []Finding `json:"config"`
	// ServicesChecked says whether Services were read (a kubeconfig was given and the
	// configuration loaded).
	ServicesChecked bool `json:"servicesChecked"`
	// Services are the Services of type LoadBalancer oci-ccm manages, by namespace and name.
	Services []ServiceReport `json:"services"`
	// OtherClass counts the Services of type LoadBalancer of another loadBalancerClass, which
	// oci-ccm leaves alone.
	OtherClass int `json:"otherClass"`
}

// Blocking counts the findings that block a switch: refused, or a new load balancer.
func (r *Report) Blocking() int {
	n := 0
	for _, f := range r.all() {
		if f.Severity == Refused || f.Severity == NewLoadBalancer {
			n++
		}
	}
	return n
}

// all returns every finding, the configuration's first.
func (r *Report) all() []Finding {
	out := slices.Clone(r.Config)
	for _, s := range r.Services {
		out = append(out, s.Findings...)
	}
	return out
}

// Summary is the report's last line: what was checked and how many findings of each severity.
func (r *Report) Summary() string {
	by := map[Severity]int{}
	for _, f := range r.all() {
		by[f.Severity]++
	}
	var parts []string
	for _, s := range []Severity{Refused, NewLoadBalancer, Differs, Warning} {
		parts = append(parts, fmt.Sprintf("%d %s", by[s], s))
	}
	what := "the configuration"
	if r.ServicesChecked {
		what += fmt.Sprintf(" and %d Service(s) of type LoadBalancer", len(r.Services))
		if r.OtherClass > 0 {
			what += fmt.Sprintf(" (%d of another loadBalancerClass ignored)", r.OtherClass)
		}
	}
	verdict := "ready to switch"
	if r.Blocking() > 0 {
		verdict = "NOT ready to switch: fix what is refused or would make a new load balancer"
	}
	return fmt.Sprintf("Checked %s: %s. %s.", what, strings.Join(parts, ", "), verdict)
}

// WriteText writes the report for a person: the configuration, then each Service, each finding
// with its fix, then the summary.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Configuration (%s and the environment)\n", r.CloudConfig)
	writeFindings(&b, r.Config, "no finding")
	if r.ServicesChecked {
		for _, s := range r.Services {
			fmt.Fprintf(&b, "\nService %s\n", s.Service)
			writeFindings(&b, s.Findings, "adopted as it is: nothing refused, nothing read differently")
		}
	}
	fmt.Fprintf(&b, "\n%s\n", r.Summary())
	_, err := io.WriteString(w, b.String())
	return err
}

func writeFindings(b *strings.Builder, fs []Finding, none string) {
	if len(fs) == 0 {
		fmt.Fprintf(b, "  %s\n", none)
		return
	}
	for _, f := range fs {
		what := f.Key
		if f.Value != "" {
			what += fmt.Sprintf(": %q", f.Value)
		}
		fmt.Fprintf(b, "  %-17s %s\n", f.Severity, what)
		fmt.Fprintf(b, "  %-17s %s\n", "", f.Message)
		switch {
		case f.Fix != "":
			fmt.Fprintf(b, "  %-17s fix: %s\n", "", f.Fix)
		case f.Severity == Differs:
			fmt.Fprintf(b, "  %-17s fix: none needed (lb/COMPATIBILITY.md)\n", "")
		}
	}
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
