// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"context"
	"fmt"
	"maps"

	"k8s.io/client-go/dynamic"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	appconfig "k8s.io/cloud-provider/app/config"
	genericcontrollermanager "k8s.io/controller-manager/app"
	"k8s.io/controller-manager/controller"

	"github.com/oci-ccm/oci-ccm/ccm"
	"github.com/oci-ccm/oci-ccm/ccm/binding"
	"github.com/oci-ccm/oci-ccm/config"
	lbbinding "github.com/oci-ccm/oci-ccm/lb/binding"
)

// bindingWorkers is how many BackendSetBindings are synced at once.
const bindingWorkers = 2

// withBindingController returns the framework's controllers and the BackendSetBinding controller
// (ccm/binding) as binding.ControllerName, which --controllers names like the others. It runs on
// the leader, on the OCI client and cluster identity of the provider cloud() returns, and stays
// idle while the BackendSetBinding CRD is not installed.
func withBindingController(cloud func() *ccm.Cloud) map[string]app.ControllerInitFuncConstructor {
	constructors := maps.Clone(app.DefaultInitFuncConstructors)
	constructors[binding.ControllerName] = app.ControllerInitFuncConstructor{
		InitContext: app.ControllerInitContext{ClientName: "backend-set-binding-controller"},
		Constructor: func(ic app.ControllerInitContext, _ *appconfig.CompletedConfig, _ cloudprovider.Interface) app.InitFunc {
			return func(ctx context.Context, cc genericcontrollermanager.ControllerContext) (controller.Interface, bool, error) {
				c := cloud()
				if c == nil {
					return nil, false, fmt.Errorf("%s: the oci provider is not built", binding.ControllerName)
				}
				client, cfg := c.OCI()
				dyn, err := dynamic.NewForConfig(cc.ClientBuilder.ConfigOrDie(ic.ClientName))
				if err != nil {
					return nil, false, err
				}
				opts := binding.Options{Kube: cc.ClientBuilder.ClientOrDie(ic.ClientName), Dynamic: dyn,
					Informers: cc.InformerFactory, Syncer: lbbinding.NewSyncer(lbbinding.Options{LoadBalancers: client.LoadBalancers,
						NetworkLoadBalancers: client.NetworkLoadBalancers, ClusterID: cfg.ClusterID})}
				if mode := cfg.LoadBalancer.SecurityListManagementMode; mode == config.SecurityListModeAll || mode == config.SecurityListModeBackend {
					// The bindings' backends need the rules a Service's backends need in this mode.
					// Expect is called here, before the framework starts the informers that the
					// Services' Prime waits for, so no rule is removed before the bindings are listed.
					rules := c.Services().Rules()
					opts.Rules, opts.Subnets, opts.PrimeRules = rules, c.Services().Nodes().Subnets, rules.Expect(binding.ControllerName)
				}
				ctrl, err := binding.New(opts)
				if err != nil {
					if opts.PrimeRules != nil {
						_ = opts.PrimeRules(nil) // this controller claims nothing: it does not run
					}
					return nil, false, err
				}
				go ctrl.Run(ctx, bindingWorkers)
				return nil, true, nil
			}
		},
	}
	return constructors
}
