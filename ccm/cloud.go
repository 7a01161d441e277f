// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package ccm plugs the oci-ccm library into k8s.io/cloud-provider as the provider "oci". It is
// glue only: a Service's load balancer and security rules are the Service orchestrator's
// (ccm/service, which runs lb and seclist), Nodes are instances', OCI calls ociclient's. Here are
// the configuration (one configuration, one cluster identity), the OCI client, and the plugging
// of each into the cloud-provider framework.
package ccm

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/informers"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"

	orchestrator "github.com/oci-ccm/oci-ccm/ccm/service"
	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/instances"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// ProviderName is the name the provider answers to (--cloud-provider=oci).
const ProviderName = "oci"

// Options configure a Cloud beyond what cloud-provider.yaml says.
type Options struct {
	// ClusterName is --cluster-name: the cluster's identity unless cloud-provider.yaml sets
	// clusterID (see config.ClusterIdentity). It marks both the load balancers and the security
	// rules this cluster owns; the cluster name of each service-controller call is ignored.
	ClusterName string
	// Client replaces the OCI client built from the configuration (tests, the demo); New then
	// does not need the configuration's credentials (NewFromFile's file, the binary's, does).
	Client *ociclient.Client
	// Metrics receives the OCI client's measurements; nil records none. Ignored with Client.
	Metrics ociclient.Metrics
	// DriftCheckPeriod is how often load balancers are checked for changes made outside
	// Kubernetes: 0 means service.DefaultDriftCheckPeriod, negative turns it off.
	DriftCheckPeriod time.Duration
	// LoadBalancerMaxWait is how long one load balancer sync holds a service-controller worker
	// while OCI works (engine.Options.MaxWait; 0: a minute). Work still running then goes on in the
	// background, the sync is retried, and the Service is synced again when the work ends.
	LoadBalancerMaxWait time.Duration
	// LoadBalancerTimeout bounds the work of one load balancer sync, waited for or in the
	// background (engine.Options.Timeout; 0: five minutes).
	LoadBalancerTimeout time.Duration
	// ListingLag is how long after a create OCI's listings may still lack a load balancer or
	// network security group (engine.Options.ListingLag and seclist.Options.ListingLag: zero means
	// their defaults, negative none). Tests against a server without the lag set it negative.
	ListingLag time.Duration
	// LoadBalancerPrefix is the upstream CCM's LOAD_BALANCER_PREFIX environment variable
	// (config.UpstreamPrefixVariable), which the binary reads once at start-up; "" is unset.
	// New carries it into loadBalancer.naming.prefix (config.Config.ApplyUpstreamPrefix), so load
	// balancers are named "<prefix>-<uid>" and found under that name as upstream names them.
	LoadBalancerPrefix string
	// Environment reads the upstream CCM's environment variables; the binary passes
	// OSEnvironment{}, a library user or test may pass its own (nil reads none). With
	// useWorkloadIdentity: true and no config.Config.WorkloadIdentity set, New reads it with
	// config.WorkloadIdentityFromEnvironment (OCI_WORKLOAD_IDENTITY_*).
	Environment Environment
	// WorkloadIdentity builds the OCI configuration provider of a ServiceAccount's workload
	// identity, for Services annotated oci.oraclecloud.com/workload-service-account; nil is
	// OKEWorkloadIdentity{} (OKE's endpoint, found from the process environment as the SDK does).
	WorkloadIdentity WorkloadIdentityProvider
}

// Cloud is the oci cloudprovider.Interface. Build it with New or NewFromFile.
type Cloud struct {
	cfg    *config.Config
	client *ociclient.Client
	svc    *orchestrator.Reconciler
	nodes  *instances.Instances
}

var _ interface {
	cloudprovider.Interface
	cloudprovider.InformerUser
} = (*Cloud)(nil)

// NewFromFile loads cloud-provider.yaml with config.Open, which fills a missing region and
// compartment from instance metadata, applies Options.LoadBalancerPrefix and
// Options.Environment as New does, and validates; then it builds the Cloud with New.
// Deprecated field names are logged. The file is the binary's, so it must say how to sign
// requests even when Options.Client is given.
func NewFromFile(path string, opts Options) (*Cloud, error) {
	cfg, warnings, err := config.Open(context.Background(), path, config.WithEnvironment(opts.getenv))
	for _, w := range warnings {
		klog.InfoS("Deprecated configuration", "field", w.Field, "detail", w.Message)
	}
	if err != nil {
		return nil, err
	}
	return New(cfg, opts)
}

// getenv is the environment New reads: LOAD_BALANCER_PREFIX is Options.LoadBalancerPrefix, the
// rest comes from Options.Environment (nil reads none).
func (o Options) getenv(name string) string {
	switch {
	case name == config.UpstreamPrefixVariable:
		return o.LoadBalancerPrefix
	case o.Environment == nil:
		return ""
	}
	return o.Environment.Getenv(name)
}

