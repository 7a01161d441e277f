// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/oci-ccm/oci-ccm/internal/testcluster"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// otherCluster is the identity of the second cluster of TwoClustersShareSubnets. It begins with
// the first cluster's identity, so a prefix or substring match would confuse the two.
const otherCluster = clusterName + "-other"

// otherClusterNode is the instance the second cluster's one Node runs on: in the shared node
// subnet. NodeAddedAndRemoved removed its Node from the first cluster.
const otherClusterNode = extraInstance

// testTwoClustersShareSubnets: a second cluster (its own etcd, kube-apiserver and CCM, identity
// from clusterID in cloud-provider.yaml instead of --cluster-name) against the same ocitest
// tenancy, with the same load balancer and node subnets and a Service of the same namespace and
// name as the first cluster's. Neither cluster removes the other's rules, and the second cannot
// take the first's load balancer even when a Service names it for adoption.
func testTwoClustersShareSubnets(t *testing.T, s *suite) {
	ctx := s.ctx
	rulesBefore, err := s.oci.ownedRules(ctx, clusterName)
	if err != nil {
		t.Fatal(err)
	}
	if len(rulesBefore) == 0 {
		t.Fatal("the first cluster owns no rules; this scenario needs its web Service")
	}
	web1, err := s.kube.CoreV1().Services(testNamespace).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lb1, ok, err := s.oci.loadBalancerNamed(ctx, string(web1.UID))
	if err != nil || !ok {
		t.Fatalf("the first cluster's load balancer for web: found %v, %v", ok, err)
	}

	kube2 := s.startOtherCluster(t)

	// The second cluster's web: same namespace and name, its own load balancer and rules.
	web2, err := kube2.CoreV1().Services(testNamespace).Create(ctx, loadService(t, "plain.yaml", testNamespace), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var lb2ID string
	eventually(t, ctx, convergeTimeout, "the second cluster's load balancer, tagged with its identity", func(ctx context.Context) (bool, string, error) {
		got, ok, err := s.oci.loadBalancerNamed(ctx, string(web2.UID))
		if err != nil || !ok {
			return false, fmt.Sprintf("found %v", ok), err
		}
		lb2ID = deref(got.Id)
		return got.FreeformTags[model.TagCluster] == otherCluster, describeLB(got), nil
	})
	web2, err = kube2.CoreV1().Services(testNamespace).Get(ctx, web2.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, ctx, convergeTimeout, "the second cluster's rules", func(ctx context.Context) (bool, string, error) {
		owned, err := s.oci.ownedRules(ctx, otherCluster)
		if err != nil {
			return false, "", err
		}
		missing := missingRules(owned, s.wantRules(web2))
		return len(missing) == 0, fmt.Sprintf("missing %v\nall owned %v", missing, owned), nil
	})
	rules2, err := s.oci.ownedRules(ctx, otherCluster) // with the health-check port's rules
	if err != nil {
		t.Fatal(err)
	}
	s.requireRulesUnchanged(t, clusterName, rulesBefore, "after the second cluster created its Service")

	// Pointed at the first cluster's load balancer, the second cluster refuses it.
	adopter := loadService(t, "plain.yaml", testNamespace)
	adopter.Name = "adopter"
	adopter.Annotations[string(annotation.AdoptLoadBalancerID)] = deref(lb1.Id)
	if _, err := kube2.CoreV1().Services(testNamespace).Create(ctx, adopter, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, ctx, convergeTimeout, "a Warning Event refusing the first cluster's load balancer", func(ctx context.Context) (bool, string, error) {
		events, err := serviceEvents(ctx, kube2, testNamespace, adopter.Name)
		if err != nil {
			return false, "", err
		}
		found := slices.ContainsFunc(events, func(e corev1.Event) bool {
			return e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, clusterName) && strings.Contains(e.Message, model.TagCluster)
		})
		return found, describeEvents(events), nil
	})
	deleteServiceIn(t, s, kube2, testNamespace, adopter.Name)
	if got, ok, err := s.oci.loadBalancerNamed(ctx, string(web1.UID)); err != nil || !ok || got.FreeformTags[model.TagCluster] != clusterName {
		t.Errorf("the first cluster's load balancer after the adoption attempt: found %v (err %v), tags %v", ok, err, got.FreeformTags)
	}

	// The first cluster writes and prunes the shared lists: the second's rules stay.
	extra := loadService(t, "plain.yaml", testNamespace)
	extra.Name = "neighbour"
	created, err := s.kube.CoreV1().Services(testNamespace).Create(ctx, extra, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created = waitIngressIP(t, s, testNamespace, created.Name)
	s.waitRules(t, "the first cluster's rules for neighbour", s.wantRules(created), nil)
	s.deleteService(t, testNamespace, created.Name)
	s.waitRules(t, "the first cluster's rules without neighbour", rulesBefore, nodePorts(created))
	s.requireRulesPresent(t, otherCluster, rules2, "after the first cluster pruned its own")

	// The second cluster deletes its Service: its load balancer and rules go, the first's stay.
	deleteServiceIn(t, s, kube2, testNamespace, web2.Name)
	eventually(t, ctx, convergeTimeout, "the second cluster's load balancer deleted", func(ctx context.Context) (bool, string, error) {
		exists, err := s.oci.loadBalancerExists(ctx, lb2ID)
		return !exists, "still there", err
	})
	eventually(t, ctx, convergeTimeout, "the second cluster's rules removed", func(ctx context.Context) (bool, string, error) {
		owned, err := s.oci.ownedRules(ctx, otherCluster)
		return len(owned) == 0, fmt.Sprintf("still owned %v", owned), err
	})
	s.requireRulesUnchanged(t, clusterName, rulesBefore, "after the second cluster deleted its Service")
	if exists, err := s.oci.loadBalancerExists(ctx, deref(lb1.Id)); err != nil || !exists {
		t.Errorf("the first cluster's load balancer is gone (err %v)", err)
	}
}

// startOtherCluster starts a second etcd and kube-apiserver, applies the deploy RBAC, registers
// one Node, and runs a second CCM whose identity is clusterID in its copy of cloud-provider.yaml
// (no --cluster-name). Everything stops when the test ends.
func (s *suite) startOtherCluster(t *testing.T) kubernetes.Interface {
	t.Helper()
	ctx := s.ctx
	dir := filepath.Join(s.dir, "other")
	cluster, err := testcluster.Start(ctx, testcluster.Options{
		KubeAPIServer: bins.kubeAPIServer, Etcd: bins.etcd, Dir: filepath.Join(dir, "cluster"), Logf: t.Logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	kube, err := kubernetes.NewForConfig(cluster.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := applyManifest(ctx, kube, filepath.Join(bins.root, "examples", "deploy", "rbac.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := cluster.ApplyCRD(ctx, filepath.Join(bins.root, "examples", "deploy", bindingCRDFile)); err != nil {
		t.Fatal(err)
	}
	if err := createNamespace(ctx, kube, testNamespace); err != nil {
		t.Fatal(err)
	}
	saConfig, err := cluster.ServiceAccountConfig(ctx, ccmNamespace, ccmServiceAccount)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "ccm.kubeconfig")
	if err := cluster.WriteKubeconfig(kubeconfig, saConfig); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(s.ccm.cloudConfig)
	if err != nil {
		t.Fatal(err)
	}
	cloudConfig := filepath.Join(dir, "cloud-provider.yaml")
	cfg = append([]byte("clusterID: "+otherCluster+"\n"), cfg...)
	if err := os.WriteFile(cloudConfig, cfg, 0o600); err != nil {
		t.Fatal(err)
	}

	want := s.wantFacts(ctx, t, otherClusterNode)
	if err := createNode(ctx, kube, otherClusterNode, want.InternalIP, corev1.ConditionTrue); err != nil {
		t.Fatal(err)
	}
	ccm := &ccmRunner{dir: dir, kubeconfig: kubeconfig, cloudConfig: cloudConfig}
	t.Cleanup(ccm.stop) // registered after the cluster's, so it runs before it
	if err := ccm.start(ctx); err != nil {
		ccm.logTail(t, 0)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			ccm.logTail(t, 0)
		}
	})
	eventually(t, ctx, convergeTimeout, "the second cluster's Node initialised", func(ctx context.Context) (bool, string, error) {
		n, err := kube.CoreV1().Nodes().Get(ctx, otherClusterNode, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return n.Spec.ProviderID != "", fmt.Sprintf("providerID %q, taints %v", n.Spec.ProviderID, n.Spec.Taints), nil
	})
	return kube
}

// requireRulesUnchanged fails unless the rules owned by cluster are exactly before (as sets).
func (s *suite) requireRulesUnchanged(t *testing.T, cluster string, before []rule, when string) {
	t.Helper()
	owned, err := s.oci.ownedRules(s.ctx, cluster)
	if err != nil {
		t.Fatal(err)
	}
	if missing, extra := missingRules(owned, before), missingRules(before, owned); len(missing)+len(extra) > 0 {
		t.Errorf("cluster %s's rules changed %s: lost %v, gained %v", cluster, when, missing, extra)
	}
}

// requireRulesPresent fails unless every rule of want is owned by cluster.
func (s *suite) requireRulesPresent(t *testing.T, cluster string, want []rule, when string) {
	t.Helper()
	owned, err := s.oci.ownedRules(s.ctx, cluster)
	if err != nil {
		t.Fatal(err)
	}
	if missing := missingRules(owned, want); len(missing) > 0 {
		t.Errorf("cluster %s lost rules %s: %v", cluster, when, missing)
	}
}

// deleteServiceIn deletes a Service of the given cluster and waits until its finalizer is gone.
func deleteServiceIn(t *testing.T, s *suite, kube kubernetes.Interface, ns, name string) {
	t.Helper()
	main := *s
	main.kube = kube
	main.deleteService(t, ns, name)
}

// nodePorts returns the Service's node ports.
func nodePorts(svc *corev1.Service) []int {
	var out []int
	for _, p := range svc.Spec.Ports {
		out = append(out, int(p.NodePort))
	}
	return out
}
