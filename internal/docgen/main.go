// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Command docgen renders the annotation reference in lb/README.md from the doc comments of the
// annotation.Name constants, the metrics table in ccm/docs/metrics.md from the metric definitions
// (name, type, labels, help), the table of oci-ccm's Event reasons in ccm/docs/events.md from
// the Event… constants of ccm/service/internal/kube/events.go and their doc comments, and the tutorial's copy
// of the IAM policy (ccm/docs/tutorial.md) from seclist/README.md (the one the tests prove), so
// the documentation cannot drift from the code.
//
//	go generate ./lb                 # rewrite the table (lb/doc.go runs docgen -dir annotation)
//	go run ./internal/docgen -check  # fail if any of the four is stale (make lint)
//	go run ./internal/docgen -policy FILE  # only write the IAM policy to FILE (make release)
//
// Every constant of type Name needs a doc comment whose first paragraph describes it and
// which carries "Type:", "Default:" and "Example:" lines. The table replaces what lies between
// the BeginMarker and EndMarker lines of the README; the metrics table what lies between
// BeginMetricsMarker and EndMetricsMarker.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	dir := flag.String("dir", "lb/annotation", "directory of the package declaring the annotation.Name constants")
	readme := flag.String("readme", "", "README to update (default <dir>/README.md)")
	check := flag.Bool("check", false, "do not write; exit 1 if a generated page is stale")
	metricDirs := flag.String("metrics", "ociclient,internal/prommetrics",
		"comma-separated directories (from the module root) whose metric definitions are documented")
	metricsReadme := flag.String("metrics-readme", "ccm/docs/metrics.md", "page (from the module root) holding the metrics table")
	eventsSource := flag.String("events", "ccm/service/internal/kube/events.go", "file (from the module root) declaring the Event… reason constants")
	eventsDoc := flag.String("events-doc", "ccm/docs/events.md", "page (from the module root) holding the Events table")
	policyDoc := flag.String("policy-doc", "ccm/docs/tutorial.md", "page (from the module root) holding the copy of the IAM policy")
	policy := flag.String("policy", "", "only write the IAM policy's statements to this file, one a line (a release artifact)")
	flag.Parse()
	if *policy != "" {
		root, err := moduleRoot()
		if err == nil {
			err = writePolicy(filepath.Join(root, "seclist", "README.md"), *policy)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "docgen:", err)
			os.Exit(1)
		}
		return
	}
	if *readme == "" {
		*readme = filepath.Join(*dir, "..", "README.md")
	}
	if err := run(*dir, *readme, *check); err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
	root, err := moduleRoot()
	if err == nil {
		var dirs []string
		for _, d := range strings.Split(*metricDirs, ",") {
			dirs = append(dirs, filepath.Join(root, d))
		}
		err = runMetrics(dirs, filepath.Join(root, *metricsReadme), *check)
	}
	if err == nil {
		err = runPolicy(filepath.Join(root, "seclist", "README.md"), filepath.Join(root, *policyDoc), *check)
	}
	if err == nil {
		err = runEvents(filepath.Join(root, *eventsSource), filepath.Join(root, *eventsDoc), *check)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
}

func run(dir, readme string, check bool) error {
	anns, err := parseAnnotations(dir)
	if err != nil {
		return err
	}
	return updateBetween(readme, renderTable(anns), BeginMarker, EndMarker, check, "run `go generate ./lb`")
}
