// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/oci-ccm/oci-ccm/internal/iampolicy"
)

// The lines of the tutorial (ccm/docs/tutorial.md) between which the IAM policy is copied from
// seclist/README.md, the one the tests prove sufficient and minimal, so the copy a newcomer reads
// is never another policy.
const (
	BeginPolicyMarker = "<!-- BEGIN GENERATED IAM POLICY: copied from seclist/README.md by make generate -->"
	EndPolicyMarker   = "<!-- END GENERATED IAM POLICY -->"
)

// runPolicy copies the statements of source's IAM policy section into readme (the page holding
// the copy) as a code block, or with check reports a stale copy.
func runPolicy(source, readme string, check bool) error {
	statements, err := iampolicy.FromFile(source)
	if err != nil {
		return err
	}
	current, err := os.ReadFile(readme)
	if err != nil {
		return err
	}
	block := "```\n" + strings.Join(statements, "\n") + "\n```\n"
	updated, err := spliceBetween(string(current), block, BeginPolicyMarker, EndPolicyMarker)
	if err != nil {
		return fmt.Errorf("%s: %w", readme, err)
	}
	if updated == string(current) {
		return nil
	}
	if check {
		return fmt.Errorf("%s is stale: its IAM policy differs from %s's; run `make generate`", readme, source)
	}
	return os.WriteFile(readme, []byte(updated), 0o644)
}

// writePolicy writes the statements of source's IAM policy section to file, one a line: the
// text to paste into a policy in the OCI console.
func writePolicy(source, file string) error {
	statements, err := iampolicy.FromFile(source)
	if err != nil {
		return err
	}
	return os.WriteFile(file, []byte(strings.Join(statements, "\n")+"\n"), 0o644)
}
