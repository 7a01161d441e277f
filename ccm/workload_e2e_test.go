// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package ccm

import (
	"context"
	"crypto/rsa"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"

	"github.com/oci-ccm/oci-ccm/internal/testcluster"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// workloadEnv is env with a real kube-apiserver (for the TokenRequest API) and ocitest's OKE
// workload identity endpoint trusting its service account tokens. The SDK finds the endpoint
// through the process environment only, hence t.Setenv (these tests are not parallel).
func workloadEnv(t *testing.T) (*env, kubernetes.Interface) {
	t.Helper()
	for _, v := range []string{testcluster.EnvKubeAPIServer, testcluster.EnvEtcd} {
		if os.Getenv(v) == "" {
			t.Fatalf("%s is not set: run `make e2e`, which sets %s and %s", v, testcluster.EnvKubeAPIServer, testcluster.EnvEtcd)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cluster, err := testcluster.Start(ctx, testcluster.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	kube, err := cluster.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	pemKey, err := cluster.ServiceAccountKeyPEM()
	if err != nil {
		t.Fatal(err)
	}
	key, err := ocitest.ServiceAccountKey(pemKey)
	if err != nil {
		t.Fatal(err)
	}
	px, err := e.srv.StartProxymux(ocitest.ProxymuxOptions{ServiceAccountKeys: []*rsa.PublicKey{key}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(px.Close)
	ca := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(ca, px.CACertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range px.Environment(ca, e.srv.Region()) {
		t.Setenv(k, v)
	}
	e.cloud.svc.Initialize(kube, record.NewFakeRecorder(100), nil)
	return e, kube
}

func TestRealClusterWorkloadServiceAccountCreatesTheLoadBalancerAsTheWorkload(t *testing.T) {
	e, kube := workloadEnv(t)
	ctx := ctxFor(t)
	if _, err := kube.CoreV1().ServiceAccounts("default").Create(ctx,
		&v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "lb-owner"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	lbs, _ := e.cloud.LoadBalancer()
	svc := service("web", map[string]string{string(annotation.WorkloadServiceAccount): "lb-owner"}, 80)
	if _, err := lbs.EnsureLoadBalancer(ctx, "test-cluster", svc, e.nodes); err != nil {
		t.Fatal(err)
	}
	workload := e.srv.CallsBy(ocitest.WorkloadPrincipal("default", "lb-owner"))
	ccm := e.srv.CallsBy(ocitest.Principal{Kind: ocitest.PrincipalUser, Name: e.cfg.Auth.User})
	if workload.Op("CreateLoadBalancer") != 1 {
		t.Errorf("calls as the workload:\n%s\nwant the create", workload)
	}
	for _, op := range workload.Ops() {
		if strings.Contains(op, "SecurityList") || strings.Contains(op, "Subnet") {
			t.Errorf("%s made as the workload, want networking calls as the CCM", op)
		}
	}
	for _, op := range ccm.Ops() {
		if strings.Contains(op, "LoadBalancer") {
			t.Errorf("%s made as the CCM, want load balancer calls as the workload", op)
		}
	}
	if ccm.Op("UpdateSecurityList") == 0 {
		t.Errorf("calls as the CCM:\n%s\nwant the security rules written", ccm)
	}

	// A Service without the annotation is the CCM's, as before.
	plain := service("plain", nil, 81)
	before := e.srv.CallsBy(ocitest.WorkloadPrincipal("default", "lb-owner")).Total()
	if _, err := lbs.EnsureLoadBalancer(ctx, "test-cluster", plain, e.nodes); err != nil {
		t.Fatal(err)
	}
	if got := e.srv.CallsBy(ocitest.Principal{Kind: ocitest.PrincipalUser, Name: e.cfg.Auth.User}).Op("CreateLoadBalancer"); got != 1 {
		t.Errorf("CreateLoadBalancer as the CCM = %d, want 1 for the Service without the annotation", got)
	}
	if after := e.srv.CallsBy(ocitest.WorkloadPrincipal("default", "lb-owner")).Total(); after != before {
		t.Errorf("%d calls as the workload for a Service without the annotation", after-before)
	}

	if err := lbs.EnsureLoadBalancerDeleted(ctx, "test-cluster", svc); err != nil {
		t.Fatal(err)
	}
	if got := e.srv.CallsBy(ocitest.WorkloadPrincipal("default", "lb-owner")).Op("DeleteLoadBalancer"); got != 1 {
		t.Errorf("DeleteLoadBalancer as the workload = %d, want 1", got)
	}
}

func TestRealClusterWorkloadServiceAccountMissingOrEmptyChangesNothing(t *testing.T) {
	e, _ := workloadEnv(t)
	lbs, _ := e.cloud.LoadBalancer()
	for value, want := range map[string]string{"ghost": `"ghost" not found`, "": string(annotation.WorkloadServiceAccount)} {
		before := e.srv.Calls()
		svc := service("web", map[string]string{string(annotation.WorkloadServiceAccount): value}, 80)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := lbs.EnsureLoadBalancer(ctx, "test-cluster", svc, e.nodes)
		cancel()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want one containing %s", value, err, want)
		}
		if calls := e.srv.Calls().Since(before); calls.Class(ocitest.ClassWrite) != 0 || calls.Op(ocitest.ProxymuxOp) != 0 {
			t.Errorf("%q: calls after the refusal:\n%s\nwant no writes and no session token", value, calls)
		}
	}
	if n := len(e.srv.LoadBalancers()); n != 0 {
		t.Errorf("%d load balancers, want none", n)
	}
}
