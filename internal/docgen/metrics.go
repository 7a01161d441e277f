// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The lines of the metrics page (ccm/docs/metrics.md) between which the metrics table is generated.
const (
	BeginMetricsMarker = "<!-- BEGIN GENERATED METRICS: edit the metric definitions in the code, then run make generate -->"
	EndMetricsMarker   = "<!-- END GENERATED METRICS -->"
)

// metric is one metric as its constructor call declares it.
type metric struct {
	Name, Type, Help string
	Labels           []string
}

// metricKinds maps the k8s.io/component-base/metrics constructors to the Prometheus type.
var metricKinds = map[string]string{
	"NewCounter": "counter", "NewCounterVec": "counter",
	"NewGauge": "gauge", "NewGaugeVec": "gauge",
	"NewHistogram": "histogram", "NewHistogramVec": "histogram",
	"NewSummary": "summary", "NewSummaryVec": "summary",
}

// parseMetrics finds every metrics.NewXxx(&metrics.XxxOpts{…}, []string{…}) call in the
// non-test Go files of dirs (a directory that does not exist is skipped: the definitions may move
// between packages) and returns the metrics sorted by name. Name parts given as constants are
// resolved within the package.
func parseMetrics(dirs []string) ([]metric, error) {
	seen := map[string]bool{}
	var out []metric
	var errs []error
	for _, dir := range dirs {
		files, err := goFiles(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		var parsed []*ast.File
		consts := map[string]string{}
		for _, name := range files {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
			if err != nil {
				return nil, err
			}
			parsed = append(parsed, f)
			collectStringConsts(f, consts)
		}
		for _, f := range parsed {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				kind := constructorKind(call)
				if kind == "" {
					return true
				}
				m, err := metricFromCall(call, kind, consts)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", fset.Position(call.Pos()), err))
					return true
				}
				if !seen[m.Name] {
					seen[m.Name] = true
					out = append(out, m)
				}
				return true
			})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no metric definitions in %s", strings.Join(dirs, ", "))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func goFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			files = append(files, n)
		}
	}
	sort.Strings(files)
	return files, nil
}

func collectStringConsts(f *ast.File, into map[string]string) {
	for _, vs := range constSpecs(f) {
		for i, n := range vs.Names {
			if i >= len(vs.Values) {
				continue
			}
			if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, err := strconv.Unquote(lit.Value); err == nil {
					into[n.Name] = v
				}
			}
		}
	}
}

// constructorKind returns the metric type of a call to metrics.NewXxx, or "".
func constructorKind(call *ast.CallExpr) string {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "metrics" {
		return ""
	}
	return metricKinds[sel.Sel.Name]
}

func metricFromCall(call *ast.CallExpr, kind string, consts map[string]string) (metric, error) {
	m := metric{Type: kind}
	if len(call.Args) == 0 {
		return m, errors.New("metric constructor without options")
	}
	opts, ok := call.Args[0].(*ast.UnaryExpr)
	if !ok {
		return m, errors.New("metric options are not a &metrics.XxxOpts{…} literal")
	}
	lit, ok := opts.X.(*ast.CompositeLit)
	if !ok {
		return m, errors.New("metric options are not a &metrics.XxxOpts{…} literal")
	}
	parts := map[string]string{}
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok {
			continue
		}
		switch key.Name {
		case "Namespace", "Subsystem", "Name", "Help":
			v, err := stringValue(kv.Value, consts)
			if err != nil {
				return m, fmt.Errorf("%s: %w", key.Name, err)
			}
			parts[key.Name] = v
		}
	}
	if parts["Name"] == "" || parts["Help"] == "" {
		return m, errors.New("metric without a literal Name and Help")
	}
	var name []string
	for _, p := range []string{parts["Namespace"], parts["Subsystem"], parts["Name"]} {
		if p != "" {
			name = append(name, p)
		}
	}
	m.Name, m.Help = strings.Join(name, "_"), parts["Help"]
	if len(call.Args) > 1 {
		labels, ok := call.Args[1].(*ast.CompositeLit)
		if !ok {
			return m, fmt.Errorf("%s: labels are not a []string{…} literal", m.Name)
		}
		for _, l := range labels.Elts {
			v, err := stringValue(l, consts)
			if err != nil {
				return m, fmt.Errorf("%s: label: %w", m.Name, err)
			}
			m.Labels = append(m.Labels, v)
		}
	}
	return m, nil
}

func stringValue(e ast.Expr, consts map[string]string) (string, error) {
	switch v := e.(type) {
	case *ast.BasicLit:
		if v.Kind == token.STRING {
			return strconv.Unquote(v.Value)
		}
	case *ast.Ident:
		if s, ok := consts[v.Name]; ok {
			return s, nil
		}
		return "", fmt.Errorf("%s is not a string constant of the package", v.Name)
	}
	return "", errors.New("not a string literal or constant")
}

// renderMetrics renders the Markdown metrics table.
func renderMetrics(ms []metric) string {
	var b strings.Builder
	b.WriteString("| Metric | Type | Labels | Description |\n")
	b.WriteString("|---|---|---|---|\n")
	for _, m := range ms {
		labels := "—"
		if len(m.Labels) > 0 {
			labels = "`" + strings.Join(m.Labels, "`, `") + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", m.Name, m.Type, labels, cell(m.Help))
	}
	return b.String()
}

// runMetrics renders the metrics defined in dirs into readme, or with check reports a stale one.
func runMetrics(dirs []string, readme string, check bool) error {
	ms, err := parseMetrics(dirs)
	if err != nil {
		return err
	}
	return updateBetween(readme, renderMetrics(ms), BeginMetricsMarker, EndMetricsMarker, check, "run `make generate`")
}

// moduleRoot is the nearest directory at or above the working directory holding go.mod, so the
// metrics paths mean the same from `go generate` (run in lb/) and from the repository root.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}
