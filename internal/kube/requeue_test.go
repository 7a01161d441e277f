// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package kube

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestRequeueSetsTheAnnotationOnceAndIgnoresAGoneService(t *testing.T) {
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web",
		Annotations: map[string]string{"keep": "me"}}}
	kube := fake.NewClientset(svc)
	ctx := context.Background()

	if err := Requeue(ctx, kube, svc, "example.com/hash", "abc"); err != nil {
		t.Fatal(err)
	}
	got, err := kube.CoreV1().Services("shop").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Annotations["example.com/hash"] != "abc" || got.Annotations["keep"] != "me" {
		t.Errorf("annotations %v; want the new one added and the others kept", got.Annotations)
	}

	actions := len(kube.Actions())
	if err := Requeue(ctx, kube, got, "example.com/hash", "abc"); err != nil {
		t.Fatal(err)
	}
	if n := len(kube.Actions()) - actions; n != 0 {
		t.Errorf("re-queueing with the value already set made %d API calls, want 0", n)
	}

	gone := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "deleted"}}
	if err := Requeue(ctx, kube, gone, "example.com/hash", "abc"); err != nil {
		t.Errorf("re-queueing a deleted Service: %v, want nil (nothing to reconcile)", err)
	}
}
