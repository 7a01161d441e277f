// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package v1alpha1_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/oci-ccm/oci-ccm/ccm/binding/v1alpha1"
	"github.com/oci-ccm/oci-ccm/internal/testcluster"
)

// crdFile is the CustomResourceDefinition users apply (and the Helm chart installs).
const crdFile = "../../../examples/deploy/backendsetbinding-crd.yaml"

// startWithCRD starts a real kube-apiserver, applies the CRD and waits until it is served.
func startWithCRD(t *testing.T) (dynamic.NamespaceableResourceInterface, *testcluster.Cluster) {
	t.Helper()
	cluster, err := testcluster.Start(t.Context(), testcluster.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	if err := cluster.ApplyCRD(t.Context(), crdFile); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cluster.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	return dyn.Resource(v1alpha1.GroupVersionResource), cluster
}

func toUnstructured(t *testing.T, b *v1alpha1.BackendSetBinding) *unstructured.Unstructured {
	t.Helper()
	b.TypeMeta = metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: v1alpha1.Kind}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(b)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: obj}
}

func fromUnstructured(t *testing.T, u *unstructured.Unstructured) *v1alpha1.BackendSetBinding {
	t.Helper()
	var b v1alpha1.BackendSetBinding
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, &b, true); err != nil {
		t.Fatalf("the server's object does not fit the Go types: %v", err)
	}
	return &b
}

func valid(name string) *v1alpha1.BackendSetBinding {
	return &v1alpha1.BackendSetBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: v1alpha1.BackendSetBindingSpec{
			LoadBalancerID: "ocid1.loadbalancer.oc1.phx.aaaaexample",
			BackendSetName: "app_backends-1",
			ServiceRef:     v1alpha1.ServiceReference{Name: "web", Port: intstr.FromString("http")},
		},
	}
}

