// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// para is a run of prose lines: a Markdown paragraph, a Go comment group, consecutive # comments.
// text holds its lines joined by "\n"; line is the file's line number of text's first line.
type para struct {
	text string
	line int
}

// lineOf returns the file's line number of text[off].
func (p para) lineOf(off int) int { return p.line + strings.Count(p.text[:off], "\n") }

// doc is what a Markdown file offers to links into it.
type doc struct {
	slugs  map[string]bool // anchors of its headings
	titles []string        // its headings' titles, normalised by title
}

// hasTitle says whether the document has a heading of that title: letter case, Markdown and a
// leading number aside, whole or cut where punctuation follows (a citation may leave out the
// ", with their evidence" of "Load balancer placement and limits, with their evidence").
func (d *doc) hasTitle(t string) bool {
	t = title(t)
	for _, h := range d.titles {
		rest, ok := strings.CutPrefix(h, t)
		rest = strings.TrimLeft(rest, " ")
		if ok && (rest == "" || strings.IndexAny(rest, ":,;(—–-") == 0) {
			return true
		}
	}
	return false
}

// markdown is a Markdown file taken apart.
type markdown struct {
	paras []para
	doc   *doc
	defs  map[string]bool // reference definitions' labels, normalised by label
}

var (
	fenceRE   = regexp.MustCompile("^\\s*(`{3,}|~{3,})")
	atxRE     = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextRE  = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	defRE     = regexp.MustCompile(`^ {0,3}\[([^\]]+)\]:[ \t]*(<[^>]*>|\S+)`)
	notTextRE = regexp.MustCompile(`^\s*([-*+>|#]|\d+[.)])`)
)

