// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// The upstream OCI CCM names a network load balancer "<namespace>/<name>/<uid>" and a load
// balancer "<LOAD_BALANCER_PREFIX><uid>" (a "-" appended to the prefix when it lacks one); it
// looks them up by that exact name (upstream CCM v1.35.0,
// pkg/cloudprovider/providers/oci/load_balancer_util.go, GetLoadBalancerName). These tests put
// such load balancers in ocitest, through the SDK, and check that oci-ccm takes them over in
// place: no create, no delete, same OCID, IP and name, and nothing written once taken over.

// withNamingPrefix sets loadBalancer.naming.prefix (what LOAD_BALANCER_PREFIX sets at start-up).
func withNamingPrefix(prefix string) envOption {
	return func(s *envSettings) { s.cfg.LoadBalancer.Naming.Prefix = prefix }
}

// upstreamNLBName is the upstream CCM's display name of svc's network load balancer.
func upstreamNLBName(svc *v1.Service) string {
	return svc.Namespace + "/" + svc.Name + "/" + string(svc.UID)
}

// upstreamNLB creates in ocitest, through the SDK, the network load balancer the upstream CCM
// makes for a single-stack IPv4 Service with port 80 (node port 30080) on nodes: named
// "<namespace>/<name>/<uid>", public, no ownership tags (only the Service's initial freeform
// tags), listener and backend set "TCP-80" (IPv4), FIVE_TUPLE, source not preserved (policy
// Cluster), kube-proxy's health check, one backend per Node by instance OCID. OCI's listings show
// it by the time it returns (made well before oci-ccm met the Service).
func (e *env) upstreamNLB(t *testing.T, name string, nodes []*v1.Node, tags map[string]string) networkloadbalancer.NetworkLoadBalancer {
	t.Helper()
	return e.upstreamNLBOf(t, name, nodes, tags, v1.IPv4Protocol)
}

// upstreamNLBOf is upstreamNLB for the IP families fams, in the dual-stack "public" subnet, as
// upstream builds it (load_balancer_spec.go, getBackends and getListenersNetworkLoadBalancer):
// per family a listener and backend set, "TCP-80" for IPv4 and "TCP-80-IPv6" for IPv6; IPv4
// backends by instance and address, IPv6 ones by the Node's IPv6 address; the IP version
// IPV4, IPV6 or IPV4_AND_IPV6.
func (e *env) upstreamNLBOf(t *testing.T, name string, nodes []*v1.Node, tags map[string]string, fams ...v1.IPFamily) networkloadbalancer.NetworkLoadBalancer {
	t.Helper()
	listeners := map[string]networkloadbalancer.ListenerDetails{}
	sets := map[string]networkloadbalancer.BackendSetDetails{}
	for _, fam := range fams {
		name, version := "TCP-80", networkloadbalancer.IpVersionIpv4
		if fam == v1.IPv6Protocol {
			name, version = "TCP-80-IPv6", networkloadbalancer.IpVersionIpv6
		}
		var backends []networkloadbalancer.Backend
		for i, n := range nodes {
			b := networkloadbalancer.Backend{Port: common.Int(30080), Weight: common.Int(1)}
			for _, a := range n.Status.Addresses {
				if a.Type == v1.NodeInternalIP && strings.Contains(a.Address, ":") == (fam == v1.IPv6Protocol) {
					b.IpAddress = common.String(a.Address)
				}
			}
			if fam == v1.IPv4Protocol {
				b.TargetId = common.String(e.instances[i])
			}
			backends = append(backends, b)
		}
		listeners[name] = networkloadbalancer.ListenerDetails{Name: common.String(name), DefaultBackendSetName: common.String(name),
			Port: common.Int(80), Protocol: networkloadbalancer.ListenerProtocolsTcp, IpVersion: version}
		sets[name] = networkloadbalancer.BackendSetDetails{
			Policy: networkloadbalancer.NetworkLoadBalancingPolicyFiveTuple, IsPreserveSource: common.Bool(false),
			IpVersion: version, Backends: backends,
			HealthChecker: &networkloadbalancer.HealthChecker{Protocol: networkloadbalancer.HealthCheckProtocolsHttp,
				Port: common.Int(lb.KubeProxyHealthPort), UrlPath: common.String("/healthz"), ReturnCode: common.Int(200),
				Retries: common.Int(3), IntervalInMillis: common.Int(10000), TimeoutInMillis: common.Int(3000)}}
	}
	version := networkloadbalancer.NlbIpVersionIpv4
	switch {
	case len(fams) == 2:
		version = networkloadbalancer.NlbIpVersionIpv4AndIpv6
	case fams[0] == v1.IPv6Protocol:
		version = networkloadbalancer.NlbIpVersionIpv6
	}
	created, wr, err := e.oci.NetworkLoadBalancers.CreateNetworkLoadBalancer(ctx, networkloadbalancer.CreateNetworkLoadBalancerDetails{
		CompartmentId: common.String(e.cfg.CompartmentID), DisplayName: common.String(name),
		SubnetId: common.String(e.seeded.Subnets["public"]), IsPrivate: common.Bool(false),
		IsPreserveSourceDestination: common.Bool(false), NlbIpVersion: version,
		FreeformTags: tags, Listeners: listeners, BackendSets: sets,
	}, "")
	if err == nil {
		err = e.oci.NetworkLoadBalancers.WaitForWorkRequest(ctx, wr)
	}
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(ocitest.DefaultListingLag)
	return created
}

