// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	api "github.com/oci-ccm/oci-ccm/ccm/binding/v1alpha1"
	"github.com/oci-ccm/oci-ccm/config"
	lbbinding "github.com/oci-ccm/oci-ccm/lb/binding"
	"github.com/oci-ccm/oci-ccm/seclist"
)

func TestOnlyNodeChangesThatMayMoveABackendSyncNodeBindings(t *testing.T) {
	base := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{"pool": "a"}},
		Spec:   corev1.NodeSpec{ProviderID: "oci://x"},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}}}}
	for _, tc := range []struct {
		name string
		edit func(*corev1.Node)
		want bool
	}{
		{"a heartbeat", func(n *corev1.Node) {
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now()}}
		}, false},
		{"a label", func(n *corev1.Node) { n.Labels = map[string]string{"pool": "b"} }, true},
		{"an address", func(n *corev1.Node) { n.Status.Addresses[0].Address = "10.0.0.2" }, true},
		{"the providerID", func(n *corev1.Node) { n.Spec.ProviderID = "oci://y" }, true},
		{"deletion", func(n *corev1.Node) { n.DeletionTimestamp = ptr.To(metav1.Now()) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := base.DeepCopy()
			tc.edit(n)
			if got := nodeMoved(base, n); got != tc.want {
				t.Errorf("nodeMoved = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOnlyBindingChangesThatMayChangeItsSyncSyncIt(t *testing.T) {
	base := &unstructured.Unstructured{}
	base.SetName("web")
	base.SetGeneration(3)
	base.SetFinalizers([]string{Finalizer})
	base.SetResourceVersion("10")
	for _, tc := range []struct {
		name string
		edit func(*unstructured.Unstructured)
		want bool
	}{
		{"its status", func(u *unstructured.Unstructured) {
			u.SetResourceVersion("11")
			u.Object["status"] = map[string]any{"backends": int64(2)}
		}, false},
		{"an annotation", func(u *unstructured.Unstructured) { u.SetAnnotations(map[string]string{"note": "x"}) }, false},
		{"its spec", func(u *unstructured.Unstructured) { u.SetGeneration(4) }, true},
		{"its finalizers", func(u *unstructured.Unstructured) { u.SetFinalizers(nil) }, true},
		{"its deletion", func(u *unstructured.Unstructured) { u.SetDeletionTimestamp(ptr.To(metav1.Now())) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := base.DeepCopy()
			tc.edit(u)
			if got := bindingMoved(base, u); got != tc.want {
				t.Errorf("bindingMoved = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAGatedPodWaitingOnlyForItsGateIsATarget(t *testing.T) {
	port := corev1.ServicePort{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}
	endpoint := func(ip, pod string, ready bool) discoveryv1.Endpoint {
		return discoveryv1.Endpoint{Addresses: []string{ip}, TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: pod},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(ready), Serving: ptr.To(ready), Terminating: ptr.To(false)}}
	}
	slice := &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4,
		Ports:     []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8080), Protocol: ptr.To(corev1.ProtocolTCP)}},
		Endpoints: []discoveryv1.Endpoint{endpoint("10.0.1.1", "ready", true), endpoint("10.0.1.2", "gated", false), endpoint("10.0.1.3", "crashing", false)}}
	got := lbbinding.EndpointTargets(withGatedReady([]*discoveryv1.EndpointSlice{slice}, map[string]bool{"gated": true}), port)
	want := []lbbinding.Target{{IP: "10.0.1.1", Port: 8080}, {IP: "10.0.1.2", Port: 8080}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	if *slice.Endpoints[1].Conditions.Ready {
		t.Error("withGatedReady changed the informer's EndpointSlice")
	}
}

func TestGatedTarget(t *testing.T) {
	pod := func(containers, ready corev1.ConditionStatus, deleting bool) *corev1.Pod {
		p := &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.ContainersReady, Status: containers},
			{Type: corev1.PodReady, Status: ready}}}}
		if deleting {
			p.DeletionTimestamp = ptr.To(metav1.Now())
		}
		return p
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"containers ready, Pod not: the gate holds it", pod(corev1.ConditionTrue, corev1.ConditionFalse, false), true},
		{"Ready, its endpoint maybe not yet", pod(corev1.ConditionTrue, corev1.ConditionTrue, false), true},
		{"containers not ready", pod(corev1.ConditionFalse, corev1.ConditionFalse, false), false},
		{"being deleted", pod(corev1.ConditionTrue, corev1.ConditionFalse, true), false},
	} {
		if got := gatedTarget(tc.pod); got != tc.want {
			t.Errorf("%s: gatedTarget = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestGatesOfNamesTheBindingsAPodWaitsFor(t *testing.T) {
	p := &corev1.Pod{Spec: corev1.PodSpec{ReadinessGates: []corev1.PodReadinessGate{
		{ConditionType: api.ReadinessGatePrefix + "web"}, {ConditionType: "example.com/other"}, {ConditionType: api.ReadinessGatePrefix}}}}
	if diff := cmp.Diff([]string{"web"}, gatesOf(p)); diff != "" {
		t.Errorf("gatesOf (-want +got):\n%s", diff)
	}
}

func TestAStatusThatDiffersOnlyInTimestampsIsNotWrittenAgain(t *testing.T) {
	a := api.BackendSetBindingStatus{ObservedGeneration: 1, Backends: 2, OwnedBackends: []string{"10.0.0.1:80"}}
	setCondition(&a, api.ConditionReady, metav1.ConditionTrue, ReasonInSync, "1 backend")
	var b api.BackendSetBindingStatus
	a.DeepCopyInto(&b)
	b.Conditions[0].LastTransitionTime = metav1.Now()
	if !equalStatus(&a, &b) {
		t.Error("equalStatus is false for statuses that differ only in a timestamp")
	}
	b.OwnedBackends = nil
	if equalStatus(&a, &b) {
		t.Error("equalStatus is true for different owned backends")
	}
}

func TestTheClaimOfABindingIsItsOwnedBackendsPortsInModeBackend(t *testing.T) {
	b := &api.BackendSetBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	res := lbbinding.Result{Change: lbbinding.Change{Owned: []string{"10.0.20.6:8443", "10.0.20.5:8080", "fd00::7:8080"}},
		Subnets: []string{"ocid1.subnet.lb"}, HealthCheckPort: 10256}
	got := claimOf(b, res, corev1.ProtocolTCP, []string{"ocid1.subnet.pods"})
	want := seclist.Claim{Service: types.NamespacedName{Namespace: "shop", Name: "backendsetbinding:web"}, Mode: config.SecurityListModeBackend,
		LBSubnets: []string{"ocid1.subnet.lb"}, NodeSubnets: []string{"ocid1.subnet.pods"}, NodePorts: []int{8080, 8443}, HealthCheckPort: 10256}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claim (-want +got):\n%s", diff)
	}
	if udp := claimOf(b, res, corev1.ProtocolUDP, nil); udp.NodePorts != nil || !slices.Equal(udp.UDPNodePorts, []int{8080, 8443}) {
		t.Errorf("a UDP port's claim: TCP %v, UDP %v; want UDP 8080, 8443 only", udp.NodePorts, udp.UDPNodePorts)
	}
	if ip, port, ok := splitBackend("fd00::7:8080"); ip != "fd00::7" || port != 8080 || !ok {
		t.Errorf("splitBackend of an IPv6 backend = %q, %d, %v", ip, port, ok)
	}
}

// TestOnlyAGatedPodWhoseBackendIsNotOKYetWaitsForOCI: the health polls go on while a gated Pod's
// backend is not OK; a gated Pod that is no backend (its containers not ready: a crash loop) is
// told so and waits for Kubernetes, with no poll of OCI.
func TestOnlyAGatedPodWhoseBackendIsNotOKYetWaitsForOCI(t *testing.T) {
	const binding = "api"
	gate := corev1.PodConditionType(api.ReadinessGatePrefix + binding)
	pod := func(name, ip string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec:   corev1.PodSpec{ReadinessGates: []corev1.PodReadinessGate{{ConditionType: gate}}},
			Status: corev1.PodStatus{PodIP: ip}}
	}
	backend, crashing := pod("web-1", "10.0.20.5"), pod("web-2", "10.0.20.6")
	targets := []lbbinding.Target{{IP: "10.0.20.5", Port: 8080}}
	for _, tc := range []struct {
		name        string
		pods        []*corev1.Pod
		health      lbbinding.Health
		wantWaiting bool
		wantGates   map[string]corev1.ConditionStatus
	}{
		{"a backend OCI reports UNKNOWN", []*corev1.Pod{backend}, lbbinding.HealthUnknown, true,
			map[string]corev1.ConditionStatus{"web-1": corev1.ConditionFalse}},
		{"a backend OCI reports OK", []*corev1.Pod{backend}, lbbinding.HealthOK, false,
			map[string]corev1.ConditionStatus{"web-1": corev1.ConditionTrue}},
		{"a Pod that is no backend", []*corev1.Pod{crashing}, lbbinding.HealthOK, false,
			map[string]corev1.ConditionStatus{"web-2": corev1.ConditionFalse}},
		{"both, the backend OK", []*corev1.Pod{backend, crashing}, lbbinding.HealthOK, false,
			map[string]corev1.ConditionStatus{"web-1": corev1.ConditionTrue, "web-2": corev1.ConditionFalse}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kc := fake.NewClientset(backend.DeepCopy(), crashing.DeepCopy())
			c := &Controller{opts: Options{Kube: kc}}
			waiting, err := c.setGates(t.Context(), "default", binding, tc.pods, targets, map[string]lbbinding.Health{"10.0.20.5:8080": tc.health})
			if err != nil {
				t.Fatal(err)
			}
			if waiting != tc.wantWaiting {
				t.Errorf("waiting = %v, want %v", waiting, tc.wantWaiting)
			}
			for name, want := range tc.wantGates {
				p, err := kc.CoreV1().Pods("default").Get(t.Context(), name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if got := current(p, gate); got != want {
					t.Errorf("Pod %s gate %q, want %q", name, got, want)
				}
			}
		})
	}
}
