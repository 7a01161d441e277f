// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/freeform"
	"github.com/oci-ccm/oci-ccm/lb/model"
	lbproduct "github.com/oci-ccm/oci-ccm/lb/oci/loadbalancer"
)

const (
	twoRuleSets = `{"headers":{"items":[{"action":"ADD_HTTP_REQUEST_HEADER","header":"x-team","value":"web"}]},` +
		`"methods":{"items":[{"action":"CONTROL_ACCESS_USING_HTTP_METHODS","allowedMethods":["GET","POST"]}]}}`
	otherRuleSet = `{"other":{"items":[{"action":"REMOVE_HTTP_RESPONSE_HEADER","header":"server"}]}}`
	// svcLB is testService's load balancer name (its UID, as upstream names it).
	svcLB = "0b7f4d5e-1c2a-4e8b-9f10-aa11bb22cc33"
)

func TestDesiredRuleSetsAreNamedOnEveryListenerSorted(t *testing.T) {
	svc := testService(withPorts(tcpPort("http", 80, 30080), tcpPort("alt", 8080, 30081)),
		withAnnotation(annotation.BackendProtocol, "HTTP"), withAnnotation(annotation.RuleSets, twoRuleSets))
	spec := mustDesired(t, svc, nodes(1), nil)
	want := map[string]model.RuleSet{
		"headers": {Name: "headers", Rules: []string{`{"action":"ADD_HTTP_REQUEST_HEADER","header":"x-team","value":"web"}`}},
		"methods": {Name: "methods", Rules: []string{`{"action":"CONTROL_ACCESS_USING_HTTP_METHODS","allowedMethods":["GET","POST"]}`}},
	}
	if diff := cmp.Diff(want, spec.RuleSets); diff != "" {
		t.Errorf("rule sets (-want +got):\n%s", diff)
	}
	for _, l := range spec.Listeners {
		if diff := cmp.Diff([]string{"headers", "methods"}, l.Routing.RuleSets); diff != "" {
			t.Errorf("listener %s rule sets (-want +got):\n%s", l.Name, diff)
		}
	}
}

func TestDesiredRuleSetsCanonicaliseFieldsAsOCISpellsThem(t *testing.T) {
	// Upstream decodes into the SDK's structs, whose JSON field names match without case.
	svc := testService(withAnnotation(annotation.RuleSets,
		`{"r": {"Items": [{"Action": "REDIRECT", "responseCode": 301, "Conditions": [{"attributeName": "PATH", "attributeValue": "/", "operator": "PREFIX_MATCH"}], "redirectUri": null}]}}`))
	spec := mustDesired(t, svc, nodes(1), nil)
	want := []string{`{"action":"REDIRECT","conditions":[{"attributeName":"PATH","attributeValue":"/","operator":"PREFIX_MATCH"}],"responseCode":301}`}
	if diff := cmp.Diff(want, spec.RuleSets["r"].Rules); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}

func TestEmptyOrAbsentRuleSetsAnnotationAsksForNone(t *testing.T) {
	for _, v := range []string{"", "  ", "{}"} {
		spec := mustDesired(t, testService(withAnnotation(annotation.RuleSets, v)), nodes(1), nil)
		if len(spec.RuleSets) != 0 || len(spec.Listeners["TCP-80"].Routing.RuleSets) != 0 {
			t.Errorf("%q: rule sets %v, listener %v", v, spec.RuleSets, spec.Listeners["TCP-80"].Routing.RuleSets)
		}
	}
}

