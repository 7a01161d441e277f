// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package drift

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/internal/kube"
)

// Watch runs a Loop over the Services, Nodes and Secrets of w's caches until ctx ends. Nodes are
// completed by withAddresses as the provider's reconcile completes them, so the check compares
// what a reconcile would build.
func Watch(ctx context.Context, checker Checker, period time.Duration, w *kube.Watcher, requeue RequeueFunc,
	withAddresses func(context.Context, []*v1.Node) []*v1.Node) {
	loop, err := New(Options{Checker: checker, Secrets: w.SecretsFor, Period: period, Requeue: requeue,
		Services: func() ([]*v1.Service, error) { return w.Services().List(labels.Everything()) },
		Nodes: func(ctx context.Context) ([]*v1.Node, error) {
			nodes, err := w.Nodes().List(labels.Everything())
			return withAddresses(ctx, ServiceControllerNodes(nodes)), err
		}})
	if err != nil {
		klog.FromContext(ctx).Error(err, "Drift check not started")
		return
	}
	loop.Run(ctx)
}
