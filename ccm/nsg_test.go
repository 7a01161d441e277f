// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"slices"
	"strings"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
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

// frontendNSGsOf returns the NSGs OCI holds tagged as the frontend NSG of default/<name>.
func frontendNSGsOf(e *env, name string) []string {
	var out []string
	for _, g := range e.srv.NetworkSecurityGroups() {
		if g.FreeformTags[model.TagService] == "default/"+name && g.LifecycleState != core.NetworkSecurityGroupLifecycleStateTerminated {
			out = append(out, *g.Id)
		}
	}
	return out
}

// withoutGrant is ocitest's default policy without the statement granting grant.
func withoutGrant(grant string) []string {
	return slices.DeleteFunc(ocitest.DefaultPolicy(), func(s string) bool { return strings.Contains(s, " "+grant+" ") })
}

// TestNSGModeLeftWhileTheGroupCannotBeDeletedKeepsItUntilItIs is the fault soak's orphan (seed
// 27): a Service left mode NSG while the policy lacked "manage network-security-groups", so
// DeleteNetworkSecurityGroup answered 404 NotAuthorizedOrNotFound for a group that still
// existed. That 404 was taken for "already gone": the sync reported success, the group was
// forgotten, and neither later syncs nor the Service's deletion looked for it again.
func TestNSGModeLeftWhileTheGroupCannotBeDeletedKeepsItUntilItIs(t *testing.T) {
	for _, tc := range []struct {
		name string
		// then is what happens once the policy is back: the Service's next sync or its deletion,
		// by this process or by a new one (a restart forgets what this one remembered).
		then    string
		restart bool
	}{
		{"next sync", "update", false},
		{"deletion", "delete", false},
		{"next sync after a restart", "update", true},
		{"deletion after a restart", "delete", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			lbs, _ := e.cloud.LoadBalancer()
			svc := service("web", map[string]string{string(annotation.SecurityRuleManagementMode): "NSG"}, 80)
			if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes); err != nil {
				t.Fatal(err)
			}
			fronts := frontendNSGsOf(e, "web")
			if len(fronts) != 1 {
				t.Fatalf("frontend NSGs %v, want 1", fronts)
			}

			if err := e.srv.SetPolicy(withoutGrant("manage network-security-groups")...); err != nil {
				t.Fatal(err)
			}
			left := service("web", nil, 80) // the Service leaves mode NSG
			err := lbs.UpdateLoadBalancer(ctxFor(t), "test-cluster", left, e.nodes)
			if err == nil {
				t.Error("the sync that could not delete the frontend NSG succeeded; want an error, so the Service is synced again")
			} else if !strings.Contains(err.Error(), "manage network-security-groups") {
				t.Errorf("error %q does not name the statement the policy lacks", err)
			}
			if got := frontendNSGsOf(e, "web"); !slices.Equal(got, fronts) {
				t.Fatalf("frontend NSGs %v, want %v still there (OCI refused the delete)", got, fronts)
			}

			if err := e.srv.SetPolicy(ocitest.DefaultPolicy()...); err != nil {
				t.Fatal(err)
			}
			if tc.restart {
				cloud, _ := e.newCloud(t)
				lbs, _ = cloud.LoadBalancer()
			}
			switch tc.then {
			case "update":
				err = lbs.UpdateLoadBalancer(ctxFor(t), "test-cluster", left, e.nodes)
			case "delete":
				err = lbs.EnsureLoadBalancerDeleted(ctxFor(t), "test-cluster", left)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := frontendNSGsOf(e, "web"); len(got) != 0 {
				t.Errorf("frontend NSGs %v outlived the %s, want none", got, tc.then)
			}
		})
	}
}

