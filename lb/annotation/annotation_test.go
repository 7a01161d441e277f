// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package annotation_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

// TestAllListsEveryConstantOnceInSourceOrder keeps All, which lb's unknown-annotation check and
// the compatibility table use, in step with the constants the reference table is generated from.
func TestAllListsEveryConstantOnceInSourceOrder(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var declared []annotation.Name
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Name" {
				return false
			}
			for _, v := range vs.Values {
				key, err := strconv.Unquote(v.(*ast.BasicLit).Value)
				if err != nil {
					t.Fatal(err)
				}
				declared = append(declared, annotation.Name(key))
			}
			return false
		})
	}
	if diff := cmp.Diff(declared, annotation.All()); diff != "" {
		t.Errorf("All() differs from the declared constants (-declared +All):\n%s", diff)
	}
	seen := map[annotation.Name]bool{}
	for _, n := range annotation.All() {
		if seen[n] {
			t.Errorf("%s is listed twice", n)
		}
		seen[n] = true
	}
}

func TestValueTellsAnEmptyValueFromAMissingOne(t *testing.T) {
	anns := map[string]string{string(annotation.Internal): ""}
	if v, ok := annotation.Internal.Value(anns); !ok || v != "" {
		t.Errorf("Internal.Value = %q, %v; want \"\", true", v, ok)
	}
	if v, ok := annotation.Shape.Value(anns); ok {
		t.Errorf("Shape.Value = %q, %v; want not set", v, ok)
	}
}

// Set annotations on a Service with the constants; lb.Desired reads and validates them.
func ExampleName() {
	anns := map[string]string{
		annotation.LoadBalancerType.String():  "nlb",
		annotation.NLBPreserveSource.String(): "true",
	}
	v, ok := annotation.LoadBalancerType.Value(anns)
	fmt.Println(v, ok)
	fmt.Println(slices.Contains(annotation.All(), annotation.NLBPreserveSource))
	// Output:
	// nlb true
	// true
}
