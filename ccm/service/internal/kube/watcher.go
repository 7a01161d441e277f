// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package kube holds what oci-ccm does with the Kubernetes API beyond the cloud-provider
// framework: watching the TLS Secrets load balancer Services reference (the service controller
// does not), and re-queueing a Service for its load balancer by patching an annotation.
package kube

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb"
)

// AnnotationSecretsHash is written by the provider on a load balancer Service: a hash of the TLS
// Secrets the Service references. The upstream service controller does not watch Secrets, but
// it does reconcile a Service whose annotations change, so updating this hash when a Secret
// changes is what makes a rotated certificate reach the load balancer.
const AnnotationSecretsHash = "oci-ccm.github.io/tls-secrets-hash"

// secretIndex indexes load balancer Services by the Secrets they reference ("namespace/name"),
// in any namespace.
const secretIndex = "oci-ccm-secrets"

// secretSyncTimeout bounds the wait for the referenced Secrets at start-up; a Secret not read by
// then is treated as missing (its Service fails and is retried), never waited for forever.
const secretSyncTimeout = time.Minute

// Watcher reads Services and Nodes from the shared informers and Secrets from one field-selected
// informer per Secret that a load balancer Service references (nothing else is cached, listed or
// watched), serves those Secrets to lb, and re-triggers the Services whose Secrets change.
type Watcher struct {
	kube       kubernetes.Interface
	services   corelisters.ServiceLister
	byService  cache.Indexer // the Service informer's indexer, with secretIndex
	nodes      corelisters.NodeLister
	synced     []cache.InformerSynced
	queue      workqueue.TypedRateLimitingInterface[types.NamespacedName] // changed Secrets
	secretsCtx context.Context                                            // ends every Secret informer

	// started is set once the start-up claims are primed: from then on a Secret's first
	// appearance re-triggers its Services too (one referenced after start-up, or created late).
	started atomic.Bool

	mu      sync.Mutex
	secrets map[lb.SecretRef]*secretInformer
}

// secretInformer caches one Secret, selected by name.
type secretInformer struct {
	informer cache.SharedIndexInformer
	stop     context.CancelFunc
}

// NewWatcher registers the Service and Node informers on factory and indexes Services by the
// Secrets they reference. Secret informers run on kube until ctx ends; with a nil kube no Secret
// can be read. Start factory, then call WaitForSync and Run.
func NewWatcher(ctx context.Context, kube kubernetes.Interface, factory informers.SharedInformerFactory) *Watcher {
	svc, node := factory.Core().V1().Services(), factory.Core().V1().Nodes()
	_ = svc.Informer().AddIndexers(cache.Indexers{secretIndex: secretKeys})
	w := &Watcher{
		kube:       kube,
		services:   svc.Lister(),
		byService:  svc.Informer().GetIndexer(),
		nodes:      node.Lister(),
		synced:     []cache.InformerSynced{svc.Informer().HasSynced, node.Informer().HasSynced},
		secretsCtx: ctx,
		secrets:    map[lb.SecretRef]*secretInformer{},
	}
	if kube != nil { // without a client no Secret is watched, so nothing is ever queued
		w.queue = newQueue(ctx, "oci-tls-secrets")
	}
	onEvery(svc.Informer(), func(any) { w.syncSecretInformers() })
	return w
}

// newQueue is a rate-limited queue of Services named name. It runs a goroutine from now on,
// which ends with ctx whether or not the queue is ever run.
func newQueue(ctx context.Context, name string) workqueue.TypedRateLimitingInterface[types.NamespacedName] {
	q := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName](),
		workqueue.TypedRateLimitingQueueConfig[types.NamespacedName]{Name: name})
	context.AfterFunc(ctx, q.ShutDown)
	return q
}

// onEvery calls f with the object of every add, update (the new object) and delete inf sees.
func onEvery(inf cache.SharedIndexInformer, f func(obj any)) {
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    f,
		UpdateFunc: func(_, cur any) { f(cur) },
		DeleteFunc: f,
	})
}

