// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	lbproduct "github.com/oci-ccm/oci-ccm/lb/oci/loadbalancer"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

const (
	ruleSetsV1 = `{"headers":{"items":[{"action":"ADD_HTTP_REQUEST_HEADER","header":"x-team","value":"web"}]},` +
		`"limits":{"items":[{"action":"HTTP_HEADER","httpLargeHeaderSizeInKB":16}]}}`
	// ruleSetsV2 changes the header's value only.
	ruleSetsV2 = `{"headers":{"items":[{"action":"ADD_HTTP_REQUEST_HEADER","header":"x-team","value":"shop"}]},` +
		`"limits":{"items":[{"action":"HTTP_HEADER","httpLargeHeaderSizeInKB":16}]}}`
)

// ruleSetTags returns the load balancer's freeform tags that record rule sets.
func ruleSetTags(tags map[string]string) map[string]string {
	out := maps.Clone(tags)
	maps.DeleteFunc(out, func(k, _ string) bool { return !strings.HasPrefix(k, "oci-ccm-rule-set-") })
	return out
}

func TestRuleSetsThroughTheReconciler(t *testing.T) {
	e := newEnv(t)
	httpSvc := func(ruleSets ...string) *v1.Service {
		opts := []svcOpt{annotate(annotation.BackendProtocol, "HTTP"), ports(80, 8080)}
		for _, rs := range ruleSets {
			opts = append(opts, annotate(annotation.RuleSets, rs))
		}
		return service(opts...)
	}

	// Create: one CreateLoadBalancer carries the rule sets, every listener names both.
	_, calls := e.ensure(t, httpSvc(ruleSetsV1), readyNodes(2), nil)
	if diff := cmp.Diff(map[string]int{"CreateLoadBalancer": 1}, writes(calls)); diff != "" {
		t.Errorf("create writes (-want +got):\n%s", diff)
	}
	id := e.only(t).ID
	got, _ := e.srv.LoadBalancer(id)
	if names := slices.Sorted(maps.Keys(got.RuleSets)); !slices.Equal(names, []string{"headers", "limits"}) {
		t.Errorf("rule sets after create: %v", names)
	}
	for _, l := range []string{"HTTP-80", "HTTP-8080"} {
		if rs := got.Listeners[l].RuleSetNames; !slices.Equal(rs, []string{"headers", "limits"}) {
			t.Errorf("listener %s names %v", l, rs)
		}
	}
	if diff := cmp.Diff(map[string]string{"oci-ccm-rule-set-1": "headers", "oci-ccm-rule-set-2": "limits"}, ruleSetTags(got.FreeformTags)); diff != "" {
		t.Errorf("ownership record (-want +got):\n%s", diff)
	}

	// A second Ensure makes no write.
	if _, calls := e.ensure(t, httpSvc(ruleSetsV1), readyNodes(2), nil); len(writes(calls)) != 0 {
		t.Errorf("a second Ensure wrote: %v", writes(calls))
	}

	// Someone adds a rule set in the console and puts it on one listener: left alone.
	e.srv.EditLoadBalancer(id, func(l *loadbalancer.LoadBalancer) {
		l.RuleSets["console_rs"] = loadbalancer.RuleSet{Name: common.String("console_rs"), Items: []loadbalancer.Rule{
			loadbalancer.RemoveHttpResponseHeaderRule{Header: common.String("server")}}}
		li := l.Listeners["HTTP-80"]
		li.RuleSetNames = append([]string{"console_rs"}, li.RuleSetNames...)
		l.Listeners["HTTP-80"] = li
	})
	if _, calls := e.ensure(t, httpSvc(ruleSetsV1), readyNodes(2), nil); len(writes(calls)) != 0 {
		t.Errorf("a hand-made rule set made writes: %v", writes(calls))
	}

	// Changing one rule updates that rule set alone.
	_, calls = e.ensure(t, httpSvc(ruleSetsV2), readyNodes(2), nil)
	if diff := cmp.Diff(map[string]int{"UpdateRuleSet": 1}, writes(calls)); diff != "" {
		t.Errorf("writes for a changed rule (-want +got):\n%s", diff)
	}
	got, _ = e.srv.LoadBalancer(id)
	if h, ok := got.RuleSets["headers"].Items[0].(loadbalancer.AddHttpRequestHeaderRule); !ok || *h.Value != "shop" {
		t.Errorf("headers rule after the update: %#v", got.RuleSets["headers"].Items)
	}

	// Removing the annotation takes oci-ccm's rule sets off the listeners, then deletes them
	// (ocitest refuses to delete a rule set a listener names) and stops recording them; the
	// console's rule set stays where it was.
	res, calls := e.ensure(t, httpSvc(), readyNodes(2), nil)
	want := map[string]int{"UpdateListener": 2, "DeleteRuleSet": 2, "UpdateLoadBalancer": 1}
	if diff := cmp.Diff(want, writes(calls)); diff != "" {
		t.Errorf("writes for the removal (-want +got):\n%s\nplan:\n%s", diff, res.Plan)
	}
	for i, c := range res.Plan.Changes {
		if c.Verb() != "delete rule set" {
			continue
		}
		var after []string
		for _, r := range c.Requires {
			after = append(after, res.Plan.Changes[r].Verb())
		}
		if !slices.Equal(after, []string{"update listener", "update listener"}) {
			t.Errorf("change %d %s runs after %v, want after both listener updates\n%s", i+1, c, after, res.Plan)
		}
	}
	got, _ = e.srv.LoadBalancer(id)
	if names := slices.Sorted(maps.Keys(got.RuleSets)); !slices.Equal(names, []string{"console_rs"}) {
		t.Errorf("rule sets after the removal: %v", names)
	}
	if rs := got.Listeners["HTTP-80"].RuleSetNames; !slices.Equal(rs, []string{"console_rs"}) {
		t.Errorf("HTTP-80 names %v, want the console's rule set only", rs)
	}
	if rs := got.Listeners["HTTP-8080"].RuleSetNames; len(rs) != 0 {
		t.Errorf("HTTP-8080 names %v, want none", rs)
	}
	if tags := ruleSetTags(got.FreeformTags); len(tags) != 0 {
		t.Errorf("rule sets still recorded: %v", tags)
	}
	if _, calls := e.ensure(t, httpSvc(), readyNodes(2), nil); len(writes(calls)) != 0 {
		t.Errorf("an Ensure after the removal wrote: %v", writes(calls))
	}
}

