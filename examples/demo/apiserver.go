// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"fmt"
	"strconv"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// newAPIServer returns a fake clientset that behaves, where the controllers and the provider
// can tell, like a real API server. The fake stores objects as given; a real server also
//   - gives every new object a UID and every write a new resourceVersion (the provider's Secret
//     watcher compares resourceVersions, and lb names retry tokens after the Service UID);
//   - allocates a Service's cluster IP, node ports (one per port number, shared by its protocols)
//     and, for externalTrafficPolicy Local, its health-check node port (lb builds backends on
//     node ports);
//   - deletes an object that has finalizers gracefully: it sets deletionTimestamp and removes
//     the object once the last finalizer is gone (the service controller deletes the load
//     balancer only when it sees the deletionTimestamp, then removes its finalizer).
func newAPIServer() *fake.Clientset {
	kube := fake.NewClientset()
	a := &apiServer{tracker: kube.Tracker(), nextNodePort: 30080, nextHealthPort: 32000}
	kube.PrependReactor("create", "*", a.admitCreate)
	kube.PrependReactor("update", "*", a.stampVersion)
	kube.PrependReactor("delete", "services", a.deleteGracefully)
	kube.PrependReactor("patch", "services", a.finishDeletion)
	return kube
}

// apiServer holds the allocation state of the reactors.
type apiServer struct {
	tracker k8stesting.ObjectTracker

	mu             sync.Mutex
	version        int
	nextUID        int
	nextClusterIP  int
	nextNodePort   int32
	nextHealthPort int32
}

var servicesResource = v1.SchemeGroupVersion.WithResource("services")

// admitCreate stamps a UID and resourceVersion on a new object and allocates a new Service's
// addresses and ports. It returns unhandled, so the fake's tracker then stores the object.
func (a *apiServer) admitCreate(action k8stesting.Action) (bool, runtime.Object, error) {
	obj := action.(k8stesting.CreateAction).GetObject()
	m, err := meta.Accessor(obj)
	if err != nil {
		return false, nil, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextUID++
	m.SetUID(types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", a.nextUID)))
	a.bumpLocked(m)
	if svc, ok := obj.(*v1.Service); ok {
		a.allocateLocked(svc)
	}
	return false, nil, nil
}

// stampVersion gives an updated object a new resourceVersion.
func (a *apiServer) stampVersion(action k8stesting.Action) (bool, runtime.Object, error) {
	if m, err := meta.Accessor(action.(k8stesting.UpdateAction).GetObject()); err == nil {
		a.mu.Lock()
		a.bumpLocked(m)
		a.mu.Unlock()
	}
	return false, nil, nil
}

func (a *apiServer) bumpLocked(m metav1.Object) {
	a.version++
	m.SetResourceVersion(strconv.Itoa(a.version))
}

// allocateLocked fills in what the API server allocates for a Service of type LoadBalancer.
func (a *apiServer) allocateLocked(svc *v1.Service) {
	if svc.Spec.ClusterIP == "" {
		a.nextClusterIP++
		svc.Spec.ClusterIP = fmt.Sprintf("10.96.0.%d", 10+a.nextClusterIP)
		svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
	}
	if svc.Spec.Type != v1.ServiceTypeLoadBalancer {
		return
	}
	if svc.Spec.ExternalTrafficPolicy == "" {
		svc.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyCluster
	}
	// Like kube-apiserver's allocator, ports with the same number (53 on UDP and on TCP) share
	// one node port.
	byPort := map[int32]int32{}
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 && byPort[p.Port] == 0 {
			byPort[p.Port] = p.NodePort
		}
	}
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		if p.Protocol == "" {
			p.Protocol = v1.ProtocolTCP
		}
		if p.NodePort == 0 {
			if byPort[p.Port] == 0 {
				byPort[p.Port] = a.nextNodePort
				a.nextNodePort++
			}
			p.NodePort = byPort[p.Port]
		}
	}
	if svc.Spec.ExternalTrafficPolicy == v1.ServiceExternalTrafficPolicyLocal && svc.Spec.HealthCheckNodePort == 0 {
		svc.Spec.HealthCheckNodePort = a.nextHealthPort
		a.nextHealthPort++
	}
}

// deleteGracefully marks a Service that has finalizers as being deleted instead of removing it.
func (a *apiServer) deleteGracefully(action k8stesting.Action) (bool, runtime.Object, error) {
	del := action.(k8stesting.DeleteAction)
	obj, err := a.tracker.Get(servicesResource, del.GetNamespace(), del.GetName())
	if err != nil {
		return false, nil, nil // let the tracker answer NotFound
	}
	svc := obj.(*v1.Service).DeepCopy()
	if len(svc.Finalizers) == 0 {
		return false, nil, nil
	}
	if svc.DeletionTimestamp == nil {
		now := metav1.Now()
		svc.DeletionTimestamp = &now
		a.mu.Lock()
		a.bumpLocked(svc)
		a.mu.Unlock()
		if err := a.tracker.Update(servicesResource, svc, svc.Namespace); err != nil {
			return true, nil, err
		}
	}
	return true, svc, nil
}

// finishDeletion applies a patch to a Service and, when that removed the last finalizer of a
// Service being deleted, deletes it.
func (a *apiServer) finishDeletion(action k8stesting.Action) (bool, runtime.Object, error) {
	handled, obj, err := k8stesting.ObjectReaction(a.tracker)(action)
	if !handled || err != nil {
		return handled, obj, err
	}
	if svc, ok := obj.(*v1.Service); ok && svc.DeletionTimestamp != nil && len(svc.Finalizers) == 0 {
		if err := a.tracker.Delete(servicesResource, svc.Namespace, svc.Name); err != nil {
			return true, nil, err
		}
	}
	return true, obj, nil
}
