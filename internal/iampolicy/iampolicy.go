// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package iampolicy reads the IAM policy the CCM documents in seclist/README.md (section "IAM
// policy"), so the tests that prove it sufficient and minimal, and the e2e suite that runs under
// it, use the statements a user copies, not a copy of them.
package iampolicy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Heading is the README section whose first fenced code block holds the statements.
const Heading = "## IAM policy"

// OtherCompartmentHeading is the README subsection whose first fenced code block holds the
// statements a Service's load balancer needs in a compartment of its own
// (oci.oraclecloud.com/compartment-id), written with OtherCompartment.
const OtherCompartmentHeading = "### Load balancers in another compartment"

// ErrNoPolicy is returned when the README has no statements under Heading.
var ErrNoPolicy = errors.New("no IAM policy statements found")

// Placeholders the README's statements use.
const (
	// DynamicGroup stands for the dynamic group (or group) of the CCM's principal.
	DynamicGroup = "<dg>"
	// Compartment stands for the compartment of the resources a statement covers.
	Compartment = "<c>"
	// OtherCompartment stands for a compartment a Service names for its load balancer.
	OtherCompartment = "<lbc>"
)

// FromFile reads the statements from a README file; see Parse.
func FromFile(path string) ([]string, error) { return FromFileUnder(path, Heading) }

// FromFileUnder reads the statements under heading from a README file; see ParseUnder.
func FromFileUnder(path, heading string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read IAM policy: %w", err)
	}
	st, err := ParseUnder(b, heading)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

// Parse returns the lines of the first fenced code block after the line Heading, trimmed, blank
// lines left out.
func Parse(readme []byte) ([]string, error) { return ParseUnder(readme, Heading) }

// ParseUnder is Parse for the section under heading (a line of its own, such as Heading or
// OtherCompartmentHeading).
func ParseUnder(readme []byte, heading string) ([]string, error) {
	sc := bufio.NewScanner(bytes.NewReader(readme))
	inSection, inBlock := false, false
	var out []string
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case !inSection:
			inSection = line == heading
		case strings.HasPrefix(line, "```"):
			if inBlock {
				return out, nil
			}
			inBlock = true
		case inBlock && line != "":
			out = append(out, line)
		case !inBlock && strings.HasPrefix(line, "## "):
			return nil, fmt.Errorf("%w: section %q has no code block", ErrNoPolicy, heading)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if inBlock {
		return nil, fmt.Errorf("%w: the code block under %q is not closed", ErrNoPolicy, heading)
	}
	return nil, fmt.Errorf("%w: no section %q", ErrNoPolicy, heading)
}

// Substitute replaces the placeholders in every statement; compartment stands for both
// Compartment and OtherCompartment.
func Substitute(statements []string, dynamicGroup, compartment string) []string {
	r := strings.NewReplacer(DynamicGroup, dynamicGroup, Compartment, compartment, OtherCompartment, compartment)
	out := make([]string, len(statements))
	for i, s := range statements {
		out[i] = r.Replace(s)
	}
	return out
}
