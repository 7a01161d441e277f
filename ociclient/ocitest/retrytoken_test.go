// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"net/http"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

func TestRetryTokenIsHonouredFor24HoursThenForgotten(t *testing.T) {
	f, clk := clockedFixture(t, time.Minute, LBBusyQueue)
	ctx := testCtx(t)
	req := loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: f.basicLB("svc"), OpcRetryToken: common.String("uid-1")}
	create := func() string {
		t.Helper()
		resp, err := f.lb.CreateLoadBalancer(ctx, req)
		if err != nil {
			t.Fatalf("CreateLoadBalancer: %v", err)
		}
		return *resp.OpcWorkRequestId
	}
	first := create()
	clk.Advance(23*time.Hour + 59*time.Minute)
	if again := create(); again != first {
		t.Errorf("within 24 hours the token started %s, want the first work request %s", again, first)
	}
	if n := len(f.srv.LoadBalancers()); n != 1 {
		t.Fatalf("%d load balancers within 24 hours, want 1", n)
	}
	clk.Advance(2 * time.Minute)
	if later := create(); later == first {
		t.Error("after 24 hours the token still replayed the first work request")
	}
	if n := len(f.srv.LoadBalancers()); n != 2 {
		t.Errorf("%d load balancers after the token expired, want 2", n)
	}
}

func TestRetryTokenIsInvalidatedWhenItsLoadBalancerIsDeleted(t *testing.T) {
	tests := []struct {
		name   string
		nlb    bool
		delete func(t *testing.T, f *lbFixture, id string)
	}{
		{"DeleteLoadBalancer", false, func(t *testing.T, f *lbFixture, id string) {
			resp, err := f.lb.DeleteLoadBalancer(testCtx(t), loadbalancer.DeleteLoadBalancerRequest{LoadBalancerId: &id})
			if err != nil {
				t.Fatalf("DeleteLoadBalancer: %v", err)
			}
			f.mustSucceed(t, resp.OpcWorkRequestId)
		}},
		{"RemoveLoadBalancer", false, func(t *testing.T, f *lbFixture, id string) {
			if !f.srv.RemoveLoadBalancer(id) {
				t.Fatal("RemoveLoadBalancer found nothing")
			}
		}},
		{"DeleteNetworkLoadBalancer", true, func(t *testing.T, f *lbFixture, id string) {
			resp, err := f.nlb.DeleteNetworkLoadBalancer(testCtx(t), nlbapi.DeleteNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id})
			if err != nil {
				t.Fatalf("DeleteNetworkLoadBalancer: %v", err)
			}
			f.nlbMustSucceed(t, resp.OpcWorkRequestId)
		}},
		{"RemoveNetworkLoadBalancer", true, func(t *testing.T, f *lbFixture, id string) {
			if !f.srv.RemoveNetworkLoadBalancer(id) {
				t.Fatal("RemoveNetworkLoadBalancer found nothing")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newLBFixture(t, Options{})
			ctx := testCtx(t)
			create := func(token string) (string, error) {
				if tc.nlb {
					resp, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{
						CreateNetworkLoadBalancerDetails: f.basicNLB("svc"), OpcRetryToken: common.String(token)})
					if err != nil {
						return "", err
					}
					f.nlbMustSucceed(t, resp.OpcWorkRequestId)
					return *resp.Id, nil
				}
				resp, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{
					CreateLoadBalancerDetails: f.basicLB("svc"), OpcRetryToken: common.String(token)})
				if err != nil {
					return "", err
				}
				f.mustSucceed(t, resp.OpcWorkRequestId)
				return f.lbOfWork(t, *resp.OpcWorkRequestId), nil
			}
			id, err := create("uid-1")
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			if again, err := create("uid-1"); err != nil || again != id {
				t.Fatalf("retried create before the delete: %s, %v; want %s", again, err, id)
			}
			tc.delete(t, f, id)
			_, err = create("uid-1")
			wantServiceError(t, err, http.StatusConflict, "InvalidatedRetryToken")
			if _, err := create("uid-2"); err != nil {
				t.Errorf("create with a new token: %v", err)
			}
		})
	}
}

