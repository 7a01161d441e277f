// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

func addHeader(name, value string) loadbalancer.Rule {
	return loadbalancer.AddHttpRequestHeaderRule{Header: common.String(name), Value: common.String(value)}
}

func headerRules(n int) []loadbalancer.Rule {
	out := make([]loadbalancer.Rule, n)
	for i := range out {
		out[i] = addHeader("x-n", "v")
	}
	return out
}

func TestRuleSetsThroughTheirWholeLife(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	id := f.createLB(t, f.basicLB("svc"))
	name := common.String("headers")

	cr, err := f.lb.CreateRuleSet(ctx, loadbalancer.CreateRuleSetRequest{LoadBalancerId: &id,
		CreateRuleSetDetails: loadbalancer.CreateRuleSetDetails{Name: name, Items: []loadbalancer.Rule{addHeader("x-a", "1")}}})
	if err != nil {
		t.Fatalf("CreateRuleSet: %v", err)
	}
	f.mustSucceed(t, cr.OpcWorkRequestId)
	_, err = f.lb.CreateRuleSet(ctx, loadbalancer.CreateRuleSetRequest{LoadBalancerId: &id,
		CreateRuleSetDetails: loadbalancer.CreateRuleSetDetails{Name: name, Items: []loadbalancer.Rule{}}})
	wantServiceError(t, err, http.StatusConflict, "Conflict")

	got, err := f.lb.GetRuleSet(ctx, loadbalancer.GetRuleSetRequest{LoadBalancerId: &id, RuleSetName: name})
	if err != nil {
		t.Fatalf("GetRuleSet: %v", err)
	}
	if diff := cmp.Diff([]loadbalancer.Rule{addHeader("x-a", "1")}, got.Items); diff != "" {
		t.Errorf("rules read back (-want +got):\n%s", diff)
	}

	up, err := f.lb.UpdateRuleSet(ctx, loadbalancer.UpdateRuleSetRequest{LoadBalancerId: &id, RuleSetName: name,
		UpdateRuleSetDetails: loadbalancer.UpdateRuleSetDetails{Items: []loadbalancer.Rule{
			addHeader("x-b", "2"), loadbalancer.RemoveHttpResponseHeaderRule{Header: common.String("server")}}}})
	if err != nil {
		t.Fatalf("UpdateRuleSet: %v", err)
	}
	f.mustSucceed(t, up.OpcWorkRequestId)
	list, err := f.lb.ListRuleSets(ctx, loadbalancer.ListRuleSetsRequest{LoadBalancerId: &id})
	if err != nil {
		t.Fatalf("ListRuleSets: %v", err)
	}
	if len(list.Items) != 1 || len(list.Items[0].Items) != 2 {
		t.Fatalf("rule sets after the update: %+v", list.Items)
	}

	// A listener naming it: the rule set cannot be deleted until the listener lets it go.
	ul := func(ruleSets []string) {
		t.Helper()
		r, err := f.lb.UpdateListener(ctx, loadbalancer.UpdateListenerRequest{LoadBalancerId: &id, ListenerName: common.String("TCP-80"),
			UpdateListenerDetails: loadbalancer.UpdateListenerDetails{DefaultBackendSetName: common.String("TCP-80"), Port: common.Int(80),
				Protocol: common.String("TCP"), RuleSetNames: ruleSets}})
		if err != nil {
			t.Fatalf("UpdateListener: %v", err)
		}
		f.mustSucceed(t, r.OpcWorkRequestId)
	}
	ul([]string{"headers"})
	_, err = f.lb.DeleteRuleSet(ctx, loadbalancer.DeleteRuleSetRequest{LoadBalancerId: &id, RuleSetName: name})
	wantServiceError(t, err, http.StatusConflict, "Conflict")
	ul([]string{})
	del, err := f.lb.DeleteRuleSet(ctx, loadbalancer.DeleteRuleSetRequest{LoadBalancerId: &id, RuleSetName: name})
	if err != nil {
		t.Fatalf("DeleteRuleSet: %v", err)
	}
	f.mustSucceed(t, del.OpcWorkRequestId)
	_, err = f.lb.GetRuleSet(ctx, loadbalancer.GetRuleSetRequest{LoadBalancerId: &id, RuleSetName: name})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
	_, err = f.lb.DeleteRuleSet(ctx, loadbalancer.DeleteRuleSetRequest{LoadBalancerId: &id, RuleSetName: name})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
}

