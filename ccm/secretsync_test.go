// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

// The first sync of a Service naming a Secret that existed before start-up must use the Secret,
// whatever the state of the provider's cache of that Secret: the service controller may hand the
// Service over before the provider's own Service handler has started the Secret's informer, or
// before that informer has listed. Answering "not found" then rejects a valid Service with a
// misleading error (found by the fault soak, as in its setup: the Secrets exist before start).

// shopTLS is a Service with a TLS listener on 443 naming the Secret secret.
func shopTLS(secret string) *v1.Service {
	return service("shop", map[string]string{string(annotation.SSLPorts): "443", string(annotation.TLSSecret): secret}, 443)
}

// listenerCertificate returns the public certificate of the only certificate on the only load
// balancer of e's server.
func listenerCertificate(t *testing.T, e *env) string {
	t.Helper()
	lbs := e.srv.LoadBalancers()
	if len(lbs) != 1 {
		t.Fatalf("%d load balancers, want 1", len(lbs))
	}
	if len(lbs[0].Certificates) != 1 {
		t.Fatalf("load balancer has %d certificates, want 1", len(lbs[0].Certificates))
	}
	for _, c := range lbs[0].Certificates {
		if c.PublicCertificate != nil {
			return *c.PublicCertificate
		}
	}
	return ""
}

func TestFirstSyncUsesASecretWhoseInformerIsNotStartedYet(t *testing.T) {
	e := newEnv(t)
	// As the soak: only the Secrets exist when the provider starts.
	startProvider(t, e, tlsSecret("tls-b", "cert-b"))

	// The service controller's first sync of a Service the provider's Service handler has not
	// seen yet (here: never), so no informer caches tls-b.
	lbs, _ := e.cloud.LoadBalancer()
	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", shopTLS("tls-b"), e.nodes); err != nil {
		t.Fatalf("first EnsureLoadBalancer of a Service naming an existing Secret: %v", err)
	}
	if got := listenerCertificate(t, e); got != "cert-b" {
		t.Errorf("listener certificate %q, want the Secret's %q", got, "cert-b")
	}
}

func TestFirstSyncUsesASecretWhoseInformerHasNotSynced(t *testing.T) {
	e := newEnv(t)
	kube := fake.NewClientset(tlsSecret("tls-b", "cert-b"))
	// The Secret's informer cannot list until released: it runs but does not sync.
	var listFails atomic.Bool
	listFails.Store(true)
	listed := make(chan struct{}, 1)
	kube.PrependReactor("list", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		if !listFails.Load() {
			return false, nil, nil
		}
		select {
		case listed <- struct{}{}:
		default:
		}
		return true, nil, apierrors.NewServiceUnavailable("API server busy")
	})
	ctx := startProviderOn(t, e, kube)

	svc := shopTLS("tls-b")
	if _, err := kube.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select { // the provider's Service handler started tls-b's informer, which tried to list
	case <-listed:
	case <-time.After(30 * time.Second):
		t.Fatal("the Secret's informer never listed")
	}
	lbs, _ := e.cloud.LoadBalancer()
	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes); err != nil {
		t.Fatalf("EnsureLoadBalancer while the Secret's informer has not synced: %v", err)
	}
	if got := listenerCertificate(t, e); got != "cert-b" {
		t.Errorf("listener certificate %q, want the Secret's %q", got, "cert-b")
	}
	listFails.Store(false) // let the informer sync before the test ends
}

func TestFirstSyncOfAServiceCreatedJustBefore(t *testing.T) {
	// The soak's sequence: the Service is written to the cluster and synced at once.
	e := newEnv(t)
	kube, ctx := startProvider(t, e, tlsSecret("tls-a", "cert-a"), tlsSecret("tls-b", "cert-b"))
	svc := shopTLS("tls-b")
	if _, err := kube.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	lbs, _ := e.cloud.LoadBalancer()
	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes); err != nil {
		t.Fatalf("first EnsureLoadBalancer of a Service naming an existing Secret: %v", err)
	}
	if got := listenerCertificate(t, e); got != "cert-b" {
		t.Errorf("listener certificate %q, want the Secret's %q", got, "cert-b")
	}
}

func TestMissingSecretIsAValidationErrorNamingTheAnnotation(t *testing.T) {
	e := newEnv(t)
	kube, ctx := startProvider(t, e, tlsSecret("tls-a", "cert-a"))
	svc := shopTLS("tls-missing")
	if _, err := kube.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	lbs, _ := e.cloud.LoadBalancer()
	check := func(when string) {
		t.Helper()
		_, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes)
		var verr *lb.ValidationError
		if !errors.As(err, &verr) || len(verr.Problems) != 1 || verr.Problems[0].Field != string(annotation.TLSSecret) ||
			!strings.Contains(err.Error(), "default/tls-missing was not found") {
			t.Fatalf("%s: EnsureLoadBalancer = %v, want a *lb.ValidationError naming %s and the missing Secret", when, err, annotation.TLSSecret)
		}
	}
	check("before the Secret's informer has synced, read from the API")
	// Once the informer has synced, its answer is the cache's.
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return e.cloud.svc.SecretSynced(lb.SecretRef{Namespace: "default", Name: "tls-missing"}), nil
	})
	if err != nil {
		t.Fatal("the missing Secret's informer never synced")
	}
	check("from the synced cache")
	if len(e.srv.LoadBalancers()) != 0 {
		t.Error("a load balancer was created for an invalid Service")
	}
}

func TestSecretThatCannotBeReadIsAnErrorNotAMissingSecret(t *testing.T) {
	e := newEnv(t)
	kube := fake.NewClientset(tlsSecret("tls-b", "cert-b"))
	deny := func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "tls-b", errors.New("RBAC"))
	}
	kube.PrependReactor("get", "secrets", deny)
	kube.PrependReactor("list", "secrets", deny)
	startProviderOn(t, e, kube)

	lbs, _ := e.cloud.LoadBalancer()
	_, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", shopTLS("tls-b"), e.nodes)
	var verr *lb.ValidationError
	if err == nil || errors.As(err, &verr) || !apierrors.IsForbidden(err) {
		t.Fatalf("EnsureLoadBalancer with a Secret the provider may not read = %v, want the API's error, not a validation error", err)
	}
	if len(e.srv.LoadBalancers()) != 0 {
		t.Error("a load balancer was created without its Secret")
	}
}
