// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// chartMeta is what packaging reads from Chart.yaml.
type chartMeta struct {
	Name       string `yaml:"name"`
	Version    string `yaml:"version"`
	AppVersion string `yaml:"appVersion"`
}

// versionLine and appVersionLine are Chart.yaml's top-level version keys. Packaging replaces
// their values in the text, so the file keeps its comments and order.
var (
	versionLine    = regexp.MustCompile(`(?m)^version:.*$`)
	appVersionLine = regexp.MustCompile(`(?m)^appVersion:.*$`)
)

// PackageChart writes the chart in dir as outDir/<name>-<chart version>.tgz, the archive `helm
// package` writes: a gzip tar whose entries all lie under the chart's name, Chart.yaml first,
// then values.yaml, the templates and the other files, leaving out what .helmignore names.
// Chart.yaml's version is the release version without its "v" and appVersion the release
// version (the image tag the chart runs by default). Every entry is a regular file of mode 0644
// owned by 0:0 with time modTime, so the same chart and inputs give the same bytes.
// It returns the archive's path.
func PackageChart(dir, version string, modTime time.Time, outDir string) (string, error) {
	if err := CheckVersion(version); err != nil {
		return "", err
	}
	chartYAML, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return "", err
	}
	chartYAML, meta, err := setChartVersions(chartYAML, chartVersion(version), version)
	if err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Join(dir, "Chart.yaml"), err)
	}
	files, err := chartFiles(dir)
	if err != nil {
		return "", err
	}

	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf) // no name, no time in the gzip header
	tw := tar.NewWriter(zw)
	for _, name := range files {
		data := chartYAML
		if name != "Chart.yaml" {
			if data, err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
				return "", err
			}
		}
		h := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     meta.Name + "/" + name,
			Mode:     0o644,
			Size:     int64(len(data)),
			ModTime:  modTime.UTC(),
		}
		if err := tw.WriteHeader(h); err != nil {
			return "", fmt.Errorf("chart entry %s: %w", h.Name, err)
		}
		if _, err := tw.Write(data); err != nil {
			return "", err
		}
	}
	if err := errors.Join(tw.Close(), zw.Close()); err != nil {
		return "", err
	}
	out := filepath.Join(outDir, meta.Name+"-"+meta.Version+".tgz")
	return out, os.WriteFile(out, buf.Bytes(), 0o644)
}

// setChartVersions returns Chart.yaml with version and appVersion set, and what it then says.
func setChartVersions(chartYAML []byte, version, appVersion string) ([]byte, chartMeta, error) {
	for _, re := range []*regexp.Regexp{versionLine, appVersionLine} {
		if n := len(re.FindAll(chartYAML, -1)); n != 1 {
			return nil, chartMeta{}, fmt.Errorf("want one line matching %s, found %d", re, n)
		}
	}
	// Quoted, so that neither is read as a number ("1.2" would be a float).
	out := versionLine.ReplaceAllLiteral(chartYAML, []byte("version: "+quote(version)))
	out = appVersionLine.ReplaceAllLiteral(out, []byte("appVersion: "+quote(appVersion)))
	var meta chartMeta
	if err := yaml.Unmarshal(out, &meta); err != nil {
		return nil, chartMeta{}, err
	}
	if meta.Name == "" || meta.Version != version || meta.AppVersion != appVersion {
		return nil, chartMeta{}, fmt.Errorf("after setting the versions it reads name %q version %q appVersion %q",
			meta.Name, meta.Version, meta.AppVersion)
	}
	return out, meta, nil
}

func quote(s string) string { return `"` + s + `"` }

// chartFiles lists the chart's files as slash paths relative to dir, in the order `helm package`
// writes them: Chart.yaml, values.yaml, values.schema.json, the templates, then the rest, each
// group by name. Files .helmignore matches are left out, as are directories.
func chartFiles(dir string) ([]string, error) {
	ignored, err := helmignore(filepath.Join(dir, ".helmignore"))
	if err != nil {
		return nil, err
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file; a chart holds only files and directories", p)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if !ignored(path.Base(filepath.ToSlash(rel))) {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rank := func(name string) int {
		switch {
		case name == "Chart.yaml":
			return 0
		case name == "values.yaml":
			return 1
		case name == "values.schema.json":
			return 2
		case strings.HasPrefix(name, "templates/"):
			return 3
		}
		return 4
	}
	slices.SortFunc(files, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	if len(files) == 0 || files[0] != "Chart.yaml" {
		return nil, fmt.Errorf("%s holds no Chart.yaml", dir)
	}
	return files, nil
}

// helmignore reads a .helmignore (a missing one ignores nothing) and returns whether a file
// name is ignored. It supports the patterns the chart uses, globs matched against a file's
// base name; anything else (a "/", a "!" negation, "**") is refused rather than misread.
func helmignore(file string) (func(base string) bool, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return func(string) bool { return false }, nil
	}
	if err != nil {
		return nil, err
	}
	var patterns []string
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.ContainsAny(line, "/!") || strings.Contains(line, "**") {
			return nil, fmt.Errorf("%s:%d: pattern %q: only base-name globs are supported", file, i+1, line)
		}
		if _, err := path.Match(line, ""); err != nil {
			return nil, fmt.Errorf("%s:%d: pattern %q: %w", file, i+1, line, err)
		}
		patterns = append(patterns, line)
	}
	return func(base string) bool {
		return slices.ContainsFunc(patterns, func(p string) bool {
			ok, _ := path.Match(p, base)
			return ok
		})
	}, nil
}
