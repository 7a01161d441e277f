// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package kube

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

// RecordCompartment keeps annotation.LoadBalancerCompartmentID of svc equal to compartment, the
// compartment its load balancer is in, when that is not configured (the configured compartment,
// which lb always looks in): set, changed, or removed. lb looks for the Service's load balancer
// there too, so a process started later still finds it after the Service's compartment-id
// annotation changed (see lb/compartment.go and lb/engine). It does nothing when the annotation is already
// right, which is every sync but the first of a Service in a compartment of its own, or when the
// Service is gone.
func RecordCompartment(ctx context.Context, client kubernetes.Interface, svc *v1.Service, compartment, configured string) error {
	key := string(annotation.LoadBalancerCompartmentID)
	want := compartment
	if compartment == configured {
		want = ""
	}
	if svc.Annotations[key] == want || client == nil || compartment == "" {
		return nil
	}
	var value any = want
	if want == "" {
		value = nil // a merge patch removes it
	}
	if err := patchAnnotation(ctx, client, svc, key, value); err != nil {
		return fmt.Errorf("record the compartment of the load balancer of Service %s/%s in %s: %w", svc.Namespace, svc.Name, key, err)
	}
	return nil
}