// TestFrontendNSGDeleteAnswering500IsRetriedUntilOCIConfirms: a DeleteNetworkSecurityGroup that
// answers 500, whether OCI deleted the group or not, fails the sync or the deletion, and the next
// one deletes the group (or confirms it gone): the Service's frontend NSG is never forgotten
// before OCI confirms it gone. Also when the Service moves to a network load balancer in the same
// sync.
func TestFrontendNSGDeleteAnswering500IsRetriedUntilOCIConfirms(t *testing.T) {
	for _, tc := range []struct {
		name         string
		afterHandler bool // OCI deleted the group, the answer was lost
		then         string
		toNLB        bool
	}{
		{"deletion, not applied", false, "delete", false},
		{"deletion, applied", true, "delete", false},
		{"leaving mode NSG, not applied", false, "update", false},
		{"leaving mode NSG, applied", true, "update", false},
		{"leaving mode NSG for an NLB, not applied", false, "update", true},
		{"leaving mode NSG for an NLB, applied", true, "update", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			lbs, _ := e.cloud.LoadBalancer()
			svc := service("web", map[string]string{string(annotation.SecurityRuleManagementMode): "NSG"}, 80)
			status, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes)
			if err != nil {
				t.Fatal(err)
			}
			svc.Status.LoadBalancer = *status // as the service controller records it
			if got := frontendNSGsOf(e, "web"); len(got) != 1 {
				t.Fatalf("frontend NSGs %v, want 1", got)
			}
			next := service("web", nil, 80)
			next.Status = svc.Status
			if tc.toNLB {
				next.Annotations = map[string]string{string(annotation.LoadBalancerType): "nlb"}
			}
			remove := e.srv.InjectFault(ocitest.Fault{Operation: "DeleteNetworkSecurityGroup", Status: 500, AfterHandler: tc.afterHandler})
			run := func() error {
				if tc.then == "delete" {
					return lbs.EnsureLoadBalancerDeleted(ctxFor(t), "test-cluster", svc)
				}
				_, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", next, e.nodes)
				return err
			}
			if err := run(); err == nil {
				t.Error("the sync whose DeleteNetworkSecurityGroup answered 500 succeeded")
			}
			remove()
			if err := run(); err != nil {
				t.Fatal(err)
			}
			if got := frontendNSGsOf(e, "web"); len(got) != 0 {
				t.Errorf("frontend NSGs %v outlived the %s, want none", got, tc.then)
			}
			if tc.then == "update" {
				if err := lbs.EnsureLoadBalancerDeleted(ctxFor(t), "test-cluster", next); err != nil {
					t.Fatal(err)
				}
			}
			if n, m := len(e.srv.LoadBalancers()), len(e.srv.NetworkLoadBalancers()); n+m != 0 {
				t.Errorf("%d load balancers and %d network load balancers left", n, m)
			}
		})
	}
}

// TestFrontendNSGDeleteAnswering500IsFoundAgainAfterARestart: the Service left mode NSG (for a
// network load balancer, or a classic one without NSGs) and DeleteNetworkSecurityGroup answered
// 500 without deleting the group; then the CCM restarted, so nothing in memory names the group,
// and no Service is in mode NSG any more. The new process finds the group by its tags and
// deletes it, at the Service's next sync or at its deletion.
func TestFrontendNSGDeleteAnswering500IsFoundAgainAfterARestart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		toNLB bool
		then  string
	}{
		{"to an NLB, next sync", true, "update"},
		{"to an NLB, deletion", true, "delete"},
		{"out of mode NSG, next sync", false, "update"},
		{"out of mode NSG, deletion", false, "delete"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			lbs, _ := e.cloud.LoadBalancer()
			svc := service("web", map[string]string{string(annotation.SecurityRuleManagementMode): "NSG"}, 80)
			status, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes)
			if err != nil {
				t.Fatal(err)
			}
			fronts := frontendNSGsOf(e, "web")
			if len(fronts) != 1 {
				t.Fatalf("frontend NSGs %v, want 1", fronts)
			}
			next := service("web", nil, 80)
			next.Status.LoadBalancer = *status
			if tc.toNLB {
				next.Annotations = map[string]string{string(annotation.LoadBalancerType): "nlb"}
			}
			remove := e.srv.InjectFault(ocitest.Fault{Operation: "DeleteNetworkSecurityGroup", Status: 500})
			if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", next, e.nodes); err == nil {
				t.Error("the sync whose DeleteNetworkSecurityGroup answered 500 succeeded")
			}
			remove()
			if got := frontendNSGsOf(e, "web"); !slices.Equal(got, fronts) {
				t.Fatalf("frontend NSGs %v, want %v still there (the delete was not applied)", got, fronts)
			}

			cloud, _ := e.newCloud(t) // a restart: nothing in memory names the group
			lbs, _ = cloud.LoadBalancer()
			if tc.then == "update" {
				if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", next, e.nodes); err != nil {
					t.Fatal(err)
				}
				if got := frontendNSGsOf(e, "web"); len(got) != 0 {
					t.Errorf("frontend NSGs %v outlived the next sync after the restart, want none", got)
				}
			}
			if err := lbs.EnsureLoadBalancerDeleted(ctxFor(t), "test-cluster", next); err != nil {
				t.Fatal(err)
			}
			if got := frontendNSGsOf(e, "web"); len(got) != 0 {
				t.Errorf("frontend NSGs %v outlived the Service's deletion, want none", got)
			}
			if n, m := len(e.srv.LoadBalancers()), len(e.srv.NetworkLoadBalancers()); n+m != 0 {
				t.Errorf("%d load balancers and %d network load balancers left", n, m)
			}
		})
	}
}
