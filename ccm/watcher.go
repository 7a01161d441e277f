package ccm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
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

// watcher reads Services, Nodes and Secrets from the shared informers, serves Secrets to lb, and
// re-triggers Services whose TLS Secrets change.
type watcher struct {
	kube     kubernetes.Interface
	services corelisters.ServiceLister
	nodes    corelisters.NodeLister
	secrets  corelisters.SecretLister
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[types.NamespacedName] // changed Secrets
}

var _ lb.Secrets = (*watcher)(nil)

func newWatcher(kube kubernetes.Interface, factory informers.SharedInformerFactory) *watcher {
	svc, node, sec := factory.Core().V1().Services(), factory.Core().V1().Nodes(), factory.Core().V1().Secrets()
	w := &watcher{
		kube:     kube,
		services: svc.Lister(),
		nodes:    node.Lister(),
		secrets:  sec.Lister(),
		synced:   []cache.InformerSynced{svc.Informer().HasSynced, node.Informer().HasSynced, sec.Informer().HasSynced},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName](),
			workqueue.TypedRateLimitingQueueConfig[types.NamespacedName]{Name: "oci-tls-secrets"}),
	}
	enqueue := func(obj any) {
		if s, ok := obj.(*v1.Secret); ok && s.Type == v1.SecretTypeTLS || ok && s.Data[v1.TLSCertKey] != nil {
			w.queue.Add(types.NamespacedName{Namespace: s.Namespace, Name: s.Name})
		}
	}
	_, _ = sec.Informer().AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		// Secrets present at start-up change nothing: the service controller syncs every
		// Service when it starts anyway.
		AddFunc: func(obj any, initial bool) {
			if !initial {
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
	})
	return w
}

func (w *watcher) waitForSync(ctx context.Context) bool {
	return cache.WaitForCacheSync(ctx.Done(), w.synced...)
}

// TLSSecret implements lb.Secrets from the informer cache.
func (w *watcher) TLSSecret(ref lb.SecretRef) (lb.TLSSecret, bool) {
	s, err := w.secrets.Secrets(ref.Namespace).Get(ref.Name)
	if err != nil {
		return lb.TLSSecret{}, false
	}
	return lb.TLSSecretFromData(s.Data), true
}

// run processes changed Secrets until ctx ends.
func (w *watcher) run(ctx context.Context) {
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

// retrigger stamps every load balancer Service that uses the Secret with the new hash of its
// Secrets, so the service controller reconciles it.
func (w *watcher) retrigger(ctx context.Context, secret types.NamespacedName) error {
	services, err := w.services.Services(secret.Namespace).List(labels.Everything())
	if err != nil {
		return err
	}
	for _, svc := range services {
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
		klog.FromContext(ctx).Info("TLS Secret changed; Service re-queued for its load balancer",
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
