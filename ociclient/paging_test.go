// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func TestListsFollowEveryPage(t *testing.T) {
	env := newTestEnv(t, envConfig{server: ocitest.Options{PageSize: 2}})
	var want []string
	for i := range 7 {
		lb := env.srv.AddLoadBalancer(loadbalancer.LoadBalancer{DisplayName: common.String(fmt.Sprintf("lb-%d", i))})
		want = append(want, *lb.Id)
	}
	got, err := env.client.LoadBalancers.ListLoadBalancers(context.Background(), env.srv.Seeded().Compartment, "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, lb := range got {
		ids = append(ids, *lb.Id)
	}
	if diff := cmp.Diff(want, ids, sortStrings); diff != "" {
		t.Errorf("load balancers (-want +got):\n%s", diff)
	}
	if calls := env.srv.Calls().Op("ListLoadBalancers"); calls != 4 {
		t.Errorf("ListLoadBalancers calls = %d, want 4 pages of at most 2", calls)
	}
}

func TestListSubnetsFollowsEveryPage(t *testing.T) {
	env, vcn, subnets := subnetEnv(t, envConfig{server: ocitest.Options{PageSize: 2}},
		"10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/24", "10.0.4.0/24", "10.0.5.0/24")
	got, err := env.client.VirtualNetwork.ListSubnets(context.Background(), *vcn.CompartmentId, *vcn.Id)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(subnets) {
		t.Errorf("subnets = %d, want %d", len(got), len(subnets))
	}
	if calls := env.srv.Calls().Op("ListSubnets"); calls != 3 {
		t.Errorf("ListSubnets calls = %d, want 3", calls)
	}
}

func TestPagesRefusesARepeatedToken(t *testing.T) {
	calls := 0
	_, err := pages(context.Background(), func(context.Context, *string) ([]int, *string, error) {
		calls++
		return []int{calls}, common.String("same"), nil
	})
	if err == nil || calls != 2 {
		t.Errorf("pages = %v after %d calls; want an error after 2", err, calls)
	}
}
