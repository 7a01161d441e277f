// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// lbFixture is a server with real SDK clients pointed at it, SDK retries and circuit breakers
// off so every call the test makes is exactly one request.
type lbFixture struct {
	srv  *Server
	lb   loadbalancer.LoadBalancerClient
	nlb  nlbapi.NetworkLoadBalancerClient
	comp string // the compartment tests create in: the seeded tenancy's
	// seeded is the tenancy the server started with; load balancers go in its subnets.
	seeded Seeded
}

func newLBFixture(t *testing.T, opts Options) *lbFixture {
	t.Helper()
	srv := New(opts)
	t.Cleanup(srv.Close)
	noRetry := common.NoRetryPolicy()
	lbc, err := loadbalancer.NewLoadBalancerClientWithConfigurationProvider(srv.ConfigurationProvider())
	if err != nil {
		t.Fatalf("load balancer client: %v", err)
	}
	lbc.Host = srv.URL()
	lbc.Configuration.RetryPolicy = &noRetry
	lbc.Configuration.CircuitBreaker = nil
	nlbc, err := nlbapi.NewNetworkLoadBalancerClientWithConfigurationProvider(srv.ConfigurationProvider())
	if err != nil {
		t.Fatalf("network load balancer client: %v", err)
	}
	nlbc.Host = srv.URL()
	nlbc.Configuration.RetryPolicy = &noRetry
	nlbc.Configuration.CircuitBreaker = nil
	seeded := srv.Seeded()
	return &lbFixture{srv: srv, lb: lbc, nlb: nlbc, comp: seeded.Compartment, seeded: seeded}
}

