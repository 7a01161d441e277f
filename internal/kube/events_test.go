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

func TestRequeueDriftedStampsTheServiceAndSaysWhatDrifted(t *testing.T) {
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cart"}}
	client := fake.NewClientset(svc)
	events := record.NewFakeRecorder(10)
	get := func(ns, name string) (*v1.Service, error) {
		return client.CoreV1().Services(ns).Get(context.Background(), name, metav1.GetOptions{})
	}
	requeue := RequeueDrifted(client, get, events)
	ctx := context.Background()

	if err := requeue(ctx, "shop", "cart", "listener TCP-80 missing"); err != nil {
		t.Fatal(err)
	}
	got, err := get("shop", "cart")
	if err != nil {
		t.Fatal(err)
	}
	if got.Annotations[AnnotationDriftRequeued] == "" {
		t.Errorf("annotations %v lack %s: the service controller would not reconcile", got.Annotations, AnnotationDriftRequeued)
	}
	want := "Warning LoadBalancerDrift Load balancer changed outside Kubernetes (listener TCP-80 missing); reconciling it"
	if e := <-events.Events; e != want {
		t.Errorf("event %q, want %q", e, want)
	}
	if err := requeue(ctx, "shop", "deleted-meanwhile", "load balancer deleted"); err != nil {
		t.Errorf("a Service deleted meanwhile: %v, want nil (nothing to reconcile)", err)
	}
	if len(events.Events) != 0 {
		t.Errorf("an Event for a Service that is gone: %q", <-events.Events)
	}
}
