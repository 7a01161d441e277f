// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/internal/lookup"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/lb/oci/loadbalancer"
	"github.com/oci-ccm/oci-ccm/lb/oci/nlb"
)

// What the external tests (package engine_test) need of the unexported API.

// Observe is loadbalancer.Observe.
var Observe = loadbalancer.Observe

// StateError is stateError.
type StateError = stateError

// Candidates returns the display names svc's load balancer is looked up by under cfg.
func Candidates(cfg *config.Config, svc *v1.Service) []string {
	return lookup.For(cfg).Candidates(svc, lookup.Kind(svc))
}

// ApplyPlan applies plan through c as a Reconciler would, and returns the load balancer's OCID.
func ApplyPlan(ctx context.Context, c loadbalancer.Client, plan *model.Plan) (string, error) {
	created, err := (&applier{p: loadbalancer.New(c)}).apply(ctx, plan)
	if err != nil || created == nil {
		return plan.LoadBalancerID, err
	}
	return created.ID, nil
}

// ApplyError is applyError.
type ApplyError = applyError

// ObserveNLB is nlb.Observe.
var ObserveNLB = nlb.Observe

// ApplyNLBPlan is ApplyPlan for a network load balancer plan.
func ApplyNLBPlan(ctx context.Context, c nlb.Client, plan *model.Plan) (string, error) {
	created, err := (&applier{p: nlb.New(c)}).apply(ctx, plan)
	if err != nil || created == nil {
		return plan.LoadBalancerID, err
	}
	return created.ID, nil
}
