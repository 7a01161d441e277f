// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package service

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/ccm/service/internal/kube"
	"github.com/oci-ccm/oci-ccm/internal/drift"
)

// DefaultDriftCheckPeriod is how often load balancers are checked for changes made outside
// Kubernetes when Options.DriftCheckPeriod is zero.
const DefaultDriftCheckPeriod = drift.DefaultPeriod

// watchDrift runs a drift loop over the Services, Nodes and Secrets of w's caches until ctx
// ends. Nodes are completed by withAddresses as a sync completes them, so the check compares
// what a sync would build.
func watchDrift(ctx context.Context, checker drift.Checker, period time.Duration, w *kube.Watcher, requeue drift.RequeueFunc,
	withAddresses func(context.Context, []*v1.Node) []*v1.Node) {
	loop, err := drift.New(drift.Options{Checker: checker, Secrets: w.SecretsFor, Period: period, Requeue: requeue,
		Services: func() ([]*v1.Service, error) { return w.Services().List(labels.Everything()) },
		Nodes: func(ctx context.Context) ([]*v1.Node, error) {
			nodes, err := w.Nodes().List(labels.Everything())
			return withAddresses(ctx, drift.ServiceControllerNodes(nodes)), err
		}})
	if err != nil {
		klog.FromContext(ctx).Error(err, "Drift check not started")
		return
	}
	loop.Run(ctx)
}