// parseMarkdown splits src into paragraphs outside fenced code blocks, and collects its
// headings and reference definitions.
func parseMarkdown(src string) *markdown {
	m := &markdown{doc: &doc{slugs: map[string]bool{}}, defs: map[string]bool{}}
	seen := map[string]int{}
	addHeading := func(text string) {
		s := slug(text)
		if n, ok := seen[s]; ok {
			seen[s] = n + 1
			s += "-" + strconv.Itoa(n+1)
		} else {
			seen[s] = 0
		}
		m.doc.slugs[s] = true
		m.doc.titles = append(m.doc.titles, title(text))
	}
	var (
		fence   string // the open fence's marker, "" outside one
		cur     []string
		curLine int
	)
	flush := func() {
		if len(cur) > 0 {
			m.paras = append(m.paras, para{strings.Join(cur, "\n"), curLine})
			cur = nil
		}
	}
	for i, line := range strings.Split(src, "\n") {
		n := i + 1
		if fence != "" {
			t := strings.TrimSpace(line)
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceRE.FindStringSubmatch(line); f != nil {
			flush()
			fence = f[1]
			continue
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if h := atxRE.FindStringSubmatch(line); h != nil {
			flush()
			addHeading(h[2])
			m.paras = append(m.paras, para{line, n})
			continue
		}
		if setextRE.MatchString(line) && len(cur) == 1 && !notTextRE.MatchString(cur[0]) {
			addHeading(cur[0])
			flush()
			continue
		}
		if d := defRE.FindStringSubmatch(line); d != nil {
			m.defs[label(d[1])] = true
		}
		if len(cur) == 0 {
			curLine = n
		}
		cur = append(cur, line)
	}
	flush()
	return m
}

// slug is GitHub's anchor for a heading of this text.
func slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(plain(text)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var (
	inlineLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTagRE    = regexp.MustCompile(`<[^>]+>`)
	numberRE     = regexp.MustCompile(`^\d+(\.\d+)*\.?\s+`)
)

// plain is a heading's text as GitHub renders it: links as their text, no code or emphasis
// marks, no HTML tags.
func plain(text string) string {
	text = inlineLinkRE.ReplaceAllString(text, "$1")
	text = htmlTagRE.ReplaceAllString(text, "")
	return strings.NewReplacer("`", "", "*", "").Replace(strings.TrimSpace(text))
}

// title normalises a heading's or a citation's section title for comparison.
func title(text string) string {
	t := strings.Join(strings.Fields(strings.ToLower(plain(text))), " ")
	return numberRE.ReplaceAllString(t, "")
}

// label normalises a reference label.
func label(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// maskCode returns text with every code span, backticks included, replaced by spaces, so that
// what looks like a link inside one is not taken for one. Offsets stay the same.
func maskCode(text string) string {
	b := []byte(text)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := backticks(b[i:])
		end := -1
		for j := i + n; j < len(b); {
			if b[j] != '`' {
				j++
				continue
			}
			k := backticks(b[j:])
			if k == n {
				end = j + k
				break
			}
			j += k
		}
		if end < 0 { // an unmatched run is literal text
			i += n
			continue
		}
		for j := i; j < end; j++ {
			if b[j] != '\n' {
				b[j] = ' '
			}
		}
		i = end
	}
	return string(b)
}

// backticks returns how many backticks b starts with.
func backticks(b []byte) int {
	n := 0
	for n < len(b) && b[n] == '`' {
		n++
	}
	return n
}

var refUseRE = regexp.MustCompile(`\[([^\[\]]+)\]\[([^\[\]]*)\]`)

// checkMarkdown checks a Markdown file's links, then the files its prose cites.
func (r *repo) checkMarkdown(file string) {
	src, ok := r.read(file)
	if !ok {
		return
	}
	m := r.markdownOf(file, src)
	for _, p := range m.paras {
		masked := maskCode(p.text)
		prose := []byte(p.text) // p.text less link destinations, for citations
		for off := 0; off < len(masked); {
			end := strings.IndexByte(masked[off:], '\n')
			if end < 0 {
				end = len(masked)
			} else {
				end += off
			}
			if d := defRE.FindStringSubmatchIndex(masked[off:end]); d != nil {
				r.checkLink(file, p.lineOf(off), strings.Trim(masked[off+d[4]:off+d[5]], "<>"))
				blank(prose, off+d[4], off+d[5])
			}
			off = end + 1
		}
		for _, l := range inlineLinks(masked) {
			r.checkLink(file, p.lineOf(l.start), l.dest)
			blank(prose, l.start, l.end)
		}
		for _, u := range refUseRE.FindAllStringSubmatchIndex(masked, -1) {
			if u[1] < len(masked) && (masked[u[1]] == '(' || masked[u[1]] == ':') {
				continue
			}
			l := masked[u[4]:u[5]]
			if l == "" {
				l = masked[u[2]:u[3]]
			}
			if !m.defs[label(l)] {
				r.report(file, p.lineOf(u[0]), masked[u[0]:u[1]], "no reference definition \"["+l+"]: …\" in the file")
			}
		}
		r.cite(file, para{string(prose), p.line})
	}
}

// markdownOf parses a Markdown file once, for its own check and for links into it.
func (r *repo) markdownOf(file, src string) *markdown {
	m := parseMarkdown(src)
	r.docs[file] = m.doc
	return m
}

// docOf returns the headings of a Markdown file of the repository, reading it if need be.
func (r *repo) docOf(file string) *doc {
	if d, ok := r.docs[file]; ok {
		return d
	}
	src, ok := r.read(file)
	if !ok {
		r.docs[file] = &doc{slugs: map[string]bool{}}
		return r.docs[file]
	}
	return r.markdownOf(file, src).doc
}

func blank(b []byte, start, end int) {
	for i := start; i < end; i++ {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
}

// link is an inline link's destination and where it sits in the text.
type link struct {
	dest       string
	start, end int // the destination's offsets, title included
}

// inlineLinks finds the destinations of [text](dest "title") and ![alt](dest) in code-masked text.
func inlineLinks(masked string) []link {
	var links []link
	for i := 0; ; {
		j := strings.Index(masked[i:], "](")
		if j < 0 {
			return links
		}
		start := i + j + 2
		k, depth := start, 0
	scan:
		for ; k < len(masked); k++ {
			switch masked[k] {
			case '(':
				depth++
			case ')':
				if depth == 0 {
					break scan
				}
				depth--
			case '\n':
				break scan
			}
		}
		inner := strings.TrimSpace(masked[start:k])
		dest := inner
		if strings.HasPrefix(inner, "<") {
			if e := strings.IndexByte(inner, '>'); e > 0 {
				dest = inner[1:e]
			}
		} else if f := strings.Fields(inner); len(f) > 0 {
			dest = f[0]
		}
		links = append(links, link{dest, start, k})
		i = k
	}
}

var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// checkLink checks one link destination written in file.
func (r *repo) checkLink(file string, line int, dest string) {
	if dest == "" || schemeRE.MatchString(dest) || strings.HasPrefix(dest, "//") {
		return
	}
	r.res.links++
	p, anchor, _ := strings.Cut(dest, "#")
	p, _, _ = strings.Cut(p, "?")
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	var target string
	switch {
	case p == "":
		target = file
	case strings.HasPrefix(p, "/"):
		target = path.Clean(strings.TrimLeft(p, "/"))
	default:
		target = path.Join(path.Dir(file), p)
	}
	switch {
	case outside(target):
		r.report(file, line, dest, "points outside the repository")
		return
	case !r.exists(target):
		r.report(file, line, dest, "no such file or directory in the repository ("+target+")")
		return
	}
	r.checkAnchor(file, line, dest, target, anchor)
}

// checkAnchor checks an anchor into target, when target is a Markdown file.
func (r *repo) checkAnchor(file string, line int, written, target, anchor string) {
	if anchor == "" || !r.files[target] || !strings.HasSuffix(target, ".md") {
		return
	}
	if a, err := url.PathUnescape(anchor); err == nil {
		anchor = a
	}
	if !r.docOf(target).slugs[strings.ToLower(anchor)] {
		r.report(file, line, written, "no heading with anchor #"+anchor+" in "+target)
	}
}
