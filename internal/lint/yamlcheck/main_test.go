// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"strings"
	"testing"
)

func TestCheckFindsEveryDocumentThatDoesNotParse(t *testing.T) {
	const service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\nspec:\n  ports:\n    - port: 80\n"
	for _, c := range []struct {
		name, data string
		want       []string
	}{
		{"a valid Service", service, nil},
		{"plain YAML, no Kubernetes object", "clusterName: a\nconfig:\n  key: x\n", nil},
		{"a kind the scheme does not know", "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nspec:\n  anything: 1\n", nil},
		{"a top level that is a list", "- a\n- b\n", nil},
		{"a misspelt field in the second document", service + "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: b\nspec:\n  prots: []\n",
			[]string{`document 2 (v1 Service): unknown field "spec.prots"`}},
		{"a duplicate key", "a: 1\na: 2\n", []string{`document 1: mapping key "a" already defined`}},
		{"broken indentation", "a:\n  b: 1\n c: 2\n---\nb: 1\n", []string{"document 1: did not find expected key"}},
		{"a duplicate key in a Kubernetes object", "apiVersion: v1\nkind: Service\nkind: Service\n", []string{`document 1: mapping key "kind" already defined`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Each error must name its document and say what is wrong; the wording around that
			// is the YAML library's.
			var got []string
			for _, err := range Check([]byte(c.data)) {
				got = append(got, err.Error())
			}
			if len(got) != len(c.want) {
				t.Fatalf("Check found %d problems, want %d: %q", len(got), len(c.want), got)
			}
			for i, w := range c.want {
				prefix, detail, _ := strings.Cut(w, ": ")
				if !strings.HasPrefix(got[i], prefix+": ") || !strings.Contains(got[i], detail) {
					t.Errorf("problem %d is %q; want it to start with %q and contain %q", i+1, got[i], prefix, detail)
				}
			}
		})
	}
}
