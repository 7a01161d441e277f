// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package preflight

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/oci-ccm/oci-ccm/internal/testcluster"
)

// envBinary names the built oci-cloud-controller-manager (make e2e sets it, with the variables
// testcluster reads).
const envBinary = "OCI_CCM_BINARY"

// TestCheckAgainstARealAPIServer creates the fixture cluster in a real kube-apiserver, checks it
// through the package and through the built binary's check command, and asserts the exact
// findings and the exit status.
func TestCheckAgainstARealAPIServer(t *testing.T) {
	binary := os.Getenv(envBinary)
	if binary == "" {
		t.Fatalf("%s is not set (the built oci-cloud-controller-manager); run make e2e", envBinary)
	}
	ctx := t.Context()
	cluster, err := testcluster.Start(ctx, testcluster.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	kube, err := kubernetes.NewForConfig(cluster.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	uids := createFixture(t, kube)
	uid := func(name string) types.UID { return uids[name] }
	path := writeConfig(t, fixtureConfig)

	upstream := "prod"
	r, err := Run(ctx, Options{CloudConfig: path, Getenv: env(nil), UpstreamPrefix: &upstream, Kube: kube})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantServices(t, uid, upstream), r.Services); diff != "" {
		t.Errorf("Services (-want +got):\n%s", diff)
	}
	if r.OtherClass != 1 || len(r.Config) != 0 || r.Blocking() != 10 {
		t.Errorf("other class %d, config findings %+v, blocking %d; want 1, none, 10", r.OtherClass, r.Config, r.Blocking())
	}

	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := cluster.WriteKubeconfig(kubeconfig, nil); err != nil {
		t.Fatal(err)
	}
	// The binary, in an environment without LOAD_BALANCER_PREFIX: its JSON is the package's
	// report, its status 1.
	out, status := runCheck(t, binary, "--cloud-config="+path, "--kubeconfig="+kubeconfig, "--upstream-load-balancer-prefix=prod", "-o", "json")
	var got Report
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the binary's JSON: %v\n%s", err, out)
	}
	if diff := cmp.Diff(r, &got); diff != "" {
		t.Errorf("the binary's report (-package +binary):\n%s", diff)
	}
	if status != 1 {
		t.Errorf("exit status %d with refused Services, want 1", status)
	}
	text, _ := runCheck(t, binary, "--cloud-config="+path, "--kubeconfig="+kubeconfig)
	t.Logf("the binary's report:\n%s", text)
	if !bytes.Contains(text, []byte("5 refused, 0 new load balancer, 11 differs, 0 warning. NOT ready to switch")) {
		t.Errorf("the text report lacks the summary")
	}
	// The configuration alone is clean: status 0.
	if out, status := runCheck(t, binary, "--cloud-config="+path); status != 0 {
		t.Errorf("exit status %d for a clean configuration, want 0:\n%s", status, out)
	}

	// What stops the binary from starting makes the check of the configuration alone fail too
	// (status 1), naming the field: the framework's default cluster name as the identity, and
	// LOAD_BALANCER_PREFIX disagreeing with loadBalancer.naming.prefix.
	noID := writeConfig(t, strings.Replace(fixtureConfig, "clusterID: prod-phx-1\n", "", 1))
	if out, status := runCheck(t, binary, "--cloud-config="+noID, "--cluster-name=kubernetes"); status != 1 ||
		!bytes.Contains(out, []byte("refused           --cluster-name: \"kubernetes\"")) {
		t.Errorf("the default cluster name: exit status %d, want 1 and a refused --cluster-name:\n%s", status, out)
	}
	prefixed := writeConfig(t, fixtureConfig+"  naming:\n    prefix: staging\n")
	if out, status := runCheck(t, binary, "--cloud-config="+prefixed, "--env=LOAD_BALANCER_PREFIX=prod"); status != 1 ||
		!bytes.Contains(out, []byte("refused           LOAD_BALANCER_PREFIX")) {
		t.Errorf("a disagreeing LOAD_BALANCER_PREFIX: exit status %d, want 1 and a refused LOAD_BALANCER_PREFIX:\n%s", status, out)
	}
}

// createFixture creates the fixture's namespace, Nodes, Secret and Services, gives the Services
// their addresses, and returns their UIDs by name.
func createFixture(t *testing.T, kube kubernetes.Interface) map[string]types.UID {
	t.Helper()
	ctx := t.Context()
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fixtureNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, node := range fixtureNodes() {
		created, err := kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		created.Status.Addresses = node.Status.Addresses
		if _, err := kube.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := kube.CoreV1().Secrets(fixtureNamespace).Create(ctx, fixtureSecret(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	uids := map[string]types.UID{}
	for _, svc := range fixtureServices() {
		created, err := kube.CoreV1().Services(fixtureNamespace).Create(ctx, svc, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("Service %s: %v", svc.Name, err)
		}
		uids[svc.Name] = created.UID
		if len(svc.Status.LoadBalancer.Ingress) > 0 {
			created.Status = svc.Status
			if _, err := kube.CoreV1().Services(fixtureNamespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return uids
}

// runCheck runs the binary's check command without LOAD_BALANCER_PREFIX and returns its output
// and exit status. An argument "--env=NAME=VALUE" is not passed on but set in its environment.
func runCheck(t *testing.T, binary string, args ...string) ([]byte, int) {
	t.Helper()
	var flags, extra []string
	for _, a := range args {
		if kv, ok := strings.CutPrefix(a, "--env="); ok {
			extra = append(extra, kv)
		} else {
			flags = append(flags, a)
		}
	}
	cmd := exec.CommandContext(t.Context(), binary, append([]string{"check"}, flags...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LOAD_BALANCER_PREFIX=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return stdout.Bytes(), exit.ExitCode()
	case err != nil:
		t.Fatalf("check %v: %v\n%s", args, err, stderr.Bytes())
	}
	return stdout.Bytes(), 0
}
