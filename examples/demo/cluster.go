// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	restclient "k8s.io/client-go/rest"
	cloudprovider "k8s.io/cloud-provider"
	nodecontroller "k8s.io/cloud-provider/controllers/node"
	servicecontroller "k8s.io/cloud-provider/controllers/service"
	"k8s.io/component-base/featuregate"
	controllersmetrics "k8s.io/component-base/metrics/prometheus/controllers"

	"github.com/oci-ccm/oci-ccm/ccm"
	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

const (
	// clusterName is --cluster-name: it goes into ownership tags and security-rule descriptions.
	clusterName = "demo"
	// workRequestDuration is how long ocitest keeps a work request running: long enough to see
	// the provider wait for each change, short enough for a demo.
	workRequestDuration = 300 * time.Millisecond
	// serviceWorkers is --concurrent-service-syncs.
	serviceWorkers = 2
)

// pollPolicy polls work requests often enough for 300 ms work requests; the default (first poll
// after 100 ms, then ×1.5 up to 5 s) is tuned for real OCI, where changes take seconds.
var pollPolicy = ociclient.PollPolicy{Initial: 100 * time.Millisecond, Max: 250 * time.Millisecond, Factor: 1.5}

// cluster is what the demo runs: an in-memory OCI, an in-process Kubernetes API with the shared
// informers, the oci provider, and the upstream service and cloud-node controllers.
type cluster struct {
	srv     *ocitest.Server
	seeded  ocitest.Seeded
	cfg     *config.Config
	kube    *fake.Clientset
	factory informers.SharedInformerFactory
	calls   *lbCalls

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startCluster starts everything and returns once the informers have synced. Call stop to end
// it; stop waits for the controllers to return.
func startCluster(ctx context.Context) (_ *cluster, err error) {
	ten := tenancy()
	srv, err := ocitest.Listen(ocitest.Options{WorkRequestDuration: workRequestDuration, Tenancy: &ten})
	if err != nil {
		return nil, fmt.Errorf("starting the in-memory OCI: %w", err)
	}
	defer func() {
		if err != nil {
			srv.Close()
		}
	}()
	seeded := srv.Seeded()
	cfg, client, err := providerConfig(srv, seeded)
	if err != nil {
		return nil, err
	}
	cloud, err := ccm.New(cfg, ccm.Options{ClusterName: clusterName, Client: client})
	if err != nil {
		return nil, fmt.Errorf("building the oci provider: %w", err)
	}

	ctx, cancel := context.WithCancel(ctx)
	c := &cluster{srv: srv, seeded: seeded, cfg: cfg, kube: newAPIServer(), calls: &lbCalls{}, cancel: cancel}
	c.factory = informers.NewSharedInformerFactory(c.kube, 0)

	// What the cloud controller manager does at start-up, in its order: hand the provider a
	// client and its informers, build the controllers on the same factory, start it all.
	cloud.Initialize(clientBuilder{c.kube}, ctx.Done())
	cloud.SetInformers(c.factory)
	probed := probedCloud{Interface: cloud, calls: c.calls}
	services, nodes := c.factory.Core().V1().Services(), c.factory.Core().V1().Nodes()
	svcController, err := servicecontroller.New(probed, c.kube, services, nodes, clusterName, featuregate.NewFeatureGate())
	if err != nil {
		cancel()
		return nil, fmt.Errorf("service controller: %w", err)
	}
	// Node status is refreshed every 5 minutes, so within the demo the node controller only
	// initialises new Nodes.
	nodeController, err := nodecontroller.NewCloudNodeController(nodes, c.kube, probed, 5*time.Minute, 1, 1)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("cloud-node controller: %w", err)
	}
	c.factory.Start(ctx.Done())
	metrics := controllersmetrics.NewControllerManagerMetrics("demo")
	c.wg.Add(2)
	go func() { defer c.wg.Done(); svcController.Run(ctx, serviceWorkers, metrics) }()
	go func() { defer c.wg.Done(); nodeController.RunWithContext(ctx, metrics) }()

	for typ, ok := range c.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			c.stop()
			return nil, fmt.Errorf("informer for %v did not sync", typ)
		}
	}
	return c, nil
}

// tenancy is ocitest's default tenancy (node-1..3 in AD-1..3) with a fourth instance, node-4,
// whose kubelet registers only later in the demo (as when a node pool grows).
func tenancy() ocitest.Tenancy {
	t := ocitest.DefaultTenancy()
	t.Instances = append(t.Instances, ocitest.TenancyInstance{
		Name: "node-4", Shape: "VM.Standard.E4.Flex", Subnet: "nodes", PublicIP: "auto",
		AvailabilityDomain: t.AvailabilityDomains[0], FaultDomain: "FAULT-DOMAIN-2",
	})
	t.NetworkSecurityGroups = append(t.NetworkSecurityGroups, nodesNSG)
	return t
}

// providerConfig is what cloud-provider.yaml would say for the seeded tenancy, and an OCI client
// pointed at the in-memory server.
func providerConfig(srv *ocitest.Server, seeded ocitest.Seeded) (*config.Config, *ociclient.Client, error) {
	creds, err := srv.NewCredentials()
	if err != nil {
		return nil, nil, fmt.Errorf("API key: %w", err)
	}
	cfg := &config.Config{
		Auth: config.Auth{Region: srv.Region(), Tenancy: creds.TenancyID, User: creds.UserID,
			Fingerprint: creds.Fingerprint, Key: config.Secret(creds.PrivateKeyPEM)},
		CompartmentID: seeded.Compartment,
		VCNID:         seeded.VCN,
		LoadBalancer: config.LoadBalancer{
			Subnet1: seeded.LoadBalancerSubnets[0], Subnet2: seeded.LoadBalancerSubnets[1],
			// Readable display names ("default-web") instead of the upstream-compatible UIDs.
			Naming: config.Naming{Scheme: config.NamingName},
		},
	}
	cfg.SetDefaults()
	provider, err := cfg.ConfigurationProvider()
	if err != nil {
		return nil, nil, fmt.Errorf("signing provider: %w", err)
	}
	client, err := ociclient.New(ociclient.Options{
		Provider: provider, Region: srv.Region(), Host: srv.URL(), HTTPClient: srv.HTTPClient(),
		RateLimit: cfg.RateLimiter, Poll: pollPolicy,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("OCI client: %w", err)
	}
	return cfg, client, nil
}

// stop ends the controllers and informers, waits for them, and closes the in-memory OCI.
func (c *cluster) stop() {
	c.cancel()
	c.wg.Wait()
	c.factory.Shutdown()
	c.srv.Close()
}

// clientBuilder hands the provider the in-process client, as the controller manager's builder
// hands it a client with its own credentials. The provider asks only for a client; the API is
// in-process, so there is no REST configuration to give.
type clientBuilder struct{ kube kubernetes.Interface }

var _ cloudprovider.ControllerClientBuilder = clientBuilder{}

func (b clientBuilder) Config(string) (*restclient.Config, error)   { return &restclient.Config{}, nil }
func (b clientBuilder) ConfigOrDie(string) *restclient.Config       { return &restclient.Config{} }
func (b clientBuilder) Client(string) (kubernetes.Interface, error) { return b.kube, nil }
func (b clientBuilder) ClientOrDie(string) kubernetes.Interface     { return b.kube }
