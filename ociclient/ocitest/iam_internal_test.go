// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"net/http"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

func TestEveryEmulatedOperationHasAnIAMRule(t *testing.T) {
	srv := New(Options{})
	defer srv.Close()
	if len(srv.ops) < 60 {
		t.Fatalf("only %d operations registered; is the registry recording them?", len(srv.ops))
	}
	for _, op := range srv.ops {
		if _, ok := opRules[op]; !ok {
			t.Errorf("operation %s has no entry in opRules (iam_ops.go): with a policy loaded every call is refused", op)
		}
	}
}

func TestUseLoadBalancersChangesChildrenButOnlyManageCreatesAndDeletes(t *testing.T) {
	// What each policy allows, not when: the delay is consistency_test.go's.
	f := newLBFixture(t, Options{PolicyDelay: NoLag})
	f.comp = f.srv.AddCompartment("cluster")
	id := f.createLB(t, f.basicLB("lb-1")) // no policy yet
	if err := f.srv.SetPolicy("Allow dynamic-group ccm to use load-balancers in compartment cluster"); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	resp, err := f.lb.CreateBackendSet(ctx, loadbalancer.CreateBackendSetRequest{LoadBalancerId: &id,
		CreateBackendSetDetails: loadbalancer.CreateBackendSetDetails{Name: common.String("TCP-443"),
			Policy: common.String("ROUND_ROBIN"), HealthChecker: tcpBackendSet().HealthChecker}})
	if err != nil {
		t.Fatalf("CreateBackendSet under use load-balancers: %v", err)
	}
	f.mustSucceed(t, resp.OpcWorkRequestId)
	lis, err := f.lb.CreateListener(ctx, loadbalancer.CreateListenerRequest{LoadBalancerId: &id,
		CreateListenerDetails: loadbalancer.CreateListenerDetails{Name: common.String("TCP-443"),
			DefaultBackendSetName: common.String("TCP-443"), Port: common.Int(443), Protocol: common.String("TCP")}})
	if err != nil {
		t.Fatalf("CreateListener under use load-balancers: %v", err)
	}
	f.mustSucceed(t, lis.OpcWorkRequestId)
	_, err = f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: f.basicLB("lb-2")})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
	_, err = f.lb.DeleteLoadBalancer(ctx, loadbalancer.DeleteLoadBalancerRequest{LoadBalancerId: &id})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")

	if err := f.srv.SetPolicy("Allow dynamic-group ccm to manage load-balancers in compartment cluster"); err != nil {
		t.Fatal(err)
	}
	del, err := f.lb.DeleteLoadBalancer(ctx, loadbalancer.DeleteLoadBalancerRequest{LoadBalancerId: &id})
	if err != nil {
		t.Fatalf("DeleteLoadBalancer under manage load-balancers: %v", err)
	}
	f.mustSucceed(t, del.OpcWorkRequestId)
}

func TestCreateLoadBalancerNeedsUseOnItsSubnets(t *testing.T) {
	// What each policy allows, not when: the delay is consistency_test.go's.
	f := newLBFixture(t, Options{PolicyDelay: NoLag})
	seeded := f.srv.Seeded()
	f.comp = seeded.Compartment
	d := f.basicLB("lb-1")
	d.SubnetIds = seeded.LoadBalancerSubnets
	for _, tt := range []struct {
		policy []string
		// status and code of the refusal; 0 when the create is allowed. A subnet the body names
		// and the policy does not allow is a related resource: 400; the vnics of the load
		// balancer's own compartment: 404.
		status int
		code   string
	}{
		{[]string{"Allow group g to manage load-balancers in compartment cluster"}, 400, "RelatedResourceNotAuthorizedOrNotFound"},
		{[]string{"Allow group g to manage load-balancers in compartment cluster", "Allow group g to use subnets in compartment cluster"},
			404, "NotAuthorizedOrNotFound"},
		{[]string{"Allow group g to manage load-balancers in compartment cluster", "Allow group g to use subnets in compartment cluster",
			"Allow group g to use vnics in compartment cluster"}, 0, ""},
	} {
		if err := f.srv.SetPolicy(tt.policy...); err != nil {
			t.Fatal(err)
		}
		_, err := f.lb.CreateLoadBalancer(testCtx(t), loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: d})
		if tt.status == 0 && err != nil {
			t.Errorf("policy %q: %v", tt.policy, err)
		}
		if tt.status != 0 {
			wantServiceError(t, err, tt.status, tt.code)
		}
	}
}
