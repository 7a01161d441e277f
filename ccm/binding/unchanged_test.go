// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	api "github.com/oci-ccm/oci-ccm/ccm/binding/v1alpha1"
	lbbinding "github.com/oci-ccm/oci-ccm/lb/binding"
)

func TestASyncReadsNothingButTheHealthOnlyWhileNothingChangedSinceAFullSync(t *testing.T) {
	c := &Controller{opts: Options{Resync: time.Minute}}
	want := []lbbinding.Target{{IP: "10.0.20.5", Port: 8080}}
	last := inputs{generation: 2, protocol: corev1.ProtocolTCP, want: want, owned: []string{"10.0.20.5:8080"}, at: time.Now()}
	same := last
	same.at = time.Time{}
	for _, tc := range []struct {
		name   string
		change func(*inputs)
		store  func(*inputs)
		want   bool
	}{
		{name: "the same inputs", want: true},
		{name: "a new generation", change: func(p *inputs) { p.generation++ }},
		{name: "another protocol", change: func(p *inputs) { p.protocol = corev1.ProtocolUDP }},
		{name: "a target draining", change: func(p *inputs) { p.want = []lbbinding.Target{{IP: "10.0.20.5", Port: 8080, Drain: true}} }},
		{name: "another target", change: func(p *inputs) { p.want = append(p.want, lbbinding.Target{IP: "10.0.20.6", Port: 8080}) }},
		{name: "owned backends changed", change: func(p *inputs) { p.owned = nil }},
		{name: "the full sync a Resync ago", store: func(p *inputs) { p.at = time.Now().Add(-time.Minute) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored, in := last, same
			if tc.store != nil {
				tc.store(&stored)
			}
			if tc.change != nil {
				tc.change(&in)
			}
			c.lastSync.Store(types.UID("b"), stored)
			if _, got := c.unchanged("b", in); got != tc.want {
				t.Errorf("unchanged = %v, want %v", got, tc.want)
			}
		})
	}
	if _, ok := c.unchanged("other", same); ok {
		t.Error("a binding with no full sync on record is taken for unchanged")
	}
}

// oneResult is a Syncer whose Sync returns res and counts its calls.
type oneResult struct {
	noOCI
	res   lbbinding.Result
	syncs int
}

func (o *oneResult) Sync(context.Context, lbbinding.Binding, []lbbinding.Target, []string) (lbbinding.Result, error) {
	o.syncs++
	return o.res, nil
}

