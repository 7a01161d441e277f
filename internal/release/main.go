// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Command release writes the release artifacts that do not need go-containerregistry (the
// multi-arch image comes from internal/image, the IAM policy from internal/docgen): the deploy
// manifests with the image pinned by the index digest, the packaged Helm chart, and the
// checksums of everything in the release directory. `make release VERSION=vX.Y.Z` runs it
// last; `-check` only checks VERSION, which make does first.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	version := flag.String("version", "", "the release version, vMAJOR.MINOR.PATCH[-PRERELEASE] (required)")
	check := flag.Bool("check", false, "only check -version and exit")
	out := flag.String("out", "", "the release directory (required); the checksums cover every file in it")
	layoutDir := flag.String("layout", "", "the multi-arch image's OCI layout, tagged -version (default <out>/image)")
	repo := flag.String("image-repo", exampleImage, "the image's repository, to which the manifests are pinned")
	chart := flag.String("chart", "examples/helm/oci-ccm", "the Helm chart's directory")
	deploy := flag.String("deploy", "examples/deploy", "the directory of daemonset.yaml, rbac.yaml and backendsetbinding-crd.yaml")
	created := flag.Int64("created", 0, "the chart's file times, in Unix seconds (SOURCE_DATE_EPOCH)")
	flag.Parse()

	err := CheckVersion(*version)
	if err == nil && !*check {
		if *layoutDir == "" {
			*layoutDir = filepath.Join(*out, "image")
		}
		err = run(*version, *out, *layoutDir, *repo, *chart, *deploy, time.Unix(*created, 0))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(version, out, layoutDir, repo, chart, deploy string, created time.Time) error {
	if out == "" {
		return fmt.Errorf("-out is required")
	}
	digest, err := indexDigest(layoutDir, version)
	if err != nil {
		return err
	}
	pinned := repo + ":" + version + "@" + digest
	if err := RenderManifests(deploy, out, pinned, "daemonset.yaml", "rbac.yaml", "backendsetbinding-crd.yaml"); err != nil {
		return err
	}
	tgz, err := PackageChart(chart, version, created, out)
	if err != nil {
		return err
	}
	if err := WriteChecksums(out); err != nil {
		return err
	}
	fmt.Printf("image   %s\nchart   %s\nsums    %s\n", pinned, tgz, filepath.Join(out, ChecksumsFile))
	return nil
}

// indexDigest returns the digest of the manifest that an OCI image layout's index.json names
// by the tag (annotation org.opencontainers.image.ref.name, as `make release` writes it).
func indexDigest(layoutDir, tag string) (string, error) {
	data, err := os.ReadFile(filepath.Join(layoutDir, "index.json"))
	if err != nil {
		return "", err
	}
	var index struct {
		Manifests []struct {
			Digest      string            `json:"digest"`
			Annotations map[string]string `json:"annotations"`
		} `json:"manifests"`
	}
	if err := json.Unmarshal(data, &index); err != nil {
		return "", fmt.Errorf("%s/index.json: %w", layoutDir, err)
	}
	var found []string
	for _, m := range index.Manifests {
		if m.Annotations["org.opencontainers.image.ref.name"] == tag {
			found = append(found, m.Digest)
		}
	}
	if len(found) != 1 || !strings.HasPrefix(found[0], "sha256:") {
		return "", fmt.Errorf("%s/index.json: want one sha256 manifest tagged %q, found %q", layoutDir, tag, found)
	}
	return found[0], nil
}
