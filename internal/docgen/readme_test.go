// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"os"
	"strings"
	"testing"
)

// The top README is one screen for a newcomer, and starts with the two commands they run (CI's
// .ci/run runs `make test` because the README says so).
func TestTheTopREADMEIsOneScreenStartingWithTheTwoCommands(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > 150 {
		t.Errorf("README.md has %d lines; keep it to 150 and move the rest beside what it describes (ccm/docs, the package READMEs)", len(lines))
	}
	var first []string // the first fenced block's commands
	in := false
	for _, l := range lines {
		if strings.HasPrefix(l, "```") {
			if in {
				break
			}
			in = true
			continue
		}
		if in {
			cmd, _, _ := strings.Cut(l, "#") // the command without its comment
			if cmd = strings.Join(strings.Fields(cmd), " "); cmd != "" {
				first = append(first, cmd)
			}
			continue
		}
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "# ") {
			t.Fatalf("README.md: %q comes before the two commands", l)
		}
	}
	if strings.Join(first, ", ") != "make demo, make test" {
		t.Errorf("README.md's first block runs %q, want make demo, make test", first)
	}
}
