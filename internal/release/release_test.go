// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const (
	chartDir  = "../../examples/helm/oci-ccm"
	deployDir = "../../examples/deploy"
)

// entry is a chart archive's entry as the tests compare it.
type entry struct {
	Name     string
	Mode     int64
	UID, GID int
	Time     time.Time
	Data     string
}

func readArchive(t *testing.T, path string) []entry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out []entry
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			t.Errorf("%s: type %q, want regular files only (as helm package writes)", h.Name, h.Typeflag)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{h.Name, h.Mode, h.Uid, h.Gid, h.ModTime, string(body)})
	}
}

// TestChartPackageIsHelmsFormatAtTheReleaseVersion packages the repository's chart: one gzip tar
// oci-ccm-<version without v>.tgz, Chart.yaml first with the versions set (its comments kept),
// values.yaml next, then the templates and the other files, each as in the directory, all under
// oci-ccm/ with fixed mode, owner and time.
func TestChartPackageIsHelmsFormatAtTheReleaseVersion(t *testing.T) {
	out := t.TempDir()
	created := time.Unix(1796531573, 0)
	path, err := PackageChart(chartDir, "v1.2.3-rc.1", created, out)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "oci-ccm-1.2.3-rc.1.tgz" {
		t.Errorf("archive %s, want oci-ccm-1.2.3-rc.1.tgz", filepath.Base(path))
	}
	got := readArchive(t, path)
	var names []string
	for _, e := range got {
		names = append(names, e.Name)
		if e.Mode != 0o644 || e.UID != 0 || e.GID != 0 || !e.Time.Equal(created) {
			t.Errorf("%s: mode %o owner %d:%d time %v, want 644 0:0 %v", e.Name, e.Mode, e.UID, e.GID, e.Time, created)
		}
		if e.Name == "oci-ccm/Chart.yaml" {
			continue
		}
		src, err := os.ReadFile(filepath.Join(chartDir, strings.TrimPrefix(e.Name, "oci-ccm/")))
		if err != nil || string(src) != e.Data {
			t.Errorf("%s is not the directory's file (%v)", e.Name, err)
		}
	}
	// After the templates, the other files in the order Helm's loader walks them (lexical):
	// .helmignore, then the CRDs Helm installs before the templates.
	others := slices.IndexFunc(names[min(2, len(names)):], func(n string) bool { return !strings.HasPrefix(n, "oci-ccm/templates/") }) + 2
	if len(names) < 4 || names[0] != "oci-ccm/Chart.yaml" || names[1] != "oci-ccm/values.yaml" ||
		!strings.HasPrefix(names[2], "oci-ccm/templates/") || others < 3 ||
		!slices.Equal(names[others:], []string{"oci-ccm/.helmignore", "oci-ccm/crds/backendsetbinding-crd.yaml"}) {
		t.Errorf("entries %v: want Chart.yaml, values.yaml, the templates, then the other files (.helmignore, crds/)", names)
	}
	src, err := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := versionLine.ReplaceAllString(string(src), `version: "1.2.3-rc.1"`)
	want = appVersionLine.ReplaceAllString(want, `appVersion: "v1.2.3-rc.1"`)
	if diff := cmp.Diff(want, got[0].Data); diff != "" || !strings.Contains(want, "\n# ") {
		t.Errorf("Chart.yaml (-want +packaged):\n%s", diff)
	}

	// Again, elsewhere: the same bytes.
	again, err := PackageChart(chartDir, "v1.2.3-rc.1", created, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(path)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Error("packaging the chart twice gave different archives")
	}
}

