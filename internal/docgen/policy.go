// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
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
	block := "```\n" + strings.Join(statements, "\n") + "\n```\n"
	return updateBetween(readme, block, BeginPolicyMarker, EndPolicyMarker, check, "its IAM policy differs from "+source+"'s; run `make generate`")
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