// nlbPublicIP is the public address of the network load balancer id in ocitest.
func (e *env) nlbPublicIP(t *testing.T, id string) string {
	t.Helper()
	for _, n := range e.srv.NetworkLoadBalancers() {
		if *n.Id != id {
			continue
		}
		for _, a := range n.IpAddresses {
			if a.IsPublic != nil && *a.IsPublic {
				return *a.IpAddress
			}
		}
	}
	t.Fatalf("network load balancer %s has no public address", id)
	return ""
}

// TestUpstreamNLBNamedNamespaceNameUIDIsAdoptedInPlace: an NLB the upstream CCM made is found
// under its "<namespace>/<name>/<uid>" name, tagged in one UpdateNetworkLoadBalancer and kept as
// it is: no create or delete, same OCID, IP and name. The reconcile after it writes nothing, nor
// does a restarted process's first.
func TestUpstreamNLBNamedNamespaceNameUIDIsAdoptedInPlace(t *testing.T) {
	e := newEnv(t, withNLBs())
	svc := service(asNLB, ports(80), annotate(annotation.NLBInitialFreeformTags, `{"team":"web"}`))
	nodes := e.instanceNodes(2)
	upstream := e.upstreamNLB(t, upstreamNLBName(svc), nodes, map[string]string{"team": "web"})
	ip := e.nlbPublicIP(t, *upstream.Id)

	res, calls := e.ensure(t, svc, nodes, nil)
	if diff := cmp.Diff(map[string]int{ocitest.NLB("UpdateNetworkLoadBalancer"): 1}, nlbWrites(calls)); diff != "" {
		t.Errorf("OCI writes of the adoption (-want +got):\n%s\nplan:\n%s\ncalls:\n%s", diff, res.Plan, calls)
	}
	if res.LoadBalancerID != *upstream.Id {
		t.Errorf("Ensure used %s, want the upstream network load balancer %s", res.LoadBalancerID, *upstream.Id)
	}
	got := e.onlyNLB(t)
	if got.ID != *upstream.Id || got.Name != upstreamNLBName(svc) {
		t.Errorf("network load balancer after adoption: %s named %q, want %s named %q", got.ID, got.Name, *upstream.Id, upstreamNLBName(svc))
	}
	if e.nlbPublicIP(t, got.ID) != ip {
		t.Errorf("public IP changed from %s", ip)
	}
	if got.Owner.Cluster != clusterName || got.Owner.UID != string(svc.UID) || got.FreeformTags["team"] != "web" {
		t.Errorf("adopted network load balancer's tags %v: want the ownership tags and team=web kept", got.FreeformTags)
	}
	if l := got.Listeners["TCP-80"]; len(got.Listeners) != 1 || l.Port != 80 || l.BackendSet != "TCP-80" {
		t.Errorf("listeners %v, want upstream's TCP-80 kept", got.Listeners)
	}

	res, calls = e.ensure(t, served(svc, res), nodes, nil)
	if !res.Plan.Empty() || calls.Class(ocitest.ClassWrite) != 0 {
		t.Errorf("the reconcile after adoption wrote:\n%s\nplan:\n%s", calls, res.Plan)
	}
	before := e.srv.Calls()
	res, err := newEnvReconciler(t, e).Ensure(ctx, served(svc, res), nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	if calls := e.srv.Calls().Since(before); calls.Class(ocitest.ClassWrite) != 0 || res.LoadBalancerID != *upstream.Id {
		t.Errorf("a restarted process's first reconcile used %s and wrote:\n%s", res.LoadBalancerID, calls)
	}
	if n := len(e.srv.NetworkLoadBalancers()); n != 1 {
		t.Errorf("OCI has %d network load balancers, want the upstream one only", n)
	}
}

// TestUpstreamPrefixedLoadBalancerIsAdoptedInPlace: with the upstream CCM's LOAD_BALANCER_PREFIX
// carried over (loadBalancer.naming.prefix under the uid scheme), its load balancer named
// "<prefix>-<uid>" is found and adopted with the writes of the unprefixed migration
// (TestUpstreamLoadBalancerIsAdoptedInPlace), keeping its OCID, IP and name; the reconcile after
// it writes nothing.
func TestUpstreamPrefixedLoadBalancerIsAdoptedInPlace(t *testing.T) {
	for _, prefix := range []string{"prod", "prod-"} {
		t.Run(prefix, func(t *testing.T) {
			e := newEnv(t, withNamingPrefix(prefix))
			svc := service(annotate(annotation.SSLPorts, "443"), annotate(annotation.TLSSecret, "web-tls"))
			secrets := lb.Secrets{webTLS: tlsSecret("v1")}
			name := "prod-" + string(svc.UID)
			upstream := upstreamLoadBalancer(e, name, secrets[webTLS])
			ip := *upstream.IpAddresses[0].IpAddress

			res, calls := e.ensure(t, svc, readyNodes(2), secrets)
			wantWrites := map[string]int{"UpdateLoadBalancer": 1, "CreateCertificate": 1, "UpdateListener": 1, "DeleteCertificate": 1}
			if diff := cmp.Diff(wantWrites, writes(calls)); diff != "" {
				t.Errorf("OCI writes of the adoption (-want +got):\n%s\nplan:\n%s", diff, res.Plan)
			}
			all := e.srv.LoadBalancers()
			if len(all) != 1 || *all[0].Id != *upstream.Id {
				t.Fatalf("load balancers after adoption: %d, want only the upstream one %s", len(all), *upstream.Id)
			}
			if got := all[0]; *got.IpAddresses[0].IpAddress != ip || *got.DisplayName != name || got.FreeformTags[model.TagCluster] != clusterName {
				t.Errorf("adopted load balancer: IP %s, name %q, tags %v; want %s, %q and the ownership tags",
					*got.IpAddresses[0].IpAddress, *got.DisplayName, got.FreeformTags, ip, name)
			}
			res, calls = e.ensure(t, served(svc, res), readyNodes(2), secrets)
			if !res.Plan.Empty() || len(writes(calls)) != 0 {
				t.Errorf("the reconcile after adoption changed something: writes %v\n%s", writes(calls), res.Plan)
			}
		})
	}
}

// TestNewLoadBalancersAreNamedAsUpstreamNamesThem: under the uid scheme a new network load
// balancer is named "<namespace>/<name>/<uid>" and, with a prefix, a new load balancer
// "<prefix>-<uid>", the names the upstream CCM looks up: a rollback to it finds them.
func TestNewLoadBalancersAreNamedAsUpstreamNamesThem(t *testing.T) {
	e := newEnv(t, withNLBs(), withNamingPrefix("prod"))
	svc := service(ports(80))
	e.ensure(t, nlbOf(svc), e.instanceNodes(1), nil)
	if got := e.onlyNLB(t).Name; got != upstreamNLBName(svc) {
		t.Errorf("new network load balancer named %q, want %q", got, upstreamNLBName(svc))
	}
	if got := e.r.Name(nlbOf(svc)); got != upstreamNLBName(svc) {
		t.Errorf("Name of the nlb Service = %q, want %q", got, upstreamNLBName(svc))
	}
	other := service(ports(80), func(s *v1.Service) { s.Name, s.UID = "api", "3a1e2b4c-5d6f-4a7b-8c9d-0e1f2a3b4c5d" })
	e.ensure(t, other, readyNodes(1), nil)
	if got, want := e.only(t).Name, "prod-"+string(other.UID); got != want {
		t.Errorf("new load balancer named %q, want %q", got, want)
	}
}

// TestSwitchFindsTheUpstreamNamedLoadBalancerOfTheFormerKind: a Service the upstream CCM served
// with a network load balancer ("<namespace>/<name>/<uid>", untagged) is switched to lb as it
// migrates: the new load balancer is created, then the upstream NLB (found under its upstream
// name by the other kind's lookup) deleted; none is left behind.
func TestSwitchFindsTheUpstreamNamedLoadBalancerOfTheFormerKind(t *testing.T) {
	e := newEnv(t, withNLBs())
	svc := service(ports(80))
	nodes := e.instanceNodes(1)
	upstream := e.upstreamNLB(t, upstreamNLBName(svc), nodes, nil)
	old := svc.DeepCopy()
	old.Status.LoadBalancer.Ingress = []v1.LoadBalancerIngress{{IP: e.nlbPublicIP(t, *upstream.Id)}}

	res, calls := e.ensure(t, lbOf(old), nodes, nil)
	if calls.Op("CreateLoadBalancer") != 1 || calls.Op(ocitest.NLB("DeleteNetworkLoadBalancer")) != 1 {
		t.Errorf("switch calls: want one CreateLoadBalancer and one DeleteNetworkLoadBalancer:\n%s", calls)
	}
	if n := len(e.srv.NetworkLoadBalancers()); n != 0 || res.Spec.Kind != model.KindLoadBalancer {
		t.Errorf("after the switch OCI has %d network load balancers (want 0), the Service a %s", n, res.Spec.Kind)
	}
}

// TestUpstreamIPv6AndDualStackNLBsAreAdoptedInPlace: a single-stack IPv6 and a dual-stack network
// load balancer of the upstream CCM, with its listener and backend-set names ("TCP-80-IPv6" for
// IPv6) and its backends, are taken over with one UpdateNetworkLoadBalancer (the ownership tags):
// no listener or backend set replaced, same OCID and addresses, nothing written after.
func TestUpstreamIPv6AndDualStackNLBsAreAdoptedInPlace(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy v1.IPFamilyPolicy
		fams   []v1.IPFamily
	}{
		{"IPv6", v1.IPFamilyPolicySingleStack, []v1.IPFamily{v1.IPv6Protocol}},
		{"dual stack", v1.IPFamilyPolicyPreferDualStack, []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, withNLBs())
			svc := service(asNLB, ports(80), annotate(annotation.NLBSubnet, e.seeded.Subnets["public"]), func(s *v1.Service) {
				s.Spec.IPFamilyPolicy, s.Spec.IPFamilies = &tc.policy, tc.fams
			})
			nodes := e.instanceNodes(2)
			for i, n := range nodes {
				n.Status.Addresses = append(n.Status.Addresses, v1.NodeAddress{Type: v1.NodeInternalIP, Address: fmt.Sprintf("2001:db8:0:10a::%d", i+1)})
			}
			upstream := e.upstreamNLBOf(t, upstreamNLBName(svc), nodes, nil, tc.fams...)
			before, _ := e.srv.NetworkLoadBalancer(*upstream.Id)

			res, calls := e.ensure(t, svc, nodes, nil)
			if diff := cmp.Diff(map[string]int{ocitest.NLB("UpdateNetworkLoadBalancer"): 1}, nlbWrites(calls)); diff != "" {
				t.Errorf("OCI writes of the adoption (-want +got):\n%s\nplan:\n%s", diff, res.Plan)
			}
			after, _ := e.srv.NetworkLoadBalancer(*upstream.Id)
			if len(e.srv.NetworkLoadBalancers()) != 1 || res.LoadBalancerID != *upstream.Id {
				t.Fatalf("Ensure used %s; OCI has %d network load balancers, want only the upstream one", res.LoadBalancerID, len(e.srv.NetworkLoadBalancers()))
			}
			if diff := cmp.Diff(before.IpAddresses, after.IpAddresses); diff != "" {
				t.Errorf("addresses changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(before.Listeners, after.Listeners); diff != "" {
				t.Errorf("listeners changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(before.BackendSets, after.BackendSets); diff != "" {
				t.Errorf("backend sets changed (-before +after):\n%s", diff)
			}
			res, calls = e.ensure(t, served(svc, res), nodes, nil)
			if !res.Plan.Empty() || calls.Class(ocitest.ClassWrite) != 0 {
				t.Errorf("the reconcile after adoption wrote:\n%s\nplan:\n%s", calls, res.Plan)
			}
		})
	}
}
