// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb_test

import (
	"strings"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// TestDeletingAServiceWhoseNetworkLoadBalancerMayExistKeepsIt: a Service the upstream CCM gave a
// network load balancer (named after its UID) is not released while that network load balancer
// exists, since oci-ccm cannot delete it yet; once it is gone the deletion completes.
// Before this guard, Delete found no classic load balancer and returned nil: the Service was
// released and its network load balancer left running, unowned.
func TestDeletingAServiceWhoseNetworkLoadBalancerMayExistKeepsIt(t *testing.T) {
	e := newEnv(t)
	svc := service(func(s *v1.Service) {
		s.Annotations[string(lb.AnnotationLoadBalancerType)] = "nlb"
		s.Status.LoadBalancer.Ingress = []v1.LoadBalancerIngress{{IP: "203.0.113.9"}}
	})
	created, wr, err := e.oci.NetworkLoadBalancers.CreateNetworkLoadBalancer(ctx, networkloadbalancer.CreateNetworkLoadBalancerDetails{
		CompartmentId: common.String(e.cfg.CompartmentID), DisplayName: common.String(string(svc.UID)),
		SubnetId: common.String(subnet1)}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.oci.NetworkLoadBalancers.WaitForWorkRequest(ctx, wr); err != nil {
		t.Fatal(err)
	}
	r, err := lb.NewReconciler(lb.Options{Cluster: clusterName, Config: e.cfg, Client: e.oci.LoadBalancers,
		NetworkLoadBalancers: e.oci.NetworkLoadBalancers})
	if err != nil {
		t.Fatal(err)
	}

	before := e.srv.Calls()
	err = r.Delete(ctx, svc)
	if err == nil || !strings.Contains(err.Error(), *created.Id) {
		t.Fatalf("Delete = %v, want an error naming the network load balancer %s", err, *created.Id)
	}
	calls := e.srv.Calls().Since(before)
	if calls.Class(ocitest.ClassWrite) != 0 {
		t.Errorf("Delete wrote to OCI:\n%s", calls)
	}

	// A listing the policy refuses (404, as for a missing resource) proves nothing: kept.
	if err := e.srv.SetPolicy("Allow group ccm to manage load-balancers in tenancy"); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(ctx, svc); err == nil || !strings.Contains(err.Error(), "inspect network-load-balancers") {
		t.Errorf("Delete with the listing refused = %v, want the Service kept, naming the permission", err)
	}
	if err := e.srv.SetPolicy(); err != nil { // no policy loaded: everything allowed again
		t.Fatal(err)
	}

	wr, err = e.oci.NetworkLoadBalancers.DeleteNetworkLoadBalancer(ctx, *created.Id)
	if err == nil {
		err = e.oci.NetworkLoadBalancers.WaitForWorkRequest(ctx, wr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(ctx, svc); err != nil {
		t.Errorf("Delete after the network load balancer is gone = %v, want nil", err)
	}

	// Without a client to look, such a Service is kept: absence is never assumed.
	blind := newReconciler(t, e.oci, e.cfg, 0)
	if err := blind.Delete(ctx, svc); err == nil || !strings.Contains(err.Error(), "NetworkLoadBalancers") {
		t.Errorf("Delete without a NetworkLoadBalancers client = %v, want it kept with the reason", err)
	}
	// A Service that does not ask for one never lists them.
	before = e.srv.Calls()
	if err := r.Delete(ctx, service()); err != nil {
		t.Fatal(err)
	}
	if n := e.srv.Calls().Since(before).Op("ListNetworkLoadBalancers"); n != 0 {
		t.Errorf("an ordinary Service's deletion listed network load balancers %d times", n)
	}
}
