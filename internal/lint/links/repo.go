// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// finding is a link or citation that does not resolve.
type finding struct {
	file   string
	line   int
	target string // the link's destination or the cited path, as written
	why    string
}

func (f finding) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", f.file, f.line, f.target, f.why)
}

// result is what one run of check found and counted.
type result struct {
	findings []finding
	foreign  []finding // citations taken for other projects' files (why says so), for -v
	errs     []error
	read     int // files read
	links    int // links checked
	// citations checked (bare names and paths of ours, not foreign ones)
	citations int
}

// repo is the repository as the check sees it: its files, and a way to read them.
type repo struct {
	fsys  fs.FS
	files map[string]bool     // every file, slash-separated, relative to the root
	dirs  map[string]bool     // every directory holding a file, "." for the root
	base  map[string][]string // file name → files of that name
	docs  map[string]*doc     // Markdown files read so far, for their headings
	res   result
}

func newRepo(fsys fs.FS, files []string) *repo {
	r := &repo{fsys: fsys, files: map[string]bool{}, dirs: map[string]bool{".": true},
		base: map[string][]string{}, docs: map[string]*doc{}}
	for _, f := range files {
		r.files[f] = true
		r.base[path.Base(f)] = append(r.base[path.Base(f)], f)
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			r.dirs[d] = true
		}
	}
	return r
}

// check reads every file the rules apply to and returns what it found, in file order.
func (r *repo) check() result {
	files := make([]string, 0, len(r.files))
	for f := range r.files {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		if underTestdata(f) {
			continue
		}
		switch {
		case strings.HasSuffix(f, ".md"):
			r.checkMarkdown(f)
		case strings.HasSuffix(f, ".go"):
			r.checkGo(f)
		case hashComments(f):
			r.checkHashComments(f)
		}
	}
	return r.res
}

func underTestdata(f string) bool {
	return strings.HasPrefix(f, "testdata/") || strings.Contains(f, "/testdata/")
}

// hashComments says whether f is a file whose comments start with #.
func hashComments(f string) bool {
	b := path.Base(f)
	return b == "Makefile" || strings.HasSuffix(b, ".yaml") || strings.HasSuffix(b, ".yml") ||
		strings.HasSuffix(b, ".sh")
}

func (r *repo) read(f string) (string, bool) {
	data, err := fs.ReadFile(r.fsys, f)
	if err != nil {
		r.res.errs = append(r.res.errs, err)
		return "", false
	}
	r.res.read++
	return string(data), true
}

func (r *repo) report(file string, line int, target, why string) {
	r.res.findings = append(r.res.findings, finding{file, line, target, why})
}

// exists says whether p (clean, relative to the root) is a file or a directory of the repository.
func (r *repo) exists(p string) bool { return r.files[p] || r.dirs[p] }

// glob returns the files matching p, a path with * in its last element.
func (r *repo) glob(p string) []string {
	var m []string
	dir := path.Dir(p)
	for f := range r.files {
		if path.Dir(f) != dir {
			continue
		}
		if ok, _ := path.Match(p, f); ok {
			m = append(m, f)
		}
	}
	slices.Sort(m)
	return m
}

// outside says whether a cleaned relative path leaves the repository.
func outside(p string) bool { return p == ".." || strings.HasPrefix(p, "../") }