func TestBadRuleSetsAnnotationIsOneProblemSayingWhatIsAllowed(t *testing.T) {
	rules := func(n int) string {
		items := make([]string, n)
		for i := range items {
			items[i] = `{"action":"REMOVE_HTTP_REQUEST_HEADER","header":"x"}`
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	tests := []struct{ name, value, allowed string }{
		{"not JSON", `headers`, "a JSON object from rule-set name"},
		{"a list", `[]`, "a JSON object from rule-set name"},
		{"bad name", `{"my rules":{"items":[]}}`, `"my rules" is not one`},
		{"no items", `{"r":{}}`, `"items", a list of rules`},
		{"other field", `{"r":{"items":[],"name":"r"}}`, `only the field "items"`},
		{"unknown action", `{"r":{"items":[{"action":"DROP"}]}}`, `"DROP" is not one`},
		{"no action", `{"r":{"items":[{"header":"x"}]}}`, `an "action" of ADD_HTTP_REQUEST_HEADER`},
		{"unknown field", `{"r":{"items":[{"action":"ADD_HTTP_REQUEST_HEADER","header":"x","value":"y","valeu":"z"}]}}`,
			`ADD_HTTP_REQUEST_HEADER takes the fields header, value; "valeu" is not one`},
		{"missing required field", `{"r":{"items":[{"action":"ADD_HTTP_REQUEST_HEADER","header":"x"}]}}`, `needs "value"`},
		{"21 rules in a set", `{"r":{"items":` + rules(21) + `}}`, "at most 20 rules in a rule set"},
		{"51 rules in all", `{"a":{"items":` + rules(20) + `},"b":{"items":` + rules(20) + `},"c":{"items":` + rules(11) + `}}`,
			"at most 50 rules over all rule sets"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := testService(withAnnotation(annotation.RuleSets, tc.value))
			_, err := Desired(svc, nodes(1), testConfig(), Known{})
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Desired = %v, want a *ValidationError", err)
			}
			if len(ve.Problems) != 1 {
				t.Fatalf("problems = %v, want one", ve.Problems)
			}
			pr := ve.Problems[0]
			if pr.Field != string(annotation.RuleSets) || pr.Value != tc.value || !strings.Contains(pr.Allowed, tc.allowed) {
				t.Errorf("problem = %+v, want the annotation, its value and %q", pr, tc.allowed)
			}
		})
	}
	// At the limits exactly: accepted.
	ok := `{"a":{"items":` + rules(20) + `},"b":{"items":` + rules(20) + `},"c":{"items":` + rules(10) + `}}`
	mustDesired(t, testService(withAnnotation(annotation.RuleSets, ok)), nodes(1), nil)
}

func TestRuleSetsOnANetworkLoadBalancerAreRefused(t *testing.T) {
	svc := testService(withAnnotation(annotation.LoadBalancerType, "nlb"), withAnnotation(annotation.RuleSets, twoRuleSets))
	_, err := Desired(svc, nodes(1), testConfig(), Known{})
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Desired = %v, want a *ValidationError", err)
	}
	if len(ve.Problems) != 1 || ve.Problems[0].Field != string(annotation.RuleSets) ||
		!strings.Contains(ve.Problems[0].Allowed, "nothing on a network load balancer") {
		t.Errorf("problems = %v, want one saying network load balancers have no rule sets", ve.Problems)
	}
}

// TestRuleFieldsMatchTheSDK: ruleFields lists every rule action of the SDK, with each action's
// JSON fields and which of them the SDK marks mandatory.
func TestRuleFieldsMatchTheSDK(t *testing.T) {
	types := map[string]any{
		"ADD_HTTP_REQUEST_HEADER": loadbalancer.AddHttpRequestHeaderRule{}, "ADD_HTTP_RESPONSE_HEADER": loadbalancer.AddHttpResponseHeaderRule{},
		"EXTEND_HTTP_REQUEST_HEADER_VALUE":  loadbalancer.ExtendHttpRequestHeaderValueRule{},
		"EXTEND_HTTP_RESPONSE_HEADER_VALUE": loadbalancer.ExtendHttpResponseHeaderValueRule{},
		"REMOVE_HTTP_REQUEST_HEADER":        loadbalancer.RemoveHttpRequestHeaderRule{},
		"REMOVE_HTTP_RESPONSE_HEADER":       loadbalancer.RemoveHttpResponseHeaderRule{},
		"ALLOW":                             loadbalancer.AllowRule{}, "CONTROL_ACCESS_USING_HTTP_METHODS": loadbalancer.ControlAccessUsingHttpMethodsRule{},
		"REDIRECT": loadbalancer.RedirectRule{}, "HTTP_HEADER": loadbalancer.HttpHeaderRule{},
		"IP_BASED_MAX_CONNECTIONS": loadbalancer.IpBasedMaxConnectionsRule{},
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(loadbalancer.GetRuleActionEnumStringValues())), slices.Sorted(maps.Keys(ruleFields))); diff != "" {
		t.Errorf("actions (-SDK +ruleFields):\n%s", diff)
	}
	for action, v := range types {
		var fields []string
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			f := rt.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if f.Tag.Get("mandatory") == "true" {
				name += "!"
			}
			fields = append(fields, name)
		}
		if diff := cmp.Diff(slices.Sorted(slices.Values(fields)), slices.Sorted(slices.Values(ruleFields[action]))); diff != "" {
			t.Errorf("%s fields (-SDK +ruleFields):\n%s", action, diff)
		}
	}
}

