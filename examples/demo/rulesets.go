// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"context"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

// demoRuleSets is the rule-sets annotation the demo gives Service web: one rule set that adds a
// request header.
const demoRuleSets = `{"team_header":{"items":[{"action":"ADD_HTTP_REQUEST_HEADER","header":"x-team","value":"web"}]}}`

// ruleSets makes Service web an HTTP one with a rule set (rule sets apply to HTTP listeners),
// then removes the rule set again.
func (d *demo) ruleSets(ctx context.Context) error {
	listener := "HTTP-8080"
	if err := d.setWebAnnotations(ctx, map[string]string{
		string(annotation.BackendProtocol): "HTTP", string(annotation.RuleSets): demoRuleSets,
	}); err != nil {
		return err
	}
	known, mark := workRequestIDs(d.srv), d.calls.mark()
	d.n.say("Service web: %s=HTTP and %s=%s.", annotation.BackendProtocol, annotation.RuleSets, demoRuleSets)
	if err := d.settled(ctx, "listener "+listener+" naming rule set team_header", mark, []string{web}, method("EnsureLoadBalancer"), func() bool {
		lb, ok := loadBalancer(d.srv, lbName(web))
		return ok && slices.Equal(lb.Listeners[listener].RuleSetNames, []string{"team_header"})
	}); err != nil {
		return err
	}
	d.n.plans(d.rec.takePlans())
	d.out.RuleSetAdded = workRequestsSince(d.srv, known)
	d.showWorkRequests(d.out.RuleSetAdded)

	known, mark = workRequestIDs(d.srv), d.calls.mark()
	if err := d.setWebAnnotations(ctx, map[string]string{string(annotation.RuleSets): ""}); err != nil {
		return err
	}
	d.n.say("Service web: annotation %s removed.", annotation.RuleSets)
	if err := d.settled(ctx, "rule set team_header gone", mark, []string{web}, method("EnsureLoadBalancer"), func() bool {
		lb, ok := loadBalancer(d.srv, lbName(web))
		return ok && len(lb.RuleSets) == 0 && len(lb.Listeners[listener].RuleSetNames) == 0
	}); err != nil {
		return err
	}
	d.n.plans(d.rec.takePlans())
	d.out.RuleSetRemoved = workRequestsSince(d.srv, known)
	d.showWorkRequests(d.out.RuleSetRemoved)
	lb, _ := loadBalancer(d.srv, lbName(web))
	d.out.RuleSetsLeft = slices.Sorted(maps.Keys(lb.RuleSets))
	var recorded []string
	for k := range lb.FreeformTags {
		if strings.HasPrefix(k, "oci-ccm-rule-set-") {
			recorded = append(recorded, k)
		}
	}
	d.out.RuleSetTagsLeft = len(recorded)
	d.n.say("The rule set came off the listener before it was deleted; oci-ccm had recorded it in the")
	d.n.say("load balancer's freeform tags as its own, and a rule set made in the console would have stayed.")
	return nil
}

// setWebAnnotations sets (a value) or removes (an empty one) annotations of Service web.
func (d *demo) setWebAnnotations(ctx context.Context, set map[string]string) error {
	svc, err := d.kube.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		return err
	}
	if svc.Annotations == nil {
		svc.Annotations = map[string]string{}
	}
	for k, v := range set {
		if v == "" {
			delete(svc.Annotations, k)
		} else {
			svc.Annotations[k] = v
		}
	}
	_, err = d.kube.CoreV1().Services("default").Update(ctx, svc, metav1.UpdateOptions{})
	return err
}
