// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// TestDefinedTagsMustBeDefinedInTheTenancy: every create and update that carries definedTags is
// refused (400 RelatedResourceNotAuthorizedOrNotFound, nothing changed) when they name a tag
// namespace or key the tenancy does not define, and accepted when they name defined ones, in any
// case. The default tenancy defines Operations.CostCenter; AddTagNamespace defines more.
func TestDefinedTagsMustBeDefinedInTheTenancy(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	noRetry := common.NoRetryPolicy()
	vcn, err := core.NewVirtualNetworkClientWithConfigurationProvider(f.srv.ConfigurationProvider())
	if err != nil {
		t.Fatal(err)
	}
	vcn.Host, vcn.Configuration.RetryPolicy, vcn.Configuration.CircuitBreaker = f.srv.URL(), &noRetry, nil
	lbID := f.createLB(t, f.basicLB("lb"))
	nlbID := f.createNLB(t, f.basicNLB("nlb"))
	sl := f.seeded.SecurityLists["public"]

	calls := map[string]func(tags map[string]map[string]any) error{
		"CreateLoadBalancer": func(tags map[string]map[string]any) error {
			d := f.basicLB("new")
			d.DefinedTags = tags
			_, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: d})
			return err
		},
		"UpdateLoadBalancer": func(tags map[string]map[string]any) error {
			_, err := f.lb.UpdateLoadBalancer(ctx, loadbalancer.UpdateLoadBalancerRequest{LoadBalancerId: &lbID,
				UpdateLoadBalancerDetails: loadbalancer.UpdateLoadBalancerDetails{DefinedTags: tags}})
			return err
		},
		"CreateNetworkLoadBalancer": func(tags map[string]map[string]any) error {
			d := f.basicNLB("new")
			d.DefinedTags = tags
			_, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: d})
			return err
		},
		"UpdateNetworkLoadBalancer": func(tags map[string]map[string]any) error {
			_, err := f.nlb.UpdateNetworkLoadBalancer(ctx, nlbapi.UpdateNetworkLoadBalancerRequest{NetworkLoadBalancerId: &nlbID,
				UpdateNetworkLoadBalancerDetails: nlbapi.UpdateNetworkLoadBalancerDetails{DefinedTags: tags}})
			return err
		},
		"CreateNetworkSecurityGroup": func(tags map[string]map[string]any) error {
			_, err := vcn.CreateNetworkSecurityGroup(ctx, core.CreateNetworkSecurityGroupRequest{
				CreateNetworkSecurityGroupDetails: core.CreateNetworkSecurityGroupDetails{
					CompartmentId: &f.comp, VcnId: common.String(f.seeded.VCN), DefinedTags: tags}})
			return err
		},
		"UpdateSecurityList": func(tags map[string]map[string]any) error {
			_, err := vcn.UpdateSecurityList(ctx, core.UpdateSecurityListRequest{SecurityListId: &sl,
				UpdateSecurityListDetails: core.UpdateSecurityListDetails{DefinedTags: tags}})
			return err
		},
	}
	f.srv.AddTagNamespace("Team", "Owner")
	for op, call := range calls {
		t.Run(op, func(t *testing.T) {
			for _, unknown := range []map[string]map[string]any{
				{"Finance": {"CostCenter": "42"}},
				{"Operations": {"Project": "x"}},
				{"Operations": {"CostCenter": "42"}, "Team": {"Lead": "x"}},
			} {
				err := call(unknown)
				wantServiceError(t, err, http.StatusBadRequest, "RelatedResourceNotAuthorizedOrNotFound")
				if err != nil && !strings.Contains(err.Error(), "tag namespaces / keys are not authorized or not found") {
					t.Errorf("%v: %v; want the tag message", unknown, err)
				}
			}
			if err := call(map[string]map[string]any{"operations": {"costcenter": "42"}, "Team": {"Owner": "me"}}); err != nil {
				t.Errorf("defined tags: %v", err)
			}
		})
	}
}

func TestTenancyTagNamespacesAreSeededAndChecked(t *testing.T) {
	srv := New(Options{EmptyTenancy: true}) // to seed a tenancy of the test's own
	t.Cleanup(srv.Close)
	ten := DefaultTenancy()
	ten.TagNamespaces = map[string][]string{"bad.ns": {"k"}, "Ops": {"has space"}}
	_, err := srv.Seed(ten)
	if err == nil || !strings.Contains(err.Error(), "bad.ns") || !strings.Contains(err.Error(), "has space") {
		t.Fatalf("Seed with bad tag names: %v; want both named", err)
	}
	ten.TagNamespaces = map[string][]string{"Ops": {"Tier"}}
	if _, err := srv.Seed(ten); err != nil {
		t.Fatal(err)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if err := srv.checkDefinedTagsLocked(map[string]map[string]any{"ops": {"TIER": "web"}}); err != nil {
		t.Errorf("a seeded tag: %v", err)
	}
	if err := srv.checkDefinedTagsLocked(map[string]map[string]any{"Operations": {"CostCenter": "42"}}); err == nil {
		t.Error("a tag the seeded tenancy does not define was accepted")
	}
}
