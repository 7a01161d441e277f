// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package kube

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/engine"
)

// AnnotationEndpointNodes is written by the provider on a load balancer Service with
// externalTrafficPolicy Local: a hash of the names of the Nodes that run its endpoints. The
// service controller does not watch EndpointSlices, but it reconciles a Service whose
// annotations change, so updating this hash when a pod lands on another Node is what moves the
// load balancer's backends with the pods (engine.Options.EndpointNodes).
const AnnotationEndpointNodes = "oci-ccm.github.io/endpoint-nodes-hash"

// sliceIndex indexes EndpointSlices by the Service they belong to ("namespace/name").
const sliceIndex = "oci-ccm-service"

// Endpoints reads the EndpointSlices of the cluster from the shared informer, tells lb which
// Nodes run each Service's endpoints, and re-triggers a load balancer Service with
// externalTrafficPolicy Local when that set of Nodes changes.
type Endpoints struct {
	kube     kubernetes.Interface
	services corelisters.ServiceLister
	slices   cache.Indexer
	synced   cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[types.NamespacedName] // Services whose endpoints changed
}

// NewEndpoints registers the EndpointSlice informer on factory, indexed by Service. With a nil
// kube nothing is re-triggered (Nodes still answers from the cache). Start factory, then call Run.
func NewEndpoints(ctx context.Context, kube kubernetes.Interface, factory informers.SharedInformerFactory) *Endpoints {
	inf := factory.Discovery().V1().EndpointSlices().Informer()
	_ = inf.AddIndexers(cache.Indexers{sliceIndex: sliceService})
	e := &Endpoints{kube: kube, services: factory.Core().V1().Services().Lister(), slices: inf.GetIndexer(), synced: inf.HasSynced}
	if kube == nil {
		return e
	}
	e.queue = newQueue(ctx, "oci-endpoint-nodes")
	onEvery(inf, func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if s, ok := obj.(*discoveryv1.EndpointSlice); ok {
			if name := s.Labels[discoveryv1.LabelServiceName]; name != "" {
				e.queue.Add(types.NamespacedName{Namespace: s.Namespace, Name: name})
			}
		}
	})
	return e
}

// sliceService is the sliceIndex function: the Service an EndpointSlice belongs to.
func sliceService(obj any) ([]string, error) {
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok || s.Labels[discoveryv1.LabelServiceName] == "" {
		return nil, nil
	}
	return []string{s.Namespace + "/" + s.Labels[discoveryv1.LabelServiceName]}, nil
}

// Nodes is engine.EndpointNodes: the Nodes that run an endpoint of svc that may take traffic (ready,
// or serving while terminating), known once the informer has synced and an EndpointSlice of svc
// exists. A nil Endpoints knows nothing.
func (e *Endpoints) Nodes(svc *v1.Service) (map[string]bool, bool) {
	if e == nil || !e.synced() {
		return nil, false
	}
	objs, err := e.slices.ByIndex(sliceIndex, svc.Namespace+"/"+svc.Name)
	if err != nil || len(objs) == 0 {
		return nil, false
	}
	nodes := map[string]bool{}
	for _, obj := range objs {
		s, ok := obj.(*discoveryv1.EndpointSlice)
		if !ok {
			continue
		}
		for _, ep := range s.Endpoints {
			if ep.NodeName != nil && takesTraffic(ep.Conditions) {
				nodes[*ep.NodeName] = true
			}
		}
	}
	return nodes, true
}

// takesTraffic is whether kube-proxy sends an endpoint traffic: ready (unset counts as ready, as
// the EndpointSlice API says), or serving while it terminates (kube-proxy falls back to those
// when a Node has no ready endpoint, so that connections drain).
func takesTraffic(c discoveryv1.EndpointConditions) bool {
	ready := c.Ready == nil || *c.Ready
	servingTerminating := c.Serving != nil && *c.Serving && c.Terminating != nil && *c.Terminating
	return ready || servingTerminating
}

var _ engine.EndpointNodes = (*Endpoints)(nil).Nodes

// Run re-triggers, until ctx ends, each load balancer Service with externalTrafficPolicy Local
// whose Nodes with endpoints change: it stamps AnnotationEndpointNodes with their hash. Call it
// once the caches have synced.
func (e *Endpoints) Run(ctx context.Context) {
	runQueue(ctx, e.queue, e.retrigger, "Cannot re-trigger a Service whose endpoints moved", "service")
}

// retrigger stamps the Service with the hash of its Nodes with endpoints, if it is a load
// balancer Service lb manages with externalTrafficPolicy Local and the hash changed.
func (e *Endpoints) retrigger(ctx context.Context, key types.NamespacedName) error {
	svc, err := e.services.Services(key.Namespace).Get(key.Name)
	if err != nil || !lb.Manages(svc) || svc.Spec.ExternalTrafficPolicy != v1.ServiceExternalTrafficPolicyLocal {
		return nil // gone, or its backends do not follow endpoints
	}
	nodes, known := e.Nodes(svc)
	if !known {
		return nil
	}
	hash := hashNodes(nodes)
	if svc.Annotations[AnnotationEndpointNodes] == hash {
		return nil
	}
	if err := Requeue(ctx, e.kube, svc, AnnotationEndpointNodes, hash); err != nil {
		return err
	}
	klog.FromContext(ctx).V(2).Info("Endpoints moved to other Nodes; Service re-queued for its load balancer",
		"service", klog.KObj(svc), "nodes", len(nodes))
	return nil
}

// hashNodes hashes a set of Node names, in sorted order.
func hashNodes(nodes map[string]bool) string {
	sum := sha256.Sum256([]byte(strings.Join(slices.Sorted(maps.Keys(nodes)), "\x00")))
	return hex.EncodeToString(sum[:])[:16]
}
