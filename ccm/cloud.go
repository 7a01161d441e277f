// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package ccm plugs the oci-ccm library into k8s.io/cloud-provider as the provider "oci". It is
// glue only: load balancers are lb's, security rules seclist's, nodes and their subnets
// instances', OCI calls ociclient's, TLS Secrets internal/kube's. Here are the wiring (one
// configuration, one cluster identity), the informers and the Events.
package ccm

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/instances"
	"github.com/oci-ccm/oci-ccm/internal/drift"
	"github.com/oci-ccm/oci-ccm/internal/kube"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// ProviderName is the name the provider answers to (--cloud-provider=oci).
const ProviderName = "oci"

// Options configure a Cloud beyond what cloud-provider.yaml says.
type Options struct {
	// ClusterName is --cluster-name: the cluster's identity unless cloud-provider.yaml sets
	// clusterID (see config.ClusterIdentity). It marks both the load balancers and the security
	// rules this cluster owns; the cluster name of each service-controller call is ignored.
	ClusterName string
	// Client replaces the OCI client built from the configuration (tests, the demo); the
	// configuration's credentials are then not needed.
	Client *ociclient.Client
	// Metrics receives the OCI client's measurements; nil records none. Ignored with Client.
	Metrics ociclient.Metrics
	// DriftCheckPeriod is how often load balancers are checked for changes made outside
	// Kubernetes (see internal/drift): 0 means drift.DefaultPeriod, negative turns it off.
	DriftCheckPeriod time.Duration
	// LoadBalancerMaxWait is how long one load balancer sync holds a service-controller worker
	// while OCI works (lb.Options.MaxWait; 0: a minute). Work still running then goes on in the
	// background, the sync is retried, and the Service is synced again when the work ends.
	LoadBalancerMaxWait time.Duration
	// LoadBalancerTimeout bounds the work of one load balancer sync, waited for or in the
	// background (lb.Options.Timeout; 0: five minutes).
	LoadBalancerTimeout time.Duration
	// ListingLag is how long after a create OCI's listings may still lack a load balancer or
	// network security group (lb.Options.ListingLag and seclist.Options.ListingLag: zero means
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
	cfg   *config.Config
	lbs   *lb.Reconciler
	rules *seclist.Manager
	nodes *instances.Instances

	// Set by Initialize (client, stop, events) and SetInformers (watch), in that order, before
	// any controller calls the provider.
	client kubernetes.Interface
	stop   <-chan struct{}
	events record.EventRecorder // nil before Initialize
	watch  *kube.Watcher
	// endpoints tells lb which Nodes run the endpoints of a Service with externalTrafficPolicy
	// Local, from the EndpointSlices (set by SetInformers; nil knows nothing).
	endpoints *kube.Endpoints
	// primed is closed once seclist holds the claims of every Service (see SetInformers).
	primed      chan struct{}
	driftPeriod time.Duration // Options.DriftCheckPeriod
	maxWait     time.Duration // Options.LoadBalancerMaxWait
}

var _ interface {
	cloudprovider.Interface
	cloudprovider.InformerUser
} = (*Cloud)(nil)

// NewFromFile loads, completes (region and compartment from instance metadata when absent) and
// validates cloud-provider.yaml, then builds the Cloud. Deprecated field names are logged.
func NewFromFile(path string, opts Options) (*Cloud, error) {
	cfg, warnings, err := config.Open(context.Background(), path)
	for _, w := range warnings {
		klog.InfoS("Deprecated configuration", "field", w.Field, "detail", w.Message)
	}
	if err != nil {
		return nil, err
	}
	return New(cfg, opts)
}

