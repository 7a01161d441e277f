// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"go/scanner"
	"go/token"
	"path"
	"regexp"
	"strings"
)

// extensions are the file kinds a path must end in to be a citation.
var extensions = map[string]bool{
	"md": true, "go": true, "yaml": true, "yml": true, "sh": true, "json": true, "tpl": true,
	"tmpl": true, "txt": true, "tsv": true, "mod": true, "sum": true, "zip": true, "toml": true,
}

// notForeign are first elements of cited paths that are nobody else's root: cited files under
// them were only ever beside the notes this project started from, never in the repository.
var notForeign = map[string]bool{
	"reference": true, // the table of every SDK operation's method and path
	"shared":    true, // the design notes and the facts checked for them
}

var (
	urlRE = regexp.MustCompile("[A-Za-z][A-Za-z0-9+.-]*://[^\\s<>()\"'`\\]]*")
	// pathRE is a citation's form; what precedes and follows it is checked in cite.
	pathRE     = regexp.MustCompile(`^(?:\.\.?/)*(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_.*-]*[A-Za-z0-9_*-]\.([a-z]+)$`)
	anchorRE   = regexp.MustCompile(`^#[A-Za-z0-9_-]+`)
	sectionRE  = regexp.MustCompile("^`?(?:,\\s*|\\s+\\(|'s\\s+)(?:section\\s+)?\"([^\"]+)\"")
	badBeforeB = "@$}):%\\~=" // a path right after one of these is an expansion, a version or a key
)

func isPathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '.' || c == '-' || c == '/' || c == '*'
}

// cite checks the files cited in a paragraph of prose written in file.
func (r *repo) cite(file string, p para) {
	text := urlRE.ReplaceAllStringFunc(p.text, func(u string) string { return strings.Repeat(" ", len(u)) })
	for i := 0; i < len(text); {
		if !isPathByte(text[i]) {
			i++
			continue
		}
		s := i
		for i < len(text) && isPathByte(text[i]) {
			i++
		}
		tok := strings.TrimRight(text[s:i], ".")
		if s > 0 && strings.IndexByte(badBeforeB, text[s-1]) >= 0 {
			continue
		}
		m := pathRE.FindStringSubmatch(tok)
		if m == nil || !extensions[m[1]] || strings.HasPrefix(tok, "-") || strings.Contains(tok, "//") {
			continue
		}
		rest := text[s+len(tok):]
		anchor := ""
		if strings.HasSuffix(tok, ".md") && len(tok) == i-s {
			if a := anchorRE.FindString(rest); a != "" {
				anchor, rest = a[1:], rest[len(a):]
			}
		}
		r.citation(file, p.lineOf(s), tok, anchor, rest)
	}
}

// citation checks one cited path; rest is the text after it (and after its anchor, if any).
func (r *repo) citation(file string, line int, tok, anchor, rest string) {
	target, foreign, why := r.resolve(file, tok)
	if foreign {
		r.res.foreign = append(r.res.foreign, finding{file, line, tok, why})
		return
	}
	if why == "" && target == "" {
		return // not a citation (a bare name that is not a Markdown file's)
	}
	r.res.citations++
	if why != "" {
		r.report(file, line, tok, why)
		return
	}
	if !strings.HasSuffix(target, ".md") || !r.files[target] {
		return
	}
	written := tok
	if anchor != "" {
		written += "#" + anchor
	}
	r.checkAnchor(file, line, written, target, anchor)
	s := sectionRE.FindStringSubmatch(rest)
	if s == nil {
		return
	}
	docs := []string{target}
	if !strings.Contains(tok, "/") && r.files[tok] && tok != target {
		docs = append(docs, tok) // a bare README.md may mean the root's
	}
	for _, d := range docs {
		if r.docOf(d).hasTitle(s[1]) {
			return
		}
	}
	r.report(file, line, tok+` "`+strings.Join(strings.Fields(s[1]), " ")+`"`,
		"no section of that title in "+strings.Join(docs, " or "))
}

