// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
)

// A small VCN: two LB subnets with their own lists, a node subnet, a subnet with two lists, and
// one with none.
var testSubnets = map[string]Subnet{
	"lb-a":   {ID: "lb-a", CIDR: "10.0.1.0/24", SecurityListIDs: []string{"sl-lb-a", "sl-default"}},
	"lb-b":   {ID: "lb-b", CIDR: "10.0.2.0/24", SecurityListIDs: []string{"sl-lb-b"}},
	"nodes":  {ID: "nodes", CIDR: "10.0.10.0/24", SecurityListIDs: []string{"sl-nodes"}},
	"shared": {ID: "shared", CIDR: "10.0.20.0/24", SecurityListIDs: []string{"sl-shared"}},
	"bare":   {ID: "bare", CIDR: "10.0.30.0/24"},
}

func in(cidr string, port int) Rule  { return tcp(Ingress, cidr, port) }
func out(cidr string, port int) Rule { return tcp(Egress, cidr, port) }

func span(d Direction, cidr string, lo, hi int) Rule {
	return Rule{Direction: d, CIDR: cidr, Protocol: ProtocolTCP, Ports: PortRange{Min: lo, Max: hi}}
}

// web is a typical Service: one LB subnet, one node subnet, two ports, eTP Cluster.
func web(mode config.SecurityListMode) Claim {
	return Claim{
		Service: types.NamespacedName{Namespace: "default", Name: "web"}, Mode: mode,
		LBSubnets: []string{"lb-a"}, NodeSubnets: []string{"nodes"},
		ListenerPorts: []int{80, 443}, NodePorts: []int{30080, 30443}, HealthCheckPort: lb.KubeProxyHealthPort,
	}
}