// TestRuleSetAddedToAnExistingLoadBalancerIsCreatedBeforeListenersNameIt: the annotation added
// later creates the rule set, then updates the listeners (ocitest fails a listener that names a
// rule set the load balancer lacks).
func TestRuleSetAddedToAnExistingLoadBalancerIsCreatedBeforeListenersNameIt(t *testing.T) {
	e := newEnv(t)
	svc := service(annotate(annotation.BackendProtocol, "HTTP"), ports(80))
	e.ensure(t, svc, readyNodes(1), nil)
	svc = service(annotate(annotation.BackendProtocol, "HTTP"), ports(80), annotate(annotation.RuleSets, ruleSetsV1))
	res, calls := e.ensure(t, svc, readyNodes(1), nil)
	want := map[string]int{"CreateRuleSet": 2, "UpdateListener": 1, "UpdateLoadBalancer": 1}
	if diff := cmp.Diff(want, writes(calls)); diff != "" {
		t.Errorf("writes (-want +got):\n%s\nplan:\n%s", diff, res.Plan)
	}
	got, _ := e.srv.LoadBalancer(e.only(t).ID)
	if rs := got.Listeners["HTTP-80"].RuleSetNames; !slices.Equal(rs, []string{"headers", "limits"}) {
		t.Errorf("listener names %v", rs)
	}
	if _, calls := e.ensure(t, svc, readyNodes(1), nil); len(writes(calls)) != 0 {
		t.Errorf("a second Ensure wrote: %v", writes(calls))
	}
}

