// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Command yamlcheck fails when a YAML file of the repository does not parse: every document
// must be valid YAML without duplicate keys, and a document with apiVersion and kind of a
// built-in Kubernetes type must decode strictly into it (no unknown or misspelt field). Helm
// templates are left out (they are Go templates; examples/helm/test renders and checks them).
//
// Usage: go run ./internal/lint/yamlcheck [file...]   (default: every tracked *.yaml, *.yml)
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

func main() {
	files := os.Args[1:]
	if len(files) == 0 {
		var err error
		if files, err = trackedYAML(); err != nil {
			fmt.Fprintln(os.Stderr, "yamlcheck:", err)
			os.Exit(2)
		}
	}
	failed := false
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "yamlcheck:", err)
			failed = true
			continue
		}
		for _, err := range Check(data) {
			fmt.Fprintf(os.Stderr, "%s: %v\n", f, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
	fmt.Printf("yamlcheck: %d files parse\n", len(files))
}

// trackedYAML lists the repository's YAML files, Helm templates excepted.
func trackedYAML() ([]string, error) {
	out, err := exec.Command("git", "ls-files", "--", "*.yaml", "*.yml").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	var files []string
	for f := range strings.Lines(string(out)) {
		f = strings.TrimSpace(f)
		if f == "" || strings.Contains(f, "/templates/") {
			continue
		}
		if _, err := os.Stat(f); err == nil { // not deleted in the work tree
			files = append(files, f)
		}
	}
	return files, nil
}

// strict decodes built-in Kubernetes types, refusing unknown and duplicate fields.
var strict = serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()

// Check returns one error per document of data that does not parse, naming the document by its
// position (1-based) and, for Kubernetes objects, its kind.
func Check(data []byte) []error {
	var errs []error
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 1; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return errs
		}
		if err != nil {
			return append(errs, fmt.Errorf("document %d: %w", i, err))
		}
		// yaml.v3 refuses duplicate keys, which the Kubernetes decoders would let pass.
		var v any
		if err := yaml.Unmarshal(doc, &v); err != nil {
			errs = append(errs, fmt.Errorf("document %d: %w", i, err))
			continue
		}
		top, _ := v.(map[string]any)
		apiVersion, _ := top["apiVersion"].(string)
		kind, _ := top["kind"].(string)
		if apiVersion == "" || kind == "" {
			continue // not a Kubernetes object: parsing is all there is to check
		}
		if _, _, err := strict.Decode(doc, nil, nil); err != nil && !runtime.IsNotRegisteredError(err) {
			errs = append(errs, fmt.Errorf("document %d (%s %s): %w", i, apiVersion, kind, err))
		}
	}
}
