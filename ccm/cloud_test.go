// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"errors"
	"runtime"
	"testing"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/oci-ccm/oci-ccm/config"
)

func TestNewWithAnInjectedClientNeedsNoCredentials(t *testing.T) {
	e := newEnv(t)
	noCredentials := &config.Config{
		Auth:          config.Auth{Region: e.cfg.Auth.Region},
		CompartmentID: e.cfg.CompartmentID,
		VCNID:         e.cfg.VCNID,
		LoadBalancer:  e.cfg.LoadBalancer,
	}
	noCredentials.SetDefaults()
	if _, err := New(noCredentials, Options{ClusterName: "test-cluster", Client: e.client}); err != nil {
		t.Errorf("New with an injected client and no credentials: %v, want a Cloud", err)
	}
	// Without a client the credentials are what it is built from, so they are required.
	_, err := New(noCredentials, Options{ClusterName: "test-cluster"})
	var ve *config.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("New without client or credentials: %v, want a *config.ValidationError", err)
	}
	// The region and compartment are still checked with a client: the library reads them.
	noCompartment := *noCredentials
	noCompartment.CompartmentID = ""
	if _, err := New(&noCompartment, Options{ClusterName: "test-cluster", Client: e.client}); !errors.As(err, &ve) {
		t.Errorf("New with a client and no compartment: %v, want a *config.ValidationError", err)
	}
}

func TestSetInformersWithoutInitializeStartsNoGoroutine(t *testing.T) {
	e := newEnv(t)
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	before := runtime.NumGoroutine()
	e.cloud.SetInformers(factory) // no Initialize: no stop channel to end anything with
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("SetInformers without Initialize started %d goroutine(s) that nothing can stop", after-before)
	}
	if e.cloud.watch == nil {
		t.Error("the Service and Node informers were not registered")
	}
	select {
	case <-e.cloud.primed:
		t.Error("security rules were primed without a stop channel")
	default:
	}
}
