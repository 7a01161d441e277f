// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/freeform"
	"github.com/oci-ccm/oci-ccm/lb/internal/ruletext"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Rule sets (annotation.RuleSets), as the upstream CCM reads them (load_balancer_spec.go,
// getRuleSets and getListeners): a JSON object from rule-set name to OCI's RuleSetDetails
// ({"items": [Rule, ...]}), every rule set named on every listener of the Service, names sorted.
//
// Ownership differs from upstream on purpose. Upstream, while the annotation is set, deletes
// every rule set of the load balancer the annotation does not name and replaces each listener's
// rule-set names with the annotation's; once the annotation is removed it touches nothing. oci-ccm
// manages only the rule sets it was asked for: it records their names in freeform tags
// (freeform.RuleSetPrefix + "1", "2", ..., one name each, as NSGs are recorded), and a rule set recorded
// there that the annotation no longer names (or every recorded one, once the annotation is
// removed) is taken off the listeners and then deleted. A rule set the annotation never named
// (made in the console, say) stays, and so does its place on the listeners. A rule set the
// annotation names that already exists is taken over: its rules become the annotation's.

// OCI's limits on rules ("Rule Sets for Load Balancers", docs.oracle.com,
// Content/Balance/Tasks/managingrulesets.htm): "Up to 20 rules are allowed in a rule set. You can
// associate a maximum of 50 rules with a load balancer."
const (
	maxRulesPerRuleSet = 20
	maxRulesPerLB      = 50
)

// ruleFields lists, for each rule action of the Load Balancer API, the fields a rule of that
// action has, those OCI requires marked with a trailing "!" (oci-go-sdk v65 loadbalancer: the
// Rule implementations and their `mandatory` tags; TestRuleFieldsMatchTheSDK checks the table).
var ruleFields = map[string][]string{
	"ADD_HTTP_REQUEST_HEADER":           {"header!", "value!"},
	"ADD_HTTP_RESPONSE_HEADER":          {"header!", "value!"},
	"EXTEND_HTTP_REQUEST_HEADER_VALUE":  {"header!", "prefix", "suffix"},
	"EXTEND_HTTP_RESPONSE_HEADER_VALUE": {"header!", "prefix", "suffix"},
	"REMOVE_HTTP_REQUEST_HEADER":        {"header!"},
	"REMOVE_HTTP_RESPONSE_HEADER":       {"header!"},
	"ALLOW":                             {"conditions!", "description"},
	"CONTROL_ACCESS_USING_HTTP_METHODS": {"allowedMethods!", "statusCode"},
	"REDIRECT":                          {"conditions!", "responseCode", "redirectUri"},
	"HTTP_HEADER":                       {"areInvalidCharactersAllowed", "httpLargeHeaderSizeInKB"},
	"IP_BASED_MAX_CONNECTIONS":          {"defaultMaxConnections", "ipMaxConnections"},
}

const ruleSetsExample = `{"headers":{"items":[{"action":"ADD_HTTP_REQUEST_HEADER","header":"x-team","value":"web"}]}}`

// ruleSets parses annotation.RuleSets; nil when absent, empty or invalid (a Problem).
func (p *parser) ruleSets() map[string]model.RuleSet {
	v, ok := p.ann[string(annotation.RuleSets)]
	if !ok || strings.TrimSpace(v) == "" {
		return nil
	}
	bad := func(format string, args ...any) map[string]model.RuleSet {
		p.add(problemf(annotation.RuleSets, v, format, args...))
		return nil
	}
	var sets map[string]json.RawMessage
	if err := json.Unmarshal([]byte(v), &sets); err != nil || sets == nil {
		return bad("a JSON object from rule-set name to {\"items\": [rules]}, e.g. %s (%v)", ruleSetsExample, err)
	}
	out := make(map[string]model.RuleSet, len(sets))
	total := 0
	for _, name := range slices.Sorted(maps.Keys(sets)) {
		if !validRuleSetName(name) {
			return bad("rule-set names of letters, digits, '_' and '-'; %q is not one", name)
		}
		var set map[string]json.RawMessage
		if err := json.Unmarshal(sets[name], &set); err != nil || set == nil {
			return bad("rule set %q: an object {\"items\": [rules]} (%v)", name, orNull(err))
		}
		var rawItems json.RawMessage
		for k, raw := range set {
			if !strings.EqualFold(k, "items") {
				return bad("rule set %q: only the field \"items\"; %q is not one", name, k)
			}
			rawItems = raw
		}
		var items []json.RawMessage
		if err := json.Unmarshal(rawItems, &items); err != nil || items == nil {
			return bad("rule set %q: \"items\", a list of rules (%v)", name, orNull(err))
		}
		if len(items) > maxRulesPerRuleSet {
			return bad("at most %d rules in a rule set (OCI's limit); rule set %q has %d", maxRulesPerRuleSet, name, len(items))
		}
		rs := model.RuleSet{Name: name, Rules: make([]string, 0, len(items))}
		for i, item := range items {
			rule, err := parseRule(item)
			if err != nil {
				return bad("rule set %q, rule %d: %v", name, i+1, err)
			}
			rs.Rules = append(rs.Rules, rule)
		}
		total += len(rs.Rules)
		out[name] = rs
	}
	if total > maxRulesPerLB {
		return bad("at most %d rules over all rule sets (OCI's limit per load balancer); there are %d", maxRulesPerLB, total)
	}
	return out
}

func orNull(err error) error {
	if err == nil {
		return fmt.Errorf("got null")
	}
	return err
}

// validRuleSetName accepts what can be an OCI rule-set name and a path segment: letters,
// digits, '_' and '-', up to 255.
func validRuleSetName(name string) bool {
	return name != "" && len(name) <= 255 && strings.IndexFunc(name, func(r rune) bool {
		return !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0
}

// parseRule checks one rule of the annotation against ruleFields and returns its canonical text.
// Field names are matched without regard to case, as the upstream CCM's JSON decoding into the
// SDK's types matches them, and written as OCI spells them.
func parseRule(raw json.RawMessage) (string, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return "", fmt.Errorf("an object with an \"action\" (%v)", orNull(err))
	}
	actions := slices.Sorted(maps.Keys(ruleFields))
	var action string
	for k, v := range fields {
		if strings.EqualFold(k, "action") {
			if err := json.Unmarshal(v, &action); err != nil {
				action = string(v)
			}
			delete(fields, k)
		}
	}
	known, ok := ruleFields[action]
	if !ok {
		return "", fmt.Errorf("an \"action\" of %s; %q is not one", strings.Join(actions, ", "), action)
	}
	out := map[string]json.RawMessage{"action": json.RawMessage(strconv.Quote(action))}
	for k, v := range fields {
		i := slices.IndexFunc(known, func(f string) bool { return strings.EqualFold(strings.TrimSuffix(f, "!"), k) })
		if i < 0 {
			return "", fmt.Errorf("%s takes the fields %s; %q is not one", action, fieldNames(known), k)
		}
		out[strings.TrimSuffix(known[i], "!")] = v
	}
	for _, f := range known {
		if name, required := strings.CutSuffix(f, "!"); required && (out[name] == nil || string(out[name]) == "null") {
			return "", fmt.Errorf("%s needs %q", action, name)
		}
	}
	text, err := json.Marshal(out)
	if err != nil {
		return "", err
	}
	return ruletext.Canonical(text)
}

func fieldNames(fields []string) string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = strings.TrimSuffix(f, "!")
	}
	return strings.Join(out, ", ")
}

