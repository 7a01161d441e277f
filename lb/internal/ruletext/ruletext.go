// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package ruletext holds the one text form of a rule-set rule (model.RuleSet.Rules): lb writes the
// annotation's rules in it and lb/oci/loadbalancer reads OCI's into it, so the two compare as
// text.
package ruletext

import (
	"bytes"
	"encoding/json"
)

// Canonical rewrites a rule's JSON with keys sorted, null fields dropped (at every depth:
// the SDK writes an unset field as null) and no spaces, so the annotation's rules and those OCI
// returns compare as text: Observe reads OCI's rules into it, and package lb the annotation's.
func Canonical(text []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	out, err := json.Marshal(dropNulls(v))
	return string(out), err
}

func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = dropNulls(e)
		}
	case []any:
		for i, e := range x {
			x[i] = dropNulls(e)
		}
	}
	return v
}