// TestObservedRulesCompareEqualToTheAnnotations: rules as OCI returns them through the SDK (unset
// fields written as null, fields OCI fills in) compare equal to the annotation's.
func TestObservedRulesCompareEqualToTheAnnotations(t *testing.T) {
	desired := mustDesired(t, testService(withAnnotation(annotation.RuleSets,
		`{"r":{"items":[{"action":"REDIRECT","conditions":[{"attributeName":"PATH","attributeValue":"/old","operator":"PREFIX_MATCH"}],`+
			`"redirectUri":{"path":"/new"}},{"action":"EXTEND_HTTP_REQUEST_HEADER_VALUE","header":"x","prefix":"p"}]}}`)), nodes(1), nil)
	var d loadbalancer.RuleSetDetails
	// What a GET returns: the response code filled in, the redirect's other parts null.
	body := `{"items":[{"action":"REDIRECT","conditions":[{"attributeName":"PATH","attributeValue":"/old","operator":"PREFIX_MATCH"}],` +
		`"responseCode":302,"redirectUri":{"protocol":null,"host":null,"port":null,"path":"/new","query":null}},` +
		`{"action":"EXTEND_HTTP_REQUEST_HEADER_VALUE","header":"x","prefix":"p","suffix":null}]}`
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatal(err)
	}
	observed := lbproduct.Observe(loadbalancer.LoadBalancer{RuleSets: map[string]loadbalancer.RuleSet{"r": {Name: common.String("r"), Items: d.Items}}}).RuleSets["r"]
	if !equalRuleSet(observed, desired.RuleSets["r"]) {
		t.Errorf("observed %v\nnot equal to desired %v", observed.Rules, desired.RuleSets["r"].Rules)
	}
	changed := desired.RuleSets["r"]
	changed.Rules = []string{changed.Rules[1], changed.Rules[0]}
	if equalRuleSet(observed, changed) {
		t.Error("rules in another order compare equal")
	}
	// That the texts go back to the SDK's rules intact is lb/oci/loadbalancer's
	// TestRuleTextsGoBackToTheSDKsRulesIntact.
}

