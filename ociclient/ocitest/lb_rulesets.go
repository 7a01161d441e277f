// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"net/http"
	"slices"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

// This file serves a load balancer's rule sets: named lists of rules its listeners apply
// (ruleSetNames). Like the other parts, each change is a work request. OCI's "Rule Sets for Load
// Balancers" page sets the limits: up to 20 rules in a rule set, at most 50 rules on a load
// balancer. README.md ("Load balancer placement and limits") gives the evidence for the rest.

// Rule-set limits, from OCI's "Rule Sets for Load Balancers".
const (
	lbMaxRulesPerRuleSet = 20
	lbMaxRulesPerLB      = 50
)

func (s *Server) registerLBRuleSets() {
	lb := lbPrefix + "/loadBalancers/{loadBalancerId}"
	rs := lb + "/ruleSets/{ruleSetName}"
	s.handle("ListRuleSets", ClassRead, "GET "+lb+"/ruleSets", s.lbListRuleSets)
	s.handle("GetRuleSet", ClassRead, "GET "+rs, s.lbGetRuleSet)
	s.handle("CreateRuleSet", ClassWrite, "POST "+lb+"/ruleSets", withBody(s.lbCreateRuleSet))
	s.handle("UpdateRuleSet", ClassWrite, "PUT "+rs, withBody(s.lbUpdateRuleSet))
	s.handle("DeleteRuleSet", ClassWrite, "DELETE "+rs, s.lbDeleteRuleSet)
}

func (s *Server) lbListRuleSets(w http.ResponseWriter, r *http.Request) {
	s.lbRead(w, r, func(lb *loadbalancer.LoadBalancer) (any, error) {
		return lbSortedValues(lb.RuleSets), nil
	})
}

func (s *Server) lbGetRuleSet(w http.ResponseWriter, r *http.Request) {
	s.lbRead(w, r, func(lb *loadbalancer.LoadBalancer) (any, error) {
		name := r.PathValue("ruleSetName")
		rs, ok := lb.RuleSets[name]
		if !ok {
			return nil, lbNotFound("rule set", name)
		}
		return rs, nil
	})
}

func (s *Server) lbCreateRuleSet(w http.ResponseWriter, r *http.Request, c loadbalancer.CreateRuleSetDetails) {
	invalid := lbCheckRuleSetName(c.Name)
	if invalid == nil {
		invalid = lbCheckRuleSet(*c.Name, c.Items)
	}
	s.lbChangeChecked(w, r, "CreateRuleSet", invalid, func(e *lbEntry) error {
		if err := partNew(e.lb.RuleSets, partRuleSet, *c.Name); err != nil {
			return err
		}
		return lbCheckRuleTotal(&e.lb, *c.Name, len(c.Items))
	}, func(lb *loadbalancer.LoadBalancer) error {
		return addPart(lb.RuleSets, partRuleSet, *c.Name, lbRuleSetFrom(*c.Name, c.Items))
	})
}

func (s *Server) lbUpdateRuleSet(w http.ResponseWriter, r *http.Request, u loadbalancer.UpdateRuleSetDetails) {
	name := r.PathValue("ruleSetName")
	s.lbChangeChecked(w, r, "UpdateRuleSet", lbCheckRuleSet(name, u.Items), func(e *lbEntry) error {
		if _, err := partOf(e.lb.RuleSets, partRuleSet, name); err != nil {
			return err
		}
		return lbCheckRuleTotal(&e.lb, name, len(u.Items))
	}, func(lb *loadbalancer.LoadBalancer) error {
		return setPart(lb.RuleSets, partRuleSet, name, lbRuleSetFrom(name, u.Items))
	})
}

// lbDeleteRuleSet refuses, at the call, to delete a rule set a listener still names, as
// DeleteCertificate refuses a certificate in use; a listener that comes to name it through a
// change queued earlier fails the delete's work request instead.
func (s *Server) lbDeleteRuleSet(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("ruleSetName")
	s.lbChangeChecked(w, r, "DeleteRuleSet", nil, func(e *lbEntry) error {
		if _, err := partOf(e.lb.RuleSets, partRuleSet, name); err != nil {
			return err
		}
		if users := lbRuleSetUsers(&e.lb, name); len(users) > 0 {
			return lbConflict("Rule set '%s' is used by listener(s) %v", name, users)
		}
		return nil
	}, func(lb *loadbalancer.LoadBalancer) error {
		if users := lbRuleSetUsers(lb, name); len(users) > 0 {
			return wrBadInput("Rule set '%s' is used by listener(s) %v", name, users)
		}
		delete(lb.RuleSets, name)
		return nil
	})
}