// secretKeys is the secretIndex function: the Secrets a load balancer Service references.
func secretKeys(obj any) ([]string, error) {
	svc, ok := obj.(*v1.Service)
	if !ok || !lb.Manages(svc) {
		return nil, nil
	}
	var keys []string
	for _, ref := range lb.RequiredSecrets(svc) {
		keys = append(keys, ref.String())
	}
	return keys, nil
}

// syncSecretInformers starts an informer for every Secret some Service references and stops
// those no Service references any more.
func (w *Watcher) syncSecretInformers() {
	if w.kube == nil {
		return
	}
	wanted := map[lb.SecretRef]bool{}
	for _, key := range w.byService.ListIndexFuncValues(secretIndex) {
		ns, name, err := cache.SplitMetaNamespaceKey(key)
		if err == nil {
			wanted[lb.SecretRef{Namespace: ns, Name: name}] = true
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for ref, s := range w.secrets {
		if !wanted[ref] {
			s.stop()
			delete(w.secrets, ref)
		}
	}
	for ref := range wanted {
		if _, ok := w.secrets[ref]; !ok {
			w.secrets[ref] = w.startSecretInformer(ref)
		}
	}
}

// startSecretInformer lists and watches the one Secret ref names (field selector metadata.name),
// and queues it whenever it is created, changed or deleted.
func (w *Watcher) startSecretInformer(ref lb.SecretRef) *secretInformer {
	selector := fields.OneTermEqualSelector("metadata.name", ref.Name).String()
	secrets := w.kube.CoreV1().Secrets(ref.Namespace)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = selector
			return secrets.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = selector
			return secrets.Watch(ctx, o)
		},
	}
	// As the generated informers do: a client that cannot stream lists (the fake) is listed.
	inf := cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, w.kube), &v1.Secret{}, 0, cache.Indexers{})
	key := types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}
	enqueue := func(obj any) {
		if s, ok := obj.(*v1.Secret); ok && s.Namespace == ref.Namespace && s.Name == ref.Name {
			w.queue.Add(key)
		}
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		// A Secret present when the provider starts changes nothing: the service controller
		// syncs every Service when it starts anyway. Later, a first sight re-triggers.
		AddFunc: func(obj any, initial bool) {
			if !initial || w.started.Load() {
				enqueue(obj)
			}
		},
		UpdateFunc: func(old, cur any) {
			o, ok1 := old.(*v1.Secret)
			c, ok2 := cur.(*v1.Secret)
			if ok1 && ok2 && o.ResourceVersion != c.ResourceVersion {
				enqueue(cur)
			}
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			enqueue(obj)
		},
	})
	ctx, cancel := context.WithCancel(w.secretsCtx)
	go inf.RunWithContext(ctx)
	return &secretInformer{informer: inf, stop: cancel}
}

// WaitForSync waits for the Service and Node informers, then for the informers of the Secrets
// those Services reference (at most secretSyncTimeout: a Secret that cannot be read is missing).
func (w *Watcher) WaitForSync(ctx context.Context) bool {
	if !cache.WaitForCacheSync(ctx.Done(), w.synced...) {
		return false
	}
	w.syncSecretInformers()
	w.mu.Lock()
	var synced []cache.InformerSynced
	for _, s := range w.secrets {
		synced = append(synced, s.informer.HasSynced)
	}
	w.mu.Unlock()
	sctx, cancel := context.WithTimeout(ctx, secretSyncTimeout)
	defer cancel()
	if !cache.WaitForCacheSync(sctx.Done(), synced...) && ctx.Err() == nil {
		klog.FromContext(ctx).Info("Some referenced Secrets could not be read yet; their Services are retried", "after", secretSyncTimeout)
	}
	return ctx.Err() == nil
}

// secretReadTimeout bounds one read of a Secret through the API (see Secrets).
const secretReadTimeout = 30 * time.Second

