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

const metricsFixture = `package fix

import "k8s.io/component-base/metrics"

const sub = "fix"

func newMetrics() {
	_ = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem: sub,
		Name:      "calls_total",
		Help:      "Calls, by op | outcome.",
	}, []string{"op", "outcome"})
	_ = metrics.NewHistogram(&metrics.HistogramOpts{Namespace: "x", Name: "wait_seconds", Help: "Waits."})
}
`

func TestMetricsTableIsRenderedFromTheDefinitions(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "m.go"), []byte(metricsFixture), 0o644); err != nil {
		t.Fatal(err)
	}
	readme := filepath.Join(dir, "README.md")
	if err := os.WriteFile(readme, []byte("# T\n"+BeginMetricsMarker+"\nold\n"+EndMetricsMarker+"\nTail.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dirs := []string{filepath.Join(dir, "moved-away"), dir} // a missing directory is skipped
	if err := runMetrics(dirs, readme, true); err == nil {
		t.Fatal("check mode accepted a stale README")
	}
	if err := runMetrics(dirs, readme, false); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(readme)
	want := "# T\n" + BeginMetricsMarker + "\n\n" +
		"| Metric | Type | Labels | Description |\n|---|---|---|---|\n" +
		"| `fix_calls_total` | counter | `op`, `outcome` | Calls, by op \\| outcome. |\n" +
		"| `x_wait_seconds` | histogram | — | Waits. |\n" +
		"\n" + EndMetricsMarker + "\nTail.\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("README (-want +got):\n%s", diff)
	}
	if err := runMetrics(dirs, readme, true); err != nil {
		t.Errorf("check after generating: %v", err)
	}
}

func TestMetricsWithoutDefinitionsIsAnError(t *testing.T) {
	if _, err := parseMetrics([]string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no metric definitions") {
		t.Errorf("parseMetrics of a directory without metrics: %v", err)
	}
}
