// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// findings runs the check over a repository of these files and returns its findings as printed.
func findings(t *testing.T, files map[string]string) []string {
	t.Helper()
	fsys := fstest.MapFS{}
	var names []string
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
		names = append(names, name)
	}
	res := newRepo(fsys, names).check()
	for _, err := range res.errs {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.findings {
		got = append(got, f.String())
	}
	return got
}

// wantFindings fails t unless the check over files finds exactly want.
func wantFindings(t *testing.T, files map[string]string, want []string) {
	t.Helper()
	if diff := cmp.Diff(want, findings(t, files), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// A small repository most cases link into.
var base = map[string]string{
	"README.md": "# oci-ccm\n\n## 2. Let the CCM call OCI: the IAM policy\n\n## API stability\n\n" +
		"## Performance\n\n### Listing lag\n\ntext\n\n## Performance\n",
	"lb/README.md":           "# lb: Services\n\n## Node syncs\n\nSetext title\n---\n\n## `cloud-provider.yaml` keys\n",
	"lb/lb.go":               "package lb\n",
	"seclist/README.md":      "# seclist\n\n## Past 200 rules\n\n## Load balancer placement and limits, with their evidence\n",
	"internal/bench/RES.md":  "# results\n",
	"examples/helm/x/y.yaml": "a: 1\n",
}

func with(extra map[string]string) map[string]string {
	files := map[string]string{}
	for k, v := range base {
		files[k] = v
	}
	for k, v := range extra {
		files[k] = v
	}
	return files
}

func TestMarkdownLinksResolveToFilesAndHeadings(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		want      []string
	}{
		{"a file, a directory, the root's file by a leading slash",
			"[a](../lb/lb.go) [b](../lb/) [c](../seclist) [d](/lb/README.md) ![e](../lb/lb.go \"title\")", nil},
		{"a missing file", "text\n\n[a](lb/nope.go)",
			[]string{"doc/x.md:3: lb/nope.go: no such file or directory in the repository (doc/lb/nope.go)"}},
		{"a path leaving the repository", "[a](../../shared/NOTES.md)",
			[]string{"doc/x.md:1: ../../shared/NOTES.md: points outside the repository"}},
		{"anchors by GitHub's slugs", "[a](../README.md#2-let-the-ccm-call-oci-the-iam-policy) " +
			"[b](../lb/README.md#setext-title) [c](../lb/README.md#cloud-provideryaml-keys) " +
			"[d](../README.md#performance-1) [e](#own-heading)\n\n## Own heading", nil},
		{"an anchor no heading has", "[a](../README.md#install) [b](#nowhere)", []string{
			"doc/x.md:1: ../README.md#install: no heading with anchor #install in README.md",
			"doc/x.md:1: #nowhere: no heading with anchor #nowhere in doc/x.md"}},
		{"an anchor into a file that is not Markdown is not checked", "[a](../lb/lb.go#L1)", nil},
		{"schemes are not followed", "[a](https://example.com/x.md) [b](mailto:a@b.c) [c](http://x/y#z)", nil},
		{"code spans and fenced blocks hold no links",
			"`[a](nope)`\n\n```\n[b](nope.md)\n```\n\n~~~md\n[c](nope.md)\n~~~\n", nil},
		{"a reference definition's destination", "[a][one] and [two][]\n\n[one]: ../lb/lb.go\n[two]: <../lb/gone.go>",
			[]string{"doc/x.md:4: ../lb/gone.go: no such file or directory in the repository (lb/gone.go)"}},
		{"a reference link with no definition", "see [the policy][policy]",
			[]string{`doc/x.md:1: [the policy][policy]: no reference definition "[policy]: …" in the file`}},
		{"an escaped path", "[a](../lb/lb%2Ego)", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantFindings(t, with(map[string]string{"doc/x.md": c.doc}), c.want)
		})
	}
}

