// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package apicheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// documented are the public packages (directories from the module root) and the README whose
// "## Public API" section lists their exported names.
var documented = []struct{ dir, readme string }{
	{"lb", "lb/README.md"},
	{"lb/annotation", "lb/annotation/README.md"},
	{"lb/binding", "lb/binding/README.md"},
	{"lb/engine", "lb/engine/README.md"},
	{"lb/model", "lb/model/README.md"},
	{"lb/oci", "lb/oci/README.md"},
	{"lb/oci/loadbalancer", "lb/oci/loadbalancer/README.md"},
	{"lb/oci/nlb", "lb/oci/nlb/README.md"},
	{"seclist", "seclist/README.md"},
	{"instances", "instances/README.md"},
	{"config", "config/README.md"},
	{"ociclient", "ociclient/README.md"},
	{"ociclient/ocitest", "ociclient/ocitest/README.md"},
	{"ccm", "ccm/README.md"},
	{"ccm/preflight", "ccm/preflight/README.md"},
	{"ccm/service", "ccm/service/README.md"},
	{"ccm/binding", "ccm/binding/README.md"},
	{"ccm/binding/v1alpha1", "ccm/binding/v1alpha1/README.md"},
}

// TestEveryExportedNameIsInItsPackagesPublicAPISection holds the promise of README.md's "API
// stability": what `go doc` shows is what the package's README says is public, so nothing becomes
// public API by accident. A name counts as listed when a code span of the section names it, or
// names a prefix of it followed by `*` (`Action*`); a constant of a listed named type (an enum
// value) is covered by its type.
func TestEveryExportedNameIsInItsPackagesPublicAPISection(t *testing.T) {
	for _, d := range documented {
		t.Run(d.dir, func(t *testing.T) {
			readme, err := os.ReadFile(filepath.Join("..", "..", d.readme))
			if err != nil {
				t.Fatal(err)
			}
			spans := codeSpans(publicAPISection(string(readme)))
			if len(spans) == 0 {
				t.Fatalf("%s has no \"## Public API\" section with code spans", d.readme)
			}
			var missing []string
			for _, e := range exportedNames(t, filepath.Join("..", "..", d.dir)) {
				if !listed(e.name, spans) && (e.typ == "" || !listed(e.typ, spans)) {
					missing = append(missing, e.name)
				}
			}
			if len(missing) > 0 {
				t.Errorf("%s exports names its README's Public API section does not list (list them, or unexport them): %s",
					d.dir, strings.Join(missing, ", "))
			}
		})
	}
}

// TestEveryPublicPackageIsDocumented keeps the list above whole: a new importable package (not
// under internal/ or examples/, not a main) has to be added to it, and so documented.
func TestEveryPublicPackageIsDocumented(t *testing.T) {
	root := filepath.Join("..", "..")
	var undocumented []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if rel == "internal" || rel == "examples" || rel == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." ||
			d.Name() == "internal" {
			return filepath.SkipDir
		}
		if rel != "." && len(exportedNames(t, path)) > 0 && !slices.ContainsFunc(documented, func(p struct{ dir, readme string }) bool { return p.dir == rel }) {
			undocumented = append(undocumented, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(undocumented) > 0 {
		t.Errorf("public packages missing from documented (add them and a \"## Public API\" section): %s", strings.Join(undocumented, ", "))
	}
}

// exported is a top-level exported name and, for a constant or variable of a named type of the
// same package, that type.
type exported struct{ name, typ string }

func exportedNames(t *testing.T, dir string) []exported {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []exported
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if file.Name.Name == "main" {
			continue
		}
		for _, decl := range file.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil && decl.Name.IsExported() {
					out = append(out, exported{name: decl.Name.Name})
				}
			case *ast.GenDecl:
				typ := "" // a const group's implicit type continues from the last explicit one
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if spec.Name.IsExported() {
							out = append(out, exported{name: spec.Name.Name})
						}
					case *ast.ValueSpec:
						switch id, ok := spec.Type.(*ast.Ident); {
						case ok:
							typ = id.Name
						case spec.Type != nil || len(spec.Values) > 0 || decl.Tok != token.CONST:
							typ = "" // untyped, or a type of another package
						}
						for _, n := range spec.Names {
							if n.IsExported() {
								out = append(out, exported{name: n.Name, typ: typ})
							}
						}
					}
				}
			}
		}
	}
	return out
}

// publicAPISection is the text from the "## Public API" heading to the next level-2 heading.
func publicAPISection(md string) string {
	_, rest, ok := strings.Cut(md, "\n## Public API")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

func codeSpans(s string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

var ident = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*\*?`)

// listed reports whether a code span names name, or a prefix of it followed by "*".
func listed(name string, spans []string) bool {
	return slices.ContainsFunc(spans, func(span string) bool {
		for _, id := range ident.FindAllString(span, -1) {
			if id == name || strings.HasSuffix(id, "*") && strings.HasPrefix(name, strings.TrimSuffix(id, "*")) && len(id) > 1 {
				return true
			}
		}
		return false
	})
}