// Secrets returns the TLS Secrets svc references, for a reconcile of svc: what is missing from
// the result does not exist. A Secret whose informer has synced is read from its cache. Any other
// is read once through the API (bounded by ctx and secretReadTimeout): its informer may not be
// started yet (the service controller can sync a Service before this Watcher's handler has seen
// it) or not have listed yet, and such a cache's "not found" means "not known". The read goes
// through the API rather than starting the informer and waiting for it because the informers'
// lifetime belongs to the Service index (syncSecretInformers stops one that no indexed Service
// references, which a Service not indexed yet, or a deleted one being cleaned up, is not), and
// because a list that keeps failing would hold a service-controller worker until ctx ends; one
// GET costs no more than the informer's own first list. A GET that answers NotFound is a missing
// Secret; any other failure is returned, never reported as a missing Secret. A nil Watcher, or
// one without a client, reads nothing.
func (w *Watcher) Secrets(ctx context.Context, svc *v1.Service) (lb.Secrets, error) {
	if w == nil || w.kube == nil {
		return nil, nil
	}
	var out lb.Secrets
	for _, ref := range lb.RequiredSecrets(svc) {
		s, ok, err := w.readSecret(ctx, ref)
		if err != nil {
			return nil, err
		}
		if ok {
			if out == nil {
				out = lb.Secrets{}
			}
			out[ref] = s
		}
	}
	return out, nil
}

// readSecret is one Secret for Secrets: from its informer's cache once synced, else from the API.
func (w *Watcher) readSecret(ctx context.Context, ref lb.SecretRef) (lb.TLSSecret, bool, error) {
	if w.SecretSynced(ref) {
		s, ok := w.tlsSecret(ref)
		return s, ok, nil
	}
	ctx, cancel := context.WithTimeout(ctx, secretReadTimeout)
	defer cancel()
	secret, err := w.kube.CoreV1().Secrets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return lb.TLSSecret{}, false, nil
	case err != nil:
		return lb.TLSSecret{}, false, fmt.Errorf("read Secret %s: %w", ref, err)
	}
	return lb.TLSSecretFromData(secret.Data), true, nil
}

// SecretsFor returns the TLS Secrets svc references from the caches alone; one whose informer is
// not started or has not synced is left out, as if missing. It is for the bulk readers that
// tolerate that: the drift check skips a Service that is invalid, and Prime, after WaitForSync,
// keeps every rule of an invalid Service. A reconcile reads with Secrets. A nil Watcher has none.
func (w *Watcher) SecretsFor(svc *v1.Service) lb.Secrets {
	if w == nil {
		return nil
	}
	var out lb.Secrets
	for _, ref := range lb.RequiredSecrets(svc) {
		if s, ok := w.tlsSecret(ref); ok {
			if out == nil {
				out = lb.Secrets{}
			}
			out[ref] = s
		}
	}
	return out
}

// tlsSecret reads one referenced Secret from its informer's cache.
func (w *Watcher) tlsSecret(ref lb.SecretRef) (lb.TLSSecret, bool) {
	w.mu.Lock()
	s, ok := w.secrets[ref]
	w.mu.Unlock()
	if !ok {
		return lb.TLSSecret{}, false
	}
	obj, exists, err := s.informer.GetStore().GetByKey(ref.String())
	secret, isSecret := obj.(*v1.Secret)
	if err != nil || !exists || !isSecret {
		return lb.TLSSecret{}, false
	}
	return lb.TLSSecretFromData(secret.Data), true
}

// SecretSynced reports whether the informer of the Secret ref names runs and has synced: only
// then does its cache answer for the Secret.
func (w *Watcher) SecretSynced(ref lb.SecretRef) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	s, ok := w.secrets[ref]
	w.mu.Unlock()
	return ok && s.informer.HasSynced()
}

// Run re-queues the Services whose Secrets change, until ctx (or NewWatcher's) ends. Call it
// after WaitForSync: from then on a Secret's first appearance re-queues its Services too.
func (w *Watcher) Run(ctx context.Context) {
	w.started.Store(true)
	runQueue(ctx, w.queue, w.retrigger, "Cannot re-trigger Services of a changed Secret", "secret")
}