// resolve applies the citation rules (see the package comment) to tok, cited in file. It
// returns the file tok names; or foreign (and why, for -v) for another project's file; or why
// tok does not resolve. All three empty: tok is not a citation.
func (r *repo) resolve(file, tok string) (target string, foreign bool, why string) {
	dir := path.Dir(file)
	if !strings.Contains(tok, "/") {
		if !strings.HasSuffix(tok, ".md") || strings.Contains(tok, "*") {
			return "", false, ""
		}
		for _, c := range []string{path.Join(dir, tok), tok} {
			if r.files[c] {
				return c, false, ""
			}
		}
		if f := r.base[tok]; len(f) > 0 {
			return f[0], false, ""
		}
		return "", false, "no file of that name in the repository"
	}
	first, _, _ := strings.Cut(tok, "/")
	var candidates []string
	switch {
	case first == "." || first == "..":
		c := path.Join(dir, tok)
		if outside(c) {
			return "", false, "outside the repository"
		}
		candidates = []string{c}
	case strings.Contains(strings.TrimLeft(first, "."), "."):
		return "", true, "a module path"
	case r.exists(path.Join(dir, first)) || r.exists(first):
		candidates = []string{path.Join(dir, tok), path.Clean(tok)}
	case notForeign[first]:
		return "", false, "not in the repository (" + first + "/ is no project's root: cite the primary source)"
	default:
		return "", true, first + "/ is not one of ours: another project's file"
	}
	for _, c := range candidates {
		if strings.Contains(c, "*") {
			if m := r.glob(c); len(m) > 0 {
				return m[0], false, ""
			}
		} else if r.exists(c) {
			return c, false, ""
		}
	}
	return "", false, "no such file in the repository"
}

// checkGo checks the files cited in a Go file's comments.
func (r *repo) checkGo(file string) {
	src, ok := r.read(file)
	if !ok {
		return
	}
	fset := token.NewFileSet()
	tf := fset.AddFile(file, -1, len(src))
	var s scanner.Scanner
	s.Init(tf, []byte(src), nil, scanner.ScanComments)
	var (
		cur     []string
		curLine int // the line of cur's first comment
		endLine int // the line cur ends on
	)
	flush := func() {
		if len(cur) > 0 {
			r.cite(file, para{strings.Join(cur, "\n"), curLine})
			cur = nil
		}
	}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok != token.COMMENT {
			continue
		}
		line := tf.Line(pos)
		if len(cur) == 0 || line != endLine+1 {
			flush()
			curLine = line
		}
		if text, ok := strings.CutPrefix(lit, "//"); ok {
			cur = append(cur, text)
		} else {
			cur = append(cur, strings.TrimSuffix(strings.TrimPrefix(lit, "/*"), "*/"))
		}
		endLine = line + strings.Count(lit, "\n")
	}
	flush()
}

// checkHashComments checks the files cited in the # comments of a YAML file, a shell script or
// the Makefile.
func (r *repo) checkHashComments(file string) {
	src, ok := r.read(file)
	if !ok {
		return
	}
	var (
		cur     []string
		curLine int
	)
	flush := func() {
		if len(cur) > 0 {
			r.cite(file, para{strings.Join(cur, "\n"), curLine})
			cur = nil
		}
	}
	for i, line := range strings.Split(src, "\n") {
		c := commentOf(line)
		if c < 0 {
			flush()
			continue
		}
		if len(cur) == 0 {
			curLine = i + 1
		}
		cur = append(cur, line[c+1:])
	}
	flush()
}

// commentOf returns where a line's # comment starts: a # at the start of the line, after
// blanks (or a recipe's @), or after a blank. -1 when the line has none.
func commentOf(line string) int {
	for i := 0; i < len(line); i++ {
		if line[i] != '#' {
			continue
		}
		before := strings.TrimLeft(line[:i], " \t")
		if before == "" || before == "@" || line[i-1] == ' ' || line[i-1] == '\t' {
			return i
		}
	}
	return -1
}
