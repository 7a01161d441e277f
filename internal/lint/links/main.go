// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Command links fails when a relative link or a cited file of the repository does not resolve.
// It reads the work tree only: no network, and nothing outside the repository.
//
// Links. In every Markdown file, the destination of an inline link or image ([x](path),
// [x](path#anchor), ![x](path)) and of a reference definition ([label]: path) must be a file or a
// directory of the repository, relative to the Markdown file (a leading / means the repository's
// root, as on GitHub). An anchor into a Markdown file, or a lone #anchor into the same file, must
// be the slug of one of its headings by GitHub's rules: the heading's text as rendered (no code,
// emphasis or link marks), lower case, letters, digits, marks, "-" and "_" kept, each space a
// "-", everything else dropped; a repeated slug gets -1, -2, …. A reference link [x][label] or
// [label][] needs a definition. Destinations with a scheme (https:, mailto:, …) are not checked.
// Fenced code blocks and code spans hold no links.
//
// Cited files. A citation is a path written in prose: in Go comments, in Markdown outside fenced
// code blocks (code spans included), and in the # comments of YAML files, shell scripts and the
// Makefile. Go string literals are code, not prose, and files under a testdata directory are
// fixtures and golden output: neither is read for citations. A path is a run of ASCII letters,
// digits and _ . - / * ending in a known extension (.md .go .yaml .yml .sh .json .tpl .tmpl .txt
// .tsv .mod .sum .zip .toml), outside any URL, not a flag (-x), and not right after one of
// @ $ } ) : % \ ~ = (a module version, a variable's expansion, a key). What it must resolve to
// depends on how it is written:
//
//   - A bare name (no slash) is a citation only when it ends in .md: bare Go, YAML or text file
//     names are as often upstream's files (load_balancer.go), files a user writes
//     (cloud-provider.yaml) or command output (before.txt) as ours. A bare .md name must be a file
//     of the repository, beside the citing file, at the root or anywhere: the top README's bare
//     RESULTS.md is internal/bench/RESULTS.md, linked a few lines before.
//   - A path starting with ./ or ../ is relative to the citing file, and must not leave the
//     repository: a path into the notes beside the work tree (../shared/…) is a finding.
//   - A path whose first element is a file or directory beside the citing file or at the root
//     (lb/…, internal/…, test/… in examples/helm) is ours: it must resolve relative to the citing
//     file or to the root.
//   - A path whose first element is listed in notForeign (reference/…, shared/…: the directories
//     of notes this project was started from, which are nobody's source) is a finding: cite the
//     primary source instead.
//   - Any other path is another project's file and is not checked, as there is nothing of ours
//     to check it against: the upstream CCM's pkg/cloudprovider/…, the SDK's common/… and
//     identity/…, Kubernetes' controllers/…, a module path (k8s.io/…, github.com/…), or a build
//     output under a directory git ignores (bin/…). links -v lists them.
//
// A path may hold * in its last element; some file must match it. A cited Markdown file followed
// by a section title, as in `seclist/README.md, "Past 200 rules"`, lb/README.md ("Drift"),
// README.md's "API stability" or seclist/README.md (section "IAM policy"), must have a heading of
// that title: letter case, Markdown and a leading number ("4. ") aside, and cut, if the citation
// likes, where punctuation follows in the heading. A bare README.md's section may be in the one
// beside the citing file or the root's. A cited Markdown file followed by #anchor (no space) has
// its anchor checked as a link's is.
//
// Each finding is printed as file:line: the link or path: why. The command exits 1 when there is
// one, 2 when it cannot read the repository. It reads every tracked file (and untracked ones git
// does not ignore) once, in well under a second.
//
// Usage: go run ./internal/lint/links [-v]   (anywhere in the work tree; make lint runs it)
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

func main() {
	verbose := flag.Bool("v", false, "also list the citations taken for other projects' files")
	flag.Parse()
	root, files, err := workTree()
	if err != nil {
		fmt.Fprintln(os.Stderr, "links:", err)
		os.Exit(2)
	}
	r := newRepo(os.DirFS(root), files)
	res := r.check()
	if *verbose {
		for _, f := range res.foreign {
			fmt.Println("foreign:", f)
		}
	}
	for _, f := range res.findings {
		fmt.Fprintln(os.Stderr, f)
	}
	if len(res.errs) > 0 {
		for _, err := range res.errs {
			fmt.Fprintln(os.Stderr, "links:", err)
		}
		os.Exit(2)
	}
	if len(res.findings) > 0 {
		fmt.Fprintf(os.Stderr, "links: %d links or cited files do not resolve\n", len(res.findings))
		os.Exit(1)
	}
	fmt.Printf("links: %d files read, %d links and %d citations resolve\n", res.read, res.links, res.citations)
}

// workTree returns the work tree's root and its files: tracked ones and untracked ones git does
// not ignore (so a file about to be added counts), less those deleted in the work tree.
func workTree() (string, []string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", nil, fmt.Errorf("git rev-parse: %w", err)
	}
	root := strings.TrimSpace(string(out))
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err = cmd.Output()
	if err != nil {
		return "", nil, fmt.Errorf("git ls-files: %w", err)
	}
	var files []string
	seen := map[string]bool{}
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" || seen[f] {
			continue
		}
		seen[f] = true
		if st, err := os.Stat(root + "/" + f); err == nil && st.Mode().IsRegular() {
			files = append(files, f)
		}
	}
	return root, files, nil
}