// TestChartPackageLeavesOutWhatHelmignoreNames, and refuses a .helmignore pattern it would not
// read as Helm does.
func TestChartPackageLeavesOutWhatHelmignoreNames(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"Chart.yaml":                "apiVersion: v2\nname: c\nversion: 0.1.0\nappVersion: v0.1.0\n",
		"values.yaml":               "a: 1\n",
		".helmignore":               "# comment\n*.swp\n\n*~\n",
		"templates/a.yaml":          "kind: A\n",
		"templates/.a.yaml.swp":     "x",
		"templates/b.yaml~":         "x",
		"README.md":                 "# c\n",
		"templates/sub/helpers.tpl": "{{/* */}}\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path, err := PackageChart(dir, "v2.0.0", time.Unix(0, 0), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range readArchive(t, path) {
		names = append(names, e.Name)
	}
	want := []string{"c/Chart.yaml", "c/values.yaml", "c/templates/a.yaml", "c/templates/sub/helpers.tpl", "c/.helmignore", "c/README.md"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}

	for _, pattern := range []string{"templates/*.yaml", "!keep.swp", "**/x", "[a"} {
		if err := os.WriteFile(filepath.Join(dir, ".helmignore"), []byte(pattern+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := PackageChart(dir, "v2.0.0", time.Unix(0, 0), t.TempDir()); err == nil {
			t.Errorf(".helmignore %q: packaged, want the pattern refused", pattern)
		}
	}
}

func TestChartVersionsMustBeSetOnce(t *testing.T) {
	for _, chartYAML := range []string{
		"name: c\nappVersion: v1\n",                         // no version
		"name: c\nversion: 1\n",                             // no appVersion
		"name: c\nversion: 1\nappVersion: v1\nversion: 2\n", // twice
		"version: 1\nappVersion: v1\n",                      // no name
	} {
		if _, _, err := setChartVersions([]byte(chartYAML), "1.0.0", "v1.0.0"); err == nil {
			t.Errorf("%q: versions set, want an error", chartYAML)
		}
	}
	if _, err := PackageChart(chartDir, "1.0.0", time.Unix(0, 0), t.TempDir()); !errors.Is(err, ErrVersion) {
		t.Errorf("PackageChart with version 1.0.0: %v, want ErrVersion", err)
	}
}

const pinned = "ghcr.io/oci-ccm/oci-cloud-controller-manager:v1.2.3@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// TestManifestsRunThePinnedImage renders examples/deploy: the daemonset's image field and its
// comment name the pinned image, no other tag of it is left, and rbac.yaml and the CRD are copied
// unchanged.
func TestManifestsRunThePinnedImage(t *testing.T) {
	out := t.TempDir()
	if err := RenderManifests(deployDir, out, pinned, "daemonset.yaml", "rbac.yaml", "backendsetbinding-crd.yaml"); err != nil {
		t.Fatal(err)
	}
	ds, err := os.ReadFile(filepath.Join(out, "daemonset.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ds), "\n          image: "+pinned+"\n") {
		t.Errorf("daemonset.yaml does not run %s:\n%s", pinned, ds)
	}
	if n, pins := strings.Count(string(ds), exampleImage), strings.Count(string(ds), pinned); n != pins || n < 2 {
		t.Errorf("daemonset.yaml names the image %d times, %d of them pinned; want every one (the comment and the field)", n, pins)
	}
	for _, name := range []string{"rbac.yaml", "backendsetbinding-crd.yaml"} {
		src, _ := os.ReadFile(filepath.Join(deployDir, name))
		got, _ := os.ReadFile(filepath.Join(out, name))
		if string(src) != string(got) || len(got) == 0 {
			t.Errorf("%s changed in rendering", name)
		}
	}
}

// TestManifestsWithAnotherImageAreRefused: an image field naming another image would keep
// running it in a release.
func TestManifestsWithAnotherImageAreRefused(t *testing.T) {
	dir := t.TempDir()
	manifest := "containers:\n  - name: a\n    image: " + exampleImage + ":v0.1.0\n  - name: b\n    image: busybox:1\n"
	if err := os.WriteFile(filepath.Join(dir, "ds.yaml"), []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := RenderManifests(dir, t.TempDir(), pinned, "ds.yaml"); err == nil {
		t.Error("rendered a manifest running busybox, want an error")
	}
}

// TestChecksumsListEveryFileOnceInOrder, in `sha256sum -c`'s format, leaving out the checksums
// file itself (also when it exists from an earlier run).
func TestChecksumsListEveryFileOnceInOrder(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"b.txt": "b", "a/z.json": "", "SHA256SUMS": "old"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteChecksums(dir); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, ChecksumsFile))
	want := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a/z.json\n" +
		"3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d  b.txt\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("SHA256SUMS (-want +got):\n%s", diff)
	}
}

func TestIndexDigestIsTheEntryTaggedWithTheVersion(t *testing.T) {
	dir := t.TempDir()
	index := `{"schemaVersion":2,"manifests":[
 {"mediaType":"application/vnd.oci.image.index.v1+json","digest":"sha256:aaaa","annotations":{"org.opencontainers.image.ref.name":"v1.0.0"}},
 {"mediaType":"application/vnd.oci.image.index.v1+json","digest":"sha256:bbbb","annotations":{"org.opencontainers.image.ref.name":"v1.2.3"}}]}`
	if err := os.WriteFile(filepath.Join(dir, "index.json"), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := indexDigest(dir, "v1.2.3"); err != nil || got != "sha256:bbbb" {
		t.Errorf("indexDigest(v1.2.3) = %q, %v; want sha256:bbbb", got, err)
	}
	if got, err := indexDigest(dir, "v9.9.9"); err == nil {
		t.Errorf("indexDigest(v9.9.9) = %q, want an error: no such tag", got)
	}
}
