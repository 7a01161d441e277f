// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/config"
)

const (
	frontNSG = "ocid1.networksecuritygroup.oc1..front"
	backNSG  = "ocid1.networksecuritygroup.oc1..back"
)

func udp(d Direction, cidr string, port int) Rule { return rule(d, cidr, "", ProtocolUDP, port) }

func fromNSG(d Direction, peer, protocol string, port int) Rule {
	return rule(d, "", peer, protocol, port)
}

// dns is the claim of a network load balancer Service with DNS on TCP and UDP 53 and a
// UDP-only port 5353 (as ccm/service's ClaimFor builds it, tested there).
func dns(mode config.SecurityListMode, preserve bool) Claim {
	return Claim{Service: types.NamespacedName{Namespace: "kube-system", Name: "dns"}, Mode: mode,
		LBSubnets: []string{"lb-a"}, NodeSubnets: []string{"nodes"}, SourceCIDRs: []string{"198.51.100.0/24"},
		BackendNSGs: []string{backNSG}, PreserveSource: preserve,
		ListenerPorts: []int{53}, NodePorts: []int{30053}, UDPListenerPorts: []int{53, 5353}, UDPNodePorts: []int{30054, 30055},
		HealthCheckPort: 31000}
}

func TestDesiredForNetworkLoadBalancerClaims(t *testing.T) {
	const clients, lbCIDR, nodeCIDR = "198.51.100.0/24", "10.0.1.0/24", "10.0.10.0/24"
	claimOf := func(mode config.SecurityListMode, preserve bool) Claim {
		c := dns(mode, preserve)
		if mode == config.SecurityListModeNSG {
			c.FrontendNSG = frontNSG
		}
		return c
	}
	listeners := []Rule{in(clients, 53), udp(Ingress, clients, 53), udp(Ingress, clients, 5353)}
	tests := []struct {
		name  string
		claim Claim
		want  map[string]RuleSet
	}{
		{
			name:  "lists, source not preserved: UDP rules with udpOptions, node ingress from the LB subnet",
			claim: claimOf(config.SecurityListModeAll, false),
			want: map[string]RuleSet{
				"sl-lb-a": NewRuleSet(append(listeners, out(nodeCIDR, 30053), out(nodeCIDR, 31000),
					span(Egress, nodeCIDR, 30054, 30055).withProtocol(ProtocolUDP))...),
				"sl-nodes": NewRuleSet(in(lbCIDR, 30053), in(lbCIDR, 31000), span(Ingress, lbCIDR, 30054, 30055).withProtocol(ProtocolUDP)),
			},
		},
		{
			name:  "lists, source preserved: node ports open to the clients, only the health check from the LB subnet",
			claim: claimOf(config.SecurityListModeAll, true),
			want: map[string]RuleSet{
				"sl-lb-a": NewRuleSet(append(listeners, out(nodeCIDR, 30053), out(nodeCIDR, 31000),
					span(Egress, nodeCIDR, 30054, 30055).withProtocol(ProtocolUDP))...),
				"sl-nodes": NewRuleSet(in(lbCIDR, 31000), in(clients, 30053), span(Ingress, clients, 30054, 30055).withProtocol(ProtocolUDP)),
			},
		},
		{
			name:  "NSGs, source not preserved: backend ingress from the frontend NSG",
			claim: claimOf(config.SecurityListModeNSG, false),
			want: map[string]RuleSet{
				frontNSG: NewRuleSet(append(listeners, fromNSG(Egress, backNSG, ProtocolTCP, 30053), fromNSG(Egress, backNSG, ProtocolTCP, 31000),
					span(Egress, "", 30054, 30055).withPeer(backNSG).withProtocol(ProtocolUDP))...),
				backNSG: NewRuleSet(fromNSG(Ingress, frontNSG, ProtocolTCP, 30053), fromNSG(Ingress, frontNSG, ProtocolTCP, 31000),
					span(Ingress, "", 30054, 30055).withPeer(frontNSG).withProtocol(ProtocolUDP)),
			},
		},
		{
			name:  "NSGs, source preserved: backend node ports open to the clients, the health check from the frontend NSG",
			claim: claimOf(config.SecurityListModeNSG, true),
			want: map[string]RuleSet{
				frontNSG: NewRuleSet(append(listeners, fromNSG(Egress, backNSG, ProtocolTCP, 30053), fromNSG(Egress, backNSG, ProtocolTCP, 31000),
					span(Egress, "", 30054, 30055).withPeer(backNSG).withProtocol(ProtocolUDP))...),
				backNSG: NewRuleSet(fromNSG(Ingress, frontNSG, ProtocolTCP, 31000), in(clients, 30053),
					span(Ingress, clients, 30054, 30055).withProtocol(ProtocolUDP)),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Desired([]Claim{tc.claim}, testSubnets, Policy{Cluster: "prod"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("desired rules (-want +got):\n%s", diff)
			}
			targets, err := ListsOf(tc.claim, testSubnets, Policy{Cluster: "prod"})
			if err != nil {
				t.Fatal(err)
			}
			for target := range tc.want {
				if !slices.Contains(targets, target) {
					t.Errorf("ListsOf = %v, missing %s", targets, target)
				}
			}
		})
	}
}

func TestUDPRulesRoundTripThroughOCIForm(t *testing.T) {
	owner := Owner("prod")
	for _, r := range []Rule{udp(Ingress, "10.0.0.0/8", 53), span(Egress, "", 30000, 30010).withPeer(backNSG).withProtocol(ProtocolUDP)} {
		d := toNSGRule(r, owner)
		if d.UdpOptions == nil || d.TcpOptions != nil {
			t.Errorf("%s: OCI rule has tcpOptions %v, udpOptions %v; want udpOptions only", r, d.TcpOptions, d.UdpOptions)
		}
	}
	ingress := toIngress(udp(Ingress, "10.0.0.0/8", 53), owner)
	got := observed(Ingress, *ingress.Source, "", true, *ingress.Protocol, ingress.IsStateless, ingress.TcpOptions, ingress.UdpOptions, false)
	if !got.Canonical || got.Rule != udp(Ingress, "10.0.0.0/8", 53) {
		t.Errorf("a UDP rule read back as %+v, want the canonical rule it was written from", got)
	}
}

func (r Rule) withProtocol(p string) Rule { r.Protocol = p; return r }

func (r Rule) withPeer(nsg string) Rule { r.PeerNSG = nsg; return r }
