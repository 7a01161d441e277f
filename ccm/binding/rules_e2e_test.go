// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package binding_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/core"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/oci-ccm/oci-ccm/ccm/binding"
	api "github.com/oci-ccm/oci-ccm/ccm/binding/v1alpha1"
	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/instances"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// rulesOf is a CCM process's security rules: a seclist Manager primed with the Services' claims,
// and the tune that hands it to the controller, which seclist waits for (Expect).
func (w *world) rulesOf(t *testing.T, services ...seclist.Claim) (*seclist.Manager, func(*binding.Options)) {
	t.Helper()
	seeded := w.srv.Seeded()
	m, err := seclist.NewManager(w.oci.VirtualNetwork, seclist.Options{Policy: seclist.Policy{Cluster: "e2e"}, ListingLag: -1})
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := instances.New(instances.Options{Compute: w.oci.Compute, VirtualNetwork: w.oci.VirtualNetwork,
		CompartmentID: seeded.Compartment, VCNID: seeded.VCN, Region: w.srv.Region()})
	if err != nil {
		t.Fatal(err)
	}
	prime := m.Expect(binding.ControllerName)
	if err := m.Prime(services); err != nil {
		t.Fatal(err)
	}
	return m, func(o *binding.Options) { o.Rules, o.Subnets, o.PrimeRules = m, nodes.Subnets, prime }
}

// owned lists the rules of cluster "e2e" in the security list named name, as
// "ingress|egress <cidr> <min>-<max>", sorted.
func (w *world) owned(t *testing.T, name string) []string {
	t.Helper()
	l, ok := w.srv.SecurityList(w.srv.Seeded().SecurityLists[name])
	if !ok {
		t.Fatalf("security list %s is gone", name)
	}
	var out []string
	ports := func(o *core.TcpOptions) string {
		if o == nil || o.DestinationPortRange == nil {
			return "all"
		}
		return fmt.Sprintf("%d-%d", *o.DestinationPortRange.Min, *o.DestinationPortRange.Max)
	}
	for _, r := range l.IngressSecurityRules {
		if r.Description != nil && *r.Description == seclist.Owner("e2e") {
			out = append(out, "ingress "+*r.Source+" "+ports(r.TcpOptions))
		}
	}
	for _, r := range l.EgressSecurityRules {
		if r.Description != nil && *r.Description == seclist.Owner("e2e") {
			out = append(out, "egress "+*r.Destination+" "+ports(r.TcpOptions))
		}
	}
	slices.Sort(out)
	return out
}

// TestANodeBindingsBackendsHaveTheirSecurityRulesForAsLongAsTheBinding: in mode All, the rules
// from the load balancer's subnets to the Nodes' subnet on the node port and the set's
// health-check port come with the binding (and no rule for the listeners, which are Terraform's),
// survive a restart of the CCM while a Service's rules in the same lists change (nothing is
// removed until the binding has synced, then removals resume), and go with the binding, also when
// it is deleted while no CCM runs.
func TestANodeBindingsBackendsHaveTheirSecurityRulesForAsLongAsTheBinding(t *testing.T) {
	w := newIdleWorld(t)
	_, tune := w.rulesOf(t)
	stop := w.run(t, tune)
	w.service(t)
	for i := 1; i <= 2; i++ {
		w.node(t, fmt.Sprintf("node-%d", i), fmt.Sprintf("10.0.10.%d", 10+i))
	}
	w.create(t, &api.BackendSetBinding{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: api.BackendSetBindingSpec{
		LoadBalancerID: w.lbID, BackendSetName: "web", ServiceRef: api.ServiceReference{Name: "web", Port: intstr.FromString("http")}}})

	// Set web's health checker probes 10256 (see terraform); the Nodes are in subnet nodes.
	nodeRules := []string{"ingress 10.0.1.0/24 10256-10256", "ingress 10.0.1.0/24 30080-30080",
		"ingress 10.0.2.0/24 10256-10256", "ingress 10.0.2.0/24 30080-30080"}
	lbRules := []string{"egress 10.0.10.0/24 10256-10256", "egress 10.0.10.0/24 30080-30080"}
	eventually(t, "the binding's backends have their rules", func() string {
		if got := condition(w.get(t, "web"), api.ConditionReady); !strings.HasPrefix(got, "True") {
			return "Ready " + got
		}
		if diff := cmp.Diff(nodeRules, w.owned(t, "nodes")); diff != "" {
			return "nodes (-want +got):\n" + diff
		}
		for _, l := range []string{"lb-1", "lb-2"} {
			if diff := cmp.Diff(lbRules, w.owned(t, l)); diff != "" {
				return l + " (-want +got):\n" + diff
			}
		}
		return ""
	})

	// A restart: the new process's seclist has the Services' claims (one Service, whose rules are
	// in the same lists) before the bindings' controller has listed its bindings. The Service's
	// write must not remove the binding's rules.
	stop()
	seeded := w.srv.Seeded()
	svc := seclist.Claim{Service: types.NamespacedName{Namespace: namespace, Name: "shop"}, Mode: config.SecurityListModeBackend,
		LBSubnets: seeded.LoadBalancerSubnets, NodeSubnets: seeded.NodeSubnets, NodePorts: []int{31000}}
	restarted, tune := w.rulesOf(t)
	if err := restarted.Reconcile(t.Context(), svc); err != nil {
		t.Fatal(err)
	}
	if got := w.owned(t, "nodes"); !slices.Contains(got, "ingress 10.0.1.0/24 30080-30080") {
		t.Fatalf("a Service's write after a restart removed a binding's rule before the binding synced: %v", got)
	}
	// Once the controller runs and the binding has synced, its claim is known: the Service's
	// next change removes its own old rule (nothing is held back any more), and the binding's stay.
	stop = w.run(t, tune)
	svc.NodePorts = []int{31001}
	withService := slices.Sorted(slices.Values(append(slices.Clone(nodeRules), "ingress 10.0.1.0/24 31001-31001", "ingress 10.0.2.0/24 31001-31001")))
	eventually(t, "after the restart the binding claims its rules again, and removals resume", func() string {
		if err := restarted.Reconcile(t.Context(), svc); err != nil {
			return err.Error()
		}
		if diff := cmp.Diff(withService, w.owned(t, "nodes")); diff != "" {
			return "nodes (-want +got):\n" + diff
		}
		return ""
	})

	// The binding is deleted while no CCM runs; the next process, which has not synced it, still
	// removes its rules at once (from the load balancer's subnets the release reads).
	stop()
	if err := w.bindings.Namespace(namespace).Delete(t.Context(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, tune = w.rulesOf(t, svc)
	w.run(t, tune)
	eventually(t, "the rules go with the binding", func() string {
		if w.get(t, "web") != nil {
			return "binding web is still there"
		}
		if diff := cmp.Diff([]string{"ingress 10.0.1.0/24 31001-31001", "ingress 10.0.2.0/24 31001-31001"}, w.owned(t, "nodes")); diff != "" {
			return "nodes (-want +got):\n" + diff
		}
		if diff := cmp.Diff([]string{"egress 10.0.10.0/24 31001-31001"}, w.owned(t, "lb-1")); diff != "" {
			return "lb-1 (-want +got):\n" + diff
		}
		return ""
	})
}