// TestASyncWithNothingChangedWritesTheStatusItsFullSyncMade: the status write of a full sync
// fails (another writer changed the binding), and the informer's copy still has no status; the
// next sync, with nothing changed, reads nothing from OCI and writes the status the full sync
// made, not the stale copy.
func TestASyncWithNothingChangedWritesTheStatusItsFullSyncMade(t *testing.T) {
	kc := fake.NewClientset()
	dc := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{api.GroupVersionResource: api.Kind + "List"})
	factory := informers.NewSharedInformerFactory(kc, 0)
	owned := []string{"10.0.10.11:30080"}
	syncer := &oneResult{noOCI: noOCI{t}, res: lbbinding.Result{Eligible: 1, Change: lbbinding.Change{Owned: owned, Added: owned,
		Backends: []lbbinding.Backend{{IP: "10.0.10.11", Port: 30080}}}}}
	c, err := New(Options{Kube: kc, Dynamic: dc, Informers: factory, Syncer: syncer, Events: record.NewFakeRecorder(10)})
	if err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort,
		Ports: []corev1.ServicePort{{Name: "http", Port: 80, NodePort: 30080, Protocol: corev1.ProtocolTCP}}}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}, Spec: corev1.NodeSpec{ProviderID: "oci://ocid1.instance.oc1.phx.node-1"},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.10.11"}}}}
	if err := factory.Core().V1().Services().Informer().GetStore().Add(svc); err != nil {
		t.Fatal(err)
	}
	if err := factory.Core().V1().Nodes().Informer().GetStore().Add(node); err != nil {
		t.Fatal(err)
	}
	u, err := toUnstructured(&api.BackendSetBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web", Generation: 1,
		Finalizers: []string{Finalizer}}, Spec: api.BackendSetBindingSpec{LoadBalancerID: "ocid1.loadbalancer.oc1.phx.lb", BackendSetName: "web",
		ServiceRef: api.ServiceReference{Name: "web", Port: intstr.FromString("http")}}})
	if err != nil {
		t.Fatal(err)
	}
	bindings := dc.Resource(api.GroupVersionResource).Namespace("default")
	if _, err := bindings.Create(t.Context(), u, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.bindings.GetIndexer().Add(u); err != nil {
		t.Fatal(err)
	}
	conflict := true
	dc.PrependReactor("update", api.Resource, func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "status" && conflict {
			conflict = false
			return true, nil, apierrors.NewConflict(api.GroupVersionResource.GroupResource(), "web", errors.New("changed meanwhile"))
		}
		return false, nil, nil
	})

	if _, err := c.sync(t.Context(), "default/web"); !apierrors.IsConflict(err) {
		t.Fatalf("first sync: %v, want its status write's conflict", err)
	}
	// The full sync is four minutes old: the second sync asks for the next within the minute left
	// of the resync (5 min), when that one will be a full one.
	v, _ := c.lastSync.Load(types.UID("uid-web"))
	last := v.(inputs)
	last.at = last.at.Add(-4 * time.Minute)
	c.lastSync.Store(types.UID("uid-web"), last)
	after, err := c.sync(t.Context(), "default/web")
	if err != nil {
		t.Fatalf("second sync: %v", err)
	}
	if after <= 0 || after > time.Minute {
		t.Errorf("second sync asks to be synced again in %v, want within the minute left of the full sync's resync", after)
	}
	if syncer.syncs != 1 {
		t.Errorf("Sync called %d times, want once: the second sync has nothing to change", syncer.syncs)
	}
	got, err := bindings.Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b api.BackendSetBinding
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(got.Object, &b); err != nil {
		t.Fatal(err)
	}
	if ready := meta.FindStatusCondition(b.Status.Conditions, api.ConditionReady); ready == nil || ready.Status != metav1.ConditionTrue ||
		!slices.Equal(b.Status.OwnedBackends, owned) || b.Status.Backends != 1 || b.Status.ObservedGeneration != 1 {
		t.Errorf("status written by the second sync: %+v; want the full sync's: Ready True, ownedBackends %v, 1 backend, generation 1", b.Status, owned)
	}
}

// TestAGoneBindingIsForgotten: what the controller keeps of a binding by UID goes with it, also
// when it goes without the controller's finalizer: the binding informer's delete forgets it.
func TestAGoneBindingIsForgotten(t *testing.T) {
	kc := fake.NewClientset()
	dc := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{api.GroupVersionResource: api.Kind + "List"})
	c, err := New(Options{Kube: kc, Dynamic: dc, Informers: informers.NewSharedInformerFactory(kc, 0), Syncer: noOCI{t}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.queue.ShutDown()
	u, err := toUnstructured(&api.BackendSetBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web"}})
	if err != nil {
		t.Fatal(err)
	}
	bindings := dc.Resource(api.GroupVersionResource).Namespace("default")
	if _, err := bindings.Create(t.Context(), u, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.dynamics.Start(t.Context().Done())
	if !cache.WaitForCacheSync(t.Context().Done(), c.bindings.HasSynced) {
		t.Fatal("the bindings informer did not sync")
	}
	c.owned.Store(u.GetUID(), []string{"10.0.10.11:30080"})
	c.lastSync.Store(u.GetUID(), inputs{})
	if err := bindings.Delete(t.Context(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, owned := c.owned.Load(u.GetUID())
		_, last := c.lastSync.Load(u.GetUID())
		if !owned && !last {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after the binding went: owned kept %v, last sync kept %v; want neither", owned, last)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
