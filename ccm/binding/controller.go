// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package binding is the BackendSetBinding controller: for each binding (ccm/binding/v1alpha1)
// it keeps the backends of one backend set of a load balancer oci-ccm does not own equal to its
// Service's Nodes or Pods, through lb/binding's Syncer, reports what it did in the binding's
// status and Events, and marks the Pods of an ip binding ready only once OCI reports their
// backends healthy (Pod readiness gates).
//
// The oci-cloud-controller-manager binary runs it as controller "backend-set-binding"; a custom
// controller runs it with New and Run. It stays idle, reading nothing, while the
// BackendSetBinding CRD is not installed.
package binding

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	discoverylisters "k8s.io/client-go/listers/discovery/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	api "github.com/oci-ccm/oci-ccm/ccm/binding/v1alpha1"
	lbbinding "github.com/oci-ccm/oci-ccm/lb/binding"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// ControllerName is the controller's name: in the binary's --controllers flag, in its Events and
// in its logs.
const ControllerName = "backend-set-binding"

// Finalizer keeps a binding until the backends it added are released (or, with deletionPolicy
// Keep, until the controller has seen it go).
const Finalizer = "oci-ccm.github.io/backend-set-binding"

// The defaults of Options.
const (
	DefaultResync     = 5 * time.Minute
	DefaultHealthPoll = 2 * time.Second
	DefaultTimeout    = 5 * time.Minute
)

// Syncer is what the controller needs of a backend set: lb/binding's *Syncer provides it.
type Syncer interface {
	Sync(ctx context.Context, b lbbinding.Binding, want []lbbinding.Target, owned []string) (lbbinding.Result, error)
	Release(ctx context.Context, b lbbinding.Binding, owned []string) (lbbinding.Result, error)
	Health(ctx context.Context, b lbbinding.Binding) (map[string]lbbinding.Health, error)
}

var _ Syncer = (*lbbinding.Syncer)(nil)

// Options configure a Controller.
type Options struct {
	// Kube reads and patches Pods (readiness gates) and records Events.
	Kube kubernetes.Interface
	// Dynamic reads and writes BackendSetBindings.
	Dynamic dynamic.Interface
	// Informers gives the Services, EndpointSlices and Nodes informers (the controller
	// manager's shared factory); its owner starts it. Pods are watched by the controller itself,
	// trimmed to what readiness gates need, and only once the CRD is installed.
	Informers informers.SharedInformerFactory
	// Syncer changes the backend sets.
	Syncer Syncer
	// Events records the bindings' Events; nil records through Kube.
	Events record.EventRecorder
	// Resync is how often every binding is synced even without a change in the cluster, so a
	// backend changed by hand in OCI is put back; zero is DefaultResync.
	Resync time.Duration
	// HealthPoll is how often the health of an ip binding's backends is read while one of its
	// gated Pods is not ready yet; zero is DefaultHealthPoll.
	HealthPoll time.Duration
	// Rules, when set, keeps the security rules the bound backends need, as the Services' rules
	// are kept (seclist's Manager, in mode Backend): from the load balancer's subnets to the
	// backends' subnets on their ports and the set's health-check port, with the cluster's
	// ownership marks, removed with the binding. Rules to reach the listeners are the load
	// balancer owner's. Nil manages none (the cluster's mode Frontend or None).
	Rules Rules
	// Subnets finds the backends' subnets for Rules (instances' (*Instances).Subnets); required
	// with Rules.
	Subnets Subnets
	// PrimeRules is what seclist's Manager.Expect returned for this controller, called before
	// the Manager could be primed: Run calls it once it has listed the bindings (or found the CRD
	// not installed), so no rule of a binding is removed before its first sync after a restart.
	PrimeRules func([]seclist.Claim) error
	// Timeout bounds one sync of a binding, its waits for OCI included (a work request that never
	// finishes, a network load balancer busy for ever): the sync fails then, and is retried with
	// back-off. Zero is DefaultTimeout.
	Timeout time.Duration
}