// runQueue handles each key of queue with handle until ctx ends or the queue shuts down; a key
// whose handling fails is logged with msg (the key under keyName) and retried with backoff. A
// nil queue returns at once.
func runQueue(ctx context.Context, queue workqueue.TypedRateLimitingInterface[types.NamespacedName],
	handle func(context.Context, types.NamespacedName) error, msg, keyName string) {
	if queue == nil {
		return
	}
	stop := context.AfterFunc(ctx, queue.ShutDown)
	defer stop()
	for {
		key, quit := queue.Get()
		if quit {
			return
		}
		if err := handle(ctx, key); err != nil {
			klog.FromContext(ctx).Error(err, msg, keyName, key)
			queue.AddRateLimited(key)
		} else {
			queue.Forget(key)
		}
		queue.Done(key)
	}
}

// retrigger stamps every load balancer Service that references the Secret, in any namespace,
// with the new hash of its Secrets, so the service controller reconciles it.
func (w *Watcher) retrigger(ctx context.Context, secret types.NamespacedName) error {
	objs, err := w.byService.ByIndex(secretIndex, secret.String())
	if err != nil {
		return err
	}
	for _, obj := range objs {
		svc, ok := obj.(*v1.Service)
		if !ok {
			continue
		}
		refs := lb.RequiredSecrets(svc)
		if !lb.Manages(svc) || !slices.Contains(refs, lb.SecretRef{Namespace: secret.Namespace, Name: secret.Name}) {
			continue
		}
		hash := w.hashOf(refs)
		if svc.Annotations[AnnotationSecretsHash] == hash {
			continue
		}
		if err := Requeue(ctx, w.kube, svc, AnnotationSecretsHash, hash); err != nil {
			return err
		}
		klog.FromContext(ctx).Info("Secret changed; Service re-queued for its load balancer",
			"service", klog.KObj(svc), "secret", secret)
	}
	return nil
}

// Requeue makes the service controller reconcile svc again by setting its annotation key to
// value (a merge patch, bounded by 30 seconds). It does nothing when the annotation already has
// that value, or when the Service is gone. The service controller re-ensures a Service whose
// annotations change but not an unchanged one, so this is how a change it cannot see (a TLS
// Secret, drift in OCI) reaches the load balancer: the value should say what changed (a hash).
func Requeue(ctx context.Context, kube kubernetes.Interface, svc *v1.Service, key, value string) error {
	if svc.Annotations[key] == value {
		return nil
	}
	if err := patchAnnotation(ctx, kube, svc, key, value); err != nil {
		return fmt.Errorf("re-queue Service %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	return nil
}

// patchAnnotation sets svc's annotation key to value, a string, or removes it for nil (a merge
// patch, bounded by 30 seconds). A Service that is gone is no error.
func patchAnnotation(ctx context.Context, kube kubernetes.Interface, svc *v1.Service, key string, value any) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{key: value}}})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err = kube.CoreV1().Services(svc.Namespace).Patch(ctx, svc.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// Services lists the Services from the shared informer's cache.
func (w *Watcher) Services() corelisters.ServiceLister { return w.services }

// Nodes lists the Nodes from the shared informer's cache.
func (w *Watcher) Nodes() corelisters.NodeLister { return w.nodes }

// hashOf hashes the TLS material of the Secrets (what lb reads), in reference order. A missing
// Secret hashes as empty, so its later creation changes the hash too.
func (w *Watcher) hashOf(refs []lb.SecretRef) string {
	h := sha256.New()
	for _, ref := range refs {
		s, _ := w.tlsSecret(ref)
		for _, part := range []string{ref.String(), s.Certificate, s.Key.Reveal(), s.CA, s.Passphrase.Reveal()} {
			h.Write([]byte(part))
			h.Write([]byte{0})
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Service returns a Service from the shared informer's cache.
func (w *Watcher) Service(namespace, name string) (*v1.Service, error) {
	return w.services.Services(namespace).Get(name)
}
