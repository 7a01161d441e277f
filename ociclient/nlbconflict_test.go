// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	nlb "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// busyRetry retries quickly and long enough to outlast a work request of the test server.
var busyRetry = RetryPolicy{MaxAttempts: 50, BaseDelay: 10 * time.Millisecond, MaxDelay: 100 * time.Millisecond, MaxElapsed: 30 * time.Second}

func TestChangeOfABusyNLBIsRetriedUntilItsWorkRequestEnds(t *testing.T) {
	// Work requests last an hour, so the test decides when each ends: no timing assumptions.
	env := newTestEnv(t, envConfig{
		server: ocitest.Options{WorkRequestDuration: time.Hour},
		client: Options{RateLimit: noLimit, Retry: busyRetry, Poll: fastPoll},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nlbs := env.client.NetworkLoadBalancers
	created, _, err := nlbs.CreateNetworkLoadBalancer(ctx, createNLBDetails(env.srv, "svc"), "")
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	env.srv.CompleteWorkRequests()
	rename := func(name string) (string, error) {
		return nlbs.UpdateNetworkLoadBalancer(ctx, *created.Id, nlb.UpdateNetworkLoadBalancerDetails{DisplayName: common.String(name)})
	}
	first, err := rename("first")
	if err != nil {
		t.Fatalf("UpdateNetworkLoadBalancer first: %v", err)
	}
	// The second change is sent while the first one's work request runs: OCI answers 409
	// Conflict "Invalid State Transition of NLB lifeCycle state from Updating to Updating".
	type result struct {
		wr  string
		err error
	}
	done := make(chan result, 1)
	go func() {
		wr, err := rename("second")
		done <- result{wr, err}
	}()
	for env.srv.Calls().Status(http.StatusConflict) == 0 {
		if ctx.Err() != nil {
			t.Fatal("the second update was never answered 409")
		}
		time.Sleep(5 * time.Millisecond)
	}
	env.srv.CompleteWorkRequests() // the first ends; a retry of the second is now accepted
	second := <-done
	if second.err != nil {
		t.Fatalf("UpdateNetworkLoadBalancer second, sent while the NLB was busy: %v", second.err)
	}
	env.srv.CompleteWorkRequests()
	for _, wr := range []string{first, second.wr} {
		if err := nlbs.WaitForWorkRequest(ctx, wr); err != nil {
			t.Errorf("work request %s: %v", wr, err)
		}
	}
	calls := env.srv.Calls()
	if n := calls.Op(ocitest.NLB("UpdateNetworkLoadBalancer")) - calls.Status(http.StatusConflict); n != 2 {
		t.Errorf("%d accepted updates, want 2\n%s", n, calls)
	}
	got, err := nlbs.GetNetworkLoadBalancer(ctx, *created.Id)
	if err != nil || *got.DisplayName != "second" || got.LifecycleState != nlb.LifecycleStateActive {
		t.Errorf("after both: %q %s, %v; want ACTIVE \"second\"", deref(got.DisplayName), got.LifecycleState, err)
	}
}

func TestInvalidatedRetryTokenIsNotRetriedAndHasItsOwnKind(t *testing.T) {
	env := newTestEnv(t, envConfig{client: Options{RateLimit: noLimit, Retry: busyRetry, Poll: fastPoll}})
	ctx := context.Background()
	nlbs := env.client.NetworkLoadBalancers
	created, wr, err := nlbs.CreateNetworkLoadBalancer(ctx, createNLBDetails(env.srv, "svc"), "uid-1")
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	if err := nlbs.WaitForWorkRequest(ctx, wr); err != nil {
		t.Fatalf("create: %v", err)
	}
	if !env.srv.RemoveNetworkLoadBalancer(*created.Id) {
		t.Fatal("RemoveNetworkLoadBalancer found nothing")
	}
	before := env.srv.Calls()
	// The same body as the first create, so only the deletion makes OCI refuse the token.
	_, _, err = nlbs.CreateNetworkLoadBalancer(ctx, createNLBDetailsLike(created), "uid-1")
	if !IsInvalidatedRetryToken(err) {
		t.Fatalf("create with the token of a deleted NLB: %v; want 409 InvalidatedRetryToken", err)
	}
	if !IsConflict(err) || IsRetryable(err) {
		t.Errorf("IsConflict %v, IsRetryable %v; want a conflict that is not retryable", IsConflict(err), IsRetryable(err))
	}
	if n := env.srv.Calls().Since(before).Op(ocitest.NLB("CreateNetworkLoadBalancer")); n != 1 {
		t.Errorf("%d CreateNetworkLoadBalancer requests, want 1 (no retry)", n)
	}
}

// createNLBDetailsLike is the create request that made n.
func createNLBDetailsLike(n nlb.NetworkLoadBalancer) nlb.CreateNetworkLoadBalancerDetails {
	return nlb.CreateNetworkLoadBalancerDetails{CompartmentId: n.CompartmentId, DisplayName: n.DisplayName, SubnetId: n.SubnetId}
}

func TestCanceledNLBWorkRequestIsAWorkRequestErrorSayingSo(t *testing.T) {
	env := newTestEnv(t, envConfig{
		server: ocitest.Options{WorkRequestDuration: time.Hour},
		client: Options{RateLimit: noLimit, Poll: fastPoll},
	})
	ctx := context.Background()
	nlbs := env.client.NetworkLoadBalancers
	created, _, err := nlbs.CreateNetworkLoadBalancer(ctx, createNLBDetails(env.srv, "svc"), "")
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	env.srv.CompleteWorkRequests()
	wr, err := nlbs.UpdateNetworkLoadBalancer(ctx, *created.Id, nlb.UpdateNetworkLoadBalancerDetails{DisplayName: common.String("renamed")})
	if err != nil {
		t.Fatalf("UpdateNetworkLoadBalancer: %v", err)
	}
	if err := env.srv.CancelWorkRequest(wr); err != nil {
		t.Fatalf("CancelWorkRequest: %v", err)
	}
	env.srv.CompleteWorkRequests()
	err = nlbs.WaitForWorkRequest(ctx, wr)
	var wrErr *WorkRequestError
	if !errors.As(err, &wrErr) || !wrErr.Canceled {
		t.Fatalf("WaitForWorkRequest of a canceled work request: %v; want a *WorkRequestError with Canceled", err)
	}
	if want := "UPDATE_NETWORK_LOAD_BALANCER was canceled (work request " + wr + ")"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}
