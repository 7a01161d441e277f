// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb/internal/lookup"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// regionalSubnets reads whether the subnets that may decide where spec's load balancer goes are
// regional (lookup.RegionalCandidates: those a Service names, when its load balancer is to be
// created or existing is in one subnet where the Service names two), for lb.Known.SubnetRegional:
// Desired makes an annotated regional subnet the load balancer's only one. They are read in the
// order Desired asks them, up to the first regional one. spec is the Service's Spec built before
// its load balancer was found (its subnets as the Service names them). A subnet OCI does not know
// is left out (OCI refuses a create naming it, and an existing load balancer's subnets are
// compared as they are: an ImmutableError naming it); one that cannot be read otherwise is an
// error, since creating in the wrong subnets cannot be undone.
func (r *Reconciler) regionalSubnets(ctx context.Context, svc *v1.Service, spec, existing *model.Spec) (map[string]bool, error) {
	var regional map[string]bool
	for _, s := range lookup.RegionalCandidates(svc, spec, existing) {
		if r.subnets == nil {
			klog.FromContext(ctx).V(2).Info("Cannot tell whether an annotated subnet is regional (Options.PublicIPs does not read subnets): using both subnets",
				"service", klog.KObj(svc), "annotation", s.Annotation, "subnet", s.ID)
			return nil, nil
		}
		subnet, err := r.subnets.GetSubnet(ctx, s.ID)
		switch {
		case ociclient.IsNotFound(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("reading subnet %s of annotation %s, to tell whether it is regional: %w", s.ID, s.Annotation, err)
		}
		if regional == nil {
			regional = map[string]bool{}
		}
		regional[s.ID] = subnet.AvailabilityDomain == nil
		if regional[s.ID] {
			break
		}
	}
	return regional, nil
}
