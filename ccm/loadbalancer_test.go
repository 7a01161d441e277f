// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"errors"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/oracle/oci-go-sdk/v65/core"
	cloudprovider "k8s.io/cloud-provider"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func TestEnsureCreatesLoadBalancerAndItsSecurityRules(t *testing.T) {
	e := newEnv(t)
	lbs, ok := e.cloud.LoadBalancer()
	if !ok {
		t.Fatal("LoadBalancer() not offered")
	}
	svc := service("web", nil, 80)

	status, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes)
	if err != nil {
		t.Fatal(err)
	}
	if len(status.Ingress) != 1 || status.Ingress[0].IP == "" {
		t.Fatalf("status = %+v, want one ingress IP", status)
	}
	if got := len(e.srv.LoadBalancers()); got != 1 {
		t.Fatalf("%d load balancers in OCI, want 1", got)
	}
	if !hasIngress(e.securityList(t, "lb-1"), 80, "0.0.0.0/0") {
		t.Errorf("LB subnet list has no managed ingress on 80: %+v", e.securityList(t, "lb-1").IngressSecurityRules)
	}
	if !hasIngress(e.securityList(t, "nodes"), 30080, "10.0.1.0/24") {
		t.Errorf("node subnet list has no managed ingress from the LB subnet on node port 30080: %+v",
			e.securityList(t, "nodes").IngressSecurityRules)
	}
	if !hasIngress(e.securityList(t, "nodes"), 10256, "10.0.1.0/24") {
		t.Errorf("node subnet list has no managed ingress for kube-proxy health checks on 10256")
	}
}

func TestEnsureOfUnchangedServiceWritesNothing(t *testing.T) {
	e := newEnv(t)
	lbs, _ := e.cloud.LoadBalancer()
	svc := service("web", nil, 80)
	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes); err != nil {
		t.Fatal(err)
	}
	e.srv.ResetCalls()
	if err := lbs.UpdateLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes); err != nil {
		t.Fatal(err)
	}
	if w := e.srv.Calls().Class(ocitest.ClassWrite); w != 0 {
		t.Errorf("unchanged Service made %d OCI writes, want 0:\n%s", w, e.srv.Calls())
	}
}

func TestEnsureLoadBalancerDeletedRemovesLoadBalancerAndRules(t *testing.T) {
	e := newEnv(t)
	lbs, _ := e.cloud.LoadBalancer()
	svc := service("web", nil, 80)
	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes); err != nil {
		t.Fatal(err)
	}
	before := e.securityList(t, "nodes")

	if err := lbs.EnsureLoadBalancerDeleted(ctxFor(t), "test-cluster", svc); err != nil {
		t.Fatal(err)
	}
	if got := len(e.srv.LoadBalancers()); got != 0 {
		t.Errorf("%d load balancers left, want 0", got)
	}
	for _, name := range []string{"lb-1", "lb-2", "nodes"} {
		if n := managedRules(e.securityList(t, name)); n != 0 {
			t.Errorf("security list %s keeps %d managed rules after delete", name, n)
		}
	}
	// The user's own rules (seeded: node-to-node and ssh) survive.
	after := e.securityList(t, "nodes")
	if got, want := len(after.IngressSecurityRules), len(before.IngressSecurityRules)-managedRules(before); got != want {
		t.Errorf("node list has %d ingress rules after delete, want the user's %d", got, want)
	}
	if err := lbs.EnsureLoadBalancerDeleted(ctxFor(t), "test-cluster", svc); err != nil {
		t.Errorf("deleting again: %v, want success for an absent load balancer", err)
	}
}

func TestServiceOfAnotherLoadBalancerClassIsImplementedElsewhere(t *testing.T) {
	e := newEnv(t)
	lbs, _ := e.cloud.LoadBalancer()
	svc := service("other", nil, 80)
	class := "example.com/other"
	svc.Spec.LoadBalancerClass = &class
	e.srv.ResetCalls()
	_, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes)
	if !errors.Is(err, cloudprovider.ImplementedElsewhere) {
		t.Fatalf("err = %v, want ImplementedElsewhere", err)
	}
	if n := e.srv.Calls().Total(); n != 0 {
		t.Errorf("%d OCI calls for a Service that is not ours", n)
	}
}

func TestInvalidAnnotationChangesNothingAndNamesTheAnnotation(t *testing.T) {
	e := newEnv(t)
	lbs, _ := e.cloud.LoadBalancer()
	svc := service("bad", map[string]string{string(annotation.ShapeFlexMin): "banana"}, 80)
	e.srv.ResetCalls()
	_, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes)
	if err == nil {
		t.Fatal("invalid Service was accepted")
	}
	if !strings.Contains(err.Error(), string(annotation.ShapeFlexMin)) || !strings.Contains(err.Error(), "banana") {
		t.Errorf("error %q does not name the annotation and the value", err)
	}
	if n := e.srv.Calls().Total(); n != 0 {
		t.Errorf("%d OCI calls for an invalid Service, want 0", n)
	}
}

