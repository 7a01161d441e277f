// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// TestDemoReconcilesEveryStepAgainstOCI plays the whole demo and checks, from what OCI holds
// after each step, that it did what it narrates.
func TestDemoReconcilesEveryStepAgainstOCI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out strings.Builder
	got, err := play(ctx, &out)
	if err != nil {
		t.Fatalf("demo failed: %v\noutput so far:\n%s", err, out.String())
	}

	t.Run("every Service got its own address", func(t *testing.T) {
		if len(got.IPs) != 3 {
			t.Fatalf("addresses %v, want one for each of web, shop and api", got.IPs)
		}
		seen := map[string]bool{}
		for svc, ip := range got.IPs {
			if ip == "" || seen[ip] {
				t.Errorf("Service %s has address %q, empty or shared", svc, ip)
			}
			seen[ip] = true
		}
	})

	t.Run("the fourth node is in every backend set, through UpdateBackendSet only", func(t *testing.T) {
		want := map[string]map[string]int{
			"default-web":  {"TCP-80": 4},
			"default-shop": {"TCP-80": 4, "TCP-443": 4},
			"default-api":  {"TCP-9000": 4},
		}
		if diff := cmp.Diff(want, got.BackendsAfterJoin); diff != "" {
			t.Errorf("backends after the join (-want +got):\n%s", diff)
		}
		join := got.JoinCalls
		if w, u := join.Class(ocitest.ClassWrite), join.Op("UpdateBackendSet"); w != 4 || u != 4 {
			t.Errorf("the join made %d writes, %d of them UpdateBackendSet; want 4 and 4 (one per backend set)", w, u)
		}
	})

	t.Run("the port change moved the listener before deleting its backend set, without a failure", func(t *testing.T) {
		var ops []string
		for _, wr := range got.PortChange {
			ops = append(ops, wr.Operation)
			if wr.State != ocitest.WorkRequestSucceeded {
				t.Errorf("work request %s ended %s: %v", wr.Operation, wr.State, wr.Errors)
			}
		}
		want := []string{"CreateBackendSet", "CreateListener", "DeleteBackendSet", "DeleteListener"}
		if diff := cmp.Diff(want, slices.Sorted(slices.Values(ops))); diff != "" {
			t.Fatalf("port-change work requests (-want +got):\n%s", diff)
		}
		before := func(a, b string) bool { return slices.Index(ops, a) < slices.Index(ops, b) }
		if !before("CreateBackendSet", "CreateListener") || !before("DeleteListener", "DeleteBackendSet") {
			t.Errorf("order %v: a listener must follow its new backend set, and an old backend set its listener's removal", ops)
		}
	})

	t.Run("the TLS listener presents a new certificate and the old one is deleted after the switch", func(t *testing.T) {
		if got.CertBefore == "" || got.CertAfter == "" || got.CertAfter == got.CertBefore {
			t.Errorf("listener certificate %q → %q, want a change to a new certificate", got.CertBefore, got.CertAfter)
		}
		if diff := cmp.Diff([]string{got.CertAfter}, got.CertsAfter); diff != "" {
			t.Errorf("certificates on the load balancer (-want +got):\n%s", diff)
		}
		var ops []string
		for _, wr := range got.Rotation {
			ops = append(ops, wr.Operation+" "+wr.State)
		}
		want := []string{"CreateCertificate SUCCEEDED", "UpdateListener SUCCEEDED", "DeleteCertificate SUCCEEDED"}
		if diff := cmp.Diff(want, ops); diff != "" {
			t.Errorf("rotation work requests (-want +got):\n%s", diff)
		}
	})

	t.Run("the deleted Service's load balancer is gone", func(t *testing.T) {
		if !got.DeletedGone {
			t.Error("load balancer default-api still exists")
		}
	})

	t.Run("the Service in mode NSG had its rules in NSGs and left none", func(t *testing.T) {
		// Frontend: ingress on 53, egress to the nodes' NSG on the node port and 10256; the nodes'
		// NSG: ingress from the frontend NSG on the same two ports.
		if got.NSGRules != 5 || got.NSGLeft != 0 {
			t.Errorf("NSG rules %d, left after deletion %d; want 5 and 0", got.NSGRules, got.NSGLeft)
		}
	})

	t.Run("the network load balancer has one TCP_AND_UDP listener and keeps client addresses, and is deleted", func(t *testing.T) {
		// Four demo nodes, each an instance: backends by instance OCID.
		want := map[string]string{
			"TCP-8080":       "TCP/8080, 4 backends by instance OCID, client address kept true",
			"TCP_AND_UDP-53": "TCP_AND_UDP/53, 4 backends by instance OCID, client address kept true",
		}
		if diff := cmp.Diff(want, got.NLBListeners); diff != "" {
			t.Errorf("network load balancer listeners (-want +got):\n%s", diff)
		}
		if !got.NLBGone {
			t.Error("the network load balancer of Service dns still exists after its deletion")
		}
	})

	t.Run("a rule set is created before the listener naming it, and taken off it before its deletion", func(t *testing.T) {
		ops := func(wrs []ocitest.WorkRequestInfo) []string {
			var out []string
			for _, wr := range wrs {
				if wr.State != ocitest.WorkRequestSucceeded {
					t.Errorf("work request %s ended %s: %v", wr.Operation, wr.State, wr.Errors)
				}
				out = append(out, wr.Operation)
			}
			return out
		}
		added := ops(got.RuleSetAdded)
		before := func(ops []string, a, b string) bool {
			i, j := slices.Index(ops, a), slices.Index(ops, b)
			return i >= 0 && j >= 0 && i < j
		}
		if !before(added, "CreateRuleSet", "CreateListener") || !before(added, "DeleteListener", "CreateListener") {
			t.Errorf("adding: %v; want the rule set and the old listener's removal before the HTTP listener", added)
		}
		removed := ops(got.RuleSetRemoved)
		if !before(removed, "UpdateListener", "DeleteRuleSet") {
			t.Errorf("removing: %v; want the listener updated before the rule set is deleted", removed)
		}
		if len(got.RuleSetsLeft) != 0 || got.RuleSetTagsLeft != 0 {
			t.Errorf("left after the removal: rule sets %v, %d recording tags", got.RuleSetsLeft, got.RuleSetTagsLeft)
		}
	})

	t.Run("the narration shows the plans and the calls", func(t *testing.T) {
		// Columns are padded to the widest name in each table: compare with runs of blanks folded.
		text := strings.Join(strings.Fields(out.String()), " ")
		for _, want := range []string{
			`plan for Service default/web:`,
			`+ load balancer "default-shop"`,
			`Backends: + 10.0.10.5:30080`,
			`~ listener "TCP-443" (after 1)`,
			`- load balancer "default-api"`,
			"write UpdateBackendSet 4",
			"7. Service api is deleted",
			"8. Service dns keeps its rules in network security groups (mode NSG), then is deleted",
			`+ rule set "team_header"`,
			// Deleting Service api takes its node port out of the range of the others.
			"~ lb-1 egress to 10.0.10.0/24 tcp 30080-30083 → 30080-30082",
			"~ nodes ingress from 10.0.1.0/24 tcp 30080-30083 → 30080-30082",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("output lacks %q", want)
			}
		}
	})

	t.Run("the marks are explained once, before the first plan", func(t *testing.T) {
		text := strings.Join(strings.Fields(out.String()), " ")
		if n := strings.Count(text, legendHeading); n != 1 {
			t.Fatalf("the legend's heading %q appears %d times, want once", legendHeading, n)
		}
		for _, l := range legend {
			if want := l[0] + " " + l[1]; !strings.Contains(text, want) {
				t.Errorf("the legend lacks %q", want)
			}
		}
		if l, p := strings.Index(text, legendHeading), strings.Index(text, "plan for Service"); p < 0 || l > p {
			t.Errorf("the legend (at %d) does not come before the first plan (at %d)", l, p)
		}
	})

	t.Run("the last line points to running on a cluster", func(t *testing.T) {
		lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		if last := lines[len(lines)-1]; last != nextStep || !strings.Contains(last, "README.md") {
			t.Errorf("last line %q, want %q, naming README.md", last, nextStep)
		}
	})
}
