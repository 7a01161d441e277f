// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

func TestNewFromFileRefusesAsTheBinaryAlwaysHas(t *testing.T) {
	// Two problems at once: the environment's prefix disagrees with the file, and the file is
	// invalid. The binary has always reported the prefix first, then the file's problems.
	path := filepath.Join(t.TempDir(), "cloud-provider.yaml")
	doc := "useInstancePrincipals: true\nauth: {region: us-phoenix-1}\ncompartment: ocid1.compartment.oc1..aaaa\n" +
		"loadBalancer: {subnet1: ocid1.subnet.oc1.phx.aaaa, naming: {scheme: name, prefix: dev}}\nrateLimiter: {readQPS: -1}\n"
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := NewFromFile(path, Options{ClusterName: "test-cluster", LoadBalancerPrefix: "prod"})
	var ve *config.ValidationError
	if err == nil || errors.As(err, &ve) || !strings.HasPrefix(err.Error(), "environment variable "+config.UpstreamPrefixVariable+`="prod"`) {
		t.Errorf("NewFromFile = %v, want the prefix's error", err)
	}
	_, err = NewFromFile(path, Options{ClusterName: "test-cluster", LoadBalancerPrefix: "dev"})
	if !errors.As(err, &ve) || len(ve.Errors) != 1 || !strings.HasPrefix(err.Error(), "invalid cloud-provider config: 1 problem(s): rateLimiter.readQPS") {
		t.Errorf("NewFromFile = %v, want the file's one problem, without the path", err)
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
	select {
	case <-e.cloud.svc.Primed():
		t.Error("security rules were primed without a stop channel")
	default:
	}
	// The informers were registered on the factory all the same: started, it runs them.
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	synced := factory.WaitForCacheSync(stop)
	for _, typ := range []reflect.Type{reflect.TypeFor[*v1.Service](), reflect.TypeFor[*v1.Node]()} {
		if !synced[typ] {
			t.Errorf("the %v informer was not registered (the factory started %v)", typ, synced)
		}
	}
}

// TestNewReadsTheUpstreamNamePrefixFromTheEnvironment: a deployment migrated from the upstream
// CCM with LOAD_BALANCER_PREFIX still set starts, and names load balancers "<prefix>-<uid>" as
// upstream did (network load balancers "<namespace>/<name>/<uid>", unprefixed); a prefix that
// disagrees with loadBalancer.naming.prefix stops it.
func TestNewReadsTheUpstreamNamePrefixFromTheEnvironment(t *testing.T) {
	e := newEnv(t)
	cfg := *e.cfg
	cloud, err := New(&cfg, Options{ClusterName: "test-cluster", Client: e.client, LoadBalancerPrefix: "prod"})
	if err != nil {
		t.Fatalf("New with %s set: %v, want a Cloud", config.UpstreamPrefixVariable, err)
	}
	lbs, _ := cloud.LoadBalancer()
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "6c1b7a52-3f0e-4d8a-a6b1-1f2e3d4c5b6a"}}
	if got, want := lbs.GetLoadBalancerName(context.Background(), "", svc), "prod-"+string(svc.UID); got != want {
		t.Errorf("GetLoadBalancerName = %q, want %q", got, want)
	}
	svc.Annotations = map[string]string{"oci.oraclecloud.com/load-balancer-type": "nlb"}
	if got, want := lbs.GetLoadBalancerName(context.Background(), "", svc), "default/web/"+string(svc.UID); got != want {
		t.Errorf("GetLoadBalancerName of an nlb Service = %q, want %q", got, want)
	}

	other := *e.cfg
	other.LoadBalancer.Naming.Prefix = "test"
	if _, err := New(&other, Options{ClusterName: "test-cluster", Client: e.client, LoadBalancerPrefix: "prod"}); err == nil ||
		!strings.Contains(err.Error(), config.UpstreamPrefixVariable) {
		t.Errorf("New with %s disagreeing with loadBalancer.naming.prefix: %v, want a refusal naming it", config.UpstreamPrefixVariable, err)
	}
}
