// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb"
)

// The reasons of the Events that say what a reconcile changed on a Service's load balancer.
const (
	EventLoadBalancerPlanApplied = "LoadBalancerPlanApplied"
	EventLoadBalancerPlanFailed  = "LoadBalancerPlanFailed"
)

// recordPlan puts lb.Summary of an applied (or partly applied) plan on the Service as an Event.
func (c *Cloud) recordPlan(svc *v1.Service, res *lb.Result, err error) {
	var plan *lb.Plan
	if res != nil {
		plan = res.Plan
	}
	msg := lb.Summary(plan, err)
	if msg == "" || c.events == nil {
		return
	}
	if err != nil {
		c.events.Event(svc, v1.EventTypeWarning, EventLoadBalancerPlanFailed, msg)
	} else {
		c.events.Event(svc, v1.EventTypeNormal, EventLoadBalancerPlanApplied, msg)
	}
}
