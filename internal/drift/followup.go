// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package drift

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"

	"github.com/oci-ccm/oci-ccm/internal/kube"
)

// EventUpdateFailed says a load balancer update that returned before OCI finished it (a node
// sync; see lb.Reconciler.Update) did not take effect, and the Service is reconciled again.
const EventUpdateFailed = "LoadBalancerUpdateFailed"

// RequeueFailedUpdate returns the requeue function for lb.Reconciler.FollowUp. It requeues a
// Service the way a drifted one is (kube.Requeue stamps kube.AnnotationDriftRequeued, which
// makes the service controller reconcile it through EnsureLoadBalancer, which waits for its
// work requests) and records a Warning Event with what failed. A Service deleted meanwhile is
// left alone. services looks a Service up (e.g. kube.Watcher.Service); events may be nil.
func RequeueFailedUpdate(client kubernetes.Interface, services func(namespace, name string) (*v1.Service, error), events record.EventRecorder) RequeueFunc {
	return func(ctx context.Context, namespace, name, reason string) error {
		svc, err := services(namespace, name)
		if err != nil || svc == nil {
			return nil // deleted meanwhile
		}
		if err := kube.Requeue(ctx, client, svc, kube.AnnotationDriftRequeued, time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
			return err
		}
		if events != nil {
			events.Eventf(svc, v1.EventTypeWarning, EventUpdateFailed, "Load balancer update accepted by OCI did not take effect (%s); reconciling it again", reason)
		}
		return nil
	}
}
