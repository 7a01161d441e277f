// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	restclient "k8s.io/client-go/rest"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

// clientBuilder hands the provider a fixed client, as the controller manager's builder would.
type clientBuilder struct{ kube kubernetes.Interface }

func (b clientBuilder) Config(string) (*restclient.Config, error) { return &restclient.Config{}, nil }
func (b clientBuilder) ConfigOrDie(string) *restclient.Config     { return &restclient.Config{} }
func (b clientBuilder) Client(string) (kubernetes.Interface, error) {
	return b.kube, nil
}
func (b clientBuilder) ClientOrDie(string) kubernetes.Interface { return b.kube }

func tlsSecret(name, cert string) *v1.Secret {
	return &v1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: cert},
		Type:       v1.SecretTypeTLS,
		Data:       map[string][]byte{v1.TLSCertKey: []byte(cert), v1.TLSPrivateKeyKey: []byte("key-" + cert)},
	}
}

// startProvider runs Initialize and SetInformers over a fake cluster and waits until the
// provider has primed its security claims.
func startProvider(t *testing.T, e *env, objects ...runtime.Object) (kubernetes.Interface, context.Context) {
	t.Helper()
	kube := fake.NewClientset(objects...)
	return kube, startProviderOn(t, e, kube)
}

// startProviderOn is startProvider over a given client.
func startProviderOn(t *testing.T, e *env, kube kubernetes.Interface) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactory(kube, 0)
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	e.cloud.Initialize(clientBuilder{kube}, ctx.Done())
	e.cloud.SetInformers(factory)
	factory.Start(ctx.Done())
	select {
	case <-e.cloud.svc.Primed():
	case <-time.After(30 * time.Second):
		t.Fatal("provider did not prime its security claims")
	}
	return ctx
}

func TestChangedTLSSecretRetriggersOnlyTheServicesUsingIt(t *testing.T) {
	e := newEnv(t)
	uses := service("shop", map[string]string{string(annotation.SSLPorts): "443", string(annotation.TLSSecret): "shop-tls"}, 443)
	other := service("web", nil, 80)
	kube, ctx := startProvider(t, e, uses, other, tlsSecret("shop-tls", "cert-1"))

	if _, err := kube.CoreV1().Secrets("default").Update(ctx, tlsSecret("shop-tls", "cert-2"), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var stamped string
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		svc, err := kube.CoreV1().Services("default").Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		stamped = svc.Annotations[annotationSecretsHash]
		return stamped != "", nil
	})
	if err != nil {
		t.Fatalf("Service using the Secret was not re-triggered: %v", err)
	}
	web, _ := kube.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
	if _, ok := web.Annotations[annotationSecretsHash]; ok {
		t.Error("a Service not using the Secret was stamped")
	}

	// Another change gives another hash; the provider's lookup serves the new content.
	if _, err := kube.CoreV1().Secrets("default").Update(ctx, tlsSecret("shop-tls", "cert-3"), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		svc, err := kube.CoreV1().Services("default").Get(ctx, "shop", metav1.GetOptions{})
		return err == nil && svc.Annotations[annotationSecretsHash] != stamped, err
	})
	if err != nil {
		t.Fatalf("second Secret change did not re-trigger: %v", err)
	}
	served, err := e.cloud.svc.Secrets(ctx, uses)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := served[lb.SecretRef{Namespace: "default", Name: "shop-tls"}]; !ok || s.Certificate != "cert-3" {
		t.Errorf("provider serves %q (found %v), want the new certificate", s.Certificate, ok)
	}
}

func TestStartUpPrimesClaimsSoOtherServicesKeepTheirRules(t *testing.T) {
	e := newEnv(t)
	lbs, _ := e.cloud.LoadBalancer()
	web, api := service("web", nil, 80), service("api", nil, 9000)
	for _, svc := range []*v1.Service{web, api} {
		if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes); err != nil {
			t.Fatal(err)
		}
	}
	// A restarted provider: a fresh Cloud on the same OCI, knowing nothing of either Service.
	restarted, err := New(e.cfg, Options{ClusterName: "test-cluster", Client: e.client, ListingLag: noListingLag})
	if err != nil {
		t.Fatal(err)
	}
	e.cloud = restarted
	objects := []runtime.Object{web, api}
	for _, n := range e.nodes {
		objects = append(objects, n)
	}
	startProvider(t, e, objects...)

	// Only web is reconciled after the restart, then deleted; api's rules must stay.
	lbs, _ = restarted.LoadBalancer()
	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", web, e.nodes); err != nil {
		t.Fatal(err)
	}
	if err := lbs.EnsureLoadBalancerDeleted(ctxFor(t), "test-cluster", web); err != nil {
		t.Fatal(err)
	}
	if !hasIngress(e.securityList(t, "lb-1"), 9000, "0.0.0.0/0") {
		t.Error("api's listener rule was removed by another Service's reconcile after a restart")
	}
	if hasIngress(e.securityList(t, "lb-1"), 80, "0.0.0.0/0") {
		t.Error("web's listener rule survived web's deletion")
	}
}

func TestServiceInvalidAtStartUpKeepsItsRules(t *testing.T) {
	e := newEnv(t)
	lbs, _ := e.cloud.LoadBalancer()
	web, api := service("web", nil, 80), service("api", nil, 9000)
	for _, svc := range []*v1.Service{web, api} {
		if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes); err != nil {
			t.Fatal(err)
		}
	}
	// While the provider was down, someone mistyped an annotation on api.
	api = api.DeepCopy()
	api.Annotations = map[string]string{string(annotation.ShapeFlexMin): "banana"}
	restarted, err := New(e.cfg, Options{ClusterName: "test-cluster", Client: e.client, ListingLag: noListingLag})
	if err != nil {
		t.Fatal(err)
	}
	e.cloud = restarted
	objects := []runtime.Object{web, api}
	for _, n := range e.nodes {
		objects = append(objects, n)
	}
	startProvider(t, e, objects...)

	// Another Service's reconcile writes the lists api's rules are in.
	lbs, _ = restarted.LoadBalancer()
	if err := lbs.EnsureLoadBalancerDeleted(ctxFor(t), "test-cluster", web); err != nil {
		t.Fatal(err)
	}
	if !hasIngress(e.securityList(t, "lb-1"), 9000, "0.0.0.0/0") || !hasIngress(e.securityList(t, "nodes"), 39000, "10.0.1.0/24") {
		t.Error("an invalid Service's rules were removed; an invalid value must change nothing in OCI")
	}

	// Fixed, api is reconciled; from then on rules nobody needs go.
	api.Annotations = nil
	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", api, e.nodes); err != nil {
		t.Fatal(err)
	}
	if hasIngress(e.securityList(t, "lb-1"), 80, "0.0.0.0/0") {
		t.Error("web's listener rule survived once every claim was known again")
	}
}