// New builds a Cloud from a configuration (from config.Load or config.Open, or built in code),
// Options.LoadBalancerPrefix and Options.Environment. It validates the configuration again once
// they are applied (without the credentials when Options.Client is given), so a Config built
// in code needs only config.Config.SetDefaults first.
func New(cfg *config.Config, opts Options) (*Cloud, error) {
	// What New completes (the prefix, the workload identity, the cluster identity) goes into a
	// copy: the caller's Config stays as it was given.
	own := *cfg
	cfg = &own
	if err := cfg.ApplyUpstreamPrefix(opts.LoadBalancerPrefix); err != nil {
		return nil, err
	}
	if cfg.UseWorkloadIdentity && cfg.WorkloadIdentity == (config.WorkloadIdentity{}) && opts.Environment != nil {
		wi, err := config.WorkloadIdentityFromEnvironment(opts.Environment.Getenv)
		if err != nil {
			return nil, err
		}
		cfg.WorkloadIdentity = wi
	}
	client := opts.Client
	validate := cfg.Validate
	if client != nil {
		validate = cfg.ValidateExceptCredentials
	}
	if err := validate(); err != nil {
		return nil, err
	}
	// The identity, from clusterID or --cluster-name, is the one every package reads from here on.
	cluster, err := cfg.ClusterIdentity(opts.ClusterName)
	if err != nil {
		return nil, err
	}
	cfg.ClusterID = cluster
	if client == nil {
		if client, err = ociclient.NewFromConfig(cfg, ociclient.Options{Metrics: opts.Metrics}); err != nil {
			return nil, fmt.Errorf("OCI client: %w", err)
		}
	}
	// The waits for eventual consistency are counted with the client's measurements, when
	// its Metrics can count them.
	consistency, _ := opts.Metrics.(ociclient.ConsistencyObserver)
	wi := opts.WorkloadIdentity
	if wi == nil {
		wi = OKEWorkloadIdentity{}
	}
	c := &Cloud{cfg: cfg, client: client}
	if c.nodes, err = instances.New(instances.Options{Compute: client.Compute, VirtualNetwork: client.VirtualNetwork, Consistency: consistency,
		CompartmentID: cfg.CompartmentID, VCNID: cfg.VCNID, Region: cfg.Auth.Region}); err != nil {
		return nil, err
	}
	c.svc, err = orchestrator.New(orchestrator.Options{Config: cfg, Client: client, Nodes: c.nodes,
		DriftCheckPeriod: opts.DriftCheckPeriod, MaxWait: opts.LoadBalancerMaxWait, Timeout: opts.LoadBalancerTimeout,
		ListingLag: opts.ListingLag, Consistency: consistency, WorkloadIdentity: wi.Provider})
	return c, err
}

// Initialize gives the Service orchestrator the Kubernetes client it patches Services and
// records Events with, and the channel that stops everything it runs in the background.
func (c *Cloud) Initialize(builder cloudprovider.ControllerClientBuilder, stop <-chan struct{}) {
	client, err := builder.Client("oci-cloud-controller-manager")
	if err != nil {
		klog.ErrorS(err, "Cannot create a Kubernetes client; TLS Secret changes will not trigger reconciles")
	}
	c.svc.Initialize(client, nil, stop)
}

// SetInformers registers the orchestrator's informers on the shared factory and starts its
// background work (orchestrator.Reconciler.SetInformers): the Secret and EndpointSlice watchers,
// start-up priming of the security rules, the follow-up of node syncs and the drift check.
func (c *Cloud) SetInformers(factory informers.SharedInformerFactory) { c.svc.SetInformers(factory) }

// LoadBalancer returns the load balancer implementation, unless cloud-provider.yaml disables it.
func (c *Cloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) {
	if c.cfg.LoadBalancer.Disabled {
		return nil, false
	}
	return &loadBalancers{c}, true
}

// InstancesV2 returns the node implementation (zones and regions come through InstanceMetadata).
func (c *Cloud) InstancesV2() (cloudprovider.InstancesV2, bool) { return c.nodes, true }

// Instances is not offered: InstancesV2 replaces it.
func (c *Cloud) Instances() (cloudprovider.Instances, bool) { return nil, false }

// Zones is not offered: InstancesV2 reports zones.
func (c *Cloud) Zones() (cloudprovider.Zones, bool) { return nil, false }

// Clusters is not offered.
func (c *Cloud) Clusters() (cloudprovider.Clusters, bool) { return nil, false }

// Routes is not offered: OCI VCN-native pod networking needs no routes from the CCM.
func (c *Cloud) Routes() (cloudprovider.Routes, bool) { return nil, false }

// OCI returns the OCI client and the configuration (with its cluster identity) the Cloud runs on.
func (c *Cloud) OCI() (*ociclient.Client, *config.Config) { return c.client, c.cfg }

// Services is the Service orchestrator; the binary's ccm/binding shares its Rules and Nodes.
func (c *Cloud) Services() *orchestrator.Reconciler { return c.svc }

// ProviderName returns "oci".
func (c *Cloud) ProviderName() string { return ProviderName }

// HasClusterID is true: New refuses to build a Cloud without a cluster identity.
func (c *Cloud) HasClusterID() bool { return true }
