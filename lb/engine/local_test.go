// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// fakeEndpoints is what Options.EndpointNodes reads: the Nodes running endpoints of each Service,
// by namespace/name; a Service not in it has unknown endpoints.
type fakeEndpoints struct {
	mu    sync.Mutex
	nodes map[string][]string
	asked int
}

func (f *fakeEndpoints) set(svc string, nodes ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.nodes == nil {
		f.nodes = map[string][]string{}
	}
	f.nodes[svc] = nodes
}

func (f *fakeEndpoints) of(svc *v1.Service) (map[string]bool, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked++
	names, ok := f.nodes[svc.Namespace+"/"+svc.Name]
	if !ok {
		return nil, false
	}
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out, true
}

func withEndpoints(f *fakeEndpoints) envOption {
	return func(s *envSettings) { s.endpoints = f.of }
}

func local(s *v1.Service) {
	s.Spec.ExternalTrafficPolicy, s.Spec.HealthCheckNodePort = v1.ServiceExternalTrafficPolicyLocal, 32100
}

// backendAddrs returns each backend set's backend addresses, sorted.
func backendAddrs(spec *model.Spec) map[string][]string {
	out := map[string][]string{}
	for name, bs := range spec.BackendSets {
		out[name] = []string{}
		for _, b := range bs.Backends {
			out[name] = append(out[name], b.IP)
		}
		slices.Sort(out[name])
	}
	return out
}

func TestExternalTrafficPolicyLocalBackendsAreTheNodesRunningItsEndpoints(t *testing.T) {
	f := &fakeEndpoints{}
	e := newEnv(t, withEndpoints(f))
	nodes := readyNodes(5)
	svc := service(local)

	// Endpoints not known yet: every Node, the health check decides (as before).
	e.ensure(t, svc, nodes, nil)
	all := []string{nodeIP(1), nodeIP(2), nodeIP(3), nodeIP(4), nodeIP(5)}
	slices.Sort(all)
	if diff := cmp.Diff(map[string][]string{"TCP-80": all, "TCP-443": all}, backendAddrs(e.only(t))); diff != "" {
		t.Errorf("endpoints unknown (-want +got):\n%s", diff)
	}

	// Two Nodes run its pods: they are the backends, and the result says why the others are not.
	f.set("default/web", "node-2", "node-4")
	res, _ := e.ensure(t, svc, nodes, nil)
	two := []string{nodeIP(2), nodeIP(4)}
	if diff := cmp.Diff(map[string][]string{"TCP-80": two, "TCP-443": two}, backendAddrs(e.only(t))); diff != "" {
		t.Errorf("endpoints on node-2 and node-4 (-want +got):\n%s", diff)
	}
	if got := slices.Sorted(maps.Keys(res.Spec.ExcludedNodes)); !slices.Equal(got, []string{"node-1", "node-3", "node-5"}) {
		t.Errorf("excluded %v, want node-1, node-3 and node-5", res.Spec.ExcludedNodes)
	}
	// A rollout moves them: node-5 joins before node-2 leaves.
	f.set("default/web", "node-2", "node-4", "node-5")
	e.ensure(t, svc, nodes, nil)
	f.set("default/web", "node-4", "node-5")
	e.ensure(t, svc, nodes, nil)
	moved := []string{nodeIP(4), nodeIP(5)}
	if diff := cmp.Diff(map[string][]string{"TCP-80": moved, "TCP-443": moved}, backendAddrs(e.only(t))); diff != "" {
		t.Errorf("after the rollout (-want +got):\n%s", diff)
	}
	// Scaled to zero: no backends, the listeners stay.
	f.set("default/web")
	e.ensure(t, svc, nodes, nil)
	got := e.only(t)
	if diff := cmp.Diff(map[string][]string{"TCP-80": {}, "TCP-443": {}}, backendAddrs(got)); diff != "" || len(got.Listeners) != 2 {
		t.Errorf("no endpoints: %d listeners, backends (-want +got):\n%s", len(got.Listeners), diff)
	}
	// A Node running an endpoint but excluded by its label stays out.
	nodes[3].Labels = map[string]string{v1.LabelNodeExcludeBalancers: "true"}
	f.set("default/web", "node-4", "node-5")
	e.ensure(t, svc, nodes, nil)
	if diff := cmp.Diff(map[string][]string{"TCP-80": {nodeIP(5)}, "TCP-443": {nodeIP(5)}}, backendAddrs(e.only(t))); diff != "" {
		t.Errorf("endpoint on an excluded Node (-want +got):\n%s", diff)
	}
}

func TestExternalTrafficPolicyClusterKeepsEveryNodeAndIsNotAsked(t *testing.T) {
	f := &fakeEndpoints{}
	f.set("default/web", "node-1")
	e := newEnv(t, withEndpoints(f))
	e.ensure(t, service(), readyNodes(3), nil)
	if got := backendAddrs(e.only(t))["TCP-80"]; len(got) != 3 || f.asked != 0 {
		t.Errorf("externalTrafficPolicy Cluster: %d backends, endpoints asked %d times; want 3 and 0", len(got), f.asked)
	}
}

// The drift check sees the load balancer as the reconcile made it: the Nodes without endpoints
// are not "missing".
func TestALocalServicesLoadBalancerHasNotDriftedForLackingNodesWithoutEndpoints(t *testing.T) {
	f := &fakeEndpoints{}
	f.set("default/web", "node-1")
	e := newEnv(t, withEndpoints(f))
	svc := service(local)
	nodes := readyNodes(3)
	res, _ := e.ensure(t, svc, nodes, nil)
	svc.Status.LoadBalancer = *res.Status
	// A second process's check, a while after the create.
	checker := e.settledReconciler(t, engine.Options{EndpointNodes: f.of})
	report, err := checker.Drift(ctx, []*v1.Service{svc}, nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Drifted) != 0 || report.Checked != 1 {
		t.Errorf("drifted: %+v (%d checked, skipped %v); want 1 checked, nothing drifted", report.Drifted, report.Checked, report.Skipped)
	}
}
