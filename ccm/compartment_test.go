// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"

	"github.com/oci-ccm/oci-ccm/internal/iampolicy"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// TestLoadBalancerInTheServicesCompartmentIsRecordedAndFoundByTheNextProcess: through the
// cloudprovider.Interface, a Service naming a compartment gets its load balancer there, and the
// compartment is recorded on the Service (annotation.LoadBalancerCompartmentID). A new process
// then finds it even when the Service names another compartment, or none, since: the change is
// refused, or the load balancer kept where it is; never is a second one made. Deleting the
// Service deletes it.
func TestLoadBalancerInTheServicesCompartmentIsRecordedAndFoundByTheNextProcess(t *testing.T) {
	e := newEnv(t)
	extra, err := iampolicy.FromFileUnder("../seclist/README.md", iampolicy.OtherCompartmentHeading)
	if err != nil {
		t.Fatal(err)
	}
	first, second := e.srv.AddCompartment("lbs"), e.srv.AddCompartment("lbs-2")
	policy := append(ocitest.DefaultPolicy(), iampolicy.Substitute(extra, "ccm", "lbs")...)
	if err := e.srv.SetPolicy(append(policy, iampolicy.Substitute(extra, "ccm", "lbs-2")...)...); err != nil {
		t.Fatal(err)
	}
	svc := service("web", map[string]string{string(annotation.CompartmentID): first}, 80)
	kube := fake.NewClientset(svc)
	e.cloud.svc.Initialize(kube, record.NewFakeRecorder(100), nil)
	lbs, _ := e.cloud.LoadBalancer()
	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes); err != nil {
		t.Fatal(err)
	}
	if all := e.srv.LoadBalancers(); len(all) != 1 || *all[0].CompartmentId != first {
		t.Fatalf("%d load balancers, want one in %s", len(all), first)
	}
	recorded, err := kube.CoreV1().Services("default").Get(ctxFor(t), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := recorded.Annotations[string(annotation.LoadBalancerCompartmentID)]; got != first {
		t.Fatalf("recorded compartment %q, want %q", got, first)
	}

	restart := func() *Cloud {
		cloud, _ := e.newCloud(t)
		cloud.svc.Initialize(kube, record.NewFakeRecorder(100), nil)
		return cloud
	}
	moved := recorded.DeepCopy()
	moved.Annotations[string(annotation.CompartmentID)] = second
	lbs, _ = restart().LoadBalancer()
	var ierr *lb.ImmutableError
	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", moved, e.nodes); !errors.As(err, &ierr) {
		t.Errorf("EnsureLoadBalancer naming another compartment after a restart = %v, want an *lb.ImmutableError", err)
	}
	removed := recorded.DeepCopy()
	delete(removed.Annotations, string(annotation.CompartmentID))
	lbs, _ = restart().LoadBalancer()
	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", removed, e.nodes); err != nil {
		t.Errorf("EnsureLoadBalancer naming no compartment after a restart: %v", err)
	}
	if all := e.srv.LoadBalancers(); len(all) != 1 || *all[0].CompartmentId != first {
		t.Fatalf("%d load balancers, want still the one in %s", len(all), first)
	}

	lbs, _ = restart().LoadBalancer()
	if err := lbs.EnsureLoadBalancerDeleted(ctxFor(t), "test-cluster", moved); err != nil {
		t.Fatal(err)
	}
	if n := len(e.srv.LoadBalancers()); n != 0 {
		t.Errorf("%d load balancers after EnsureLoadBalancerDeleted, want 0", n)
	}
}