// New builds a Cloud from a loaded configuration and Options.LoadBalancerPrefix, validating it
// first (without the credentials when Options.Client is given).
func New(cfg *config.Config, opts Options) (*Cloud, error) {
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
	cluster, err := cfg.ClusterIdentity(opts.ClusterName)
	if err != nil {
		return nil, err
	}
	if client == nil {
		if client, err = ociclient.NewFromConfig(cfg, ociclient.Options{Metrics: opts.Metrics}); err != nil {
			return nil, fmt.Errorf("OCI client: %w", err)
		}
	}
	c := &Cloud{cfg: cfg, primed: make(chan struct{}), driftPeriod: opts.DriftCheckPeriod, maxWait: opts.LoadBalancerMaxWait}
	// The waits for eventual consistency are counted with the client's measurements, when
	// its Metrics can count them.
	consistency, _ := opts.Metrics.(ociclient.ConsistencyObserver)
	policy := seclist.PolicyFromConfig(cluster, cfg.LoadBalancer)
	// Frontend NSGs live in the configured compartment, also for a Service whose load balancer
	// is in one of its own (annotation.CompartmentID): one listing per VCN finds them all.
	policy.CompartmentID = cfg.CompartmentID
	if c.rules, err = seclist.NewManager(client.VirtualNetwork, seclist.Options{Policy: policy, ListingLag: opts.ListingLag,
		OnAdopt: func(a []seclist.Adopted) { kube.RecordAdopted(c.events, c.watch, a) }}); err != nil {
		return nil, err
	}
	wi := opts.WorkloadIdentity
	if wi == nil {
		wi = OKEWorkloadIdentity{}
	}
	if c.lbs, err = lb.NewReconciler(lb.Options{WorkloadClients: workloadClients(client, func() kubernetes.Interface { return c.client }, wi.Provider), Config: cfg, Cluster: cluster, Client: client.LoadBalancers, PublicIPs: client.VirtualNetwork,
		NetworkLoadBalancers: client.NetworkLoadBalancers, FrontendNSG: c.rules.FrontendNSG, Now: client.Clock().Now,
		Timeout: opts.LoadBalancerTimeout, MaxWait: opts.LoadBalancerMaxWait, PendingDone: c.pendingDone, ListingLag: opts.ListingLag,
		Consistency: consistency, EndpointNodes: func(svc *v1.Service) (map[string]bool, bool) { return c.endpoints.Nodes(svc) }}); err != nil {
		return nil, err
	}
	c.nodes, err = instances.New(instances.Options{Compute: client.Compute, VirtualNetwork: client.VirtualNetwork, Consistency: consistency,
		CompartmentID: cfg.CompartmentID, VCNID: cfg.VCNID, Region: cfg.Auth.Region})
	return c, err
}

// Initialize keeps the Kubernetes client the provider patches Services and records Events with,
// and the channel that stops everything it runs in the background.
func (c *Cloud) Initialize(builder cloudprovider.ControllerClientBuilder, stop <-chan struct{}) {
	client, err := builder.Client("oci-cloud-controller-manager")
	if err != nil {
		klog.ErrorS(err, "Cannot create a Kubernetes client; TLS Secret changes will not trigger reconciles")
	}
	c.client, c.stop, c.events = client, stop, kube.NewRecorder(client, stop)
}

// SetInformers registers the Service, Node and EndpointSlice informers on the shared factory,
// and a watcher of the Secrets load balancer Services reference (kube.Watcher). Once the caches
// have synced, seclist gets every Service's claim, so rules are only removed with the whole
// cluster in view; then a changed Secret re-queues the Services using it, endpoints moving to
// other Nodes re-queue a Service with externalTrafficPolicy Local (kube.Endpoints), and so does
// a load balancer changed outside Kubernetes (checked every Options.DriftCheckPeriod, internal/drift), or a node sync whose
// accepted backend change failed (lb's FollowUp). Without Initialize (no stop channel) nothing is
// started: Secrets are not read, security rules are never removed, node syncs wait for OCI.
func (c *Cloud) SetInformers(factory informers.SharedInformerFactory) {
	if c.stop == nil {
		c.watch = kube.NewWatcher(context.Background(), nil, factory)
		c.endpoints = kube.NewEndpoints(context.Background(), nil, factory)
		klog.Info("SetInformers before Initialize: Secrets are not watched and security rules are never removed")
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-c.stop; cancel() }()
	c.watch = kube.NewWatcher(ctx, c.client, factory)
	c.endpoints = kube.NewEndpoints(ctx, c.client, factory)
	go func() {
		startUp := func(ctx context.Context, svc *v1.Service, spec *model.Spec, nodes []*v1.Node) (seclist.Claim, error) {
			return c.claim(ctx, svc, spec, nodes, false)
		}
		if !c.watch.WaitForSync(ctx) || !c.watch.Prime(ctx, c.cfg, c.lbs, startUp, c.rules.Prime) {
			return
		}
		close(c.primed)
		if c.client == nil { // Initialize could not build one: no Secret is read or watched
			return
		}
		go c.lbs.FollowUp(ctx, kube.RequeueFailedUpdate(c.client, c.watch.Service, c.events))
		if !c.cfg.LoadBalancer.Disabled && c.driftPeriod >= 0 {
			go drift.Watch(ctx, c.lbs.Drift, c.driftPeriod, c.watch, kube.RequeueDrifted(c.client, c.watch.Service, c.events), c.nodes.WithAddresses)
		}
		go c.endpoints.Run(ctx)
		c.watch.Run(ctx)
	}()
}

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

// ProviderName returns "oci".
func (c *Cloud) ProviderName() string { return ProviderName }

// HasClusterID is true: New refuses to build a Cloud without a cluster identity.
func (c *Cloud) HasClusterID() bool { return true }