// slowWork makes work requests last an hour, so tests see them running and finish them with
// CompleteWorkRequests: no waiting, no timing assumptions.
func slowWork() Options { return Options{WorkRequestDuration: time.Hour} }

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitLBWork polls a load balancer work request until it ends and returns it with the number of
// polls it took.
func (f *lbFixture) waitLBWork(t *testing.T, id string) (loadbalancer.WorkRequest, int) {
	t.Helper()
	ctx := testCtx(t)
	for polls := 1; ; polls++ {
		resp, err := f.lb.GetWorkRequest(ctx, loadbalancer.GetWorkRequestRequest{WorkRequestId: &id})
		if err != nil {
			t.Fatalf("GetWorkRequest %s: %v", id, err)
		}
		switch resp.LifecycleState {
		case loadbalancer.WorkRequestLifecycleStateSucceeded, loadbalancer.WorkRequestLifecycleStateFailed:
			return resp.WorkRequest, polls
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// mustSucceed waits for a load balancer work request and fails the test unless it succeeded.
func (f *lbFixture) mustSucceed(t *testing.T, id *string) {
	t.Helper()
	if id == nil {
		t.Fatal("no opc-work-request-id")
	}
	wr, _ := f.waitLBWork(t, *id)
	if wr.LifecycleState != loadbalancer.WorkRequestLifecycleStateSucceeded {
		t.Fatalf("work request %s (%s) %s: %s", *id, deref(wr.Type), wr.LifecycleState, deref(wr.Message))
	}
}

// mustFail waits for a load balancer work request, requires FAILED and returns its error message.
func (f *lbFixture) mustFail(t *testing.T, id *string) string {
	t.Helper()
	if id == nil {
		t.Fatal("no opc-work-request-id")
	}
	wr, _ := f.waitLBWork(t, *id)
	if wr.LifecycleState != loadbalancer.WorkRequestLifecycleStateFailed || len(wr.ErrorDetails) != 1 {
		t.Fatalf("work request %s: state %s, errors %d; want FAILED with one error", *id, wr.LifecycleState, len(wr.ErrorDetails))
	}
	return deref(wr.ErrorDetails[0].Message)
}

// waitNLBWork polls a network load balancer work request until it ends.
func (f *lbFixture) waitNLBWork(t *testing.T, id *string) nlbapi.WorkRequest {
	t.Helper()
	if id == nil {
		t.Fatal("no opc-work-request-id")
	}
	ctx := testCtx(t)
	for {
		resp, err := f.nlb.GetWorkRequest(ctx, nlbapi.GetWorkRequestRequest{WorkRequestId: id})
		if err != nil {
			t.Fatalf("GetWorkRequest %s: %v", *id, err)
		}
		switch resp.Status {
		case nlbapi.OperationStatusSucceeded, nlbapi.OperationStatusFailed:
			return resp.WorkRequest
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (f *lbFixture) nlbMustSucceed(t *testing.T, id *string) {
	t.Helper()
	if wr := f.waitNLBWork(t, id); wr.Status != nlbapi.OperationStatusSucceeded {
		t.Fatalf("work request %s (%s) %s", *id, wr.OperationType, wr.Status)
	}
}

// serviceError returns the OCI status and code of err, failing the test when err is not a
// service error.
func serviceError(t *testing.T, err error) (int, string) {
	t.Helper()
	var se common.ServiceError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not an OCI service error", err)
	}
	return se.GetHTTPStatusCode(), se.GetCode()
}

// wantServiceError requires err to be an OCI error with this status and code.
func wantServiceError(t *testing.T, err error, status int, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got success, want %d %s", status, code)
	}
	if gotStatus, gotCode := serviceError(t, err); gotStatus != status || gotCode != code {
		t.Fatalf("got %d %s (%v), want %d %s", gotStatus, gotCode, err, status, code)
	}
}

// basicLB is a valid create request: one TCP listener on a backend set with one backend.
func (f *lbFixture) basicLB(name string) loadbalancer.CreateLoadBalancerDetails {
	return loadbalancer.CreateLoadBalancerDetails{
		CompartmentId: common.String(f.comp),
		DisplayName:   common.String(name),
		ShapeName:     common.String("flexible"),
		ShapeDetails: &loadbalancer.ShapeDetails{
			MinimumBandwidthInMbps: common.Int(10), MaximumBandwidthInMbps: common.Int(100),
		},
		SubnetIds: f.seeded.LoadBalancerSubnets,
		Listeners: map[string]loadbalancer.ListenerDetails{
			"TCP-80": {DefaultBackendSetName: common.String("TCP-80"), Port: common.Int(80), Protocol: common.String("TCP")},
		},
		BackendSets: map[string]loadbalancer.BackendSetDetails{
			"TCP-80": tcpBackendSet("10.0.10.1"),
		},
		FreeformTags: map[string]string{"cluster": "test"},
	}
}

func tcpBackendSet(ips ...string) loadbalancer.BackendSetDetails {
	bs := loadbalancer.BackendSetDetails{
		Policy:        common.String("ROUND_ROBIN"),
		HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("TCP"), Port: common.Int(10256)},
		Backends:      []loadbalancer.BackendDetails{},
	}
	for _, ip := range ips {
		bs.Backends = append(bs.Backends, loadbalancer.BackendDetails{IpAddress: common.String(ip), Port: common.Int(30080)})
	}
	return bs
}

// createLB creates a load balancer, waits for it to become ACTIVE and returns its OCID.
func (f *lbFixture) createLB(t *testing.T, d loadbalancer.CreateLoadBalancerDetails) string {
	t.Helper()
	resp, err := f.lb.CreateLoadBalancer(testCtx(t), loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: d})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	f.mustSucceed(t, resp.OpcWorkRequestId)
	return f.lbOfWork(t, *resp.OpcWorkRequestId)
}

// createLBOrRefused sends a create: one that ok is false for must be refused with 400
// InvalidParameter, another must be accepted and its work request succeed.
func (f *lbFixture) createLBOrRefused(t *testing.T, d loadbalancer.CreateLoadBalancerDetails, ok bool) {
	t.Helper()
	resp, err := f.lb.CreateLoadBalancer(testCtx(t), loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: d})
	if !ok {
		wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
		return
	}
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	f.mustSucceed(t, resp.OpcWorkRequestId)
}

// lbOfWork is the load balancer a work request belongs to.
func (f *lbFixture) lbOfWork(t *testing.T, wrID string) string {
	t.Helper()
	resp, err := f.lb.GetWorkRequest(testCtx(t), loadbalancer.GetWorkRequestRequest{WorkRequestId: &wrID})
	if err != nil {
		t.Fatalf("GetWorkRequest: %v", err)
	}
	return *resp.LoadBalancerId
}

func (f *lbFixture) getLB(t *testing.T, id string) loadbalancer.LoadBalancer {
	t.Helper()
	resp, err := f.lb.GetLoadBalancer(testCtx(t), loadbalancer.GetLoadBalancerRequest{LoadBalancerId: &id})
	if err != nil {
		t.Fatalf("GetLoadBalancer: %v", err)
	}
	return resp.LoadBalancer
}
