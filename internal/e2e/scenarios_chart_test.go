// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// chartRBACFile is the Helm chart's ServiceAccount and RBAC as the chart renders them;
	// examples/helm/test keeps the file equal to the chart's output and the chart's permissions
	// equal to examples/deploy/rbac.yaml's.
	chartRBACFile = "examples/helm/test/testdata/rbac.golden.yaml"
	// chartServiceAccount is the chart's ServiceAccount in chartRBACFile (release oci-ccm). It
	// differs from ccmServiceAccount, so nothing of examples/deploy/rbac.yaml grants it anything.
	chartServiceAccount = "oci-ccm"
)

// testChartRBAC: the Helm chart's RBAC is enough to run the CCM. It applies the chart's rendered
// ServiceAccount and RBAC, restarts the CCM with a token of that ServiceAccount (every later step
// and restart runs under it too), and takes a Service from creation to deletion; the new CCM is
// never denied a request. The steps before this one ran under examples/deploy/rbac.yaml.
func testChartRBAC(t *testing.T, s *suite) {
	if chartServiceAccount == ccmServiceAccount {
		t.Fatalf("the chart's ServiceAccount is examples/deploy's (%s): its permissions would not be under test", ccmServiceAccount)
	}
	if err := applyManifest(s.ctx, s.kube, filepath.Join(bins.root, filepath.FromSlash(chartRBACFile))); err != nil {
		t.Fatalf("apply %s: %v", chartRBACFile, err)
	}
	saConfig, err := s.cluster.ServiceAccountConfig(s.ctx, ccmNamespace, chartServiceAccount)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(s.dir, "ccm-chart.kubeconfig")
	if err := s.cluster.WriteKubeconfig(kubeconfig, saConfig); err != nil {
		t.Fatal(err)
	}

	s.ccm.stop()
	s.ccm.kubeconfig = kubeconfig
	if err := s.ccm.start(s.ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("CCM restarted as %s/%s (the chart's RBAC)", ccmNamespace, chartServiceAccount)

	svc := loadService(t, "plain.yaml", testNamespace)
	svc.Name = "chart-rbac"
	created, err := s.kube.CoreV1().Services(testNamespace).Create(s.ctx, svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitIngressIP(t, s, testNamespace, svc.Name)
	s.waitLBConverged(t, testNamespace, svc.Name, nil)
	s.deleteService(t, testNamespace, svc.Name)
	if lbs, err := s.oci.loadBalancersNamed(s.ctx, string(created.UID)); err != nil {
		t.Fatal(err)
	} else if len(lbs) != 0 {
		t.Errorf("%d load balancer(s) left for the deleted Service", len(lbs))
	}

	if denied := forbiddenLines(t, s.ccm.current().LogPath()); len(denied) > 0 {
		t.Errorf("the CCM running under the chart's RBAC was denied %d request(s); first ones:\n%s",
			len(denied), strings.Join(denied[:min(len(denied), 10)], "\n"))
	}
}

// forbiddenLines returns the lines of a CCM log that report a request the API server refused.
func forbiddenLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for line := range strings.Lines(string(data)) {
		if strings.Contains(line, "forbidden") {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}
