// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package test renders the oci-ccm chart with Helm's Go library and compares the output with
// golden files. It is a module of its own so that Helm never enters the go.mod of oci-ccm's
// library users. Update the golden files with `go test . -update` (then read the diff).
package test

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/engine"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the chart")

const (
	chartDir = "../oci-ccm"
	// releaseName and releaseNamespace are what every case installs as.
	releaseName      = "oci-ccm"
	releaseNamespace = "kube-system"
)

// render renders the chart with valuesYAML as `helm template` would: every template's output in
// file-name order, each under a "# Source:" line, NOTES.txt and empty outputs left out.
func render(t *testing.T, valuesYAML string) (string, error) {
	t.Helper()
	files, err := renderFiles(t, valuesYAML)
	if err != nil {
		return "", err
	}
	return join(files), nil
}

// renderedFile is one template's output.
type renderedFile struct{ name, body string }

// join concatenates files the way `helm template` prints them.
func join(files []renderedFile) string {
	var b strings.Builder
	for _, f := range files {
		// A template may hold several documents; each starts with "---" but the first.
		b.WriteString("---\n# Source: " + f.name + "\n" + f.body + "\n")
	}
	return b.String()
}

// renderFiles renders the chart and returns the non-empty outputs in file-name order.
func renderFiles(t *testing.T, valuesYAML string) ([]renderedFile, error) {
	t.Helper()
	chrt, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("load %s: %v", chartDir, err)
	}
	return renderChart(t, chrt, valuesYAML)
}

// renderChart is renderFiles for a loaded chart.
func renderChart(t *testing.T, chrt chart.Charter, valuesYAML string) ([]renderedFile, error) {
	t.Helper()
	vals := map[string]any{}
	if err := yaml.Unmarshal([]byte(valuesYAML), &vals); err != nil {
		t.Fatalf("values: %v", err)
	}
	top, err := util.ToRenderValuesWithSchemaValidation(chrt, vals,
		common.ReleaseOptions{Name: releaseName, Namespace: releaseNamespace, IsInstall: true}, nil, false)
	if err != nil {
		return nil, err
	}
	// Strict: a template that reads a value values.yaml does not define (a typo) fails.
	files, err := engine.Engine{Strict: true}.RenderWithContext(t.Context(), chrt, top)
	if err != nil {
		return nil, err
	}
	var out []renderedFile
	for name, body := range files {
		body = strings.TrimSpace(body)
		if body == "" || strings.HasSuffix(name, "NOTES.txt") {
			continue
		}
		out = append(out, renderedFile{name, body})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// requiredValues are the least a user must set.
const requiredValues = `
clusterName: prod-phx-1
config:
  existingSecret: oci-cloud-controller-manager
`

// TestChartRendersAsTheGoldenFiles renders the chart for a few ways of installing it and
// compares the output with testdata/<case>.golden.yaml.
func TestChartRendersAsTheGoldenFiles(t *testing.T) {
	for _, c := range []struct {
		name, values string
	}{
		{"existing-secret", requiredValues},
		{"inline-config", `
clusterName: prod-phx-1
config:
  inline:
    useInstancePrincipals: true
    compartment: ocid1.compartment.oc1..aaaaaaaaexamplecompartment
    vcn: ocid1.vcn.oc1.phx.aaaaaaaaexamplevcn
    loadBalancer:
      subnet1: ocid1.subnet.oc1.phx.aaaaaaaaexamplelbsubnet
      securityListManagementMode: All
`},
		{"single-replica-pinned-image", requiredValues + `
replicas: 1
leaderElection:
  enabled: false
image:
  digest: sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
extraArgs: ["--node-monitor-period=10s"]
nodeSelector:
  node-role.kubernetes.io/master: ""
resources:
  requests: {cpu: 50m, memory: 64Mi}
`},
		{"webhook-and-metrics", requiredValues + `
webhook:
  enabled: true
  tls:
    secretName: oci-ccm-webhook-tls
  caBundle: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
metrics:
  service:
    enabled: true
  serviceMonitor:
    enabled: true
    labels: {release: prometheus}
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := render(t, c.values)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", c.name+".golden.yaml")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run `go test . -update` to write it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("rendered chart differs from %s (-golden +rendered); if intended, run `go test . -update`:\n%s", golden, diff)
			}
		})
	}
}

// TestChartRefusesValuesThatCannotWork: each bad value fails the render with a message naming
// the value, before anything reaches a cluster.
func TestChartRefusesValuesThatCannotWork(t *testing.T) {
	for _, c := range []struct {
		name, values, want string
	}{
		{"no cluster identity", `
config: {existingSecret: x}
`, "clusterName is required"},
		{"the framework's default identity", `
clusterName: kubernetes
config: {existingSecret: x}
`, `clusterName "kubernetes" is the framework's default`},
		{"no config", `
clusterName: a
`, "config: set config.inline"},
		{"two configs", `
clusterName: a
config: {existingSecret: x, inline: {compartment: c}}
`, "config: set either config.inline or config.existingSecret, not both"},
		{"replicas without leader election", requiredValues + `
leaderElection: {enabled: false}
`, "replicas: 2 replicas need leaderElection.enabled=true"},
		{"webhook without a certificate", requiredValues + `
webhook: {enabled: true}
`, "webhook.tls.secretName is required"},
		{"webhook failing closed by a typo", requiredValues + `
webhook: {failurePolicy: ignore}
`, `webhook.failurePolicy "ignore": allowed are Ignore`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := render(t, c.values)
			if err == nil {
				t.Fatalf("rendered without error; want one containing %q. Output:\n%.1000s", c.want, out)
			}
			// The template's fail message is the user-facing text under test here.
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not contain %q", err, c.want)
			}
		})
	}
}
