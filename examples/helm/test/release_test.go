// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package test

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/loader"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
)

// What `make release-test` packaged: the chart archive and the release version. The TestRelease
// tests fail without them; `make chart-test` leaves them out (-skip '^TestRelease').
const (
	envReleaseChart   = "OCI_CCM_RELEASE_CHART"
	envReleaseVersion = "OCI_CCM_RELEASE_VERSION"
)

// TestReleaseChartIsTheChartAtTheReleaseVersion loads the chart `make release` packaged, with
// Helm's loader as `helm install oci-ccm-X.Y.Z.tgz` does: its entries lie under oci-ccm/ with
// Chart.yaml first; Chart.yaml's version is the release's without the "v" and appVersion the
// release's; its templates, values and files are the chart directory's; and it renders as the
// directory does at that version, running the release's image tag.
func TestReleaseChartIsTheChartAtTheReleaseVersion(t *testing.T) {
	path, version := os.Getenv(envReleaseChart), os.Getenv(envReleaseVersion)
	if path == "" || version == "" {
		t.Fatalf("%s and %s are not set; run `make release-test`, which packages the chart and sets them", envReleaseChart, envReleaseVersion)
	}
	names := archiveNames(t, path)
	if len(names) == 0 || names[0] != "oci-ccm/Chart.yaml" {
		t.Errorf("the archive's first entry is not oci-ccm/Chart.yaml: %v", names)
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "oci-ccm/") {
			t.Errorf("entry %s lies outside the chart's directory oci-ccm/", n)
		}
	}

	packaged, source := loadV2(t, path), loadV2(t, chartDir)
	if packaged.Metadata.Version != strings.TrimPrefix(version, "v") || packaged.Metadata.AppVersion != version {
		t.Errorf("packaged chart version %q appVersion %q, want %q and %q",
			packaged.Metadata.Version, packaged.Metadata.AppVersion, strings.TrimPrefix(version, "v"), version)
	}
	source.Metadata.Version, source.Metadata.AppVersion = packaged.Metadata.Version, packaged.Metadata.AppVersion
	if diff := cmp.Diff(source.Metadata, packaged.Metadata); diff != "" {
		t.Errorf("Chart.yaml (-directory +packaged):\n%s", diff)
	}
	for _, c := range []struct {
		what                  string
		fromSource, fromChart []*common.File
	}{{"templates", source.Templates, packaged.Templates}, {"files", source.Files, packaged.Files}} {
		if diff := cmp.Diff(fileMap(c.fromSource), fileMap(c.fromChart)); diff != "" {
			t.Errorf("%s (-directory +packaged):\n%s", c.what, diff)
		}
	}
	if diff := cmp.Diff(source.Values, packaged.Values); diff != "" {
		t.Errorf("values (-directory +packaged):\n%s", diff)
	}

	want, err := renderChart(t, source, requiredValues)
	if err != nil {
		t.Fatal(err)
	}
	got, err := renderChart(t, packaged, requiredValues)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(join(want), join(got)); diff != "" {
		t.Errorf("rendered (-directory at the release version +packaged):\n%s", diff)
	}
	if image := "image: ghcr.io/oci-ccm/oci-cloud-controller-manager:" + version; !strings.Contains(join(got), image) {
		t.Errorf("the packaged chart does not run %q:\n%s", image, join(got))
	}
}

// loadV2 loads a chart (directory or archive) with Helm's loader.
func loadV2(t *testing.T, path string) *chartv2.Chart {
	t.Helper()
	c, err := loader.Load(path)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	v2, ok := c.(*chartv2.Chart)
	if !ok {
		t.Fatalf("%s: a %T, want an apiVersion v2 chart", path, c)
	}
	return v2
}

func fileMap(files []*common.File) map[string]string {
	m := map[string]string{}
	for _, f := range files {
		m[f.Name] = string(f.Data)
	}
	return m
}

// archiveNames lists the entries of a gzip tar, in order.
func archiveNames(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		names = append(names, h.Name)
	}
}
