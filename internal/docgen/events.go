// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// The lines of the Events page (ccm/docs/events.md) between which the table of oci-ccm's own
// Event reasons is generated from their constants.
const (
	BeginEventsMarker = "<!-- BEGIN GENERATED EVENTS: edit the Event* constants' doc comments in ccm/service/internal/kube/events.go, then run make generate -->"
	EndEventsMarker   = "<!-- END GENERATED EVENTS -->"
)

// event is one Event reason as its constant declares it.
type event struct {
	Const, Reason, Doc string
}

// parseEvents returns the string constants named Event… declared in file, with their doc
// comments, sorted by reason. A constant without a doc comment is an error: the comment is what
// an operator reads.
func parseEvents(file string) ([]event, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var out []event
	for gd, vs := range constSpecs(f) {
		for i, name := range vs.Names {
			if !strings.HasPrefix(name.Name, "Event") || !name.IsExported() || i >= len(vs.Values) {
				continue
			}
			lit, ok := vs.Values[i].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			reason, err := strconv.Unquote(lit.Value)
			if err != nil {
				return nil, err
			}
			doc := vs.Doc
			if doc == nil && len(gd.Specs) == 1 {
				doc = gd.Doc
			}
			if doc == nil {
				return nil, fmt.Errorf("%s: %s has no doc comment", fset.Position(name.Pos()), name.Name)
			}
			out = append(out, event{Const: name.Name, Reason: reason, Doc: strings.Join(strings.Fields(doc.Text()), " ")})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no Event… string constants", file)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reason < out[j].Reason })
	return out, nil
}

// renderEvents renders the events as a Markdown table; a doc comment starting with its
// constant's name shows that name as code.
func renderEvents(events []event) string {
	var b strings.Builder
	b.WriteString("| Reason | Constant | What it says |\n|---|---|---|\n")
	for _, e := range events {
		doc := e.Doc
		if rest, ok := strings.CutPrefix(doc, e.Const+" "); ok {
			doc = "`" + e.Const + "` " + rest
		}
		fmt.Fprintf(&b, "| `%s` | `kube.%s` | %s |\n", e.Reason, e.Const, strings.ReplaceAll(doc, "|", `\|`))
	}
	return b.String()
}

// runEvents renders the Event reasons declared in source into page between the markers, or
// with check reports a stale page.
func runEvents(source, page string, check bool) error {
	events, err := parseEvents(source)
	if err != nil {
		return err
	}
	return updateBetween(page, renderEvents(events), BeginEventsMarker, EndEventsMarker, check, "its Events differ from "+source+"'s; run `make generate`")
}