func TestSlugFollowsGitHub(t *testing.T) {
	for heading, want := range map[string]string{
		"2. Let the CCM call OCI: the IAM policy": "2-let-the-ccm-call-oci-the-iam-policy",
		"config — `cloud-provider.yaml`":          "config--cloud-provideryaml",
		"[Links](x.md) and *emphasis*":            "links-and-emphasis",
		"When is a Node gone?":                    "when-is-a-node-gone",
		"1,000 nodes × 16 ports":                  "1000-nodes--16-ports",
		"load_balancer_util.go and <b>tags</b>":   "load_balancer_utilgo-and-tags",
		"Größe ändern":                            "größe-ändern",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestCitedFilesMustBeInTheRepository(t *testing.T) {
	for _, c := range []struct {
		name, file, text string
		want             []string
	}{
		{"ours, by the root and beside the citing file", "lb/a.go",
			"// See lb/README.md, seclist/README.md, README.md and lb.go.\npackage lb\n", nil},
		{"a bare Markdown name that is nowhere", "lb/a.go",
			"package lb\n\n// x is from NOTES.md.\nvar x = 1\n",
			[]string{"lb/a.go:3: NOTES.md: no file of that name in the repository"}},
		{"a bare Markdown name anywhere in the repository", "README.md", "# x\n\nsee RES.md\n", nil},
		{"bare names of other kinds are not citations", "lb/a.go",
			"// upstream's load_balancer.go, a user's cloud-provider.yaml, before.txt.\npackage lb\n", nil},
		{"a path leaving the repository", "lb/a.go", "// See ../../shared/NOTES.md.\npackage lb\n",
			[]string{"lb/a.go:1: ../../shared/NOTES.md: outside the repository"}},
		{"a path of ours that is gone", "lb/a.go", "package lb\n\n/* Rules: see\n   seclist/RULES.md */\n",
			[]string{"lb/a.go:4: seclist/RULES.md: no such file in the repository"}},
		{"relative to the citing file", "examples/helm/README.md", "# h\n\n`x/y.yaml` and `x/z.yaml`\n",
			[]string{"examples/helm/README.md:3: x/z.yaml: no such file in the repository"}},
		{"other projects' files", "lb/a.go", "// upstream pkg/cloudprovider/providers/oci/load_balancer.go,\n" +
			"// the SDK's common/http.go, k8s.io/cloud-provider/sample/basic_main.go, bin/image/record.json\n" +
			"// https://github.com/x/y/blob/main/lb/gone.go, module@v1/lb/gone.go, $dir/lb/gone.go\npackage lb\n", nil},
		{"the notes' directories are no project's", "README.md", "# x\n\nNames are the SDK's (`reference/paths-*.tsv`).\n",
			[]string{"README.md:3: reference/paths-*.tsv: not in the repository (reference/ is no project's root: cite the primary source)"}},
		{"a glob some file matches", "README.md", "# x\n\n`seclist/*.md`, `lb/*.go`\n", nil},
		{"a glob no file matches", "README.md", "# x\n\n`lb/*.yaml`\n",
			[]string{"README.md:3: lb/*.yaml: no such file in the repository"}},
		{"string literals are code", "lb/a.go", "package lb\n\nvar f = \"lb/gone.md\"\n", nil},
		{"fenced blocks are not prose, code spans are", "README.md", "# x\n\n```\ncat lb/gone.md\n```\n\n`lb/gone.go`\n",
			[]string{"README.md:7: lb/gone.go: no such file in the repository"}},
		{"testdata is not read", "lb/testdata/x.md", "see lb/gone.md\n", nil},
		{"YAML and shell comments", "examples/helm/x/values.yaml", "# see lb/gone.md\na: 1 # and lb/lb.go\nb: \"c#lb/gone.go\"\n",
			[]string{"examples/helm/x/values.yaml:1: lb/gone.md: no such file in the repository"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantFindings(t, with(map[string]string{c.file: c.text}), c.want)
		})
	}
}

func TestCitedSectionsMustBeHeadings(t *testing.T) {
	for _, c := range []struct {
		name, file, text string
		want             []string
	}{
		{"the forms of a section citation", "lb/a.go",
			"// seclist/README.md, \"Past 200 rules\"; `lb/README.md`, \"Node syncs\"; README.md (\"Performance\");\n" +
				"// README.md's \"API stability\"; seclist/README.md (section \"Past 200\n// rules\").\npackage lb\n", nil},
		{"a leading number, Markdown and letter case aside", "lb/a.go",
			"// README.md, \"Let the CCM call OCI: the IAM policy\"; lb/README.md, \"cloud-provider.yaml keys\"\npackage lb\n", nil},
		{"cut where punctuation follows", "lb/a.go",
			"// README.md, \"Let the CCM call OCI\"; seclist/README.md, \"Load balancer placement and limits\"\npackage lb\n", nil},
		{"cut inside a word is another title", "lb/a.go", "// seclist/README.md, \"Past 200\"\npackage lb\n",
			[]string{`lb/a.go:1: seclist/README.md "Past 200": no section of that title in seclist/README.md`}},
		{"a section that is not there", "examples/helm/x/values.yaml", "# push it (README.md, \"Container\n# image\").\na: 1\n",
			[]string{`examples/helm/x/values.yaml:1: README.md "Container image": no section of that title in README.md`}},
		{"a bare README.md: beside the citing file or the root's", "lb/a.go",
			"// README.md, \"Node syncs\"; README.md, \"API stability\"; README.md, \"Drift\"\npackage lb\n",
			[]string{`lb/a.go:1: README.md "Drift": no section of that title in lb/README.md or README.md`}},
		{"an anchor after a cited file", "lb/a.go", "// lb/README.md#node-syncs, lb/README.md#drift\npackage lb\n",
			[]string{"lb/a.go:1: lb/README.md#drift: no heading with anchor #drift in lb/README.md"}},
		{"a quote that is not after a file is no citation", "lb/a.go", "// lb/README.md says \"Drift\".\npackage lb\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantFindings(t, with(map[string]string{c.file: c.text}), c.want)
		})
	}
}

func TestCommentOfFindsHashComments(t *testing.T) {
	for line, want := range map[string]int{
		"# a":               0,
		"  # a":             2,
		"a: 1 # b":          5,
		"\t@# recipe":       2,
		"x=${y#z}":          -1,
		"url: http://a/#b":  -1,
		"echo \"$#\"":       -1,
		"key: value":        -1,
		"#!/usr/bin/env sh": 0,
	} {
		if got := commentOf(line); got != want {
			t.Errorf("commentOf(%q) = %d, want %d", line, got, want)
		}
	}
}