// lbRuleSetUsers names the listeners that name the rule set, sorted.
func lbRuleSetUsers(lb *loadbalancer.LoadBalancer, name string) []string {
	var out []string
	for _, l := range lbSortedKeys(lb.Listeners) {
		if slices.Contains(lb.Listeners[l].RuleSetNames, name) {
			out = append(out, l)
		}
	}
	return out
}

// lbCheckRuleSetName checks a rule set's name: required, and (assumed) letters, digits and
// underscores only, as OCI's example "example_rule_set" and the console's "friendly name" leave
// open; the narrower set is the harder one.
func lbCheckRuleSetName(name *string) error {
	n := deref(name)
	if n == "" {
		return lbInvalid("name is required")
	}
	if len(n) > 255 || strings.IndexFunc(n, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) >= 0 {
		return lbInvalid("rule set name '%s' may contain only letters, digits and underscores", n)
	}
	return nil
}

// lbCheckRuleSet checks a rule set's rules: items is required, at most lbMaxRulesPerRuleSet,
// and each rule has an action the API knows and the fields that action requires (the SDK marks
// them mandatory).
func lbCheckRuleSet(name string, items []loadbalancer.Rule) error {
	if items == nil {
		return lbInvalid("items is required")
	}
	if len(items) > lbMaxRulesPerRuleSet {
		return lbLimitExceeded("%d rules in rule set '%s' exceed the limit of %d", len(items), name, lbMaxRulesPerRuleSet)
	}
	for i, rule := range items {
		if err := lbCheckRule(rule); err != nil {
			return lbInvalid("rule set '%s', items[%d]: %s", name, i, err.Error())
		}
	}
	return nil
}

// lbRuleError is a rule's fault, wrapped by lbCheckRuleSet into an InvalidParameter.
type lbRuleError string

func (e lbRuleError) Error() string { return string(e) }

func lbCheckRule(rule loadbalancer.Rule) error {
	missing := func(field string) error { return lbRuleError(field + " is required") }
	switch r := rule.(type) {
	case loadbalancer.AddHttpRequestHeaderRule:
		if deref(r.Header) == "" || r.Value == nil {
			return missing("header and value")
		}
	case loadbalancer.AddHttpResponseHeaderRule:
		if deref(r.Header) == "" || r.Value == nil {
			return missing("header and value")
		}
	case loadbalancer.ExtendHttpRequestHeaderValueRule:
		if deref(r.Header) == "" {
			return missing("header")
		}
	case loadbalancer.ExtendHttpResponseHeaderValueRule:
		if deref(r.Header) == "" {
			return missing("header")
		}
	case loadbalancer.RemoveHttpRequestHeaderRule:
		if deref(r.Header) == "" {
			return missing("header")
		}
	case loadbalancer.RemoveHttpResponseHeaderRule:
		if deref(r.Header) == "" {
			return missing("header")
		}
	case loadbalancer.AllowRule:
		if r.Conditions == nil {
			return missing("conditions")
		}
	case loadbalancer.RedirectRule:
		if r.Conditions == nil {
			return missing("conditions")
		}
	case loadbalancer.ControlAccessUsingHttpMethodsRule:
		if r.AllowedMethods == nil {
			return missing("allowedMethods")
		}
	case loadbalancer.HttpHeaderRule, loadbalancer.IpBasedMaxConnectionsRule:
	default:
		// The SDK decodes an action it does not know into nil (or its bare base type).
		return lbRuleError("action must be one of " + strings.Join(loadbalancer.GetRuleActionEnumStringValues(), ", "))
	}
	return nil
}

// lbCheckRuleTotal refuses a change that would leave more than lbMaxRulesPerLB rules on the load
// balancer: rule set name gets n rules, the others keep theirs.
func lbCheckRuleTotal(lb *loadbalancer.LoadBalancer, name string, n int) error {
	total := n
	for other, rs := range lb.RuleSets {
		if other != name {
			total += len(rs.Items)
		}
	}
	return lbCheckCount("rules on the load balancer", total, lbMaxRulesPerLB)
}

// lbCheckCreateRuleSets checks the rule sets of a CreateLoadBalancer request, each under its
// key (a rule set's name is its key there).
func lbCheckCreateRuleSets(sets map[string]loadbalancer.RuleSetDetails) error {
	total := 0
	for _, name := range lbSortedKeys(sets) {
		if err := lbCheckRuleSetName(common.String(name)); err != nil {
			return err
		}
		if err := lbCheckRuleSet(name, sets[name].Items); err != nil {
			return err
		}
		total += len(sets[name].Items)
	}
	return lbCheckCount("rules on the load balancer", total, lbMaxRulesPerLB)
}

func lbRuleSetFrom(name string, items []loadbalancer.Rule) loadbalancer.RuleSet {
	return loadbalancer.RuleSet{Name: common.String(name), Items: append([]loadbalancer.Rule{}, items...)}
}