func TestRuleSetsAreCreatedBeforeTheListenersThatNameThem(t *testing.T) {
	before := mustDesired(t, testService(), nodes(1), nil)
	after := mustDesired(t, testService(withAnnotation(annotation.RuleSets, twoRuleSets)), nodes(1), nil)
	p, err := Diff(asObserved(before), after)
	if err != nil {
		t.Fatal(err)
	}
	want := []step{
		{"update load balancer", svcLB, nil}, // records the rule sets as oci-ccm's
		{"create rule set", "headers", nil},
		{"create rule set", "methods", nil},
		{"update listener", "TCP-80", []int{1, 2}},
	}
	if diff := cmp.Diff(want, steps(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s\n%s", diff, p)
	}
}

func TestRemovedRuleSetsAreDetachedThenDeletedThenForgotten(t *testing.T) {
	before := mustDesired(t, testService(withAnnotation(annotation.RuleSets, twoRuleSets)), nodes(1), nil)
	after := mustDesired(t, testService(withAnnotation(annotation.RuleSets, otherRuleSet)), nodes(1), nil)
	p, err := Diff(asObserved(before), after)
	if err != nil {
		t.Fatal(err)
	}
	want := []step{
		{"create rule set", "other", nil},
		{"update listener", "TCP-80", []int{0}},
		{"delete rule set", "headers", []int{1}},
		{"delete rule set", "methods", []int{1}},
		{"update load balancer", svcLB, []int{2, 3}}, // stops recording them once they are gone
	}
	if diff := cmp.Diff(want, steps(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s\n%s", diff, p)
	}
	settings := p.Changes[4].After.(model.Settings)
	if got := managedRuleSets(settings.FreeformTags); !slices.Equal(got, []string{"other"}) {
		t.Errorf("recorded after the plan: %v", got)
	}
	if got := p.Target.Listeners["TCP-80"].Routing.RuleSets; !slices.Equal(got, []string{"other"}) {
		t.Errorf("listener names %v", got)
	}
}

func TestChangedRuleUpdatesOnlyItsRuleSet(t *testing.T) {
	before := mustDesired(t, testService(withAnnotation(annotation.RuleSets, twoRuleSets)), nodes(1), nil)
	after := mustDesired(t, testService(withAnnotation(annotation.RuleSets, strings.Replace(twoRuleSets, `"POST"`, `"PUT"`, 1))), nodes(1), nil)
	p, err := Diff(asObserved(before), after)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]step{{"update rule set", "methods", nil}}, steps(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s\n%s", diff, p)
	}
	if s := p.String(); !strings.Contains(s, `~ rule set "methods"`) || !strings.Contains(s, `"PUT"`) {
		t.Errorf("plan does not show the new rules:\n%s", s)
	}
}

func TestRuleSetsOciCCMDoesNotManageAreLeftOnTheListeners(t *testing.T) {
	desired := mustDesired(t, testService(withAnnotation(annotation.RuleSets, twoRuleSets)), nodes(1), nil)
	observed := asObserved(desired)
	// A rule set from the console, named first on the listener, and one oci-ccm recorded but
	// the annotation no longer names ("gone").
	observed.RuleSets["console"] = model.RuleSet{Name: "console", Rules: []string{`{"action":"REMOVE_HTTP_REQUEST_HEADER","header":"x"}`}}
	observed.RuleSets["gone"] = model.RuleSet{Name: "gone", Rules: []string{`{"action":"REMOVE_HTTP_REQUEST_HEADER","header":"y"}`}}
	observed.FreeformTags, _ = freeform.WithRuleSets(observed.FreeformTags, []string{"gone", "headers", "methods"})
	l := observed.Listeners["TCP-80"]
	l.Routing.RuleSets = []string{"console", "gone", "headers", "methods"}
	observed.Listeners["TCP-80"] = l

	p, err := Diff(observed, desired)
	if err != nil {
		t.Fatal(err)
	}
	want := []step{
		{"update listener", "TCP-80", nil},
		{"delete rule set", "gone", []int{0}},
		{"update load balancer", svcLB, []int{1}},
	}
	if diff := cmp.Diff(want, steps(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s\n%s", diff, p)
	}
	if got := p.Target.Listeners["TCP-80"].Routing.RuleSets; !slices.Equal(got, []string{"console", "headers", "methods"}) {
		t.Errorf("listener names %v, want the console's first, in its place", got)
	}
}

func TestRuleSetDeletionWaitsForTheSettingsUpdateUnlessAnNSGIsAttached(t *testing.T) {
	const nsg = "ocid1.networksecuritygroup.oc1.phx.aaaa"
	before := mustDesired(t, testService(withAnnotation(annotation.RuleSets, twoRuleSets)), nodes(1), nil)
	after := mustDesired(t, testService(withAnnotation(annotation.NetworkSecurityGroups, nsg)), nodes(1), nil)
	p, err := Diff(asObserved(before), after)
	if err != nil {
		t.Fatal(err)
	}
	// The NSG comes first and is recorded first; the rule sets being deleted stay recorded
	// until a later reconcile finds them gone.
	var settings model.Settings
	for _, c := range p.Changes {
		if c.Verb() == "update load balancer" {
			settings = c.After.(model.Settings)
			if len(c.Requires) != 0 {
				t.Errorf("settings update requires %v, want nothing\n%s", c.Requires, p)
			}
		}
	}
	if got := managedRuleSets(settings.FreeformTags); !slices.Equal(got, []string{"headers", "methods"}) {
		t.Errorf("recorded: %v, want the rule sets being deleted", got)
	}
	m := asObserved(before)
	for _, c := range p.Changes {
		if err := applyToModel(m, c); err != nil {
			t.Fatalf("%s: %v\n%s", c, err, p)
		}
	}
	again, err := Diff(m, after)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]step{{"update load balancer", svcLB, nil}}, steps(again)); diff != "" {
		t.Errorf("next plan (-want +got):\n%s\n%s", diff, again)
	}
}

func TestListenerRuleSetsMerge(t *testing.T) {
	tests := []struct {
		current, desired, managed, want []string
	}{
		{nil, []string{"a", "b"}, nil, []string{"a", "b"}},
		{[]string{"user", "a"}, []string{"a", "b"}, []string{"a"}, []string{"user", "a", "b"}},
		{[]string{"a", "user", "old"}, nil, []string{"a", "old"}, []string{"user"}},
		{[]string{"user"}, nil, nil, []string{"user"}},
	}
	for _, tc := range tests {
		got := listenerRuleSets(tc.current, tc.desired, tc.managed)
		if !slices.Equal(got, tc.want) {
			t.Errorf("listenerRuleSets(%v, %v, %v) = %v, want %v", tc.current, tc.desired, tc.managed, got, tc.want)
		}
	}
}
