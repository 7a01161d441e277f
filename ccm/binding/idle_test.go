// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	api "github.com/oci-ccm/oci-ccm/ccm/binding/v1alpha1"
	"github.com/oci-ccm/oci-ccm/instances"
	lbbinding "github.com/oci-ccm/oci-ccm/lb/binding"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// noOCI is a Syncer for tests that must not reach OCI: it fails them if called.
type noOCI struct{ t *testing.T }

func (n noOCI) Sync(context.Context, lbbinding.Binding, []lbbinding.Target, []string) (lbbinding.Result, error) {
	n.t.Error("Sync called")
	return lbbinding.Result{}, nil
}
func (n noOCI) Release(context.Context, lbbinding.Binding, []string) (lbbinding.Result, error) {
	n.t.Error("Release called")
	return lbbinding.Result{}, nil
}
func (n noOCI) Health(context.Context, lbbinding.Binding) (map[string]lbbinding.Health, error) {
	n.t.Error("Health called")
	return nil, nil
}

// run runs a controller for a moment on fake clients, with the CRD installed or not, and returns
// the verbs and resources the controller itself asked of the two clients (the shared informers of
// Services, EndpointSlices and Nodes are the controller manager's, started by it, not here).
func run(t *testing.T, crd bool) (kube, dyn []string) {
	t.Helper()
	kc := fake.NewClientset()
	if crd {
		kc.Discovery().(*fakediscovery.FakeDiscovery).Resources = []*metav1.APIResourceList{{
			GroupVersion: api.SchemeGroupVersion.String(), APIResources: []metav1.APIResource{{Name: api.Resource, Namespaced: true, Kind: api.Kind}}}}
	}
	dc := runFor(t, kc, Options{}, 300*time.Millisecond)
	for _, a := range kc.Actions() {
		if r := a.GetResource().Resource; r != "" && r != "resource" { // "get resource" is discovery
			kube = append(kube, a.GetVerb()+" "+a.GetResource().Resource)
		}
	}
	for _, a := range dc.Actions() {
		dyn = append(dyn, a.GetVerb()+" "+a.GetResource().Resource)
	}
	return kube, dyn
}

// runFor runs a controller with opts (its clients and Syncer filled in: kc, a fake dynamic client,
// noOCI) for d, checking for the CRD every 10 ms, and returns the dynamic client.
func runFor(t *testing.T, kc *fake.Clientset, opts Options, d time.Duration) *dynamicfake.FakeDynamicClient {
	t.Helper()
	dc := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{api.GroupVersionResource: api.Kind + "List"})
	opts.Kube, opts.Dynamic, opts.Informers, opts.Syncer = kc, dc, informers.NewSharedInformerFactory(kc, 0), noOCI{t}
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	c.crdPoll = 10 * time.Millisecond
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	c.Run(ctx, 1)
	return dc
}

// TestWithoutTheCRDTheControllerReadsNothing: a cluster that never installs the CRD pays for the
// controller with a discovery request a minute (every 10 ms here), no list or watch of Pods or
// bindings; once the CRD is served it watches both. (The informers of Services, EndpointSlices
// and Nodes are the controller manager's shared ones, not started here.)
func TestWithoutTheCRDTheControllerReadsNothing(t *testing.T) {
	if kube, dyn := run(t, false); len(kube) != 0 || len(dyn) != 0 {
		t.Errorf("without the CRD the controller asked the API for %v and %v; want nothing but discovery", kube, dyn)
	}
	kube, dyn := run(t, true)
	// The reflectors list and watch, or watch with a streamed list first.
	if !contains(kube, "watch pods") || !contains(dyn, "watch "+api.Resource) {
		t.Errorf("with the CRD the controller asked for %v and %v; want Pods and BackendSetBindings watched", kube, dyn)
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestWithoutTheCRDTheRulesArePrimedEmptyOnlyWhenTheAPISaysSo: a cluster without the CRD has no
// binding, so the controller lets seclist remove rules at once (PrimeRules with no claim); but a
// discovery request that fails for another reason says nothing, and removals stay held.
func TestWithoutTheCRDTheRulesArePrimedEmptyOnlyWhenTheAPISaysSo(t *testing.T) {
	for _, tc := range []struct {
		name      string
		discovery error
		want      bool
	}{
		{"the group is not served (404)", nil, true},
		{"discovery fails", errors.New("connection refused"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kc := fake.NewClientset()
			if tc.discovery != nil {
				kc.PrependReactor("get", "resource", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, tc.discovery })
			}
			var primed atomic.Int32
			runFor(t, kc, Options{Rules: noRules{t}, Subnets: func(context.Context, []string, []*corev1.Node) ([]string, []instances.Unplaced, error) {
				return nil, nil, nil
			},
				PrimeRules: func(claims []seclist.Claim) error {
					if len(claims) != 0 {
						t.Errorf("primed with %v, want no claim", claims)
					}
					primed.Add(1)
					return nil
				}}, 200*time.Millisecond)
			if got := primed.Load(); (got == 1) != tc.want || got > 1 {
				t.Errorf("PrimeRules called %d times; want it called once: %v", got, tc.want)
			}
		})
	}
}

// noRules fails the test if a rule is set or deleted.
type noRules struct{ t *testing.T }

func (n noRules) Reconcile(context.Context, seclist.Claim) error {
	n.t.Error("Rules.Reconcile called")
	return nil
}

func (n noRules) Delete(context.Context, seclist.Claim) error {
	n.t.Error("Rules.Delete called")
	return nil
}
