// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package testcluster

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/oci-ccm/oci-ccm/internal/proc"
)

// requireBinaries fails (never skips) when the binaries are not configured:
// an e2e run that silently tests nothing is worse than a red one.
func requireBinaries(t *testing.T) {
	t.Helper()
	for _, env := range []string{EnvKubeAPIServer, EnvEtcd} {
		if os.Getenv(env) == "" {
			t.Fatalf("%s is not set. Run `make e2e`, which builds kube-apiserver "+
				"(internal/kubebins/build-kube-apiserver.sh), finds or installs etcd "+
				"(internal/kubebins/ensure-etcd.sh) and sets %s and %s.", env, EnvKubeAPIServer, EnvEtcd)
		}
	}
}

func TestClusterEnforcesRBACForServiceAccountsAndStopsCleanly(t *testing.T) {
	requireBinaries(t)
	ctx := t.Context()
	dir := t.TempDir()
	c, err := Start(ctx, Options{Dir: dir, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	admin := kubernetes.NewForConfigOrDie(c.AdminConfig())

	const namespace = "oci-ccm-e2e"
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	node, err := admin.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Admission (TaintNodesByCondition) marks every new Node not ready
	// until a kubelet reports otherwise; tests creating Nodes see this.
	wantTaint := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	if diff := cmp.Diff([]corev1.Taint{wantTaint}, node.Spec.Taints); diff != "" {
		t.Errorf("taints of a new Node (-want +got):\n%s", diff)
	}

	// A binary run with a written kubeconfig reaches the same server.
	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	if err := c.WriteKubeconfig(kubeconfig, nil); err != nil {
		t.Fatal(err)
	}
	fromFile, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kubernetes.NewForConfigOrDie(fromFile).CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{}); err != nil {
		t.Errorf("get namespace through the written kubeconfig: %v", err)
	}

	saCfg, err := c.ServiceAccountConfig(ctx, namespace, "cloud-controller-manager")
	if err != nil {
		t.Fatal(err)
	}
	sa := kubernetes.NewForConfigOrDie(saCfg)
	if _, err := sa.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("list nodes as a service account without a role = %v, want Forbidden", err)
	}

	grantNodeReader(t, admin, namespace, "cloud-controller-manager")
	var nodes *corev1.NodeList
	eventually(t, "the role binding takes effect", func() bool {
		// The RBAC authorizer reads bindings from an informer, so the
		// grant reaches it shortly after the write, not with it.
		nodes, err = sa.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil && !apierrors.IsForbidden(err) {
			t.Fatalf("list nodes: %v", err)
		}
		return err == nil
	})
	if len(nodes.Items) != 1 || nodes.Items[0].Name != "node-1" {
		t.Errorf("service account listed %d nodes, want exactly node-1", len(nodes.Items))
	}
	// The grant is exactly what the role says: still no Secrets.
	if _, err := sa.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("list secrets as the node reader = %v, want Forbidden", err)
	}
	// Re-requesting reuses the existing ServiceAccount.
	if _, err := c.ServiceAccountConfig(ctx, namespace, "cloud-controller-manager"); err != nil {
		t.Errorf("second ServiceAccountConfig for the same account: %v", err)
	}

	host := c.AdminConfig().Host
	procs := []*proc.Process{c.apiserver, c.etcd}
	c.Stop()
	for _, p := range procs {
		if !p.Exited() || alive(t, p.PID()) {
			t.Errorf("%s (pid %d) still runs after Stop", p.Name(), p.PID())
		}
	}
	u, err := url.Parse(host)
	if err != nil {
		t.Fatal(err)
	}
	if conn, err := net.Dial("tcp", u.Host); err == nil {
		conn.Close()
		t.Errorf("%s still accepts connections after Stop", u.Host)
	}
	// A caller's Dir keeps the logs for reading after the test but loses
	// the etcd data.
	for _, name := range []string{"etcd.log", "kube-apiserver.log"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("log after Stop: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "etcd-data")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("etcd data after Stop: stat = %v, want it removed", err)
	}
}

// grantNodeReader lets the ServiceAccount namespace/name get and list Nodes.
func grantNodeReader(t *testing.T, admin kubernetes.Interface, namespace, name string) {
	t.Helper()
	ctx := t.Context()
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-node-reader"},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""},
			Resources: []string{"nodes"},
			Verbs:     []string{"get", "list"},
		}},
	}
	if _, err := admin.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-node-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}},
	}
	if _, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestClusterDiesWithItsContext(t *testing.T) {
	requireBinaries(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c, err := Start(ctx, Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	procs := []*proc.Process{c.apiserver, c.etcd}

	cancel()
	for _, p := range procs {
		<-p.Done()
		if alive(t, p.PID()) {
			t.Errorf("%s (pid %d) survived the end of its context", p.Name(), p.PID())
		}
	}
	c.Stop()
	if _, err := os.Stat(c.dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temporary dir %s after Stop: stat = %v, want it removed", c.dir, err)
	}
}
