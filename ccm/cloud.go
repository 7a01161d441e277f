// Package ccm plugs the oci-ccm library into k8s.io/cloud-provider as the provider "oci".
//
// It is glue only: load balancers are lb's, security rules seclist's, nodes instances', OCI calls
// ociclient's. What lives here is what needs Kubernetes: reading Secrets from an informer,
// re-triggering a Service when its TLS Secret changes, and gathering every Service's security
// claims at start-up.
package ccm

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/instances"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// ProviderName is the name the provider answers to (--cloud-provider=oci).
const ProviderName = "oci"

// Options configure a Cloud beyond what cloud-provider.yaml says.
type Options struct {
	// ClusterName is --cluster-name. It is the cluster's identity when cloud-provider.yaml sets
	// no clusterID (see config.ClusterIdentity, which refuses none, the framework default
	// "kubernetes" and a conflict between the two). The identity marks both the load balancers
	// (ownership tags) and the security rules (descriptions) this cluster owns; the cluster name
	// the service controller passes to each call is ignored, so the two can never disagree.
	ClusterName string
	// Client replaces the OCI client built from the configuration (tests, the demo).
	Client *ociclient.Client
	// Metrics receives the OCI client's measurements; nil records none. Ignored with Client.
	Metrics ociclient.Metrics
	// DriftCheckPeriod is how often load balancers are checked for changes made outside
	// Kubernetes (see internal/drift): 0 means drift.DefaultPeriod, negative turns it off.
	DriftCheckPeriod time.Duration
}

// Cloud is the oci cloudprovider.Interface. Build it with New or NewFromFile.
type Cloud struct {
	cfg *config.Config
	// cluster is the identity in every ownership tag and rule description (Options.ClusterName).
	cluster string
	oci     *ociclient.Client
	lbs     *lb.Reconciler
	rules   *seclist.Manager
	nodes   *instances.Instances

	// kube and stop are set by Initialize, watch by SetInformers: informer-backed Secrets and
	// the Secret-change trigger. Both run before any controller calls the provider.
	kube kubernetes.Interface
	stop <-chan struct{}
	// events records Warning Events on Nodes and Services (nil before Initialize).
	events record.EventRecorder
	watch  *watcher
	// primed is closed once seclist holds the claims of every Service (see SetInformers).
	primed chan struct{}
	// driftPeriod is Options.DriftCheckPeriod.
	driftPeriod time.Duration
}

var (
	_ cloudprovider.Interface    = (*Cloud)(nil)
	_ cloudprovider.InformerUser = (*Cloud)(nil)
)

// NewFromFile loads, completes (region and compartment from instance metadata when absent) and
// validates cloud-provider.yaml, then builds the Cloud. Deprecated field names are logged.
func NewFromFile(path string, opts Options) (*Cloud, error) {
	cfg, warnings, err := config.LoadFile(path)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		klog.InfoS("Deprecated configuration", "field", w.Field, "detail", w.Message)
	}
	if cfg.NeedsMetadata() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := cfg.Complete(ctx, &config.MetadataClient{}); err != nil {
			return nil, fmt.Errorf("region or compartment not set and not readable from instance metadata: %w", err)
		}
	}
	return New(cfg, opts)
}

// New builds a Cloud from a loaded configuration, validating it first.
func New(cfg *config.Config, opts Options) (*Cloud, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cluster, err := cfg.ClusterIdentity(opts.ClusterName)
	if err != nil {
		return nil, err
	}
	client := opts.Client
	if client == nil {
		client, err = ociclient.NewFromConfig(cfg, ociclient.Options{Metrics: opts.Metrics})
		if err != nil {
			return nil, fmt.Errorf("OCI client: %w", err)
		}
	}
	lbs, err := lb.NewReconciler(lb.Options{Config: cfg, Client: client.LoadBalancers, PublicIPs: client.VirtualNetwork})
	if err != nil {
		return nil, err
	}
	rules, err := seclist.NewManager(client.VirtualNetwork, seclist.Options{
		Policy: seclist.PolicyFromConfig(cluster, cfg.LoadBalancer),
	})
	if err != nil {
		return nil, err
	}
	nodes, err := instances.New(instances.Options{
		Compute: client.Compute, VirtualNetwork: client.VirtualNetwork,
		CompartmentID: cfg.CompartmentID, Region: cfg.Auth.Region,
	})
	if err != nil {
		return nil, err
	}
	return &Cloud{cfg: cfg, cluster: cluster, oci: client, lbs: lbs, rules: rules, nodes: nodes, primed: make(chan struct{}),
		driftPeriod: opts.DriftCheckPeriod}, nil
}

// Initialize keeps the Kubernetes client the provider patches Services with (see SetInformers).
func (c *Cloud) Initialize(builder cloudprovider.ControllerClientBuilder, stop <-chan struct{}) {
	kube, err := builder.Client("oci-cloud-controller-manager")
	if err != nil {
		klog.ErrorS(err, "Cannot create a Kubernetes client; TLS Secret changes will not trigger reconciles")
	}
	c.kube, c.stop = kube, stop
	if kube != nil {
		broadcaster := record.NewBroadcaster()
		broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")})
		c.events = broadcaster.NewRecorder(scheme.Scheme, v1.EventSource{Component: "oci-cloud-controller-manager"})
		go func() { <-stop; broadcaster.Shutdown() }()
	}
}

// SetInformers registers the Service and Node informers the provider needs on the controller
// manager's shared factory (which starts them); Secrets are not taken from the factory but read
// one by one, only those a load balancer Service references (see watcher). Once the caches have
// synced, seclist gets every Service's security claim, so that rules are only ever removed with
// the whole cluster in view; from then on a changed Secret re-triggers the Services that use it.
func (c *Cloud) SetInformers(factory informers.SharedInformerFactory) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-c.stop; cancel() }()
	c.watch = newWatcher(ctx, c.kube, factory)
	go func() {
		if !c.watch.waitForSync(ctx) {
			return
		}
		c.primeSecurityRules(ctx)
		if c.kube != nil { // Initialize could not build a client: Secrets are read, not watched
			go c.runDrift(ctx)
			c.watch.run(ctx)
		}
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
