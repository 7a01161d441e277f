// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"slices"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
	"github.com/oci-ccm/oci-ccm/seclist"
)

func TestNSGModeServiceGetsAFrontendNSGAndBackendRulesAndLeavesNothing(t *testing.T) {
	e := newEnv(t)
	lbs, _ := e.cloud.LoadBalancer()
	backend := e.srv.AddNetworkSecurityGroup(core.NetworkSecurityGroup{VcnId: &e.seeded.VCN})
	svc := service("web", map[string]string{
		string(annotation.SecurityRuleManagementMode):   "NSG",
		string(annotation.BackendNetworkSecurityGroups): *backend.Id,
	}, 80)
	listsBefore := []core.SecurityList{e.securityList(t, "lb-1"), e.securityList(t, "nodes")}

	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes); err != nil {
		t.Fatal(err)
	}
	all := e.srv.LoadBalancers()
	if len(all) != 1 || len(all[0].NetworkSecurityGroupIds) != 1 {
		t.Fatalf("load balancers %d, want 1 in one NSG (the frontend one)", len(all))
	}
	front := all[0].NetworkSecurityGroupIds[0]
	if got := owned(t, e, front); len(got) != 3 {
		t.Errorf("frontend NSG holds %d owned rules, want 3 (ingress 80, egress to the backend NSG on the node and health ports)", len(got))
	}
	if got := owned(t, e, *backend.Id); len(got) != 2 || got[0].SourceType != core.SecurityRuleSourceTypeNetworkSecurityGroup || *got[0].Source != front {
		t.Errorf("backend NSG owned rules %+v, want 2 from the frontend NSG", got)
	}
	sameRules := func(a, b core.SecurityList) bool {
		return len(a.IngressSecurityRules) == len(b.IngressSecurityRules) && len(a.EgressSecurityRules) == len(b.EgressSecurityRules)
	}
	if !slices.EqualFunc(listsBefore, []core.SecurityList{e.securityList(t, "lb-1"), e.securityList(t, "nodes")}, sameRules) {
		t.Error("mode NSG changed the security lists")
	}

	e.srv.ResetCalls()
	if err := lbs.UpdateLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes); err != nil {
		t.Fatal(err)
	}
	if w := e.srv.Calls().Class(ocitest.ClassWrite); w != 0 {
		t.Errorf("unchanged Service made %d OCI writes, want 0:\n%s", w, e.srv.Calls())
	}

	if err := lbs.EnsureLoadBalancerDeleted(ctxFor(t), "test-cluster", svc); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := e.srv.NetworkSecurityGroup(front); ok {
		t.Error("the frontend NSG outlived the load balancer")
	}
	if got := owned(t, e, *backend.Id); len(got) != 0 {
		t.Errorf("backend NSG keeps %d owned rules after the Service is deleted", len(got))
	}
}

func owned(t *testing.T, e *env, id string) []core.SecurityRule {
	t.Helper()
	_, rules, ok := e.srv.NetworkSecurityGroup(id)
	if !ok {
		t.Fatalf("network security group %s is gone", id)
	}
	return slices.DeleteFunc(rules, func(r core.SecurityRule) bool {
		return r.Description == nil || *r.Description != seclist.Owner("test-cluster")
	})
}
