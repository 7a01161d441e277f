// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

func TestUpdateListenerKeepsRoutingTheSpecDoesNotManage(t *testing.T) {
	e := newEnv(t)
	svc := service(annotate(annotation.BackendProtocol, "HTTP"), ports(80))
	e.ensure(t, svc, readyNodes(1), nil)
	id := e.only(t).ID
	const listener = "HTTP-80"
	// Someone added hostnames, a rule set and a routing policy in the console.
	e.srv.EditLoadBalancer(id, func(l *loadbalancer.LoadBalancer) {
		l.Hostnames = map[string]loadbalancer.Hostname{"app": {Name: common.String("app"), Hostname: common.String("app.example.com")}}
		l.RuleSets = map[string]loadbalancer.RuleSet{"headers": {Name: common.String("headers"), Items: []loadbalancer.Rule{}}}
		l.RoutingPolicies = map[string]loadbalancer.RoutingPolicy{"paths": {Name: common.String("paths"),
			ConditionLanguageVersion: loadbalancer.RoutingPolicyConditionLanguageVersionV1, Rules: []loadbalancer.RoutingRule{}}}
		li := l.Listeners[listener]
		li.HostnameNames, li.RuleSetNames, li.RoutingPolicyName = []string{"app"}, []string{"headers"}, common.String("paths")
		l.Listeners[listener] = li
	})
	if _, calls := e.ensure(t, svc, readyNodes(1), nil); len(writes(calls)) != 0 {
		t.Errorf("the added routing made writes: %v", writes(calls))
	}

	changed := service(annotate(annotation.BackendProtocol, "HTTP"), ports(80), annotate(annotation.ConnectionIdleTimeout, "120"))
	_, calls := e.ensure(t, changed, readyNodes(1), nil)
	if diff := cmp.Diff(map[string]int{"UpdateListener": 1}, writes(calls)); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	got, _ := e.srv.LoadBalancer(id)
	l := got.Listeners[listener]
	type routing struct {
		Hostnames, RuleSets []string
		RoutingPolicy       string
		IdleTimeout         int64
	}
	want := routing{Hostnames: []string{"app"}, RuleSets: []string{"headers"}, RoutingPolicy: "paths", IdleTimeout: 120}
	have := routing{Hostnames: l.HostnameNames, RuleSets: l.RuleSetNames, RoutingPolicy: derefString(l.RoutingPolicyName)}
	if l.ConnectionConfiguration != nil && l.ConnectionConfiguration.IdleTimeout != nil {
		have.IdleTimeout = *l.ConnectionConfiguration.IdleTimeout
	}
	if diff := cmp.Diff(want, have); diff != "" {
		t.Errorf("listener after the update (-want +got):\n%s", diff)
	}
}

func derefString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
