// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package kube

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

// TestRecordCompartmentKeepsTheAnnotationEqualToTheLoadBalancersCompartment: set for a load
// balancer outside the configured compartment, changed when it differs, removed when the load
// balancer is in the configured one, and never written when already right.
func TestRecordCompartmentKeepsTheAnnotationEqualToTheLoadBalancersCompartment(t *testing.T) {
	const configured, other, third = "ocid1.compartment.oc1..cfg", "ocid1.compartment.oc1..lbs", "ocid1.compartment.oc1..third"
	key := string(annotation.LoadBalancerCompartmentID)
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Annotations: map[string]string{"keep": "me"}}}
	kube := fake.NewClientset(svc)
	ctx := context.Background()
	for _, step := range []struct {
		compartment string
		want        string // "" for absent
		writes      int
	}{
		{configured, "", 0},
		{other, other, 1},
		{other, other, 0},
		{third, third, 1},
		{configured, "", 1},
	} {
		before := len(kube.Actions())
		if err := RecordCompartment(ctx, kube, svc, step.compartment, configured); err != nil {
			t.Fatal(err)
		}
		got, err := kube.CoreV1().Services("shop").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := got.Annotations[key]; v != step.want || ok != (step.want != "") || got.Annotations["keep"] != "me" {
			t.Errorf("after recording %s: annotations %v, want %s=%q and the others kept", step.compartment, got.Annotations, key, step.want)
		}
		if n := len(kube.Actions()) - before - 1; n != step.writes { // minus the Get
			t.Errorf("recording %s made %d writes, want %d", step.compartment, n, step.writes)
		}
		svc = got
	}
}
