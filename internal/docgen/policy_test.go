// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPolicyIsCopiedFromTheProvenOne(t *testing.T) {
	dir := t.TempDir()
	source := filepath.Join(dir, "seclist.md")
	readme := filepath.Join(dir, "README.md")
	if err := os.WriteFile(source, []byte("# x\n## IAM policy\n\n```\nAllow group g to manage load-balancers in compartment c\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(readme, []byte("a\n"+BeginPolicyMarker+"\nAllow everything\n"+EndPolicyMarker+"\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runPolicy(source, readme, true); err == nil {
		t.Fatal("check mode accepted a README whose policy differs")
	}
	if err := runPolicy(source, readme, false); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(readme)
	want := "a\n" + BeginPolicyMarker + "\n\n```\nAllow group g to manage load-balancers in compartment c\n```\n\n" + EndPolicyMarker + "\nb\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("README (-want +got):\n%s", diff)
	}
}

func TestPolicyFileHoldsTheProvenStatementsOneALine(t *testing.T) {
	dir := t.TempDir()
	source := filepath.Join(dir, "seclist.md")
	file := filepath.Join(dir, "iam-policy.txt")
	if err := os.WriteFile(source, []byte("# x\n## IAM policy\n\ntext\n\n```\nAllow group g to manage load-balancers in compartment c\n\nAllow group g to use vnics in compartment c\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writePolicy(source, file); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	want := "Allow group g to manage load-balancers in compartment c\nAllow group g to use vnics in compartment c\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("policy file (-want +got):\n%s", diff)
	}
}
