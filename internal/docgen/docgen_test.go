// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const fixture = `package fix

// Name is a key.
type Name string

const (
	// Colour picks the colour | or not.
	// More words.
	//
	// Type: string, one of red, blue
	// Default: red
	// Example: "blue"
	Colour Name = "example.com/colour"

	// notDocumented is not a Name and is skipped.
	notDocumented = "x"
)
`

func writeFixture(t *testing.T, src, readme string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRunRendersTableBetweenMarkers(t *testing.T) {
	dir := writeFixture(t, fixture, "# Title\n\n"+BeginMarker+"\nold table\n"+EndMarker+"\n\nTail.\n")
	readme := filepath.Join(dir, "README.md")
	if err := run(dir, readme, true); err == nil {
		t.Fatal("check mode accepted a stale README")
	}
	if err := run(dir, readme, false); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(readme)
	want := "# Title\n\n" + BeginMarker + "\n\n" +
		"| Annotation | Type | Default | Example | Description |\n" +
		"|---|---|---|---|---|\n" +
		"| `example.com/colour` | string, one of red, blue | red | `\"blue\"` | Picks the colour \\| or not. More words. |\n" +
		"\n" + EndMarker + "\n\nTail.\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("README (-want +got):\n%s", diff)
	}
	if err := run(dir, readme, true); err != nil {
		t.Errorf("check mode after generating: %v", err)
	}
}

func TestRunRefusesUndocumentedAnnotations(t *testing.T) {
	src := strings.Replace(fixture, "\t// Default: red\n", "", 1)
	dir := writeFixture(t, src, BeginMarker+"\n"+EndMarker+"\n")
	err := run(dir, filepath.Join(dir, "README.md"), false)
	if err == nil || !strings.Contains(err.Error(), "lacks Default:") {
		t.Errorf("run = %v, want an error naming the missing Default line", err)
	}
}

func TestRunNeedsMarkers(t *testing.T) {
	dir := writeFixture(t, fixture, "# no markers\n")
	if err := run(dir, filepath.Join(dir, "README.md"), false); err == nil {
		t.Error("run accepted a README without markers")
	}
}

// TestLBReadmeIsUpToDate is the check `make lint` runs, as a test.
func TestLBReadmeIsUpToDate(t *testing.T) {
	if err := run("../../lb/annotation", "../../lb/README.md", true); err != nil {
		t.Error(err)
	}
}
