package ccm

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
	kube := fake.NewClientset(svc)
	events := record.NewFakeRecorder(10)
	c := &Cloud{kube: kube, events: events}
	ctx := context.Background()

	if err := c.requeueDrifted(ctx, "shop", "cart", "listener TCP-80 missing"); err != nil {
		t.Fatal(err)
	}
	got, err := kube.CoreV1().Services("shop").Get(ctx, "cart", metav1.GetOptions{})
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

	if err := c.requeueDrifted(ctx, "shop", "deleted-meanwhile", "load balancer deleted"); err != nil {
		t.Errorf("a Service deleted meanwhile: %v, want nil (nothing to reconcile)", err)
	}
}
