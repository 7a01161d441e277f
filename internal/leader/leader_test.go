// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package leader_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	cloudprovider "k8s.io/cloud-provider"
	componentbaseconfig "k8s.io/component-base/config"

	"github.com/oci-ccm/oci-ccm/internal/leader"
)

var electionConfig = componentbaseconfig.LeaderElectionConfiguration{
	LeaderElect: true, ResourceLock: "leases", ResourceNamespace: "kube-system", ResourceName: "cloud-controller-manager",
}

// fakeCloud records Initialize; the rest of cloudprovider.Interface is never called.
type fakeCloud struct {
	cloudprovider.Interface
	initialised bool
}

func (c *fakeCloud) Initialize(cloudprovider.ControllerClientBuilder, <-chan struct{}) {
	c.initialised = true
}

type fakeInformerCloud struct {
	fakeCloud
	informers bool
}

func (c *fakeInformerCloud) SetInformers(informers.SharedInformerFactory) { c.informers = true }

func lease(holder string, transitions int32) *coordinationv1.Lease {
	now := metav1.NewMicroTime(time.Now())
	d := int32(15)
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "cloud-controller-manager"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &d, AcquireTime: &now, RenewTime: &now,
			LeaseTransitions: &transitions},
	}
}

func hostIdentity(t *testing.T, suffix string) string {
	t.Helper()
	host, err := os.Hostname()
	if err != nil {
		t.Skip("no hostname") // the framework's identity needs one too
	}
	return host + "_" + suffix
}

func current(t *testing.T, kube *fake.Clientset) coordinationv1.LeaseSpec {
	t.Helper()
	l, err := kube.CoordinationV1().Leases("kube-system").Get(context.Background(), "cloud-controller-manager", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l.Spec
}

func TestReleaseFreesTheLeaseThisProcessLeads(t *testing.T) {
	me := hostIdentity(t, "me")
	kube := fake.NewClientset(lease(me, 3))
	r := leader.New()
	cloud := &fakeInformerCloud{}
	wrapped := r.Wrap(cloud, kube, electionConfig)
	wrapped.Initialize(nil, nil)
	if !cloud.initialised {
		t.Error("the provider was not initialised through the wrapper")
	}
	iu, ok := wrapped.(cloudprovider.InformerUser)
	if !ok {
		t.Fatal("the wrapper hides cloudprovider.InformerUser")
	}
	iu.SetInformers(nil)
	if !cloud.informers {
		t.Error("SetInformers was not forwarded")
	}

	if err := r.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := current(t, kube)
	if *got.HolderIdentity != "" || *got.LeaseDurationSeconds != 1 || *got.LeaseTransitions != 3 {
		t.Errorf("after release: holder %q, duration %d, transitions %d; want \"\", 1, 3",
			*got.HolderIdentity, *got.LeaseDurationSeconds, *got.LeaseTransitions)
	}
}

func TestReleaseNeverTouchesALeaseAnotherProcessHolds(t *testing.T) {
	me, other := hostIdentity(t, "me"), hostIdentity(t, "other")
	tests := []struct {
		name    string
		leading bool   // the framework initialised this process's provider
		holder  string // who holds the Lease at release time
		wantErr error
	}{
		{name: "never led", leading: false, holder: other},
		{name: "led, then lost the Lease", leading: true, holder: other, wantErr: leader.ErrNotHolder},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kube := fake.NewClientset(lease(me, 1))
			r := leader.New()
			cloud := r.Wrap(&fakeCloud{}, kube, electionConfig)
			if tt.leading {
				cloud.Initialize(nil, nil)
			}
			taken := lease(tt.holder, 2)
			if _, err := kube.CoordinationV1().Leases("kube-system").Update(context.Background(), taken, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := r.Release(context.Background()); !errors.Is(err, tt.wantErr) {
				t.Errorf("Release = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(taken.Spec, current(t, kube)); diff != "" {
				t.Errorf("the Lease changed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWrapWithoutLeaderElectionReturnsTheProviderItself(t *testing.T) {
	cloud := &fakeCloud{}
	off := electionConfig
	off.LeaderElect = false
	r := leader.New()
	if got := r.Wrap(cloud, fake.NewClientset(), off); got != cloudprovider.Interface(cloud) {
		t.Errorf("Wrap with leader election off = %T, want the provider itself", got)
	}
	if err := r.Release(context.Background()); err != nil {
		t.Errorf("Release without leader election = %v, want nil", err)
	}
}