func TestRuleSetLimitsAndValidation(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	id := f.createLB(t, f.basicLB("svc"))
	create := func(name string, items []loadbalancer.Rule) error {
		t.Helper()
		r, err := f.lb.CreateRuleSet(ctx, loadbalancer.CreateRuleSetRequest{LoadBalancerId: &id,
			CreateRuleSetDetails: loadbalancer.CreateRuleSetDetails{Name: common.String(name), Items: items}})
		if err == nil {
			f.mustSucceed(t, r.OpcWorkRequestId)
		}
		return err
	}
	wantServiceError(t, create("twenty_one", headerRules(21)), http.StatusBadRequest, "LimitExceeded")
	for _, name := range []string{"a", "b"} {
		if err := create(name, headerRules(20)); err != nil {
			t.Fatalf("20 rules in %s: %v", name, err)
		}
	}
	// 40 rules so far: 11 more would make 51 on the load balancer.
	wantServiceError(t, create("c", headerRules(11)), http.StatusBadRequest, "LimitExceeded")
	if err := create("c", headerRules(10)); err != nil {
		t.Fatalf("the 50th rule: %v", err)
	}
	_, err := f.lb.UpdateRuleSet(ctx, loadbalancer.UpdateRuleSetRequest{LoadBalancerId: &id, RuleSetName: common.String("c"),
		UpdateRuleSetDetails: loadbalancer.UpdateRuleSetDetails{Items: headerRules(11)}})
	wantServiceError(t, err, http.StatusBadRequest, "LimitExceeded")

	wantServiceError(t, create("bad-name", headerRules(1)), http.StatusBadRequest, "InvalidParameter")
	wantServiceError(t, create("no_value", []loadbalancer.Rule{loadbalancer.AddHttpRequestHeaderRule{Header: common.String("x")}}),
		http.StatusBadRequest, "InvalidParameter")
}

func TestCreateLoadBalancerCarriesRuleSetsItsListenersName(t *testing.T) {
	f := newLBFixture(t, Options{})
	d := f.basicLB("svc")
	d.RuleSets = map[string]loadbalancer.RuleSetDetails{"headers": {Items: []loadbalancer.Rule{addHeader("x-a", "1")}}}
	l := d.Listeners["TCP-80"]
	l.RuleSetNames = []string{"headers"}
	d.Listeners["TCP-80"] = l
	id := f.createLB(t, d)
	lb := f.getLB(t, id)
	if got := lb.Listeners["TCP-80"].RuleSetNames; !cmp.Equal(got, []string{"headers"}) {
		t.Errorf("listener's rule sets: %v", got)
	}
	if rs, ok := lb.RuleSets["headers"]; !ok || len(rs.Items) != 1 {
		t.Errorf("rule sets: %+v", lb.RuleSets)
	}

	// A listener naming a rule set the create does not carry leaves the load balancer FAILED.
	bad := f.basicLB("dangling")
	l = bad.Listeners["TCP-80"]
	l.RuleSetNames = []string{"missing"}
	bad.Listeners["TCP-80"] = l
	resp, err := f.lb.CreateLoadBalancer(testCtx(t), loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: bad})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	f.mustFail(t, resp.OpcWorkRequestId)

	over := f.basicLB("too-many")
	over.RuleSets = map[string]loadbalancer.RuleSetDetails{"a": {Items: headerRules(20)}, "b": {Items: headerRules(20)}, "c": {Items: headerRules(11)}}
	_, err = f.lb.CreateLoadBalancer(testCtx(t), loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: over})
	wantServiceError(t, err, http.StatusBadRequest, "LimitExceeded")
}
