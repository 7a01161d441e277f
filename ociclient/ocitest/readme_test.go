// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEBehaviourClassesAddUp: every row of README.md's behaviour tables ("| Behaviour |
// Evidence | Class |") has a class (same, kinder, stricter or assumed), no row is kinder than
// OCI, every assumed row names its harder choice, and the counts line matches the rows, so the
// tables cannot drift from the line that sums them up.
func TestREADMEBehaviourClassesAddUp(t *testing.T) {
	text, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	inTable, rows := false, 0
	for i, line := range strings.Split(string(text), "\n") {
		switch {
		case strings.HasPrefix(line, "| Behaviour | Evidence |"):
			if line != "| Behaviour | Evidence | Class |" {
				t.Errorf("README.md:%d: behaviour table without a Class column: %s", i+1, line)
			}
			inTable = true
		case inTable && strings.HasPrefix(line, "|---"):
		case inTable && strings.HasPrefix(line, "|"):
			cells := strings.Split(strings.TrimSuffix(line, " |"), " | ")
			class := cells[len(cells)-1]
			switch class {
			case "same", "stricter", "assumed", "kinder":
			default:
				t.Errorf("README.md:%d: class %q is not same, stricter, assumed or kinder", i+1, class)
				continue
			}
			if class == "kinder" {
				t.Errorf("README.md:%d: a behaviour kinder than OCI: %.80s…", i+1, line)
			}
			if class == "assumed" && !strings.Contains(strings.ToLower(line), "harder") {
				t.Errorf("README.md:%d: an assumed row that does not name its harder choice: %.80s…", i+1, line)
			}
			counts[class]++
			rows++
		default:
			inTable = false
		}
	}
	if rows == 0 {
		t.Fatal("no behaviour rows found in README.md")
	}
	m := regexp.MustCompile(`(?m)^Classes of the behaviour tables: (.*)$`).FindSubmatch(text)
	if m == nil {
		t.Fatal("README.md has no line \"Classes of the behaviour tables: …\"")
	}
	want := fmt.Sprintf("same %d · kinder %d · stricter %d · assumed %d", counts["same"], counts["kinder"], counts["stricter"], counts["assumed"])
	if string(m[1]) != want {
		t.Errorf("README.md counts line %q; the rows give %q", m[1], want)
	}
}
