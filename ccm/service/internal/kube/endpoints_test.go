// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package kube

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

func lbService(name string, policy v1.ServiceExternalTrafficPolicy) *v1.Service {
	return &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name},
		Spec: v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, ExternalTrafficPolicy: policy}}
}

type endpoint struct {
	node                        string
	ready, serving, terminating *bool
}

func slice(name, service string, eps ...endpoint) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name,
		Labels: map[string]string{discoveryv1.LabelServiceName: service}}, AddressType: discoveryv1.AddressTypeIPv4}
	for _, ep := range eps {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.244.0.1"}, NodeName: &ep.node,
			Conditions: discoveryv1.EndpointConditions{Ready: ep.ready, Serving: ep.serving, Terminating: ep.terminating}})
	}
	return s
}

func ptr(b bool) *bool { return &b }

func TestEndpointNodesAreTheNodesOfEndpointsThatTakeTraffic(t *testing.T) {
	web := lbService("web", v1.ServiceExternalTrafficPolicyLocal)
	kube := fake.NewClientset(web,
		slice("web-a", "web", endpoint{node: "n1"}, endpoint{node: "n2", ready: ptr(true)}, endpoint{node: "n3", ready: ptr(false)}),
		slice("web-b", "web", endpoint{node: "n4", ready: ptr(false), serving: ptr(true), terminating: ptr(true)},
			endpoint{node: "n5", ready: ptr(false), serving: ptr(false), terminating: ptr(true)}),
		slice("other", "api", endpoint{node: "n6"}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory := informers.NewSharedInformerFactory(kube, 0)
	e := NewEndpoints(ctx, nil, factory)
	if _, known := e.Nodes(web); known {
		t.Error("endpoints known before the informer synced")
	}
	factory.Start(ctx.Done())
	cache.WaitForCacheSync(ctx.Done(), e.synced)

	nodes, known := e.Nodes(web)
	if diff := cmp.Diff(map[string]bool{"n1": true, "n2": true, "n4": true}, nodes); diff != "" || !known {
		t.Errorf("Nodes (known %v) (-want +got):\n%s", known, diff)
	}
	if _, known := e.Nodes(lbService("no-slices", v1.ServiceExternalTrafficPolicyLocal)); known {
		t.Error("a Service without EndpointSlices has known endpoints")
	}
	var none *Endpoints
	if _, known := none.Nodes(web); known {
		t.Error("a nil Endpoints knows endpoints")
	}
}

func TestALocalServiceIsStampedWhenItsEndpointsMoveToOtherNodes(t *testing.T) {
	web := lbService("web", v1.ServiceExternalTrafficPolicyLocal)
	cluster := lbService("api", v1.ServiceExternalTrafficPolicyCluster)
	kube := fake.NewClientset(web, cluster, slice("web-a", "web", endpoint{node: "n1"}), slice("api-a", "api", endpoint{node: "n1"}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory := informers.NewSharedInformerFactory(kube, 0)
	e := NewEndpoints(ctx, kube, factory)
	factory.Start(ctx.Done())
	cache.WaitForCacheSync(ctx.Done(), e.synced, factory.Core().V1().Services().Informer().HasSynced)
	go e.Run(ctx)

	stamp := func(name string) string {
		svc, err := kube.CoreV1().Services("shop").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return svc.Annotations[AnnotationEndpointNodes]
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	waitFor("the first stamp", func() bool { return stamp("web") == hashNodes(map[string]bool{"n1": true}) })

	// The pod moves to n2.
	moved := slice("web-a", "web", endpoint{node: "n2"})
	if _, err := kube.DiscoveryV1().EndpointSlices("shop").Update(ctx, moved, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("the stamp of n2", func() bool { return stamp("web") == hashNodes(map[string]bool{"n2": true}) })

	// A change that keeps the Nodes (another pod on n2) writes nothing, once the cache has the stamp.
	waitFor("the cache to hold the stamp", func() bool {
		svc, err := e.services.Services("shop").Get("web")
		return err == nil && svc.Annotations[AnnotationEndpointNodes] == hashNodes(map[string]bool{"n2": true})
	})
	before := len(kube.Actions())
	same := slice("web-a", "web", endpoint{node: "n2"}, endpoint{node: "n2"})
	if _, err := kube.DiscoveryV1().EndpointSlices("shop").Update(ctx, same, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("the update to be seen", func() bool {
		nodes, _ := e.Nodes(web)
		obj, _, _ := e.slices.GetByKey("shop/web-a")
		return len(nodes) == 1 && len(obj.(*discoveryv1.EndpointSlice).Endpoints) == 2
	})
	// Handle it here too, so the check does not depend on when the queue's worker gets to it.
	if err := e.retrigger(ctx, types.NamespacedName{Namespace: "shop", Name: "web"}); err != nil {
		t.Fatal(err)
	}
	for _, a := range kube.Actions()[before:] {
		if a.GetVerb() == "patch" {
			t.Errorf("endpoints on the same Nodes patched %s", a.GetResource().Resource)
		}
	}
	// externalTrafficPolicy Cluster: never stamped.
	if got := stamp("api"); got != "" {
		t.Errorf("a Cluster Service was stamped %q", got)
	}
}
