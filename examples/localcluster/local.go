// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	cloudproviderapi "k8s.io/cloud-provider/api"

	"github.com/oci-ccm/oci-ccm/internal/testcluster"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// The files localcluster writes into its directory.
const (
	keyFile         = "oci_api_key.pem" // the name the tutorial's Secret gives the key
	caFile          = "ca.pem"
	adminKubeconfig = "kubeconfig"
	ccmKubeconfig   = "ccm.kubeconfig"
	nextStepsFile   = "next-steps.txt"
)

// The CCM's ServiceAccount, as examples/deploy/rbac.yaml names it.
const (
	ccmNamespace      = "kube-system"
	ccmServiceAccount = "cloud-controller-manager"
)

// local is a running fake OCI and cluster.
type local struct {
	dir     string
	oci     *ocitest.Server
	creds   ocitest.Credentials
	seeded  ocitest.Seeded
	cluster *testcluster.Cluster
	nodes   []string
}

// start serves ocitest, starts the cluster, registers the Nodes and writes the files. On error
// nothing is left running.
func start(ctx context.Context, dir string, log io.Writer) (_ *local, err error) {
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	apiserver, err := binary(ctx, testcluster.EnvKubeAPIServer, "internal/kubebins/build-kube-apiserver.sh", log)
	if err != nil {
		return nil, err
	}
	etcd, err := binary(ctx, testcluster.EnvEtcd, "internal/kubebins/ensure-etcd.sh", log)
	if err != nil {
		return nil, err
	}

	l := &local{dir: dir}
	defer func() {
		if err != nil {
			l.stop()
		}
	}()
	tenancy := ocitest.DefaultTenancy()
	if l.oci, err = ocitest.Listen(ocitest.Options{TLS: true, Tenancy: &tenancy, Region: tenancy.Region}); err != nil {
		return nil, fmt.Errorf("start the in-memory OCI: %w", err)
	}
	l.seeded = l.oci.Seeded()
	if l.creds, err = l.oci.NewCredentials(); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, keyFile), l.creds.PrivateKeyPEM, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, caFile), l.oci.CACertPEM(), 0o644); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "localcluster: in-memory OCI serving %s; starting etcd and kube-apiserver…\n", l.oci.URL())

	// A run that was killed leaves its etcd data behind: start from an empty cluster.
	clusterDir := filepath.Join(dir, "cluster")
	if err := os.RemoveAll(clusterDir); err != nil {
		return nil, err
	}
	logf := func(format string, args ...any) { fmt.Fprintf(log, format+"\n", args...) }
	l.cluster, err = testcluster.Start(ctx, testcluster.Options{KubeAPIServer: apiserver, Etcd: etcd, Dir: clusterDir, Logf: logf})
	if err != nil {
		return nil, err
	}
	if err := l.cluster.WriteKubeconfig(filepath.Join(dir, adminKubeconfig), nil); err != nil {
		return nil, err
	}
	// The CCM's own identity: a token of its ServiceAccount, so it runs under the RBAC the
	// tutorial applies, as in a cluster.
	sa, err := l.cluster.ServiceAccountConfig(ctx, ccmNamespace, ccmServiceAccount)
	if err != nil {
		return nil, err
	}
	if err := l.cluster.WriteKubeconfig(filepath.Join(dir, ccmKubeconfig), sa); err != nil {
		return nil, err
	}
	kube, err := l.cluster.AdminClient()
	if err != nil {
		return nil, err
	}
	l.nodes = slices.Sorted(func(yield func(string) bool) {
		for name := range l.seeded.Instances {
			if !yield(name) {
				return
			}
		}
	})
	for _, name := range l.nodes {
		if err := registerNode(ctx, kube, name); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// stop stops what start started.
func (l *local) stop() {
	if l.cluster != nil {
		l.cluster.Stop()
	}
	if l.oci != nil {
		l.oci.Close()
	}
}

// binary is the path in the environment variable env or, when it is unset, the last line a
// script of internal/kubebins prints, its progress passed on to log.
func binary(ctx context.Context, env, script string, log io.Writer) (string, error) {
	if path := os.Getenv(env); path != "" {
		return path, nil
	}
	if _, err := os.Stat(script); err != nil {
		return "", fmt.Errorf("%s is unset and %s is not here: run this from the repository's root, or set %s", env, script, env)
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, script)
	cmd.Stdout, cmd.Stderr = &out, log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %w", script, err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return lines[len(lines)-1], nil
}

// registerNode creates the Node a kubelet started with --cloud-provider=external registers:
// tainted uninitialized, no provider ID, no addresses, then Ready.
func registerNode(ctx context.Context, kube kubernetes.Interface, name string) error {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{
			Key: cloudproviderapi.TaintExternalCloudProvider, Value: "true", Effect: corev1.TaintEffectNoSchedule,
		}}},
	}
	created, err := kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("register Node %s: %w", name, err)
	}
	now := metav1.Now()
	created.Status.Conditions = []corev1.NodeCondition{{
		Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: now, LastTransitionTime: now,
		Reason: "KubeletReady", Message: "set by localcluster, which plays the kubelet",
	}}
	ready, err := kube.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("set Node %s Ready: %w", name, err)
	}
	// Admission gave the Node the not-ready taint; kube-controller-manager's node lifecycle
	// controller, which does not run here, removes it once the Node is Ready.
	ready.Spec.Taints = slices.DeleteFunc(ready.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady })
	if _, err := kube.CoreV1().Nodes().Update(ctx, ready, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("remove the not-ready taint of Node %s: %w", name, err)
	}
	return nil
}
