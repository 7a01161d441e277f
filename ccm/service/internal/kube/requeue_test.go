// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package kube

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
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

// TestRequeueWithEventStampsTheServiceAndSaysWhy covers both requeue functions the CCM hands out:
// the drift check's and FollowUp's.
func TestRequeueWithEventStampsTheServiceAndSaysWhy(t *testing.T) {
	tests := []struct {
		name      string
		requeuer  func(kubernetes.Interface, func(ns, name string) (*v1.Service, error), record.EventRecorder) func(ctx context.Context, ns, name, reason string) error
		reason    string
		wantEvent string
	}{
		{"drifted", RequeueDrifted, "listener TCP-80 missing",
			"Warning LoadBalancerDrift Load balancer changed outside Kubernetes (listener TCP-80 missing); reconciling it"},
		{"failed update", RequeueFailedUpdate, "backend set TCP-80 not updated",
			"Warning LoadBalancerUpdateFailed Load balancer update accepted by OCI did not take effect (backend set TCP-80 not updated); reconciling it again"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cart"}}
			client := fake.NewClientset(svc)
			events := record.NewFakeRecorder(10)
			get := func(ns, name string) (*v1.Service, error) {
				return client.CoreV1().Services(ns).Get(context.Background(), name, metav1.GetOptions{})
			}
			requeue := tc.requeuer(client, get, events)
			ctx := context.Background()

			if err := requeue(ctx, "shop", "cart", tc.reason); err != nil {
				t.Fatal(err)
			}
			got, err := get("shop", "cart")
			if err != nil {
				t.Fatal(err)
			}
			if got.Annotations[AnnotationDriftRequeued] == "" {
				t.Errorf("annotations %v lack %s: the service controller would not reconcile", got.Annotations, AnnotationDriftRequeued)
			}
			if e := <-events.Events; e != tc.wantEvent {
				t.Errorf("event %q, want %q", e, tc.wantEvent)
			}
			if err := requeue(ctx, "shop", "deleted-meanwhile", "load balancer deleted"); err != nil {
				t.Errorf("a Service deleted meanwhile: %v, want nil (nothing to reconcile)", err)
			}
			if len(events.Events) != 0 {
				t.Errorf("an Event for a Service that is gone: %q", <-events.Events)
			}
		})
	}
}
