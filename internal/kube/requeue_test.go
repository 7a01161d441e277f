// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package kube

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
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

func TestRequeueFailedUpdateStampsTheServiceAndSaysWhatFailed(t *testing.T) {
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cart"}}
	client := fake.NewClientset(svc)
	events := record.NewFakeRecorder(10)
	get := func(ns, name string) (*v1.Service, error) {
		return client.CoreV1().Services(ns).Get(context.Background(), name, metav1.GetOptions{})
	}
	requeue := RequeueFailedUpdate(client, get, events)

	if err := requeue(context.Background(), "shop", "cart", "backend set TCP-80 not updated"); err != nil {
		t.Fatal(err)
	}
	got, err := get("shop", "cart")
	if err != nil {
		t.Fatal(err)
	}
	if got.Annotations[AnnotationDriftRequeued] == "" {
		t.Errorf("annotations %v lack %s: the service controller would not reconcile", got.Annotations, AnnotationDriftRequeued)
	}
	want := "Warning LoadBalancerUpdateFailed Load balancer update accepted by OCI did not take effect (backend set TCP-80 not updated); reconciling it again"
	if e := <-events.Events; e != want {
		t.Errorf("event %q, want %q", e, want)
	}
	if err := requeue(context.Background(), "shop", "deleted-meanwhile", "x"); err != nil || len(events.Events) != 0 {
		t.Errorf("a Service deleted meanwhile: %v and %d Events, want nil and none", err, len(events.Events))
	}
}
