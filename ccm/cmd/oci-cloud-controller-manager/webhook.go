// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"context"
	"net"
	"strconv"

	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	appconfig "k8s.io/cloud-provider/app/config"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/internal/webhook"
)

// webhookOptions are the flags of the validating admission webhook. They are not the framework's
// --webhook-* flags: those serve cloud-provider's own webhooks, behind an alpha feature gate.
type webhookOptions struct {
	port        int
	bindAddress string
	certDir     string
}

// withWebhook adds the webhook's flags to fss and returns init extended to start the webhook
// once the provider is built. The webhook runs in every replica, leader or not: admission
// requests go to whichever replica the Service in front of them picks.
func withWebhook(init app.InitCloudFunc, fss *cliflag.NamedFlagSets) app.InitCloudFunc {
	o := &webhookOptions{bindAddress: "0.0.0.0"}
	fs := fss.FlagSet("validating webhook")
	fs.IntVar(&o.port, "validating-webhook-port", 0,
		"Port to serve the validating admission webhook for Services on (HTTPS, path "+webhook.Path+"); 0 serves none.")
	fs.StringVar(&o.bindAddress, "validating-webhook-bind-address", o.bindAddress,
		"Address to serve the validating admission webhook on.")
	fs.StringVar(&o.certDir, "validating-webhook-cert-dir", "",
		"Directory holding the webhook's serving certificate and key as "+webhook.CertFile+" and "+webhook.KeyFile+
			" (a mounted kubernetes.io/tls Secret); re-read when they change.")
	return func(c *appconfig.CompletedConfig) cloudprovider.Interface {
		cloud := init(c)
		o.start(c.ComponentConfig.KubeCloudShared.CloudProvider.CloudConfigFile)
		return cloud
	}
}

// start serves the webhook when a port is set. A webhook that was asked for and cannot start
// ends the process: silently running without it would only show when a bad Service got through.
func (o *webhookOptions) start(cloudConfig string) {
	if o.port == 0 {
		return
	}
	if o.certDir == "" {
		klog.Fatalf("--validating-webhook-cert-dir is required with --validating-webhook-port")
	}
	// The provider has loaded the file already (this cannot find a problem it did not); the
	// webhook needs its defaults (subnets, security-list mode), which take part in validation.
	cfg, _, err := config.Open(context.Background(), cloudConfig)
	if err != nil {
		klog.Fatalf("Validating webhook: cannot read %s: %v", cloudConfig, err)
	}
	logger := klog.Background().WithName("validating-webhook")
	srv, err := webhook.Listen(net.JoinHostPort(o.bindAddress, strconv.Itoa(o.port)), o.certDir,
		&webhook.Handler{Config: cfg, Logger: logger})
	if err != nil {
		klog.Fatalf("Validating webhook: %v", err)
	}
	logger.Info("Serving the validating admission webhook", "address", srv.Addr().String(), "path", webhook.Path)
	go func() {
		if err := srv.Serve(context.Background()); err != nil {
			klog.Fatalf("Validating webhook stopped: %v", err)
		}
	}()
}