// TestUpstreamRuleSetsAreTakenOverInPlace: a load balancer the upstream CCM made for a Service
// with the annotation already has its rule sets, named on every listener. oci-ccm adopts it and
// only records the rule sets as its own (with the ownership tags, in the one settings update);
// a rule set upstream made that the annotation no longer names is not oci-ccm's to delete.
func TestUpstreamRuleSetsAreTakenOverInPlace(t *testing.T) {
	e := newEnv(t)
	svc := service(annotate(annotation.SSLPorts, "443"), annotate(annotation.TLSSecret, "web-tls"),
		annotate(annotation.RuleSets, `{"headers":{"items":[{"action":"ADD_HTTP_REQUEST_HEADER","header":"x-team","value":"web"}]}}`))
	secrets := lb.Secrets{webTLS: tlsSecret("v1")}
	up := upstreamLoadBalancer(e, string(svc.UID), secrets[webTLS])
	e.srv.EditLoadBalancer(*up.Id, func(l *loadbalancer.LoadBalancer) {
		l.RuleSets = map[string]loadbalancer.RuleSet{
			"headers": {Name: common.String("headers"), Items: []loadbalancer.Rule{
				loadbalancer.AddHttpRequestHeaderRule{Header: common.String("x-team"), Value: common.String("web")}}},
			"old": {Name: common.String("old"), Items: []loadbalancer.Rule{
				loadbalancer.RemoveHttpRequestHeaderRule{Header: common.String("x-old")}}},
		}
		for name, li := range l.Listeners {
			li.RuleSetNames = []string{"headers", "old"}
			l.Listeners[name] = li
		}
	})

	res, calls := e.ensure(t, svc, readyNodes(2), secrets)
	// The certificate moves to its content-hash name (TestUpstreamLoadBalancerIsAdoptedInPlace);
	// nothing is written to a rule set.
	want := map[string]int{"UpdateLoadBalancer": 1, "CreateCertificate": 1, "UpdateListener": 1, "DeleteCertificate": 1}
	if diff := cmp.Diff(want, writes(calls)); diff != "" {
		t.Errorf("writes of the adoption (-want +got):\n%s\nplan:\n%s", diff, res.Plan)
	}
	got, _ := e.srv.LoadBalancer(*up.Id)
	if names := slices.Sorted(maps.Keys(got.RuleSets)); !slices.Equal(names, []string{"headers", "old"}) {
		t.Errorf("rule sets after the adoption: %v", names)
	}
	for name, l := range got.Listeners {
		if !slices.Equal(l.RuleSetNames, []string{"headers", "old"}) {
			t.Errorf("listener %s names %v", name, l.RuleSetNames)
		}
	}
	if diff := cmp.Diff(map[string]string{"oci-ccm-rule-set-1": "headers"}, ruleSetTags(got.FreeformTags)); diff != "" {
		t.Errorf("ownership record (-want +got):\n%s", diff)
	}
	if _, calls := e.ensure(t, svc, readyNodes(2), secrets); len(writes(calls)) != 0 {
		t.Errorf("the Ensure after the adoption wrote: %v", writes(calls))
	}
}

// clientWithoutRuleSets is a Client that does not implement loadbalancer.RuleSets (one written before it).
type clientWithoutRuleSets struct{ lbproduct.Client }

// TestAClientWithoutRuleSetsIsRefusedBeforeAnyWrite: a plan that changes rule sets one by one
// needs a Client that implements loadbalancer.RuleSets; with another, Ensure says so before it applies
// anything, so no part of the plan (here a new listener and backend set) is left half done.
func TestAClientWithoutRuleSetsIsRefusedBeforeAnyWrite(t *testing.T) {
	e := newEnv(t)
	svc := service(annotate(annotation.BackendProtocol, "HTTP"))
	e.ensure(t, svc, readyNodes(1), nil)

	r, err := engine.NewReconciler(engine.Options{ListingLag: ocitest.DefaultListingLag, Config: e.cfg,
		Client: clientWithoutRuleSets{e.oci.LoadBalancers}, PublicIPs: e.oci.VirtualNetwork, Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(ocitest.DefaultListingLag)
	changed := service(annotate(annotation.BackendProtocol, "HTTP"), annotate(annotation.RuleSets, ruleSetsV1), ports(80, 8080))
	before := e.srv.Calls()
	_, err = r.Ensure(ctx, changed, readyNodes(1), nil)
	if err == nil || !strings.Contains(err.Error(), "loadbalancer.RuleSets") {
		t.Errorf("Ensure = %v, want an error saying the Client does not implement loadbalancer.RuleSets", err)
	}
	if calls := e.srv.Calls().Since(before); calls.Class(ocitest.ClassWrite) != 0 {
		t.Errorf("Ensure wrote before refusing:\n%s", calls)
	}
}
