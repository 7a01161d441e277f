// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package v1alpha1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func full() BackendSetBinding {
	weight, max := int32(5), int32(300)
	return BackendSetBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: SchemeGroupVersion.String(), Kind: Kind},
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Labels: map[string]string{"a": "b"}},
		Spec: BackendSetBindingSpec{LoadBalancerID: "ocid1.loadbalancer.oc1.phx.x", BackendSetName: "bs",
			ServiceRef: ServiceReference{Name: "web", Port: intstr.FromString("http")}, TargetType: TargetTypeIP,
			Weight: &weight, MaxConnections: &max, Backup: true, DeletionPolicy: DeletionPolicyKeep,
			NodeSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"pool": "web"}}},
		Status: BackendSetBindingStatus{ObservedGeneration: 2, Backends: 3, OwnedBackends: []string{"10.0.0.1:80"},
			Conditions: []metav1.Condition{{Type: ConditionReady, Status: metav1.ConditionTrue}}},
	}
}

// TestDeepCopySharesNothing: a copy equals its original, and changing anything reachable from
// the copy leaves the original as it was.
func TestDeepCopySharesNothing(t *testing.T) {
	orig := full()
	list := &BackendSetBindingList{Items: []BackendSetBinding{full()}}
	for _, obj := range []runtime.Object{&orig, list} {
		c := obj.DeepCopyObject()
		if diff := cmp.Diff(obj, c); diff != "" {
			t.Fatalf("copy differs (-orig +copy):\n%s", diff)
		}
	}
	c := orig.DeepCopy()
	*c.Spec.Weight, *c.Spec.MaxConnections = 9, 999
	c.Status.OwnedBackends[0] = "changed"
	c.Status.Conditions[0].Status = metav1.ConditionFalse
	c.Labels["a"] = "changed"
	c.Spec.NodeSelector.MatchLabels["pool"] = "changed"
	if diff := cmp.Diff(full(), orig); diff != "" {
		t.Errorf("changing the copy changed the original (-want +got):\n%s", diff)
	}
	lc := list.DeepCopy()
	lc.Items[0].Status.OwnedBackends[0] = "changed"
	if list.Items[0].Status.OwnedBackends[0] != "10.0.0.1:80" {
		t.Error("changing the list's copy changed the original")
	}
	var nilBinding *BackendSetBinding
	if nilBinding.DeepCopy() != nil || nilBinding.DeepCopyObject() != nil {
		t.Error("a nil binding's copy is not nil")
	}
}

func TestAddToSchemeRegistersBothKinds(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{Kind, Kind + "List"} {
		if !s.Recognizes(SchemeGroupVersion.WithKind(kind)) {
			t.Errorf("the scheme does not know %s", kind)
		}
	}
}
