// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"errors"
	"testing"

	cloudprovider "k8s.io/cloud-provider"

	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// A new install through the cloud-provider interface, on ocitest's default policy delay and
// listing lag: the operator has just written the documented policy over a tenancy that allowed
// the CCM nothing, and for ocitest.DefaultPolicyDelay every call still answers 404
// NotAuthorizedOrNotFound. Neither the Cloud that made the Service's load balancer nor one just
// started reports a live Node gone or shut down (the node lifecycle controller would delete or
// taint it), or the load balancer absent (the service controller would make a second one, or
// release the finalizer and orphan it). Once the policy is in force both answer rightly, and
// the Service has exactly one load balancer.
func TestNewInstallsPropagatingPolicyThroughTheCloudProviderInterface(t *testing.T) {
	ctx := ctxFor(t)
	e := newLaggingEnv(t, &ocitest.Clock{})
	svc := service("web", nil, 80)
	lbs, _ := e.cloud.LoadBalancer()
	status, err := lbs.EnsureLoadBalancer(ctx, "test-cluster", svc, e.nodes)
	if err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer = *status
	if n := len(e.srv.LoadBalancers()); n != 1 {
		t.Fatalf("OCI holds %d load balancers, want 1", n)
	}
	restarted, _ := e.newCloud(t)
	clouds := []*Cloud{e.cloud, restarted}

	e.srv.DenyAll()
	if err := e.srv.SetPolicy(ocitest.DefaultPolicy()...); err != nil {
		t.Fatal(err)
	}
	for i, c := range clouds {
		nodes, _ := c.InstancesV2()
		for _, node := range e.nodes {
			if exists, err := nodes.InstanceExists(ctx, node); err == nil || exists {
				t.Errorf("Cloud %d, policy propagating: InstanceExists(%s) = %v, %v; want false and an error", i, node.Name, exists, err)
			}
			if down, err := nodes.InstanceShutdown(ctx, node); err == nil || down || errors.Is(err, cloudprovider.InstanceNotFound) {
				t.Errorf("Cloud %d, policy propagating: InstanceShutdown(%s) = %v, %v; want false and an error that is not InstanceNotFound", i, node.Name, down, err)
			}
		}
		lbs, _ := c.LoadBalancer()
		if st, exists, err := lbs.GetLoadBalancer(ctx, "test-cluster", svc); err == nil || exists {
			t.Errorf("Cloud %d, policy propagating: GetLoadBalancer = %v, %v, %v; want an error", i, st, exists, err)
		}
		if st, err := lbs.EnsureLoadBalancer(ctx, "test-cluster", svc, e.nodes); err == nil {
			t.Errorf("Cloud %d, policy propagating: EnsureLoadBalancer = %v, nil; want an error", i, st)
		}
		if err := lbs.EnsureLoadBalancerDeleted(ctx, "test-cluster", svc); err == nil {
			t.Errorf("Cloud %d, policy propagating: EnsureLoadBalancerDeleted = nil (the finalizer would be released); want an error", i)
		}
	}
	if n := len(e.srv.LoadBalancers()); n != 1 {
		t.Fatalf("policy propagating: OCI holds %d load balancers, want 1", n)
	}

	// Both Clouds counted every Node's ambiguous 404s (a fresh listing was asked each time).
	if got := e.counted.Count("instances", ociclient.ConsistencyAmbiguousNotFound); got < 2*2*len(e.nodes) {
		t.Errorf("ambiguous 404s counted: %d, want at least %d (two questions per Node and Cloud)", got, 2*2*len(e.nodes))
	}

	e.clock.Advance(ocitest.DefaultPolicyDelay)
	for i, c := range []*Cloud{restarted, e.cloud} {
		nodes, _ := c.InstancesV2()
		for _, node := range e.nodes {
			if exists, err := nodes.InstanceExists(ctx, node); !exists || err != nil {
				t.Errorf("Cloud %d, in force: InstanceExists(%s) = %v, %v; want true, nil", i, node.Name, exists, err)
			}
			if down, err := nodes.InstanceShutdown(ctx, node); down || err != nil {
				t.Errorf("Cloud %d, in force: InstanceShutdown(%s) = %v, %v; want false, nil", i, node.Name, down, err)
			}
		}
		lbs, _ := c.LoadBalancer()
		if st, exists, err := lbs.GetLoadBalancer(ctx, "test-cluster", svc); !exists || err != nil || len(st.Ingress) == 0 ||
			st.Ingress[0].IP != status.Ingress[0].IP {
			t.Errorf("Cloud %d, in force: GetLoadBalancer = %v, %v, %v; want the load balancer at %s", i, st, exists, err, status.Ingress[0].IP)
		}
		if _, err := lbs.EnsureLoadBalancer(ctx, "test-cluster", svc, e.nodes); err != nil {
			t.Fatalf("Cloud %d, in force: EnsureLoadBalancer: %v", i, err)
		}
		if n := len(e.srv.LoadBalancers()); n != 1 {
			t.Fatalf("Cloud %d, in force: OCI holds %d load balancers, want exactly 1", i, n)
		}
	}
	lbs, _ = restarted.LoadBalancer()
	if err := lbs.EnsureLoadBalancerDeleted(ctx, "test-cluster", svc); err != nil {
		t.Fatalf("in force: EnsureLoadBalancerDeleted: %v", err)
	}
	if n := len(e.srv.LoadBalancers()); n != 0 {
		t.Errorf("in force: OCI holds %d load balancers after EnsureLoadBalancerDeleted, want none", n)
	}
}

// consistencyCounts is an ociclient.Metrics that counts only the waits for eventual
// consistency (ociclient.ConsistencyObserver), by component and reason.
type consistencyCounts struct {
	ociclient.NopMetrics
	ociclient.ConsistencyCounts
}
