// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

// waitForStamp waits until the Service carries a secrets hash other than before.
func waitForStamp(ctx context.Context, kube kubernetes.Interface, namespace, name, before string) (string, error) {
	var stamped string
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		svc, err := kube.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		stamped = svc.Annotations[annotationSecretsHash]
		return stamped != "" && stamped != before, nil
	})
	return stamped, err
}

func TestChangedSecretInAnotherNamespaceRetriggersTheServiceUsingIt(t *testing.T) {
	e := newEnv(t)
	shop := service("shop", map[string]string{string(annotation.SSLPorts): "443", string(annotation.TLSSecret): "certs/shared-tls"}, 443)
	shop.Namespace = "shop"
	shared := tlsSecret("shared-tls", "cert-1")
	shared.Namespace = "certs"
	kube, ctx := startProvider(t, e, shop, shared)

	next := tlsSecret("shared-tls", "cert-2")
	next.Namespace = "certs"
	if _, err := kube.CoreV1().Secrets("certs").Update(ctx, next, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := waitForStamp(ctx, kube, "shop", "shop", ""); err != nil {
		t.Fatalf("a Service using a Secret of another namespace was not re-triggered: %v", err)
	}
	served, err := e.cloud.svc.Secrets(ctx, shop)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := served[lb.SecretRef{Namespace: "certs", Name: "shared-tls"}]; !ok || s.Certificate != "cert-2" {
		t.Errorf("provider serves %q (found %v), want the new certificate", s.Certificate, ok)
	}
}

func TestChangedCABundleSecretRetriggersTheServiceUsingIt(t *testing.T) {
	e := newEnv(t)
	svc := service("backend-tls", map[string]string{string(annotation.TLSBackendSetSecret): "backend-ca"}, 443)
	ca := func(pem string) *v1.Secret {
		return &v1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "backend-ca", Namespace: "default", ResourceVersion: pem},
			Type: v1.SecretTypeOpaque, Data: map[string][]byte{v1.ServiceAccountRootCAKey: []byte(pem)}}
	}
	kube, ctx := startProvider(t, e, svc, ca("ca-1"))

	if _, err := kube.CoreV1().Secrets("default").Update(ctx, ca("ca-2"), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := waitForStamp(ctx, kube, "default", "backend-tls", ""); err != nil {
		t.Fatalf("a changed Opaque Secret holding only ca.crt did not re-trigger its Service: %v", err)
	}
}

func TestOnlySecretsThatServicesReferenceAreReadOrWatched(t *testing.T) {
	e := newEnv(t)
	uses := service("shop", map[string]string{string(annotation.SSLPorts): "443", string(annotation.TLSSecret): "shop-tls"}, 443)
	kube := fake.NewClientset(uses, tlsSecret("shop-tls", "cert-1"), tlsSecret("unrelated", "x"))
	startProviderWith(t, e, kube)

	// A Service created later, naming a Secret of another namespace.
	ctx := ctxFor(t)
	later := service("later", map[string]string{string(annotation.SSLPorts): "443", string(annotation.TLSSecret): "certs/later-tls"}, 443)
	if _, err := kube.CoreV1().Services("default").Create(ctx, later, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"default/metadata.name=shop-tls": false, "certs/metadata.name=later-tls": false}
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		for _, a := range kube.Actions() {
			if a.GetResource().Resource != "secrets" {
				continue
			}
			key := a.GetNamespace() + "/" + selectorOf(a)
			if _, ok := want[key]; !ok {
				t.Fatalf("%s of Secrets %q: only the Secrets Services reference may be read", a.GetVerb(), key)
			}
			if a.GetVerb() == "watch" {
				want[key] = true
			}
		}
		return want["default/metadata.name=shop-tls"] && want["certs/metadata.name=later-tls"], nil
	})
	if err != nil {
		t.Errorf("referenced Secrets watched: %v; want both", want)
	}
}

// selectorOf returns the field selector of a list or watch action, or the name of a get.
func selectorOf(a k8stesting.Action) string {
	switch a := a.(type) {
	case k8stesting.ListAction:
		return a.GetListRestrictions().Fields.String()
	case k8stesting.WatchAction:
		return a.GetWatchRestrictions().Fields.String()
	case k8stesting.GetAction:
		return "metadata.name=" + a.GetName()
	}
	return a.GetVerb()
}

// startProviderWith is startProvider over a given fake clientset.
func startProviderWith(t *testing.T, e *env, kube *fake.Clientset) {
	t.Helper()
	startProviderOn(t, e, kube)
}