// TestTheCRDHoldsEveryFieldOfTheGoTypes: what the Go types can say survives the API server (its
// schema prunes unknown fields silently), defaults are applied, and the status subresource
// takes the whole status.
func TestTheCRDHoldsEveryFieldOfTheGoTypes(t *testing.T) {
	bindings, _ := startWithCRD(t)
	ctx := t.Context()

	b := valid("full")
	b.Spec.TargetType = v1alpha1.TargetTypeIP
	b.Spec.Weight, b.Spec.MaxConnections = ptr.To[int32](7), ptr.To[int32](512)
	b.Spec.Backup, b.Spec.DeletionPolicy = true, v1alpha1.DeletionPolicyKeep
	b.Spec.LoadBalancerID = "ocid1.networkloadbalancer.oc1.phx.aaaaexample"
	b.Spec.ServiceRef.Port = intstr.FromInt32(443)
	b.Spec.NodeSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"pool": "web"},
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "zone", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}}}
	created, err := bindings.Namespace("default").Create(ctx, toUnstructured(t, b), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := fromUnstructured(t, created)
	if diff := cmp.Diff(b.Spec, got.Spec); diff != "" {
		t.Errorf("spec after create (-sent +stored):\n%s", diff)
	}

	got.Status = v1alpha1.BackendSetBindingStatus{
		ObservedGeneration: got.Generation, Backends: 3, OwnedBackends: []string{"10.0.10.5:8080", "10.0.10.6:8080"},
		Conditions: []metav1.Condition{
			{Type: v1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: "InSync", Message: "2 backends", LastTransitionTime: metav1.Now(), ObservedGeneration: got.Generation},
			{Type: v1alpha1.ConditionDegraded, Status: metav1.ConditionFalse, Reason: "InSync", Message: "", LastTransitionTime: metav1.Now()},
		},
	}
	updated, err := bindings.Namespace("default").UpdateStatus(ctx, toUnstructured(t, got), metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got.Status, fromUnstructured(t, updated).Status, cmpopts.EquateApproxTime(time.Second)); diff != "" {
		t.Errorf("status after UpdateStatus (-sent +stored):\n%s", diff)
	}

	defaulted, err := bindings.Namespace("default").Create(ctx, toUnstructured(t, valid("defaults")), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec := fromUnstructured(t, defaulted).Spec
	if spec.TargetType != v1alpha1.TargetTypeNode || spec.DeletionPolicy != v1alpha1.DeletionPolicyRemove {
		t.Errorf("defaults: targetType %q, deletionPolicy %q; want node, Remove", spec.TargetType, spec.DeletionPolicy)
	}
}

// TestTheCRDRefusesBadBindingsNamingTheField: the API server refuses, at kubectl apply, what the
// controller could never carry out, each time naming the field.
func TestTheCRDRefusesBadBindingsNamingTheField(t *testing.T) {
	bindings, _ := startWithCRD(t)
	ctx := t.Context()
	for _, tc := range []struct {
		name  string
		edit  func(*v1alpha1.BackendSetBinding)
		field string
	}{
		{"not a load balancer OCID", func(b *v1alpha1.BackendSetBinding) { b.Spec.LoadBalancerID = "ocid1.instance.oc1.phx.aaaa" }, "spec.loadBalancerID"},
		{"no backend set", func(b *v1alpha1.BackendSetBinding) { b.Spec.BackendSetName = "" }, "spec.backendSetName"},
		{"a space in the backend set name", func(b *v1alpha1.BackendSetBinding) { b.Spec.BackendSetName = "my set" }, "spec.backendSetName"},
		{"no Service", func(b *v1alpha1.BackendSetBinding) { b.Spec.ServiceRef.Name = "" }, "spec.serviceRef.name"},
		{"an unknown target type", func(b *v1alpha1.BackendSetBinding) { b.Spec.TargetType = "instance" }, "spec.targetType"},
		{"weight 0", func(b *v1alpha1.BackendSetBinding) { b.Spec.Weight = ptr.To[int32](0) }, "spec.weight"},
		{"weight 101", func(b *v1alpha1.BackendSetBinding) { b.Spec.Weight = ptr.To[int32](101) }, "spec.weight"},
		{"maxConnections under OCI's 256", func(b *v1alpha1.BackendSetBinding) { b.Spec.MaxConnections = ptr.To[int32](100) }, "spec.maxConnections"},
		{"an unknown deletion policy", func(b *v1alpha1.BackendSetBinding) { b.Spec.DeletionPolicy = "Orphan" }, "spec.deletionPolicy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := valid("bad")
			tc.edit(b)
			_, err := bindings.Namespace("default").Create(ctx, toUnstructured(t, b), metav1.CreateOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.field) {
				t.Errorf("create = %v, want a refusal naming %s", err, tc.field)
			}
		})
	}

	created, err := bindings.Namespace("default").Create(ctx, toUnstructured(t, valid("immutable")), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		field string
		edit  func(*v1alpha1.BackendSetBinding)
	}{
		{"spec.loadBalancerID", func(b *v1alpha1.BackendSetBinding) { b.Spec.LoadBalancerID = "ocid1.loadbalancer.oc1.phx.other" }},
		{"spec.backendSetName", func(b *v1alpha1.BackendSetBinding) { b.Spec.BackendSetName = "other" }},
		{"spec.targetType", func(b *v1alpha1.BackendSetBinding) { b.Spec.TargetType = v1alpha1.TargetTypeIP }},
	} {
		b := fromUnstructured(t, created)
		tc.edit(b)
		if _, err := bindings.Namespace("default").Update(ctx, toUnstructured(t, b), metav1.UpdateOptions{}); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("changing %s: update = %v, want a refusal naming it", tc.field, err)
		}
	}
	b := fromUnstructured(t, created)
	b.Spec.Weight = ptr.To[int32](50) // the rest may change
	if _, err := bindings.Namespace("default").Update(ctx, toUnstructured(t, b), metav1.UpdateOptions{}); err != nil {
		t.Errorf("changing the weight: %v", err)
	}
}

// TestKubectlGetShowsTheBindingsColumns asks for the table kubectl get prints.
func TestKubectlGetShowsTheBindingsColumns(t *testing.T) {
	bindings, cluster := startWithCRD(t)
	ctx := t.Context()
	if _, err := bindings.Namespace("default").Create(ctx, toUnstructured(t, valid("web")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kube, err := kubernetes.NewForConfig(cluster.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := kube.Discovery().RESTClient().Get().AbsPath("/apis", v1alpha1.Group, v1alpha1.Version, "namespaces", "default", v1alpha1.Resource).
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	var columns []string
	for _, c := range table.ColumnDefinitions {
		if c.Priority == 0 {
			columns = append(columns, c.Name)
		}
	}
	if diff := cmp.Diff([]string{"Name", "Service", "Backend Set", "Type", "Backends", "Ready", "Age"}, columns); diff != "" {
		t.Errorf("kubectl get columns (-want +got):\n%s", diff)
	}
	if len(table.Rows) != 1 || len(table.Rows[0].Cells) < 4 || table.Rows[0].Cells[1] != "web" || table.Rows[0].Cells[3] != "node" {
		t.Errorf("rows %+v; want one, for Service web, type node", table.Rows)
	}
}
