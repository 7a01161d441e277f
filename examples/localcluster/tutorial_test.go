// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	cloudproviderapi "k8s.io/cloud-provider/api"
)

// envBinary names the built oci-cloud-controller-manager; make e2e sets it beside the variables
// testcluster reads.
const envBinary = "OCI_CCM_BINARY"

// TestTutorialOnThisMachine follows the steps ccm/docs/tutorial.md gives for this machine (its
// paragraphs starting Here instead) on localcluster:
// examples/cloud-provider.yaml with only the fields the tutorial names filled in, the check,
// the RBAC and the binary run as the tutorial runs them (kubectl included), and step 7's and 8's
// checks: every Node initialised, the Service given an address and a LoadBalancerPlanApplied
// Event, and deleted again.
func TestTutorialOnThisMachine(t *testing.T) {
	binary := os.Getenv(envBinary)
	if binary == "" {
		t.Fatalf("%s is not set (the built oci-cloud-controller-manager); run make e2e", envBinary)
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("the tutorial needs kubectl on PATH: %v", err)
	}
	ctx := t.Context()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var log bytes.Buffer
	l, err := start(ctx, filepath.Join(dir, "local"), &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	t.Cleanup(l.stop)
	var steps bytes.Buffer
	if err := l.writeNextSteps(&steps); err != nil {
		t.Fatal(err)
	}
	t.Logf("localcluster printed:\n%s", steps.String())

	// Step 4: the example, with the fields filled in as printed.
	example, err := os.ReadFile(filepath.Join(root, "examples", "cloud-provider.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	filled, err := fillIn(string(example), l.fields())
	if err != nil {
		t.Fatal(err)
	}
	cloudConfig := filepath.Join(dir, "cloud-provider.yaml")
	if err := os.WriteFile(cloudConfig, []byte(filled), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(ctx, binary, "check", "--cloud-config="+cloudConfig).CombinedOutput(); err != nil {
		t.Fatalf("check of the filled-in example: %v\n%s", err, out)
	}

	admin := filepath.Join(l.dir, adminKubeconfig)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, kubectl, args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+admin)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	// Step 6: the RBAC, then the binary as its ServiceAccount.
	run("apply", "-f", "examples/deploy/rbac.yaml")
	k := filepath.Join(l.dir, ccmKubeconfig)
	ccmLog, err := os.Create(filepath.Join(dir, "ccm.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer ccmLog.Close()
	ccm := exec.Command(binary, "--cloud-provider=oci", "--cloud-config="+cloudConfig,
		"--kubeconfig="+k, "--authentication-kubeconfig="+k, "--authorization-kubeconfig="+k,
		"--bind-address=127.0.0.1", "--leader-elect=true", "--v=2")
	ccm.Stderr, ccm.Stdout = ccmLog, ccmLog
	if err := ccm.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = ccm.Process.Kill()
		_ = ccm.Wait()
		if t.Failed() {
			if b, err := os.ReadFile(ccmLog.Name()); err == nil {
				t.Logf("ccm.log:\n%s", b)
			}
		}
	})

	kube, err := l.cluster.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	// Step 6's check: the leader's controllers started.
	waitFor(t, ctx, "the controllers started", func() (bool, string) {
		b, _ := os.ReadFile(ccmLog.Name())
		n := len(regexp.MustCompile(`Successfully acquired lease|Started "(service-lb|cloud-node)-controller"`).FindAll(b, -1))
		return n == 3, fmt.Sprintf("%d of the 3 lines", n)
	})
	// Step 7: every Node has its provider ID, a zone and no taint (the uninitialized one gone,
	// localcluster having removed the not-ready one).
	waitFor(t, ctx, "every Node initialised", func() (bool, string) { return nodesInitialised(ctx, kube) })

	// Step 8: the Deployment (its Pods stay Pending) and the example Service.
	run("create", "deployment", "web", "--image=registry.k8s.io/e2e-test-images/agnhost:2.39", "--", "/agnhost", "netexec", "--http-port=8080")
	run("apply", "-f", "examples/services/plain.yaml")
	waitFor(t, ctx, "Service web has an address", func() (bool, string) {
		svc, err := kube.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return len(svc.Status.LoadBalancer.Ingress) > 0, fmt.Sprintf("status %+v", svc.Status.LoadBalancer)
	})
	if d := run("describe", "service", "web"); !strings.Contains(d, "LoadBalancerPlanApplied") || !strings.Contains(d, "+ load balancer") {
		t.Errorf("kubectl describe service web lacks the LoadBalancerPlanApplied Event:\n%s", d)
	}
	run("delete", "service", "web", "--wait=false")
	waitFor(t, ctx, "Service web deleted", func() (bool, string) {
		_, err := kube.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})

	logText, err := os.ReadFile(ccmLog.Name())
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?m)^.*(refused|invalid|forbidden).*$`).FindAll(logText, 5); len(m) > 0 {
		t.Errorf("ccm.log has lines step 6's check says it must not have:\n%s", bytes.Join(m, []byte("\n")))
	}
}

// nodesInitialised is step 7's check.
func nodesInitialised(ctx context.Context, kube kubernetes.Interface) (bool, string) {
	nodes, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err.Error()
	}
	var state []string
	done := len(nodes.Items) > 0
	for _, n := range nodes.Items {
		tainted := false
		for _, taint := range n.Spec.Taints {
			tainted = tainted || taint.Key == cloudproviderapi.TaintExternalCloudProvider
		}
		zone := n.Labels[corev1.LabelTopologyZone]
		if !strings.HasPrefix(n.Spec.ProviderID, "oci://") || zone == "" || tainted || len(n.Spec.Taints) > 0 {
			done = false
		}
		state = append(state, fmt.Sprintf("%s: id %q zone %q tainted %v", n.Name, n.Spec.ProviderID, zone, tainted))
	}
	return done, strings.Join(state, "; ")
}

// waitFor polls cond for up to two minutes.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("%s: not within two minutes; last: %s", what, state)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
