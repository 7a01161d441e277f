// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package service is the one place a Kubernetes Service's load balancer is reconciled. For each
// Service it runs the same way, in order: read what the Service needs from the cluster (its TLS
// Secrets, its Nodes' addresses) → lb (the desired load balancer, the plan, applied to OCI) →
// the Service's status, conditions and Events → seclist (the security rules the load balancer
// needs). lb and seclist do not call each other: this package passes each what it needs. The
// background work that keeps Services right between syncs runs here too: the Secret and
// EndpointSlice watchers, start-up priming of the security rules, lb's follow-up of node syncs,
// and the drift check.
//
// ccm plugs a Reconciler into k8s.io/cloud-provider's service controller; a custom controller
// may call it the same way. Its errors follow the service controller's conventions
// (cloudprovider.ImplementedElsewhere for a Service oci-ccm does not manage, api.RetryError for
// work left running in OCI).
package service

import (
	"context"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/common/auth"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/ccm/service/internal/kube"
	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/instances"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// Options configure a Reconciler.
type Options struct {
	// Config is the validated configuration. Its ClusterID is the cluster's identity
	// (config.Config.ClusterIdentity): it marks the load balancers and the security rules this
	// cluster owns.
	Config *config.Config
	// Client is the OCI client every call goes through.
	Client *ociclient.Client
	// Nodes maps Nodes to their instances, addresses and subnets.
	Nodes *instances.Instances
	// DriftCheckPeriod is how often load balancers are checked for changes made outside
	// Kubernetes: 0 means DefaultDriftCheckPeriod, negative turns it off.
	DriftCheckPeriod time.Duration
	// MaxWait and Timeout are engine.Options.MaxWait and engine.Options.Timeout: how long one sync holds
	// the caller while OCI works, and how long its work may take in all.
	MaxWait, Timeout time.Duration
	// ListingLag is engine.Options.ListingLag and seclist.Options.ListingLag.
	ListingLag time.Duration
	// Consistency, if set, counts the waits for OCI's eventual consistency (engine.Options.Consistency).
	Consistency ociclient.ConsistencyObserver
	// WorkloadIdentity builds the OCI configuration provider of a ServiceAccount's workload
	// identity from a source of its tokens, for Services annotated
	// oci.oraclecloud.com/workload-service-account.
	WorkloadIdentity func(auth.ServiceAccountTokenProvider) (common.ConfigurationProvider, error)
}

// Reconciler reconciles Services' load balancers and their security rules. Build it with New,
// then call Initialize and SetInformers, in that order, before the first sync.
type Reconciler struct {
	cfg   *config.Config
	lbs   *engine.Reconciler
	rules *seclist.Manager
	nodes *instances.Instances

	// Set by Initialize (client, stop, events) and SetInformers (watch, endpoints), in that
	// order, before any sync.
	client kubernetes.Interface
	stop   <-chan struct{}
	events record.EventRecorder // nil before Initialize
	watch  *kube.Watcher
	// endpoints tells lb which Nodes run the endpoints of a Service with externalTrafficPolicy
	// Local, from the EndpointSlices (nil knows nothing).
	endpoints *kube.Endpoints
	// primed is closed once seclist holds the claims of every Service (see SetInformers).
	primed      chan struct{}
	driftPeriod time.Duration // Options.DriftCheckPeriod
	maxWait     time.Duration // Options.MaxWait
}

// New builds a Reconciler: lb's Reconciler and seclist's Manager on one cluster identity,
// wired to each other and to the cluster through it.
func New(opts Options) (*Reconciler, error) {
	cfg, client := opts.Config, opts.Client
	r := &Reconciler{cfg: cfg, nodes: opts.Nodes, primed: make(chan struct{}), driftPeriod: opts.DriftCheckPeriod, maxWait: opts.MaxWait}
	policy := seclist.PolicyFromConfig(cfg)
	// Frontend NSGs live in the configured compartment, also for a Service whose load balancer
	// is in one of its own (annotation.CompartmentID): one listing per VCN finds them all.
	policy.CompartmentID = cfg.CompartmentID
	var err error
	if r.rules, err = seclist.NewManager(client.VirtualNetwork, seclist.Options{Policy: policy, ListingLag: opts.ListingLag,
		OnAdopt: func(a []seclist.Adopted) { kube.RecordAdopted(r.events, r.watch, a) }}); err != nil {
		return nil, err
	}
	r.lbs, err = engine.NewReconciler(engine.Options{
		WorkloadClients: workloadClients(client, func() kubernetes.Interface { return r.client }, opts.WorkloadIdentity),
		Config:          cfg, Client: client.LoadBalancers, PublicIPs: client.VirtualNetwork,
		NetworkLoadBalancers: client.NetworkLoadBalancers, FrontendNSG: func(ctx context.Context, spec *model.Spec, create bool) (string, error) {
			return r.rules.FrontendNSG(ctx, frontendOf(spec), create)
		}, Now: client.Clock().Now, Sleep: client.Clock().Sleep,
		Timeout: opts.Timeout, MaxWait: opts.MaxWait, PendingDone: r.pendingDone, ListingLag: opts.ListingLag,
		Consistency: opts.Consistency, EndpointNodes: func(svc *v1.Service) (map[string]bool, bool) { return r.endpoints.Nodes(svc) }})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Initialize gives the Reconciler the Kubernetes client it patches Services with, the recorder
// of its Events (nil: one recording through client as component "oci-cloud-controller-manager"
// until stop), and the channel that stops everything it runs in the background. Without a stop
// channel SetInformers starts nothing.
func (r *Reconciler) Initialize(client kubernetes.Interface, events record.EventRecorder, stop <-chan struct{}) {
	if events == nil {
		events = kube.NewRecorder(client, stop)
	}
	r.client, r.events, r.stop = client, events, stop
}

// SetInformers registers the Service, Node and EndpointSlice informers on the shared factory,
// and a watcher of the Secrets load balancer Services reference (kube.Watcher). Once the caches
// have synced, seclist gets every Service's claim, so rules are only removed with the whole
// cluster in view; then a changed Secret re-queues the Services using it, endpoints moving to
// other Nodes re-queue a Service with externalTrafficPolicy Local (kube.Endpoints), and so does
// a load balancer changed outside Kubernetes (checked every Options.DriftCheckPeriod), or a node sync whose accepted backend change failed (lb's FollowUp). Without
// Initialize's stop channel nothing is started: Secrets are not read, security rules are never
// removed, node syncs wait for OCI.
func (r *Reconciler) SetInformers(factory informers.SharedInformerFactory) {
	if r.stop == nil {
		r.watch = kube.NewWatcher(context.Background(), nil, factory)
		r.endpoints = kube.NewEndpoints(context.Background(), nil, factory)
		klog.Info("SetInformers before Initialize: Secrets are not watched and security rules are never removed")
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-r.stop; cancel() }()
	r.watch = kube.NewWatcher(ctx, r.client, factory)
	r.endpoints = kube.NewEndpoints(ctx, r.client, factory)
	go func() {
		startUp := func(ctx context.Context, svc *v1.Service, spec *model.Spec, nodes []*v1.Node) (seclist.Claim, error) {
			return r.claim(ctx, svc, spec, nodes, false)
		}
		if !r.watch.WaitForSync(ctx) || !r.watch.Prime(ctx, r.cfg, r.lbs, startUp, r.rules.Prime) {
			return
		}
		close(r.primed)
		if r.client == nil { // Initialize had none: no Secret is read or watched
			return
		}
		go r.lbs.FollowUp(ctx, kube.RequeueFailedUpdate(r.client, r.watch.Service, r.events))
		if !r.cfg.LoadBalancer.Disabled && r.driftPeriod >= 0 {
			go watchDrift(ctx, r.lbs.Drift, r.driftPeriod, r.watch, kube.RequeueDrifted(r.client, r.watch.Service, r.events), r.nodes.WithAddresses)
		}
		go r.endpoints.Run(ctx)
		r.watch.Run(ctx)
	}()
}

// Primed is closed once seclist holds the security claims of every Service the informers list,
// the point from which rules no Service claims are removed.
func (r *Reconciler) Primed() <-chan struct{} { return r.primed }

// Rules is the seclist Manager the Services' security rules go through.
func (r *Reconciler) Rules() *seclist.Manager { return r.rules }

// Nodes is the instances the Services' backends are found in (Options.Nodes).
func (r *Reconciler) Nodes() *instances.Instances { return r.nodes }

// SecretSynced reports whether the informer of a TLS Secret some Service references has synced
// (false before SetInformers).
func (r *Reconciler) SecretSynced(ref lb.SecretRef) bool {
	return r.watch != nil && r.watch.SecretSynced(ref)
}
