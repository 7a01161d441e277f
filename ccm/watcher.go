package ccm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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

// watcher reads Services and Nodes from the shared informers and Secrets from one field-selected
// informer per Secret that a load balancer Service references (nothing else is cached, listed or
// watched), serves those Secrets to lb, and re-triggers the Services whose Secrets change.
type watcher struct {
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

var _ lb.Secrets = (*watcher)(nil)

// newWatcher registers the Service and Node informers on factory and indexes Services by the
// Secrets they reference. Secret informers run on kube until ctx ends; with a nil kube no Secret
// can be read.
func newWatcher(ctx context.Context, kube kubernetes.Interface, factory informers.SharedInformerFactory) *watcher {
	svc, node := factory.Core().V1().Services(), factory.Core().V1().Nodes()
	_ = svc.Informer().AddIndexers(cache.Indexers{secretIndex: secretKeys})
	w := &watcher{
		kube:       kube,
		services:   svc.Lister(),
		byService:  svc.Informer().GetIndexer(),
		nodes:      node.Lister(),
		synced:     []cache.InformerSynced{svc.Informer().HasSynced, node.Informer().HasSynced},
		secretsCtx: ctx,
		secrets:    map[lb.SecretRef]*secretInformer{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName](),
			workqueue.TypedRateLimitingQueueConfig[types.NamespacedName]{Name: "oci-tls-secrets"}),
	}
	resync := func(any) { w.syncSecretInformers() }
	_, _ = svc.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    resync,
		UpdateFunc: func(_, cur any) { resync(cur) },
		DeleteFunc: resync,
	})
	return w
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
func (w *watcher) syncSecretInformers() {
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
func (w *watcher) startSecretInformer(ref lb.SecretRef) *secretInformer {
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

// waitForSync waits for the Service and Node informers, then for the informers of the Secrets
// those Services reference (at most secretSyncTimeout: a Secret that cannot be read is missing).
func (w *watcher) waitForSync(ctx context.Context) bool {
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

// TLSSecret implements lb.Secrets from the cache of the referenced Secrets.
func (w *watcher) TLSSecret(ref lb.SecretRef) (lb.TLSSecret, bool) {
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

// run processes changed Secrets until ctx ends.
func (w *watcher) run(ctx context.Context) {
	w.started.Store(true)
	go func() { <-ctx.Done(); w.queue.ShutDown() }()
	for {
		key, quit := w.queue.Get()
		if quit {
			return
		}
		if err := w.retrigger(ctx, key); err != nil {
			klog.FromContext(ctx).Error(err, "Cannot re-trigger Services of a changed Secret", "secret", key)
			w.queue.AddRateLimited(key)
		} else {
			w.queue.Forget(key)
		}
		w.queue.Done(key)
	}
}

// retrigger stamps every load balancer Service that references the Secret, in any namespace,
// with the new hash of its Secrets, so the service controller reconciles it.
func (w *watcher) retrigger(ctx context.Context, secret types.NamespacedName) error {
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
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{AnnotationSecretsHash: hash}}})
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		_, err := w.kube.CoreV1().Services(svc.Namespace).Patch(ctx, svc.Name, types.MergePatchType, patch, metav1.PatchOptions{})
		cancel()
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		klog.FromContext(ctx).Info("Secret changed; Service re-queued for its load balancer",
			"service", klog.KObj(svc), "secret", secret)
	}
	return nil
}

// hashOf hashes the TLS material of the Secrets (what lb reads), in reference order. A missing
// Secret hashes as empty, so its later creation changes the hash too.
func (w *watcher) hashOf(refs []lb.SecretRef) string {
	h := sha256.New()
	for _, ref := range refs {
		s, _ := w.TLSSecret(ref)
		for _, part := range []string{ref.String(), s.Certificate, s.Key.Reveal(), s.CA, s.Passphrase.Reveal()} {
			h.Write([]byte(part))
			h.Write([]byte{0})
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