func TestProviderOffersOnlyLoadBalancersAndInstancesV2(t *testing.T) {
	e := newEnv(t)
	if _, ok := e.cloud.InstancesV2(); !ok {
		t.Error("InstancesV2 not offered")
	}
	for name, offered := range map[string]bool{
		"Instances": second(e.cloud.Instances()), "Zones": second(e.cloud.Zones()),
		"Clusters": second(e.cloud.Clusters()), "Routes": second(e.cloud.Routes()),
	} {
		if offered {
			t.Errorf("%s is offered, want not", name)
		}
	}
	if e.cloud.ProviderName() != "oci" {
		t.Errorf("ProviderName = %q", e.cloud.ProviderName())
	}
	disabled := *e.cfg
	disabled.LoadBalancer.Disabled = true
	cloud, err := New(&disabled, Options{ClusterName: "test-cluster", Client: e.client})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cloud.LoadBalancer(); ok {
		t.Error("LoadBalancer offered although loadBalancer.disabled is true")
	}
}

func second[T any](_ T, ok bool) bool { return ok }

func hasIngress(l core.SecurityList, port int, source string) bool {
	return slices.ContainsFunc(l.IngressSecurityRules, func(r core.IngressSecurityRule) bool {
		return isManaged(r.Description) && r.Source != nil && *r.Source == source &&
			r.TcpOptions != nil && r.TcpOptions.DestinationPortRange != nil &&
			*r.TcpOptions.DestinationPortRange.Min <= port && port <= *r.TcpOptions.DestinationPortRange.Max
	})
}

func managedRules(l core.SecurityList) int {
	n := 0
	for _, r := range l.IngressSecurityRules {
		if isManaged(r.Description) {
			n++
		}
	}
	for _, r := range l.EgressSecurityRules {
		if isManaged(r.Description) {
			n++
		}
	}
	return n
}

func isManaged(d *string) bool { return d != nil && strings.Contains(*d, "test-cluster") }

func TestNodeWithProviderIDButNoAddressYetIsABackend(t *testing.T) {
	e := newEnv(t)
	lbs, _ := e.cloud.LoadBalancer()
	fresh := e.nodes[2].DeepCopy()
	fresh.Status.Addresses = nil // initialised by the cloud-node controller a moment ago
	nodes := []*v1.Node{e.nodes[0], e.nodes[1], fresh}

	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", service("web", nil, 80), nodes); err != nil {
		t.Fatal(err)
	}
	if fresh.Status.Addresses != nil {
		t.Error("the Node passed in was modified")
	}
	lbsInOCI := e.srv.LoadBalancers()
	if len(lbsInOCI) != 1 {
		t.Fatalf("%d load balancers, want 1", len(lbsInOCI))
	}
	want := *e.srv.InstanceVNICs(e.seeded.Instances["node-3"])[0].PrivateIp
	var got []string
	for _, b := range lbsInOCI[0].BackendSets["TCP-80"].Backends {
		got = append(got, *b.IpAddress)
	}
	if !slices.Contains(got, want) || len(got) != 3 {
		t.Errorf("backends %v, want 3 including node-3's instance address %s", got, want)
	}
}

// TestDualStackNLBAdmitsIPv4AndIPv6Clients: a dual-stack network load balancer Service without
// source ranges gets ingress rules from 0.0.0.0/0 and from ::/0 on its port in its subnet's
// security list, as the upstream CCM gives it, so IPv6 clients reach it too.
func TestDualStackNLBAdmitsIPv4AndIPv6Clients(t *testing.T) {
	e := newEnv(t)
	lbs, _ := e.cloud.LoadBalancer()
	svc := service("dual", map[string]string{string(annotation.LoadBalancerType): "nlb",
		string(annotation.NLBSubnet):                     e.seeded.Subnets["public"], // a subnet with an IPv6 prefix
		string(annotation.NLBSecurityListManagementMode): "All"}, 80)
	policy := v1.IPFamilyPolicyRequireDualStack
	svc.Spec.IPFamilyPolicy, svc.Spec.IPFamilies = &policy, []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol}
	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes); err != nil {
		t.Fatal(err)
	}
	list := e.securityList(t, "public")
	for _, source := range []string{"0.0.0.0/0", "::/0"} {
		if !hasIngress(list, 80, source) {
			t.Errorf("LB subnet list has no managed ingress on 80 from %s: %+v", source, list.IngressSecurityRules)
		}
	}
}
