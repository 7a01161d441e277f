// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package drift_test

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"

	"github.com/oci-ccm/oci-ccm/internal/drift"
	"github.com/oci-ccm/oci-ccm/internal/kube"
)

func TestRequeueFailedUpdateStampsTheServiceAndSaysWhatFailed(t *testing.T) {
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cart"}}
	client := fake.NewClientset(svc)
	events := record.NewFakeRecorder(10)
	get := func(ns, name string) (*v1.Service, error) {
		return client.CoreV1().Services(ns).Get(context.Background(), name, metav1.GetOptions{})
	}
	requeue := drift.RequeueFailedUpdate(client, get, events)

	if err := requeue(context.Background(), "shop", "cart", "backend set TCP-80 not updated"); err != nil {
		t.Fatal(err)
	}
	got, err := get("shop", "cart")
	if err != nil {
		t.Fatal(err)
	}
	if got.Annotations[kube.AnnotationDriftRequeued] == "" {
		t.Errorf("annotations %v lack %s: the service controller would not reconcile", got.Annotations, kube.AnnotationDriftRequeued)
	}
	want := "Warning LoadBalancerUpdateFailed Load balancer update accepted by OCI did not take effect (backend set TCP-80 not updated); reconciling it again"
	if e := <-events.Events; e != want {
		t.Errorf("event %q, want %q", e, want)
	}
	if err := requeue(context.Background(), "shop", "deleted-meanwhile", "x"); err != nil || len(events.Events) != 0 {
		t.Errorf("a Service deleted meanwhile: %v and %d Events, want nil and none", err, len(events.Events))
	}
}