// Controller syncs BackendSetBindings. Build it with New, then Run it.
type Controller struct {
	opts     Options
	events   record.EventRecorder
	queue    workqueue.TypedRateLimitingInterface[string]
	services corelisters.ServiceLister
	slices   discoverylisters.EndpointSliceLister
	nodes    corelisters.NodeLister
	synced   []cache.InformerSynced
	bindings cache.SharedIndexInformer // started by Run once the CRD is served
	dynamics dynamicinformer.DynamicSharedInformerFactory
	pods     cache.SharedIndexInformer // gated Pods, trimmed; started by Run
	crdPoll  time.Duration
	// owned is the last Result.Owned of each binding, by UID: what this process last wrote to its
	// status, which the informer's copy may not show yet. A sync that planned from the cached
	// copy right after a write would take a backend it had just added again for someone else's.
	owned sync.Map
	// claims is the security claim this process last set for each binding, by UID (syncRules).
	claims sync.Map
	// lastSync is, by UID, what the last full sync of each binding that succeeded or was refused
	// was given, and its status (unchanged.go).
	lastSync sync.Map
}

// New builds a Controller and registers its event handlers on opts.Informers (so the factory's
// owner must start the factory after New).
func New(opts Options) (*Controller, error) {
	switch {
	case opts.Kube == nil || opts.Dynamic == nil || opts.Informers == nil || opts.Syncer == nil:
		return nil, errors.New("binding controller: Options.Kube, Dynamic, Informers and Syncer are required")
	case opts.Rules != nil && opts.Subnets == nil:
		return nil, errors.New("binding controller: Options.Subnets is required with Options.Rules")
	}
	opts.Resync = cmpOr(opts.Resync, DefaultResync)
	opts.HealthPoll = cmpOr(opts.HealthPoll, DefaultHealthPoll)
	opts.Timeout = cmpOr(opts.Timeout, DefaultTimeout)
	c := &Controller{opts: opts, events: opts.Events, crdPoll: time.Minute,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: ControllerName})}
	if c.events == nil {
		b := record.NewBroadcaster()
		b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: opts.Kube.CoreV1().Events("")})
		c.events = b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: ControllerName})
	}

	// No informer resyncs: each sync asks for the next one itself (Options.Resync).
	c.dynamics = dynamicinformer.NewDynamicSharedInformerFactory(opts.Dynamic, 0)
	c.bindings = c.dynamics.ForResource(api.GroupVersionResource).Informer()
	if err := c.bindings.AddIndexers(cache.Indexers{byService: indexByService, byBackendSet: indexByBackendSet}); err != nil {
		return nil, err
	}
	c.pods = newGatedPodInformer(opts.Kube)

	svc := opts.Informers.Core().V1().Services()
	sl := opts.Informers.Discovery().V1().EndpointSlices()
	nodes := opts.Informers.Core().V1().Nodes()
	c.services, c.slices, c.nodes = svc.Lister(), sl.Lister(), nodes.Lister()
	c.synced = []cache.InformerSynced{svc.Informer().HasSynced, sl.Informer().HasSynced, nodes.Informer().HasSynced}
	handlers := []struct {
		inf cache.SharedIndexInformer
		h   cache.ResourceEventHandler
	}{
		{c.bindings, cache.ResourceEventHandlerFuncs{AddFunc: c.bindingChanged, DeleteFunc: c.bindingDeleted,
			UpdateFunc: func(old, o any) {
				if bindingMoved(old, o) {
					c.bindingChanged(o)
				}
			}}},
		{svc.Informer(), handle(c.serviceChanged)},
		{sl.Informer(), handle(c.sliceChanged)},
		{nodes.Informer(), cache.ResourceEventHandlerFuncs{AddFunc: c.nodeChanged, DeleteFunc: c.nodeChanged,
			UpdateFunc: func(old, o any) {
				if nodeMoved(old, o) {
					c.nodeChanged(o)
				}
			}}},
		{c.pods, handle(c.podChanged)},
	}
	for _, x := range handlers {
		if _, err := x.inf.AddEventHandler(x.h); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Run waits until the BackendSetBinding CRD is served (checking once a minute, reading nothing
// else meanwhile), starts the controller's own informers, waits for every cache, and syncs
// bindings with workers goroutines until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx).WithValues("controller", ControllerName)
	ctx = klog.NewContext(ctx, logger)
	if !c.waitForCRD(ctx) {
		return
	}
	c.dynamics.Start(ctx.Done())
	go c.pods.RunWithContext(ctx)
	if !cache.WaitForNamedCacheSync(ControllerName, ctx.Done(), append(c.synced, c.bindings.HasSynced, c.pods.HasSynced)...) {
		return
	}
	c.primeRules(ctx, c.bindings.GetStore().List())
	logger.Info("Syncing BackendSetBindings", "workers", workers)
	for range max(workers, 1) {
		go wait.UntilWithContext(ctx, c.worker, time.Second)
	}
	<-ctx.Done()
}

// waitForCRD reports whether the API serves BackendSetBindings, waiting until it does or ctx
// ends: without the CRD an informer would log a failed list every few seconds.
func (c *Controller) waitForCRD(ctx context.Context) bool {
	logged, primed := false, false
	for {
		resources, err := c.opts.Kube.Discovery().ServerResourcesForGroupVersion(api.SchemeGroupVersion.String())
		if err == nil {
			for _, r := range resources.APIResources {
				if r.Name == api.Resource {
					return true
				}
			}
		}
		if !primed && (err == nil || apierrors.IsNotFound(err)) {
			// The API says the CRD is not served: no binding, so no rule of one, exists. (Another
			// error tells nothing, and removals stay held until discovery answers.)
			c.primeRules(ctx, nil)
			primed = true
		}
		if !logged {
			klog.FromContext(ctx).Info("The BackendSetBinding CRD is not installed; the controller waits for it (examples/deploy/backendsetbinding-crd.yaml)",
				"groupVersion", api.SchemeGroupVersion.String(), "err", err)
			logged = true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(c.crdPoll):
		}
	}
}

func (c *Controller) worker(ctx context.Context) {
	for c.next(ctx) {
	}
}

func (c *Controller) next(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	syncCtx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	after, err := c.sync(syncCtx, key)
	switch {
	case err != nil:
		klog.FromContext(ctx).Error(err, "Syncing a BackendSetBinding failed; retrying", "binding", key)
		c.queue.AddRateLimited(key)
	case after > 0:
		c.queue.Forget(key)
		c.queue.AddAfter(key, after)
	default:
		c.queue.Forget(key)
	}
	return true
}

// enqueue adds the binding o (an *unstructured.Unstructured, or a deletion's tombstone).
func (c *Controller) enqueue(o any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(o); err == nil {
		c.queue.Add(key)
	}
}

// enqueueIndexed adds every binding the index holds under value.
func (c *Controller) enqueueIndexed(index, value string) {
	objs, _ := c.bindings.GetIndexer().ByIndex(index, value)
	for _, o := range objs {
		c.enqueue(o)
	}
}

// bindingChanged syncs the binding, and the others of its backend set: one that waited for it
// (Conflict) may take over when it goes.
func (c *Controller) bindingChanged(o any) {
	c.enqueue(o)
	if u, ok := unwrap(o).(*unstructured.Unstructured); ok {
		if keys, _ := indexByBackendSet(u); len(keys) == 1 {
			c.enqueueIndexed(byBackendSet, keys[0])
		}
	}
}

// bindingDeleted forgets what the controller kept of a binding that is gone (its finalizer is
// removed when it is released, but a binding the controller never synced, or whose finalizer
// someone else removed, goes without), and syncs the others of its backend set.
func (c *Controller) bindingDeleted(o any) {
	if u, ok := unwrap(o).(*unstructured.Unstructured); ok {
		c.owned.Delete(u.GetUID())
		c.lastSync.Delete(u.GetUID())
	}
	c.bindingChanged(o)
}

// bindingMoved reports whether a binding update may change what its sync does: its spec (the
// generation), its finalizers or its deletion. Not its status, which each sync writes: a sync
// woken by its own status write would sync again at once, and one whose status names something
// new each time (OCI's request ID in an error) would read OCI for ever, with no back-off.
func bindingMoved(old, o any) bool {
	a, ok1 := old.(*unstructured.Unstructured)
	b, ok2 := o.(*unstructured.Unstructured)
	return !ok1 || !ok2 || a.GetGeneration() != b.GetGeneration() || !slices.Equal(a.GetFinalizers(), b.GetFinalizers()) ||
		(a.GetDeletionTimestamp() == nil) != (b.GetDeletionTimestamp() == nil)
}

func (c *Controller) serviceChanged(o any) {
	if svc, ok := unwrap(o).(*corev1.Service); ok {
		c.enqueueIndexed(byService, svc.Namespace+"/"+svc.Name)
	}
}

func (c *Controller) sliceChanged(o any) {
	if s, ok := unwrap(o).(*discoveryv1.EndpointSlice); ok && s.Labels[discoveryv1.LabelServiceName] != "" {
		c.enqueueIndexed(byService, s.Namespace+"/"+s.Labels[discoveryv1.LabelServiceName])
	}
}

// nodeMoved reports whether a Node update may change which Nodes are backends, or at which
// address: not the status heartbeats a Node sends every few seconds.
func nodeMoved(old, o any) bool {
	a, ok1 := old.(*corev1.Node)
	b, ok2 := o.(*corev1.Node)
	return !ok1 || !ok2 || a.Spec.ProviderID != b.Spec.ProviderID || !maps.Equal(a.Labels, b.Labels) ||
		!slices.Equal(a.Status.Addresses, b.Status.Addresses) || (a.DeletionTimestamp == nil) != (b.DeletionTimestamp == nil)
}

// nodeChanged syncs every node binding: any of them may take the Node.
func (c *Controller) nodeChanged(any) {
	for _, o := range c.bindings.GetStore().List() {
		if u, ok := o.(*unstructured.Unstructured); ok {
			if t, _, _ := unstructured.NestedString(u.Object, "spec", "targetType"); t != string(api.TargetTypeIP) {
				c.enqueue(u)
			}
		}
	}
}

func (c *Controller) podChanged(o any) {
	if p, ok := unwrap(o).(*corev1.Pod); ok {
		for _, name := range gatesOf(p) {
			c.queue.Add(p.Namespace + "/" + name)
		}
	}
}

// handle is a ResourceEventHandler calling f for every add, update and delete.
func handle(f func(any)) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{AddFunc: f, UpdateFunc: func(_, o any) { f(o) }, DeleteFunc: f}
}

// unwrap is the object of a deletion's tombstone, or o.
func unwrap(o any) any {
	if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return o
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// The bindings' indexes: by "namespace/service", and by "loadBalancerID/backendSet".
const (
	byService    = "service"
	byBackendSet = "backendSet"
)

func indexByService(o any) ([]string, error) {
	u, ok := o.(*unstructured.Unstructured)
	if !ok {
		return nil, nil
	}
	name, _, _ := unstructured.NestedString(u.Object, "spec", "serviceRef", "name")
	return []string{u.GetNamespace() + "/" + name}, nil
}

func indexByBackendSet(o any) ([]string, error) {
	u, ok := o.(*unstructured.Unstructured)
	if !ok {
		return nil, nil
	}
	id, _, _ := unstructured.NestedString(u.Object, "spec", "loadBalancerID")
	set, _, _ := unstructured.NestedString(u.Object, "spec", "backendSetName")
	return []string{backendSetKey(id, set)}, nil
}

func backendSetKey(lbID, set string) string { return fmt.Sprintf("%s/%s", lbID, set) }