func TestRetryTokenReusedWithAnotherBodyIsRefused(t *testing.T) {
	f := newLBFixture(t, slowWork())
	ctx := testCtx(t)
	req := loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: f.basicLB("svc"), OpcRetryToken: common.String("uid-1")}
	if _, err := f.lb.CreateLoadBalancer(ctx, req); err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	req.DisplayName = common.String("other")
	_, err := f.lb.CreateLoadBalancer(ctx, req)
	wantServiceError(t, err, http.StatusConflict, "InvalidatedRetryToken")
	if n := len(f.srv.LoadBalancers()); n != 1 {
		t.Errorf("%d load balancers, want 1", n)
	}
}

// TestRetryTokenIsInvalidatedWhenThePartItCreatedIsDeleted: the token of a call that created a
// backend set or listener is refused (409 InvalidatedRetryToken) once that part is deleted, as a
// load balancer's is once the load balancer is (assumed for parts, the harder choice); before
// the delete it replays the first work request.
func TestRetryTokenIsInvalidatedWhenThePartItCreatedIsDeleted(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	lb := f.createLB(t, f.basicLB("svc"))
	nlb := f.createNLB(t, f.basicNLB("svc"))
	tests := []struct {
		name           string
		create, delete func() (*string, error)
		wait           func(t *testing.T, id *string)
	}{
		{"LB backend set", func() (*string, error) {
			resp, err := f.lb.CreateBackendSet(ctx, loadbalancer.CreateBackendSetRequest{LoadBalancerId: &lb, OpcRetryToken: common.String("bs-1"),
				CreateBackendSetDetails: loadbalancer.CreateBackendSetDetails{Name: common.String("extra"), Policy: common.String("ROUND_ROBIN"),
					HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("TCP"), Port: common.Int(10256)}}})
			return resp.OpcWorkRequestId, err
		}, func() (*string, error) {
			resp, err := f.lb.DeleteBackendSet(ctx, loadbalancer.DeleteBackendSetRequest{LoadBalancerId: &lb, BackendSetName: common.String("extra")})
			return resp.OpcWorkRequestId, err
		}, f.mustSucceed},
		{"LB listener", func() (*string, error) {
			resp, err := f.lb.CreateListener(ctx, loadbalancer.CreateListenerRequest{LoadBalancerId: &lb, OpcRetryToken: common.String("l-1"),
				CreateListenerDetails: loadbalancer.CreateListenerDetails{Name: common.String("TCP-81"), Port: common.Int(81),
					Protocol: common.String("TCP"), DefaultBackendSetName: common.String("TCP-80")}})
			return resp.OpcWorkRequestId, err
		}, func() (*string, error) {
			resp, err := f.lb.DeleteListener(ctx, loadbalancer.DeleteListenerRequest{LoadBalancerId: &lb, ListenerName: common.String("TCP-81")})
			return resp.OpcWorkRequestId, err
		}, f.mustSucceed},
		{"NLB backend set", func() (*string, error) {
			resp, err := f.nlb.CreateBackendSet(ctx, nlbapi.CreateBackendSetRequest{NetworkLoadBalancerId: &nlb, OpcRetryToken: common.String("nbs-1"),
				CreateBackendSetDetails: nlbapi.CreateBackendSetDetails{Name: common.String("extra"), Policy: nlbapi.NetworkLoadBalancingPolicyFiveTuple,
					HealthChecker: &nlbapi.HealthCheckerDetails{Protocol: nlbapi.HealthCheckProtocolsTcp, Port: common.Int(10256)}}})
			return resp.OpcWorkRequestId, err
		}, func() (*string, error) {
			resp, err := f.nlb.DeleteBackendSet(ctx, nlbapi.DeleteBackendSetRequest{NetworkLoadBalancerId: &nlb, BackendSetName: common.String("extra")})
			return resp.OpcWorkRequestId, err
		}, f.nlbMustSucceed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			first, err := tc.create()
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			tc.wait(t, first)
			if again, err := tc.create(); err != nil || *again != *first {
				t.Fatalf("retry before the delete: %v, %v; want the first work request %s", again, err, *first)
			}
			del, err := tc.delete()
			if err != nil {
				t.Fatalf("delete: %v", err)
			}
			tc.wait(t, del)
			_, err = tc.create()
			wantServiceError(t, err, http.StatusConflict, "InvalidatedRetryToken")
		})
	}
}
