// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// clusterOf returns Nodes worker-from..worker-(to-1), addressed in the node range of ocitest's
// VCN (10.0.16.1 onwards, 250 per /24), spread over three availability domains.
func clusterOf(from, to int) []*v1.Node {
	var out []*v1.Node
	for i := from; i < to; i++ {
		name := fmt.Sprintf("worker-%04d", i)
		out = append(out, &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelTopologyZone: fmt.Sprintf("PHX-AD-%d", i%3+1)}},
			Spec:       v1.NodeSpec{ProviderID: "oci://ocid1.testnode.oc1.." + name},
			Status: v1.NodeStatus{Addresses: []v1.NodeAddress{
				{Type: v1.NodeInternalIP, Address: fmt.Sprintf("10.0.%d.%d", 16+i/250, 1+i%250)}}},
		})
	}
	return out
}

func withBackendSubset(value string) envOption {
	return func(s *envSettings) { s.cfg.LoadBalancer.BackendSubset = value }
}

// backendSets returns, by backend set, the addresses of its backends in OCI.
func backendSets(spec *model.Spec) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for name, bs := range spec.BackendSets {
		out[name] = map[string]bool{}
		for _, b := range bs.Backends {
			out[name][b.IP] = true
		}
	}
	return out
}

func TestAServiceOnMoreNodesThanOCIAllowsGetsALoadBalancerAndNodeChurnMovesFewBackends(t *testing.T) {
	e := newEnv(t)
	svc := service() // two ports
	nodes := clusterOf(0, 600)
	res, _ := e.ensure(t, svc, nodes, nil)
	if res.Spec.Subset != (model.Subset{Nodes: 256, Eligible: 600}) {
		t.Errorf("Subset = %+v, want 256 of 600 Nodes", res.Spec.Subset)
	}
	before := backendSets(e.only(t))
	for name, ips := range before {
		if len(ips) != 256 {
			t.Errorf("backend set %s holds %d backends in OCI, want 256 (512 over two sets: OCI's limit)", name, len(ips))
		}
	}

	// Ten Nodes join: the subset takes some of them, and OCI sees one update per backend set.
	nodes = append(nodes, clusterOf(600, 610)...)
	_, calls := e.ensure(t, svc, nodes, nil)
	if got := calls.Op("UpdateBackendSet"); got > 2 || calls.Class(ocitest.ClassWrite) != got {
		t.Errorf("10 Nodes joining: %d backend set updates of %d writes, want at most one per set:\n%s", got, calls.Class(ocitest.ClassWrite), calls)
	}
	after := backendSets(e.only(t))
	for name, ips := range after {
		moved := 0
		for ip := range ips {
			if !before[name][ip] {
				moved++
			}
		}
		// Each of the 10 joins the top 256 of 610 with odds of about 256/610; the ones that do
		// each push one member out.
		if len(ips) != 256 || moved > 10 {
			t.Errorf("backend set %s: %d backends, %d new; want 256, at most 10 new", name, len(ips), moved)
		}
	}
}

func TestWithBackendSubsetOffAServiceOverOCIsLimitsChangesNothing(t *testing.T) {
	e := newEnv(t, withBackendSubset("off"))
	before := e.srv.Calls()
	_, err := e.r.Ensure(ctx, service(), clusterOf(0, 300), nil)
	var verr *lb.ValidationError
	if !errors.As(err, &verr) || !strings.Contains(err.Error(), "300 eligible Nodes make 600 backends") {
		t.Fatalf("Ensure = %v, want a *ValidationError counting the backends", err)
	}
	if calls := e.srv.Calls().Since(before); calls.Class(ocitest.ClassWrite) != 0 || len(e.srv.LoadBalancers()) != 0 {
		t.Errorf("refused Service: %d writes, %d load balancers, want none:\n%s", calls.Class(ocitest.ClassWrite), len(e.srv.LoadBalancers()), calls)
	}
}

func TestANetworkLoadBalancerTakes512NodesPerBackendSetAnd1024InAll(t *testing.T) {
	e := newEnv(t, withNLBs())
	svc := service(asNLB) // two ports: 512 Nodes each
	e.ensure(t, svc, clusterOf(0, 1200), nil)
	for name, ips := range backendSets(e.onlyNLB(t)) {
		if len(ips) != 512 {
			t.Errorf("backend set %s holds %d backends, want 512", name, len(ips))
		}
	}
}
