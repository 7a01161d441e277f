// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"fmt"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// rulesOf counts a security list's TCP rules by "ingress <cidr> <ports> <description>" and
// "egress <cidr> <ports> <description>".
func rulesOf(l core.SecurityList) map[string]int {
	out := map[string]int{}
	port := func(o *core.TcpOptions) string {
		if o == nil || o.DestinationPortRange == nil {
			return "-"
		}
		return fmt.Sprintf("%d-%d", *o.DestinationPortRange.Min, *o.DestinationPortRange.Max)
	}
	desc := func(d *string) string {
		if d == nil {
			return ""
		}
		return *d
	}
	for _, r := range l.IngressSecurityRules {
		if *r.Protocol == "6" && r.TcpOptions != nil {
			out[fmt.Sprintf("ingress %s %s %q", *r.Source, port(r.TcpOptions), desc(r.Description))]++
		}
	}
	for _, r := range l.EgressSecurityRules {
		if *r.Protocol == "6" && r.TcpOptions != nil {
			out[fmt.Sprintf("egress %s %s %q", *r.Destination, port(r.TcpOptions), desc(r.Description))]++
		}
	}
	return out
}

func tcpRange(port int) *core.TcpOptions {
	return &core.TcpOptions{DestinationPortRange: &core.PortRange{Min: common.Int(port), Max: common.Int(port)}}
}

