// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package compatdata is the machine-readable form of lb/COMPATIBILITY.md: every upstream Service
// annotation (with its edge values), cloud-provider.yaml key and environment variable, with what
// oci-ccm does with it. internal/compat writes compatibility.json from the same classification
// that renders the page (`go generate ./internal/compat`; `make lint` fails when it is stale), so
// a program reading this package (the preflight check) cannot drift from the page.
package compatdata

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

// Status is what oci-ccm does with an upstream key or value, as the comparison's verdict column
// says it.
type Status string

// The statuses, as in lb/COMPATIBILITY.md.
const (
	Supported            Status = "supported"
	SupportedDifferently Status = "supported, with a difference"
	Refused              Status = "refused"
	RefusedAsUpstream    Status = "refused, as upstream"
)

// Table is the whole comparison.
type Table struct {
	// Annotations are the upstream Service annotations by key.
	Annotations map[string]Key `json:"annotations"`
	// Config are the upstream cloud-provider.yaml keys by dotted path.
	Config map[string]Key `json:"config"`
	// Environment are the upstream environment variables by name.
	Environment map[string]Key `json:"environment"`
}

// Key is one row: an annotation or key with the sample value of its main row, and its edge
// values.
type Key struct {
	Status Status `json:"status"`
	// Note is the documented difference (SupportedDifferently) or the refusal's message. A
	// config key's leaves out the warning config.Load gives for it.
	Note string `json:"note,omitempty"`
	// Edges are further values of the key read differently, or refused.
	Edges []Edge `json:"edges,omitempty"`
}

// Edge is one sample value of an annotation with what it needs beside it.
type Edge struct {
	Value string `json:"value"`
	// AnyValue says the outcome holds for every value of the key, Value being an example.
	AnyValue bool `json:"anyValue,omitempty"`
	// With are the annotations the sample carries beside the key, each with its value (matched in
	// any letter case).
	With map[string]string `json:"with,omitempty"`
	// Without are the annotations the main row's sample carries beside the key and this sample
	// leaves out: their absence is what makes the value read differently.
	Without []string `json:"without,omitempty"`
	// Condition is what else the sample needs (a Service field, a configuration value), as text.
	Condition string `json:"condition,omitempty"`
	Status    Status `json:"status"`
	Note      string `json:"note,omitempty"`
}

// Matches says whether a Service carrying annotations has the edge's value for key (any value
// with AnyValue) and what it needs beside it. The Condition is not checked.
func (e Edge) Matches(key string, annotations map[string]string) bool {
	v, ok := annotations[key]
	if !ok || (v != e.Value && !e.AnyValue) {
		return false
	}
	for k, want := range e.With {
		if got, ok := annotations[k]; !ok || !strings.EqualFold(got, want) {
			return false
		}
	}
	for _, k := range e.Without {
		if _, ok := annotations[k]; ok {
			return false
		}
	}
	return true
}

// FileName is the file Load reads, beside this package's source.
const FileName = "compatibility.json"

//go:embed compatibility.json
var data []byte

// Load returns the comparison compatibility.json holds.
func Load() (*Table, error) {
	var t Table
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("compatdata: %s: %w", FileName, err)
	}
	return &t, nil
}

// Marshal renders t as compatibility.json holds it: indented, keys sorted, ending in a newline.
func Marshal(t *Table) (string, error) {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return "", err
	}
	return string(b) + "\n", nil
}
