// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// regionalSubnet settles the subnets of a load balancer whose Service names its own: a regional
// subnet hosts both the primary and the standby, so an annotated regional subnet is the load
// balancer's only one, not paired with the configured second subnet. oci-load-balancer-subnet1
// is asked first, then subnet2, as the upstream CCM does (load_balancer.go,
// getOciLoadBalancerSubnets), so the load balancers it made are taken over as they are. Desired,
// reading nothing from OCI, gave the pair. A subnet that cannot be read (but for one OCI does not
// know) is an error: creating in the wrong subnets cannot be undone.
func (r *Reconciler) regionalSubnet(ctx context.Context, svc *v1.Service, spec *model.Spec) error {
	if spec.Kind != model.KindLoadBalancer || spec.Defaulted.Subnets || len(spec.Subnets) < 2 {
		return nil
	}
	for _, a := range []annotation.Name{annotation.Subnet1, annotation.Subnet2} {
		id := strings.TrimSpace(svc.Annotations[string(a)])
		if id == "" {
			continue
		}
		if r.subnets == nil {
			klog.FromContext(ctx).V(2).Info("Cannot tell whether an annotated subnet is regional (Options.PublicIPs does not read subnets): using both subnets",
				"service", klog.KObj(svc), "annotation", a, "subnet", id)
			return nil
		}
		subnet, err := r.subnets.GetSubnet(ctx, id)
		switch {
		case ociclient.IsNotFound(err):
			// Not a subnet this CCM can see: OCI refuses a create naming it, and an existing
			// load balancer's subnets are compared as they are (an ImmutableError naming it).
			continue
		case err != nil:
			return fmt.Errorf("reading subnet %s of annotation %s, to tell whether it is regional: %w", id, a, err)
		}
		if subnet.AvailabilityDomain == nil {
			spec.Subnets = []string{id}
			return nil
		}
	}
	return nil
}