// TestAClusterTheUpstreamCCMRanIsTakenOverInPlace is ccm/MIGRATION.md's switch through the
// cloudprovider.Interface: a tenancy as the upstream CCM leaves it for Service web (port 80 on
// node port 30080) — a load balancer named by the Service UID, untagged, in its default fixed
// 100Mbps shape, listener and backend set TCP-80, and its security rules without a description
// in the load balancer subnets' and the node subnet's lists — and oci-ccm started with
// adoptUndescribedRules. The first sync creates and deletes nothing, keeps the OCID and address,
// and takes upstream's rules over in place (each rule once, now described as oci-ccm's); the
// second sync writes nothing.
func TestAClusterTheUpstreamCCMRanIsTakenOverInPlace(t *testing.T) {
	e := newEnv(t)
	e.cfg.LoadBalancer.AdoptUndescribedRules = true
	e.cloud, e.client = e.newCloud(t)
	web := service("web", nil, 80)

	var backends []loadbalancer.Backend
	for _, n := range e.nodes {
		backends = append(backends, loadbalancer.Backend{IpAddress: common.String(n.Status.Addresses[0].Address), Port: common.Int(30080), Weight: common.Int(1)})
	}
	upstream := e.srv.AddLoadBalancer(loadbalancer.LoadBalancer{
		CompartmentId: common.String(e.cfg.CompartmentID), DisplayName: common.String(string(web.UID)),
		ShapeName: common.String("100Mbps"), SubnetIds: e.seeded.LoadBalancerSubnets,
		Listeners: map[string]loadbalancer.Listener{"TCP-80": {Name: common.String("TCP-80"), DefaultBackendSetName: common.String("TCP-80"),
			Port: common.Int(80), Protocol: common.String("TCP"),
			ConnectionConfiguration: &loadbalancer.ConnectionConfiguration{IdleTimeout: common.Int64(300)}}},
		BackendSets: map[string]loadbalancer.BackendSet{"TCP-80": {Name: common.String("TCP-80"), Policy: common.String("ROUND_ROBIN"),
			Backends: backends,
			HealthChecker: &loadbalancer.HealthChecker{Protocol: common.String("HTTP"), Port: common.Int(lb.KubeProxyHealthPort),
				UrlPath: common.String("/healthz"), ReturnCode: common.Int(200), Retries: common.Int(3),
				IntervalInMillis: common.Int(10000), TimeoutInMillis: common.Int(3000)}}},
	})
	ip := *upstream.IpAddresses[0].IpAddress

	seeded := map[string]map[string]int{}
	for _, name := range []string{"lb-1", "lb-2", "nodes"} {
		seeded[name] = rulesOf(e.securityList(t, name))
	}
	// Upstream's rules: the listener port from anywhere and the node ports out of each load
	// balancer subnet's list, the node ports in from each load balancer subnet on the node list.
	lbCIDRs := []string{"10.0.1.0/24", "10.0.2.0/24"}
	for _, name := range []string{"lb-1", "lb-2"} {
		e.srv.EditSecurityList(e.seeded.SecurityLists[name], func(l *core.SecurityList) {
			l.IngressSecurityRules = append(l.IngressSecurityRules, core.IngressSecurityRule{Protocol: common.String("6"),
				Source: common.String("0.0.0.0/0"), TcpOptions: tcpRange(80)})
			for _, port := range []int{30080, lb.KubeProxyHealthPort} {
				l.EgressSecurityRules = append(l.EgressSecurityRules, core.EgressSecurityRule{Protocol: common.String("6"),
					Destination: common.String("10.0.10.0/24"), TcpOptions: tcpRange(port)})
			}
		})
	}
	e.srv.EditSecurityList(e.seeded.SecurityLists["nodes"], func(l *core.SecurityList) {
		for _, cidr := range lbCIDRs {
			for _, port := range []int{30080, lb.KubeProxyHealthPort} {
				l.IngressSecurityRules = append(l.IngressSecurityRules, core.IngressSecurityRule{Protocol: common.String("6"),
					Source: common.String(cidr), TcpOptions: tcpRange(port)})
			}
		}
	})

	lbs, _ := e.cloud.LoadBalancer()
	before := e.srv.Calls()
	status, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", web, e.nodes)
	if err != nil {
		t.Fatal(err)
	}
	calls := e.srv.Calls().Since(before)
	for _, op := range []string{"CreateLoadBalancer", "DeleteLoadBalancer", "CreateListener", "DeleteListener", "CreateBackendSet", "DeleteBackendSet"} {
		if n := calls.Op(op); n != 0 {
			t.Errorf("the first sync called %s %d times, want none:\n%s", op, n, calls)
		}
	}
	if len(status.Ingress) != 1 || status.Ingress[0].IP != ip {
		t.Errorf("status %+v, want upstream's address %s", status.Ingress, ip)
	}
	all := e.srv.LoadBalancers()
	if len(all) != 1 || *all[0].Id != *upstream.Id || *all[0].ShapeName != "100Mbps" {
		t.Fatalf("load balancers after the switch: %d (first %s, shape %s), want upstream's %s in its shape", len(all), *all[0].Id, *all[0].ShapeName, *upstream.Id)
	}

	owner := seclist.Owner("test-cluster")
	want := map[string]map[string]int{
		"lb-1": {`ingress 0.0.0.0/0 80-80 "` + owner + `"`: 1, `egress 10.0.10.0/24 30080-30080 "` + owner + `"`: 1, `egress 10.0.10.0/24 10256-10256 "` + owner + `"`: 1},
		"nodes": {`ingress 10.0.1.0/24 30080-30080 "` + owner + `"`: 1, `ingress 10.0.1.0/24 10256-10256 "` + owner + `"`: 1,
			`ingress 10.0.2.0/24 30080-30080 "` + owner + `"`: 1, `ingress 10.0.2.0/24 10256-10256 "` + owner + `"`: 1},
	}
	want["lb-2"] = want["lb-1"]
	for name, rules := range want {
		got := rulesOf(e.securityList(t, name))
		for k, n := range seeded[name] { // the tenancy's own rules stay
			if got[k] != n {
				t.Errorf("security list %s: seeded rule %s is there %d times, want %d", name, k, got[k], n)
			}
			delete(got, k)
		}
		if fmt.Sprint(got) != fmt.Sprint(rules) {
			t.Errorf("security list %s after the switch:\n got %v\nwant %v (upstream's rules taken over, each once)", name, got, rules)
		}
	}

	before = e.srv.Calls()
	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", web, e.nodes); err != nil {
		t.Fatal(err)
	}
	if calls := e.srv.Calls().Since(before); calls.Class(ocitest.ClassWrite) != 0 {
		t.Errorf("the second sync wrote:\n%s", calls)
	}
}
