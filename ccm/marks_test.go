// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	orchestrator "github.com/oci-ccm/oci-ccm/ccm/service"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// projectName matches a name under the project's domain in Go source: an annotation, a condition
// type, a webhook.
var projectName = regexp.MustCompile(`"((?:[a-z0-9-]+\.)?oci-ccm\.github\.io(?:/[A-Za-z0-9-]+)?)"`)

// unquotedName matches the same in YAML, where names are not quoted.
var unquotedName = regexp.MustCompile(`([a-z0-9.-]*oci-ccm\.github\.io[A-Za-z0-9/-]*)`)

// TestEveryMarkOnUsersObjectsIsDocumented: README.md's "Marks oci-ccm leaves on your objects"
// names every mark the code writes: each name under oci-ccm.github.io in the module's Go source
// and the chart's webhook, the ownership tags and the security rule description.
func TestEveryMarkOnUsersObjectsIsDocumented(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Marks oci-ccm leaves on your objects")
	if !ok {
		t.Fatal(`README.md has no section "Marks oci-ccm leaves on your objects"`)
	}
	marks := map[string]bool{
		orchestrator.AnnotationSecretsHash: true, orchestrator.AnnotationDriftRequeued: true, orchestrator.ConditionPending: true, orchestrator.AnnotationEndpointNodes: true,
		string(annotation.LoadBalancerCompartmentID): true,
		model.TagCluster: true, model.TagService: true, model.TagServiceUID: true, model.TagManagedBy: true,
		seclist.Owner("<cluster>"): true,
	}
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		isGo := strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go")
		isTemplate := strings.Contains(filepath.ToSlash(path), "helm/oci-ccm/templates/")
		if d.IsDir() || !isGo && !isTemplate {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(b)
		if isTemplate { // YAML: names are not quoted
			text = unquotedName.ReplaceAllString(text, `"$1"`)
		}
		for _, m := range projectName.FindAllStringSubmatch(text, -1) {
			if name := m[1]; name != "oci-ccm.github.io" && !strings.HasSuffix(name, "/") {
				marks[name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !marks["services.oci-ccm.github.io"] {
		t.Error("the chart's webhook name was not found under examples/helm/oci-ccm/templates")
	}
	for m := range marks {
		if !strings.Contains(section, m) {
			t.Errorf("README.md's marks section does not name %q", m)
		}
	}
}
