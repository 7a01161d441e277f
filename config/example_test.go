// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
)

const examplePath = "../examples/cloud-provider.yaml"

func TestExampleFileLoadsAndValidates(t *testing.T) {
	cfg, warnings, err := Open(context.Background(), examplePath)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if len(warnings) != 0 {
		t.Errorf("the example uses deprecated names: %v", warnings)
	}
	// The example must show the parts people copy, not just pass.
	if cfg.Auth.KeyFile == "" || len(cfg.LoadBalancer.SecurityLists) == 0 || len(cfg.LoadBalancer.Tags.FreeformTags) == 0 {
		t.Errorf("example lost a section: %+v", cfg)
	}
	// It works as it stands for a cluster switching from the upstream CCM: upstream's naming,
	// and no defined tag (its namespace would have to exist), which it shows commented out.
	if cfg.LoadBalancer.Naming.Scheme != NamingUID || len(cfg.LoadBalancer.Tags.DefinedTags) != 0 {
		t.Errorf("example naming %q, defined tags %v; want uid and none", cfg.LoadBalancer.Naming.Scheme, cfg.LoadBalancer.Tags.DefinedTags)
	}
	// And it must not carry anything that looks like a real private key.
	raw, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := pemPrivateKey(string(raw)); ok {
		t.Error("the example contains a PEM private-key block; use a placeholder or keyFile")
	}
	for _, shown := range []string{"scheme: name", "definedTags:", "oci_api_key.pem"} {
		if !strings.Contains(string(raw), shown) {
			t.Errorf("the example no longer shows %q", shown)
		}
	}
}

// yamlPaths lists the dotted YAML path of every field of t, following inline and nested
// structs, so the README can be checked for each one.
func yamlPaths(t reflect.Type, prefix string) []string {
	var paths []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if strings.Contains(opts, "inline") {
			paths = append(paths, yamlPaths(ft, prefix)...)
			continue
		}
		path := prefix + name
		paths = append(paths, path)
		if ft.Kind() == reflect.Struct {
			paths = append(paths, yamlPaths(ft, path+".")...)
		}
	}
	return paths
}

func TestReadmeDocumentsEveryField(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	paths := yamlPaths(reflect.TypeFor[fileConfig](), "")
	if len(paths) < 40 {
		t.Fatalf("found only %d field paths; the walk is broken", len(paths))
	}
	for _, p := range paths {
		if !strings.Contains(string(readme), "`"+p+"`") {
			t.Errorf("README.md does not document `%s`", p)
		}
	}
}