// equalRuleSet compares an observed rule set with the desired one, rule by rule in order. A
// field OCI returns that the desired rule leaves out does not count, since OCI may fill in a
// default (a redirect's response code, say); to clear a field, set it to its zero value.
func equalRuleSet(observed, desired model.RuleSet) bool {
	if len(observed.Rules) != len(desired.Rules) {
		return false
	}
	for i := range desired.Rules {
		if !ruleCovers(observed.Rules[i], desired.Rules[i]) {
			return false
		}
	}
	return true
}

// ruleCovers reports whether every field of the desired rule has the same value in observed.
func ruleCovers(observed, desired string) bool {
	if observed == desired {
		return true
	}
	var o, d map[string]json.RawMessage
	if json.Unmarshal([]byte(observed), &o) != nil || json.Unmarshal([]byte(desired), &d) != nil {
		return false
	}
	for k, v := range d {
		if !bytes.Equal(o[k], v) {
			return false
		}
	}
	return true
}

// ruleSetNames returns the names of sets, sorted.
func ruleSetNames(sets map[string]model.RuleSet) []string {
	return slices.Sorted(maps.Keys(sets))
}

// managedRuleSets returns the names the tags record as rule sets oci-ccm manages, sorted.
func managedRuleSets(tags map[string]string) []string {
	return freeform.Recorded(tags, freeform.RuleSetPrefix)
}

// listenerRuleSets is what a listener's rule-set names become: those it has now that oci-ccm does
// not manage, in their place, then the desired ones it lacks, in desired's (sorted) order.
// Managed names the desired spec no longer has are dropped.
func listenerRuleSets(current, desired, managed []string) []string {
	var out []string
	for _, n := range current {
		if (slices.Contains(desired, n) || !slices.Contains(managed, n)) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, n := range desired {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// diffRuleSets creates the desired rule sets the load balancer lacks, updates those whose rules
// differ, and deletes those oci-ccm manages (managed) that are no longer desired. Rule sets
// neither desired nor managed are not touched.
func diffRuleSets(observed, desired map[string]model.RuleSet, managed []string) []model.Change {
	touchable := make(map[string]model.RuleSet, len(observed))
	for name, rs := range observed {
		if _, ok := desired[name]; ok || slices.Contains(managed, name) {
			touchable[name] = rs
		}
	}
	return diffNamed(touchable, desired, equalRuleSet)
}

// recordedRuleSets is what the settings update records as the rule sets oci-ccm manages: the
// desired ones. order puts that update after the plan's rule-set deletions, so a failed deletion
// stays recorded and is retried; but when the plan attaches an NSG the settings update must come
// first (see order), and then the rule sets being deleted stay recorded too, until a later
// reconcile finds them gone.
func recordedRuleSets(target, observed *model.Spec, changes []model.Change) []string {
	names := ruleSetNames(target.RuleSets)
	if !slices.ContainsFunc(target.NetworkSecurityGroups, func(id string) bool { return !slices.Contains(observed.NetworkSecurityGroups, id) }) {
		return names
	}
	for _, c := range changes {
		if _, ok := c.Before.(model.RuleSet); ok && c.Op == model.OpDelete {
			names = append(names, c.Name)
		}
	}
	return names
}
