// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The README lines between which the table is generated.
const (
	BeginMarker = "<!-- BEGIN GENERATED ANNOTATIONS: edit the doc comments in lb/annotation, then run go generate ./lb -->"
	EndMarker   = "<!-- END GENERATED ANNOTATIONS -->"
)

// typeName is the Go type whose constants are documented.
const typeName = "Name"

// annotation is one documented constant.
type annotation struct {
	Const, Key, Description, Type, Default, Example string
}

// parseAnnotations reads the non-test Go files of dir and returns the Annotation constants in
// source order (files by name).
func parseAnnotations(dir string) ([]annotation, error) {
	files, err := goFiles(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var out []annotation
	var errs []error
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, vs := range constSpecs(f) {
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != typeName {
				continue
			}
			for i, n := range vs.Names {
				a, err := fromSpec(n.Name, vs, i)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", fset.Position(n.Pos()), err))
					continue
				}
				out = append(out, a)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no constants of type %s in %s", typeName, dir)
	}
	return out, nil
}

// constSpecs yields the specs of f's const declarations, each with the declaration it is in (whose
// doc comment stands for a lone spec's). Annotations, Event reasons and metric names are all
// constants, so their three readers walk a file this one way.
func constSpecs(f *ast.File) iter.Seq2[*ast.GenDecl, *ast.ValueSpec] {
	return func(yield func(*ast.GenDecl, *ast.ValueSpec) bool) {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				if !yield(gd, spec.(*ast.ValueSpec)) {
					return
				}
			}
		}
	}
}

func fromSpec(name string, vs *ast.ValueSpec, i int) (annotation, error) {
	a := annotation{Const: name}
	if i >= len(vs.Values) {
		return a, errors.New("constant has no value")
	}
	lit, ok := vs.Values[i].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return a, errors.New("value is not a string literal")
	}
	key, err := strconv.Unquote(lit.Value)
	if err != nil {
		return a, err
	}
	a.Key = key
	if vs.Doc == nil {
		return a, fmt.Errorf("%s has no doc comment", name)
	}
	var desc []string
	fields := map[string]*string{"Type:": &a.Type, "Default:": &a.Default, "Example:": &a.Example}
	for line := range strings.SplitSeq(vs.Doc.Text(), "\n") {
		line = strings.TrimSpace(line)
		matched := false
		for prefix, dst := range fields {
			if v, ok := strings.CutPrefix(line, prefix); ok {
				*dst = strings.TrimSpace(v)
				matched = true
			}
		}
		if !matched && line != "" {
			desc = append(desc, line)
		}
	}
	var missing []string
	for _, prefix := range []string{"Type:", "Default:", "Example:"} {
		if *fields[prefix] == "" {
			missing = append(missing, prefix)
		}
	}
	if len(missing) > 0 {
		return a, fmt.Errorf("doc comment of %s lacks %s", name, strings.Join(missing, ", "))
	}
	a.Description = sentenceWithoutName(strings.Join(desc, " "), name)
	return a, nil
}

// sentenceWithoutName turns "AnnotationX makes …" into "Makes …".
func sentenceWithoutName(s, name string) string {
	rest, ok := strings.CutPrefix(s, name+" ")
	if !ok {
		return s
	}
	r, size := utf8.DecodeRuneInString(rest)
	return string(unicode.ToUpper(r)) + rest[size:]
}

// renderTable renders the Markdown reference table.
func renderTable(anns []annotation) string {
	var b strings.Builder
	b.WriteString("| Annotation | Type | Default | Example | Description |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, a := range anns {
		fmt.Fprintf(&b, "| `%s` | %s | %s | `%s` | %s |\n",
			a.Key, cell(a.Type), cell(a.Default), strings.ReplaceAll(a.Example, "|", `\|`), cell(a.Description))
	}
	return b.String()
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// updateBetween puts content between the markers begin and end of page, or with check reports a
// page whose content there differs, saying why it is stale and how to fix it (stale). The four
// generated tables (annotations, metrics, Events, IAM policy) are all kept up to date this way.
func updateBetween(page, content, begin, end string, check bool, stale string) error {
	current, err := os.ReadFile(page)
	if err != nil {
		return err
	}
	updated, err := spliceBetween(string(current), content, begin, end)
	if err != nil {
		return fmt.Errorf("%s: %w", page, err)
	}
	if updated == string(current) {
		return nil
	}
	if check {
		return fmt.Errorf("%s is stale: %s", page, stale)
	}
	return os.WriteFile(page, []byte(updated), 0o644)
}

// spliceBetween replaces what lies between the begin and end marker lines of doc with table.
func spliceBetween(doc, table, begin, end string) (string, error) {
	b := strings.Index(doc, begin)
	e := strings.Index(doc, end)
	if b < 0 || e < 0 || e < b {
		return "", fmt.Errorf("markers not found; the README needs the lines\n%s\n%s", begin, end)
	}
	return doc[:b+len(begin)] + "\n\n" + table + "\n" + doc[e:], nil
}
