// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

// Package e2e is the end-to-end suite: the built oci-cloud-controller-manager binary, running as
// the ServiceAccount of examples/deploy/rbac.yaml, against a real etcd and kube-apiserver
// (internal/testcluster) and the in-memory OCI of ociclient/ocitest/cmd/ocitest. The suite plays
// the kubelets and the user: it creates Nodes and Services and reads back what the CCM did, in
// Kubernetes and in OCI.
//
// Run it with `make e2e`, which builds the binaries and sets the environment variables below.
package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/oci-ccm/oci-ccm/internal/testcluster"
)

// envBinary names the CCM binary; testcluster.EnvEtcd and testcluster.EnvKubeAPIServer name
// etcd and kube-apiserver. `make e2e` sets all three.
const envBinary = "OCI_CCM_BINARY"

// clusterName is the CCM's --cluster-name: it appears in ownership tags and rule descriptions.
const clusterName = "e2e"

// binaries are the programs the suite runs, resolved once by TestMain.
type binaries struct {
	ccm, kubeAPIServer, etcd, ocitest string
	// root is the repository root (examples and the ocitest command live there).
	root string
}

// bins is set by TestMain before any test runs and read-only afterwards.
var bins binaries

func TestMain(m *testing.M) {
	code, err := setupAndRun(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

// setupAndRun checks the environment, builds the ocitest command, and runs the tests.
func setupAndRun(m *testing.M) (int, error) {
	for _, v := range []struct{ env, what string }{
		{testcluster.EnvEtcd, "etcd"},
		{testcluster.EnvKubeAPIServer, "kube-apiserver"},
		{envBinary, "oci-cloud-controller-manager"},
	} {
		path := os.Getenv(v.env)
		if path == "" {
			return 0, fmt.Errorf("%s is not set (the path of %s); run `make e2e`, which builds every binary and sets %s, %s and %s",
				v.env, v.what, testcluster.EnvEtcd, testcluster.EnvKubeAPIServer, envBinary)
		}
		if info, err := os.Stat(path); err != nil || info.IsDir() || info.Mode().Perm()&0o111 == 0 {
			return 0, fmt.Errorf("%s=%s is not an executable file; run `make e2e`", v.env, path)
		}
	}
	bins.ccm = os.Getenv(envBinary)
	bins.kubeAPIServer = os.Getenv(testcluster.EnvKubeAPIServer)
	bins.etcd = os.Getenv(testcluster.EnvEtcd)

	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return 0, err
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return 0, fmt.Errorf("repository root not found above the test directory: %w", err)
	}
	bins.root = root

	tmp, err := os.MkdirTemp("", "oci-ccm-e2e-bin-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	bins.ocitest = filepath.Join(tmp, "ocitest")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", bins.ocitest, "./ociclient/ocitest/cmd/ocitest")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("build ocitest: %w\n%s", err, out)
	}
	return m.Run(), nil
}

// step is one scenario. Steps share the cluster, ocitest and the CCM, and run in order; a step
// whose prerequisite failed fails at once instead of waiting out its deadlines.
type step struct {
	name  string
	needs []string
	run   func(t *testing.T, s *suite)
}

// TestEndToEnd runs every scenario against one cluster, one ocitest and one CCM process (a new
// one after each restart).
func TestEndToEnd(t *testing.T) {
	s := newSuite(t)
	steps := []step{
		{"NodesInitialised", nil, testNodesInitialised},
		{"ServiceCreated", []string{"NodesInitialised"}, testServiceCreated},
		{"PortChanged", []string{"ServiceCreated"}, testPortChanged},
		{"NodeAddedAndRemoved", []string{"ServiceCreated"}, testNodeAddedAndRemoved},
		{"TLSSecretRotated", []string{"NodesInitialised"}, testTLSSecretRotated},
		{"InvalidAnnotation", []string{"NodesInitialised"}, testInvalidAnnotation},
		{"OverOCILimitsRefused", []string{"NodesInitialised"}, testOverOCILimitsRefused},
		{"NLBServiceUDPAndTCP", []string{"NodesInitialised"}, testNLBServiceUDPAndTCP},
		{"NSGModeService", []string{"NodesInitialised"}, testNSGModeService},
		{"StuckWorkRequest", []string{"NodesInitialised"}, testStuckWorkRequest},
		{"LocalTrafficFollowsEndpoints", []string{"NodesInitialised"}, testLocalTrafficFollowsEndpoints},
		{"BackendSetBindings", []string{"NodesInitialised"}, testBackendSetBindings},
		{"BindingRefusedOnServiceLB", []string{"ServiceCreated"}, testBindingRefusedOnServiceLB},
		// From here on the CCM runs as the Helm chart's ServiceAccount, under the chart's RBAC.
		{"ChartRBAC", []string{"NodesInitialised"}, testChartRBAC},
		{"ServiceDeleted", []string{"TLSSecretRotated"}, testServiceDeleted},
		{"DeleteDenied", []string{"NodesInitialised"}, testDeleteDenied},
		{"InstanceTerminated", []string{"NodesInitialised"}, testInstanceTerminated},
		{"ForeignNodeSurvivesRestart", nil, testForeignNodeSurvivesRestart},
		{"OCIOutage", []string{"ServiceCreated"}, testOCIOutage},
		{"RestartMidCreate", []string{"NodesInitialised"}, testRestartMidCreate},
		{"TwoClustersShareSubnets", []string{"PortChanged", "NodeAddedAndRemoved"}, testTwoClustersShareSubnets},
		{"HALeaderKilledMidCreate", []string{"NodesInitialised"}, testHALeaderKilledMidCreate},
		{"HALeaseReleasedOnSIGTERM", []string{"HALeaderKilledMidCreate"}, testHALeaseReleasedOnSIGTERM},
		// Last, so that it covers everything the CCM did.
		{"RBACSufficient", nil, testRBACSufficient},
	}
	passed := map[string]bool{}
	for _, st := range steps {
		passed[st.name] = t.Run(st.name, func(t *testing.T) {
			for _, n := range st.needs {
				if !passed[n] {
					t.Fatalf("not run: it builds on %s, which failed", n)
				}
			}
			s.runStep(t, st.run)
		})
	}
}
