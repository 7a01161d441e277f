// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb/internal/ipaddr"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// A Service switched between kinds (oci.oraclecloud.com/load-balancer-type lb ↔ nlb) is given a
// new load balancer: OCI cannot turn one product into the other. Ensure creates the new one
// first, then deletes the old one, and reports the new one's addresses; until the old one is
// gone the Service keeps the old address (the service controller writes the status only when
// Ensure succeeds), so it always has one. A failure in between leaves both; the next Ensure
// finds the new one (nothing to create) and, since the Service's address is not the new one's,
// looks for the old one again and deletes it. Delete does the same, so deleting a Service
// half-way through a switch leaks nothing.
//
// The status alone cannot tell: a Service whose sync failed after the new load balancer was
// created (a security rule refused, the old one's deletion refused) keeps the old address, and
// may switch back before the failure clears, or be deleted; one never served has no address at
// all. So the other kind's name index is asked too, in the Service's compartments
// (compartments), which costs no call once that kind's compartment is listed (one listing per
// process).

func otherKind(k model.Kind) model.Kind {
	if k == model.KindNetworkLoadBalancer {
		return model.KindLoadBalancer
	}
	return model.KindNetworkLoadBalancer
}

// addressedElsewhere reports whether svc's status names an address that current (nil: none)
// does not have: the Service was served by another load balancer, the other kind's after a
// switch. A Service without an address was never served, so there is nothing to look for.
func addressedElsewhere(svc *v1.Service, current *found) bool {
	for _, ing := range svc.Status.LoadBalancer.Ingress {
		if ing.IP == "" {
			continue
		}
		if current == nil || !slices.ContainsFunc(current.Addresses, func(a address) bool { return a.IP == ipaddr.Canonical(ing.IP) }) {
			return true
		}
	}
	return false
}

// mayHaveOtherKind reports whether svc may have a load balancer of other's kind besides current
// (nil: none): its status names an address current does not have, or other's index knows a load
// balancer under one of svc's names. An index that cannot be listed for a reason a retry would
// not change (the policy allows only one kind) counts as knowing none.
func (r *Reconciler) mayHaveOtherKind(ctx context.Context, svc *v1.Service, current *found, other *driver) (bool, error) {
	if addressedElsewhere(svc, current) {
		return true, nil
	}
	for _, comp := range r.compartments(svc) {
		matches, err := other.index.Known(ctx, comp, r.namer.Candidates(svc, other.p.Kind())...)
		if err != nil && !ociclient.IsRetryable(err) && ctx.Err() == nil {
			klog.FromContext(ctx).V(2).Info("Cannot list the other kind of load balancer to look for one the Service had before a switch",
				"service", klog.KObj(svc), "kind", other.p.Kind(), "compartment", comp, "err", err)
			continue
		}
		if err != nil {
			w := other.p.Words()
			return false, fmt.Errorf("look for a %s %s/%s had before switching kinds in compartment %s (IAM: inspect %s in compartment id %s): %w",
				w.Noun, svc.Namespace, svc.Name, comp, w.Resource, comp, err)
		}
		if len(matches) > 0 {
			return true, nil
		}
	}
	return false, nil
}

// retireOtherKind deletes svc's load balancer of the other kind than kind, if the Service may
// have one (mayHaveOtherKind) besides current (nil: none): the last step of a switch, and of a
// Service's deletion. In a switch it runs after the new load balancer is up, so the Service is
// never without one.
func (r *Reconciler) retireOtherKind(ctx context.Context, svc *v1.Service, kind model.Kind, current *found) error {
	drivers, err := r.driversFor(ctx, svc)
	if err != nil {
		return err
	}
	other := drivers[otherKind(kind)]
	if other == nil {
		if addressedElsewhere(svc, current) {
			klog.FromContext(ctx).V(2).Info("Service's address is not its load balancer's, and there is no client to look for one of the other kind",
				"service", klog.KObj(svc), "kind", otherKind(kind))
		}
		return nil
	}
	if may, err := r.mayHaveOtherKind(ctx, svc, current, other); !may || err != nil {
		return err
	}
	old, err := r.deleteIn(ctx, other, svc, "")
	if old != nil && current != nil {
		klog.FromContext(ctx).Info("Deleted the Service's load balancer of its former kind", "service", klog.KObj(svc),
			"kind", old.Kind, "loadBalancer", old.ID, "replacedBy", current.ID)
	}
	return err
}

// repair makes sure a plan for a FAILED network load balancer changes it: OCI leaves one FAILED
// after a failed work request and makes it ACTIVE again with the next successful change. When the
// Service asks for nothing new, that change is an update that sets what is there.
func repair(plan *model.Plan, observed *model.Spec) {
	if !plan.Empty() {
		return
	}
	settings := model.Settings{Name: observed.Name, FreeformTags: maps.Clone(observed.FreeformTags)}
	plan.Changes = []model.Change{{Op: model.OpUpdate, Name: observed.Name, Before: settings, After: settings}}
}
