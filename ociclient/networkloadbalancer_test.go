// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	nlb "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func createNLBDetails(srv *ocitest.Server, name string) nlb.CreateNetworkLoadBalancerDetails {
	return nlb.CreateNetworkLoadBalancerDetails{
		CompartmentId: common.String(srv.Seeded().Compartment),
		DisplayName:   common.String(name),
		SubnetId:      common.String(srv.Seeded().Subnets["public"]),
	}
}

func TestNLBWaitForWorkRequestReturnsWhenItSucceeds(t *testing.T) {
	env := newTestEnv(t, envConfig{client: Options{Poll: fastPoll}})
	ctx := context.Background()
	created, wr, err := env.client.NetworkLoadBalancers.CreateNetworkLoadBalancer(ctx, createNLBDetails(env.srv, "tcp"), "")
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	if created.Id == nil || wr == "" {
		t.Fatalf("CreateNetworkLoadBalancer returned id %v and work request %q; want both", created.Id, wr)
	}
	if err := env.client.NetworkLoadBalancers.WaitForWorkRequest(ctx, wr); err != nil {
		t.Fatalf("WaitForWorkRequest: %v", err)
	}
	got, err := env.client.NetworkLoadBalancers.GetNetworkLoadBalancer(ctx, *created.Id)
	if err != nil || got.LifecycleState != nlb.LifecycleStateActive {
		t.Fatalf("GetNetworkLoadBalancer = %v, %v; want ACTIVE", got.LifecycleState, err)
	}
}

func TestNLBWaitForWorkRequestListsTheErrorsOfAFailure(t *testing.T) {
	env := newTestEnv(t, envConfig{client: Options{Poll: fastPoll}})
	env.srv.FailWorkRequests(func(wr ocitest.WorkRequestInfo) bool { return wr.API == ocitest.APINetworkLoadBalancer },
		"out of capacity in the subnet")
	ctx := context.Background()
	_, wr, err := env.client.NetworkLoadBalancers.CreateNetworkLoadBalancer(ctx, createNLBDetails(env.srv, "tcp"), "")
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	err = env.client.NetworkLoadBalancers.WaitForWorkRequest(ctx, wr)
	var wrErr *WorkRequestError
	if !errors.As(err, &wrErr) {
		t.Fatalf("WaitForWorkRequest error %v; want a *WorkRequestError", err)
	}
	want := &WorkRequestError{ID: wr, Operation: string(nlb.OperationTypeCreateNetworkLoadBalancer), Messages: []string{"out of capacity in the subnet"}}
	if diff := cmp.Diff(want, wrErr); diff != "" {
		t.Errorf("WorkRequestError (-want +got):\n%s", diff)
	}
	if calls := env.srv.Calls().Op(ocitest.NLB("ListWorkRequestErrors")); calls != 1 {
		t.Errorf("ListWorkRequestErrors calls = %d, want 1", calls)
	}
}

func TestNLBWaitForWorkRequestEndsWithTheContext(t *testing.T) {
	env := newTestEnv(t, envConfig{server: ocitest.Options{WorkRequestDuration: time.Hour}, client: Options{Poll: fastPoll}})
	ctx := context.Background()
	_, wr, err := env.client.NetworkLoadBalancers.CreateNetworkLoadBalancer(ctx, createNLBDetails(env.srv, "tcp"), "")
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := env.client.NetworkLoadBalancers.WaitForWorkRequest(ctx, wr); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitForWorkRequest error %v; want context.DeadlineExceeded", err)
	}
}

func TestNLBRetriedCreateReusesTheRetryToken(t *testing.T) {
	env := newTestEnv(t, envConfig{fakeClock: true})
	env.srv.InjectFault(ocitest.Fault{Operation: ocitest.NLB("CreateNetworkLoadBalancer"), AfterHandler: true, DropConnection: true, Times: 1})
	created, wr, err := env.client.NetworkLoadBalancers.CreateNetworkLoadBalancer(context.Background(), createNLBDetails(env.srv, "tcp"), "")
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	list := env.srv.NetworkLoadBalancers() // what OCI holds; a listing would not show it yet
	if len(list) != 1 || *list[0].Id != *created.Id || wr == "" {
		t.Errorf("network load balancers %d (want 1, %s), work request %q", len(list), *created.Id, wr)
	}
	if calls := env.srv.Calls().Op(ocitest.NLB("CreateNetworkLoadBalancer")); calls != 2 {
		t.Errorf("CreateNetworkLoadBalancer calls = %d, want 2", calls)
	}
}

func TestNLBListFiltersByDisplayNameAndFollowsPages(t *testing.T) {
	// Filters and paging of NLBs just created, not when a listing shows them
	// (ocitest.Options.ListingLag).
	env := newTestEnv(t, envConfig{server: ocitest.Options{PageSize: 1, ListingLag: ocitest.NoLag}, client: Options{Poll: fastPoll}})
	ctx := context.Background()
	for _, name := range []string{"a", "b", "c"} {
		if _, _, err := env.client.NetworkLoadBalancers.CreateNetworkLoadBalancer(ctx, createNLBDetails(env.srv, name), ""); err != nil {
			t.Fatal(err)
		}
	}
	all, err := env.client.NetworkLoadBalancers.ListNetworkLoadBalancers(ctx, env.srv.Seeded().Compartment, "")
	if err != nil || len(all) != 3 {
		t.Fatalf("ListNetworkLoadBalancers = %d items, %v; want 3", len(all), err)
	}
	if calls := env.srv.Calls().Op(ocitest.NLB("ListNetworkLoadBalancers")); calls != 3 {
		t.Errorf("ListNetworkLoadBalancers calls = %d, want 3 (pages of 1)", calls)
	}
	named, err := env.client.NetworkLoadBalancers.ListNetworkLoadBalancers(ctx, env.srv.Seeded().Compartment, "b")
	if err != nil || len(named) != 1 || *named[0].DisplayName != "b" {
		t.Fatalf("ListNetworkLoadBalancers(b) = %v, %v; want the one named b", named, err)
	}
}
