// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Command oci-cloud-controller-manager runs the Kubernetes cloud controllers (service, cloud-node,
// cloud-node-lifecycle) with the oci provider from package ccm, and the BackendSetBinding
// controller (backend-set-binding, package ccm/binding).
//
// It is the upstream cloud-controller-manager command with one difference: the cloud-config file
// is read once, here, and handed to the provider, instead of going through the global provider
// registry.
package main

import (
	"os"
	"time"

	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	appconfig "k8s.io/cloud-provider/app/config"
	"k8s.io/cloud-provider/names"
	"k8s.io/cloud-provider/options"
	"k8s.io/component-base/cli"
	cliflag "k8s.io/component-base/cli/flag"
	_ "k8s.io/component-base/logs/json/register" // --logging-format=json
	"k8s.io/component-base/metrics/legacyregistry"
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics on /metrics
	_ "k8s.io/component-base/metrics/prometheus/version"  // build info metric
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/ccm"
	"github.com/oci-ccm/oci-ccm/ccm/service"
	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/internal/leader"
	"github.com/oci-ccm/oci-ccm/internal/prommetrics"
)

func main() {
	opts, err := options.NewCloudControllerManagerOptions()
	if err != nil {
		klog.Fatalf("Cannot initialise command options: %v", err)
	}
	flags := cliflag.NamedFlagSets{}
	driftPeriod := flags.FlagSet("OCI").Duration("drift-check-period", service.DefaultDriftCheckPeriod,
		"How often load balancers are compared with their Services to find changes made outside Kubernetes "+
			"(one ListLoadBalancers call per 100 load balancers). A negative value turns the check off.")
	lbOpts := lbFlags{
		maxWait: flags.FlagSet("OCI").Duration("load-balancer-max-wait", time.Minute,
			"How long one load balancer sync holds a service-controller worker while OCI works. Work still running then "+
				"goes on in the background, the sync returns (a LoadBalancerPending Event says what is pending), and the "+
				"Service is synced again when the work ends. A negative value waits until the work ends or --load-balancer-timeout."),
		timeout: flags.FlagSet("OCI").Duration("load-balancer-timeout", 5*time.Minute,
			"The longest one load balancer sync may take, waited for or in the background: a work request that never "+
				"finishes is given up then, and the Service synced again."),
	}
	// SIGTERM releases the leader Lease and ends Run, so a standby takes over at once.
	lease, stop := leader.New(), make(chan struct{})
	go lease.StopOnSignal(stop)
	// --validating-webhook-*: see webhook.go. The provider built is kept for the binding
	// controller (bindings.go), which the framework starts after it.
	var built *ccm.Cloud
	initCloud := withWebhook(func(c *appconfig.CompletedConfig) cloudprovider.Interface {
		kube, err := kubernetes.NewForConfig(restclient.AddUserAgent(c.Kubeconfig, "leader-election"))
		if err != nil {
			klog.Fatalf("Cannot build the leader-election client: %v", err)
		}
		built = newCloud(c, *driftPeriod, lbOpts)
		return lease.Wrap(built, kube, c.ComponentConfig.Generic.LeaderElection)
	}, &flags)
	cmd := app.NewCloudControllerManagerCommand(opts, initCloud, withBindingController(func() *ccm.Cloud { return built }),
		names.CCMControllerAliases(), flags, stop)
	var checkStatus int
	cmd.AddCommand(checkCommand(&checkStatus)) // check.go
	exit(cli.Run(cmd), checkStatus)
}

// lbFlags are the --load-balancer-* flags.
type lbFlags struct{ maxWait, timeout *time.Duration }

// newCloud builds the provider from --cloud-provider and --cloud-config. The framework offers no
// error return here, so a bad configuration ends the process with the validation report.
func newCloud(c *appconfig.CompletedConfig, driftPeriod time.Duration, lbOpts lbFlags) *ccm.Cloud {
	shared := c.ComponentConfig.KubeCloudShared
	if name := shared.CloudProvider.Name; name != ccm.ProviderName {
		klog.Fatalf("--cloud-provider=%q is not supported: this binary serves only %q", name, ccm.ProviderName)
	}
	path := shared.CloudProvider.CloudConfigFile
	if path == "" {
		klog.Fatalf("--cloud-config is required: the path of cloud-provider.yaml")
	}
	// The controller manager serves its legacy registry on /metrics.
	metrics, err := prommetrics.Register(legacyregistry.Register)
	if err != nil {
		klog.Fatalf("Cannot register the OCI client's metrics: %v", err)
	}
	if *lbOpts.timeout <= 0 {
		klog.Fatalf("--load-balancer-timeout=%s: must be positive", *lbOpts.timeout)
	}
	cloud, err := ccm.NewFromFile(path, ccm.Options{ClusterName: shared.ClusterName, DriftCheckPeriod: driftPeriod, Metrics: metrics,
		LoadBalancerMaxWait: *lbOpts.maxWait, LoadBalancerTimeout: *lbOpts.timeout,
		LoadBalancerPrefix: os.Getenv(config.UpstreamPrefixVariable), Environment: ccm.OSEnvironment{}})
	if err != nil {
		klog.Fatalf("Cannot start the oci provider from %s: %v", path, err)
	}
	return cloud
}