func TestDesired(t *testing.T) {
	policy := Policy{Cluster: "prod"}
	webFront := NewRuleSet(in(AnyIPv4, 80), in(AnyIPv4, 443))
	webLBEgress := []Rule{out("10.0.10.0/24", 30080), out("10.0.10.0/24", 30443), out("10.0.10.0/24", 10256)}
	webNodeIngress := NewRuleSet(in("10.0.1.0/24", 30080), in("10.0.1.0/24", 30443), in("10.0.1.0/24", 10256))
	union := func(a RuleSet, rules ...Rule) RuleSet {
		s := NewRuleSet(rules...)
		for r := range a {
			s.Add(r)
		}
		return s
	}

	tests := []struct {
		name    string
		policy  Policy
		claims  []Claim
		want    map[string]RuleSet
		wantErr error
	}{
		{
			name:   "mode All opens listeners to sources, LB to nodes, and nodes to the LB",
			claims: []Claim{web(config.SecurityListModeAll)},
			want:   map[string]RuleSet{"sl-lb-a": union(webFront, webLBEgress...), "sl-nodes": webNodeIngress},
		},
		{
			name:   "mode Frontend manages LB-subnet ingress only",
			claims: []Claim{web(config.SecurityListModeFrontend)},
			want:   map[string]RuleSet{"sl-lb-a": webFront},
		},
		{
			name:   "mode Backend manages LB egress and node ingress only",
			claims: []Claim{web(config.SecurityListModeBackend)},
			want:   map[string]RuleSet{"sl-lb-a": NewRuleSet(webLBEgress...), "sl-nodes": webNodeIngress},
		},
		{
			name:   "mode None manages nothing",
			claims: []Claim{web(config.SecurityListModeNone)},
			want:   map[string]RuleSet{},
		},
		{
			name:   "an empty mode takes the configured default",
			policy: Policy{Cluster: "prod", DefaultMode: config.SecurityListModeFrontend},
			claims: []Claim{web("")},
			want:   map[string]RuleSet{"sl-lb-a": webFront},
		},
		{
			name:   "an empty mode with no configured default means All",
			claims: []Claim{web("")},
			want:   map[string]RuleSet{"sl-lb-a": union(webFront, webLBEgress...), "sl-nodes": webNodeIngress},
		},
		{
			name:   "a Service's mode overrides the configured default",
			policy: Policy{Cluster: "prod", DefaultMode: config.SecurityListModeNone},
			claims: []Claim{web(config.SecurityListModeFrontend)},
			want:   map[string]RuleSet{"sl-lb-a": webFront},
		},
		{
			name: "two Services sharing a port and the kube-proxy health port make one rule each",
			claims: []Claim{
				{Service: types.NamespacedName{Namespace: "a", Name: "one"}, LBSubnets: []string{"lb-a"}, NodeSubnets: []string{"nodes"},
					ListenerPorts: []int{80}, NodePorts: []int{30001}, HealthCheckPort: 10256},
				{Service: types.NamespacedName{Namespace: "b", Name: "two"}, LBSubnets: []string{"lb-a"}, NodeSubnets: []string{"nodes"},
					ListenerPorts: []int{80, 8080}, NodePorts: []int{30005, 30009}, HealthCheckPort: 10256},
			},
			want: map[string]RuleSet{
				"sl-lb-a": NewRuleSet(in(AnyIPv4, 80), in(AnyIPv4, 8080),
					out("10.0.10.0/24", 30001), out("10.0.10.0/24", 30005), out("10.0.10.0/24", 30009), out("10.0.10.0/24", 10256)),
				"sl-nodes": NewRuleSet(in("10.0.1.0/24", 30001), in("10.0.1.0/24", 30005), in("10.0.1.0/24", 30009), in("10.0.1.0/24", 10256)),
			},
		},
		{
			name: "adjacent ports of one or several Services make one rule with a port range",
			claims: []Claim{
				{Service: types.NamespacedName{Namespace: "a", Name: "one"}, LBSubnets: []string{"lb-a"}, NodeSubnets: []string{"nodes"},
					ListenerPorts: []int{8080, 8081, 443}, NodePorts: []int{30001, 30002, 30010}, HealthCheckPort: 10256},
				{Service: types.NamespacedName{Namespace: "b", Name: "two"}, LBSubnets: []string{"lb-a"}, NodeSubnets: []string{"nodes"},
					ListenerPorts: []int{8082}, NodePorts: []int{30003}, HealthCheckPort: 10256},
			},
			want: map[string]RuleSet{
				"sl-lb-a": NewRuleSet(in(AnyIPv4, 443), span(Ingress, AnyIPv4, 8080, 8082),
					span(Egress, "10.0.10.0/24", 30001, 30003), out("10.0.10.0/24", 30010), out("10.0.10.0/24", 10256)),
				"sl-nodes": NewRuleSet(span(Ingress, "10.0.1.0/24", 30001, 30003), in("10.0.1.0/24", 30010), in("10.0.1.0/24", 10256)),
			},
		},
		{
			name:   "an open node port range replaces every node port rule, and keeps ports outside it",
			policy: Policy{Cluster: "prod", NodePortRange: PortRange{Min: 30000, Max: 32767}},
			claims: []Claim{
				{Service: types.NamespacedName{Namespace: "a", Name: "one"}, LBSubnets: []string{"lb-a", "lb-b"}, NodeSubnets: []string{"nodes"},
					ListenerPorts: []int{80}, NodePorts: []int{30001, 31000}, HealthCheckPort: 10256},
				{Service: types.NamespacedName{Namespace: "b", Name: "local"}, LBSubnets: []string{"lb-a"}, NodeSubnets: []string{"nodes"},
					ListenerPorts: []int{80}, NodePorts: []int{32000}, HealthCheckPort: 32001}, // eTP Local
				{Service: types.NamespacedName{Namespace: "c", Name: "odd"}, LBSubnets: []string{"lb-a"}, NodeSubnets: []string{"nodes"},
					ListenerPorts: []int{81}, NodePorts: []int{40000}, HealthCheckPort: 10256}, // outside the range
			},
			want: map[string]RuleSet{
				"sl-lb-a": NewRuleSet(span(Ingress, AnyIPv4, 80, 81), span(Egress, "10.0.10.0/24", 30000, 32767),
					out("10.0.10.0/24", 10256), out("10.0.10.0/24", 40000)),
				"sl-lb-b": NewRuleSet(in(AnyIPv4, 80), span(Egress, "10.0.10.0/24", 30000, 32767), out("10.0.10.0/24", 10256)),
				"sl-nodes": NewRuleSet(span(Ingress, "10.0.1.0/24", 30000, 32767), in("10.0.1.0/24", 10256), in("10.0.1.0/24", 40000),
					span(Ingress, "10.0.2.0/24", 30000, 32767), in("10.0.2.0/24", 10256)),
			},
		},
		{
			name:   "an open node port range leaves mode Frontend alone",
			policy: Policy{Cluster: "prod", NodePortRange: PortRange{Min: 30000, Max: 32767}},
			claims: []Claim{web(config.SecurityListModeFrontend)},
			want:   map[string]RuleSet{"sl-lb-a": webFront},
		},
		{
			name: "loadBalancerSourceRanges replace the default and are canonicalised",
			claims: []Claim{{Service: types.NamespacedName{Namespace: "a", Name: "one"}, Mode: config.SecurityListModeFrontend, LBSubnets: []string{"lb-a"},
				ListenerPorts: []int{443}, SourceCIDRs: []string{"192.168.0.0/16", " 172.16.5.9/12", "192.168.0.0/16"}}},
			want: map[string]RuleSet{"sl-lb-a": NewRuleSet(in("192.168.0.0/16", 443), in("172.16.0.0/12", 443))},
		},
		{
			name:   "the configured default source CIDRs apply when a Service sets none",
			policy: Policy{Cluster: "prod", DefaultSourceCIDRs: []string{"10.0.0.0/8"}},
			claims: []Claim{{Service: types.NamespacedName{Namespace: "a", Name: "one"}, Mode: config.SecurityListModeFrontend, LBSubnets: []string{"lb-a"}, ListenerPorts: []int{443}}},
			want:   map[string]RuleSet{"sl-lb-a": NewRuleSet(in("10.0.0.0/8", 443))},
		},
		{
			name: "externalTrafficPolicy Local health-checks healthCheckNodePort, not 10256",
			claims: []Claim{{Service: types.NamespacedName{Namespace: "a", Name: "local"}, Mode: config.SecurityListModeBackend, LBSubnets: []string{"lb-a"}, NodeSubnets: []string{"nodes"},
				ListenerPorts: []int{80}, NodePorts: []int{30080}, HealthCheckPort: 31999}},
			want: map[string]RuleSet{
				"sl-lb-a":  NewRuleSet(out("10.0.10.0/24", 30080), out("10.0.10.0/24", 31999)),
				"sl-nodes": NewRuleSet(in("10.0.1.0/24", 30080), in("10.0.1.0/24", 31999)),
			},
		},
		{
			name: "a health-check port equal to a node port is one rule",
			claims: []Claim{{Service: types.NamespacedName{Namespace: "a", Name: "one"}, Mode: config.SecurityListModeBackend, LBSubnets: []string{"lb-a"}, NodeSubnets: []string{"nodes"},
				ListenerPorts: []int{80}, NodePorts: []int{30080}, HealthCheckPort: 30080}},
			want: map[string]RuleSet{
				"sl-lb-a":  NewRuleSet(out("10.0.10.0/24", 30080)),
				"sl-nodes": NewRuleSet(in("10.0.1.0/24", 30080)),
			},
		},
		{
			name: "two LB subnets: each list gets ingress and egress, nodes admit both CIDRs",
			claims: []Claim{{Service: types.NamespacedName{Namespace: "a", Name: "one"}, LBSubnets: []string{"lb-a", "lb-b"}, NodeSubnets: []string{"nodes"},
				ListenerPorts: []int{80}, NodePorts: []int{30080}}},
			want: map[string]RuleSet{
				"sl-lb-a":  NewRuleSet(in(AnyIPv4, 80), out("10.0.10.0/24", 30080)),
				"sl-lb-b":  NewRuleSet(in(AnyIPv4, 80), out("10.0.10.0/24", 30080)),
				"sl-nodes": NewRuleSet(in("10.0.1.0/24", 30080), in("10.0.2.0/24", 30080)),
			},
		},
		{
			name: "LB and nodes in one subnet put every rule in its one list",
			claims: []Claim{{Service: types.NamespacedName{Namespace: "a", Name: "one"}, LBSubnets: []string{"shared"}, NodeSubnets: []string{"shared"},
				ListenerPorts: []int{80}, NodePorts: []int{30080}}},
			want: map[string]RuleSet{"sl-shared": NewRuleSet(in(AnyIPv4, 80), out("10.0.20.0/24", 30080), in("10.0.20.0/24", 30080))},
		},
		{
			name:   "the configured list for a subnet wins over its first list",
			policy: Policy{Cluster: "prod", SecurityLists: map[string]string{"lb-a": "sl-default"}},
			claims: []Claim{{Service: types.NamespacedName{Namespace: "a", Name: "one"}, Mode: config.SecurityListModeFrontend, LBSubnets: []string{"lb-a"}, ListenerPorts: []int{80}}},
			want:   map[string]RuleSet{"sl-default": NewRuleSet(in(AnyIPv4, 80))},
		},
		{
			name:    "a configured list not attached to the subnet is an error, and nothing goes elsewhere",
			policy:  Policy{Cluster: "prod", SecurityLists: map[string]string{"lb-a": "sl-nodes"}},
			claims:  []Claim{web(config.SecurityListModeAll)},
			want:    map[string]RuleSet{"sl-nodes": webNodeIngress},
			wantErr: ErrListNotAttached,
		},
		{
			name: "a node subnet with no list is an error; the LB-side rules are still computed",
			claims: []Claim{{Service: types.NamespacedName{Namespace: "a", Name: "one"}, LBSubnets: []string{"lb-a"}, NodeSubnets: []string{"bare"},
				ListenerPorts: []int{80}, NodePorts: []int{30080}}},
			want:    map[string]RuleSet{"sl-lb-a": NewRuleSet(in(AnyIPv4, 80), out("10.0.30.0/24", 30080))},
			wantErr: ErrNoSecurityList,
		},
		{
			name: "an unknown subnet is an error; the rest is still computed",
			claims: []Claim{{Service: types.NamespacedName{Namespace: "a", Name: "one"}, LBSubnets: []string{"lb-a"}, NodeSubnets: []string{"gone"},
				ListenerPorts: []int{80}, NodePorts: []int{30080}}},
			want:    map[string]RuleSet{"sl-lb-a": NewRuleSet(in(AnyIPv4, 80))},
			wantErr: ErrUnknownSubnet,
		},
		{
			name:   "no claims, no rules",
			claims: nil,
			want:   map[string]RuleSet{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.policy
			if p.Cluster == "" {
				p = policy
			}
			got, err := Desired(tt.claims, testSubnets, p)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Desired() error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Desired() rules (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListsOf(t *testing.T) {
	p := Policy{Cluster: "prod"}
	tests := []struct {
		name    string
		claim   Claim
		want    []string
		wantErr error
	}{
		{name: "All touches LB and node lists", claim: web(config.SecurityListModeAll), want: []string{"sl-lb-a", "sl-nodes"}},
		{name: "Backend touches LB and node lists", claim: web(config.SecurityListModeBackend), want: []string{"sl-lb-a", "sl-nodes"}},
		{name: "Frontend touches LB lists only", claim: web(config.SecurityListModeFrontend), want: []string{"sl-lb-a"}},
		{name: "None touches nothing", claim: web(config.SecurityListModeNone)},
		{
			name:  "a list shared by LB and nodes is named once",
			claim: Claim{Service: types.NamespacedName{Namespace: "a", Name: "b"}, LBSubnets: []string{"shared"}, NodeSubnets: []string{"shared"}},
			want:  []string{"sl-shared"},
		},
		{
			name:    "a subnet with no list is reported",
			claim:   Claim{Service: types.NamespacedName{Namespace: "a", Name: "b"}, LBSubnets: []string{"lb-a"}, NodeSubnets: []string{"bare"}},
			want:    []string{"sl-lb-a"},
			wantErr: ErrNoSecurityList,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ListsOf(tt.claim, testSubnets, p)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("ListsOf() error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ListsOf() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClaimValidateReportsEveryProblem(t *testing.T) {
	c := Claim{
		Mode:          "Sometimes",
		LBSubnets:     []string{""},
		ListenerPorts: []int{0, 80},
		NodePorts:     []int{70000},
		SourceCIDRs:   []string{"10.0.0.0/33", "not-a-cidr"},
	}
	err := c.Validate()
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("Validate() = %v, want an error wrapping ErrInvalid", err)
	}
	// One error per problem: empty service, bad mode, empty subnet, two bad ports, two bad CIDRs.
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != 7 {
		t.Errorf("Validate() = %v, want 7 joined problems", err)
	}
	if err := web(config.SecurityListModeAll).Validate(); err != nil {
		t.Errorf("Validate() of a good claim = %v", err)
	}
}

func TestPolicyValidate(t *testing.T) {
	long := make([]byte, maxDescription)
	for i := range long {
		long[i] = 'x'
	}
	tests := []struct {
		name   string
		policy Policy
		ok     bool
	}{
		{name: "a cluster name is enough", policy: Policy{Cluster: "prod"}, ok: true},
		{name: "the cluster name is required", policy: Policy{}},
		{name: "the ownership mark must fit OCI's 255-character description", policy: Policy{Cluster: string(long)}},
		{name: "the default mode must be a known one", policy: Policy{Cluster: "prod", DefaultMode: "Some"}},
		{name: "default source CIDRs must parse", policy: Policy{Cluster: "prod", DefaultSourceCIDRs: []string{"everywhere"}}},
		{name: "a node port range is optional", policy: Policy{Cluster: "prod", NodePortRange: PortRange{Min: 30000, Max: 32767}}, ok: true},
		{name: "a node port range must be ordered", policy: Policy{Cluster: "prod", NodePortRange: PortRange{Min: 32767, Max: 30000}}},
		{name: "a node port range that did not parse is refused", policy: Policy{Cluster: "prod", NodePortRange: PortRange{Min: 0, Max: -1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.policy.Validate()
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrInvalid)) {
				t.Errorf("Validate() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestPolicyFromConfig(t *testing.T) {
	base := config.LoadBalancer{
		SecurityListManagementMode: config.SecurityListModeBackend,
		SecurityLists:              map[string]string{"lb-a": "sl-default"},
		DefaultSourceCIDRs:         []string{"10.0.0.0/8"},
	}
	want := Policy{Cluster: "prod", DefaultMode: config.SecurityListModeBackend,
		SecurityLists: map[string]string{"lb-a": "sl-default"}, DefaultSourceCIDRs: []string{"10.0.0.0/8"}}
	with := func(lb config.LoadBalancer, f func(*config.LoadBalancer)) config.LoadBalancer { f(&lb); return lb }
	withP := func(p Policy, f func(*Policy)) Policy { f(&p); return p }
	tests := []struct {
		name string
		lb   config.LoadBalancer
		want Policy
	}{
		{"modes, lists and sources carry over", base, want},
		{"a node port range given without openNodePortRange opens nothing",
			with(base, func(lb *config.LoadBalancer) { lb.NodePortRange = "20000-22767" }), want},
		{"openNodePortRange opens the default range",
			with(base, func(lb *config.LoadBalancer) { lb.OpenNodePortRange = true }),
			withP(want, func(p *Policy) { p.NodePortRange = PortRange{Min: 30000, Max: 32767} })},
		{"openNodePortRange opens the cluster's range",
			with(base, func(lb *config.LoadBalancer) { lb.OpenNodePortRange, lb.NodePortRange = true, "20000+100" }),
			withP(want, func(p *Policy) { p.NodePortRange = PortRange{Min: 20000, Max: 20099} })},
		{"a range that does not parse makes a policy Validate refuses",
			with(base, func(lb *config.LoadBalancer) { lb.OpenNodePortRange, lb.NodePortRange = true, "lots" }),
			withP(want, func(p *Policy) { p.NodePortRange = PortRange{Min: 0, Max: -1} })},
		{"adoptUndescribedRules carries over",
			with(base, func(lb *config.LoadBalancer) { lb.AdoptUndescribedRules = true }),
			withP(want, func(p *Policy) { p.AdoptUndescribed = true })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PolicyFromConfig(&config.Config{ClusterID: "prod", LoadBalancer: tt.lb})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PolicyFromConfig() (-want +got):\n%s", diff)
			}
			if err := got.Validate(); (err == nil) != (got.NodePortRange.Max >= 0) {
				t.Errorf("Validate() = %v", err)
			}
		})
	}
}
