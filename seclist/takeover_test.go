// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist_test

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oci-ccm/oci-ccm/seclist"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"k8s.io/apimachinery/pkg/types"
)

// upstreamIngress and upstreamEgress are rules exactly as the upstream OCI CCM writes them
// (makeIngressSecurityRule / makeEgressSecurityRule in its load_balancer_security_lists.go):
// TCP, a destination port, stateless false, no source type and no description.
func upstreamIngress(src string, port int) core.IngressSecurityRule {
	return core.IngressSecurityRule{Source: common.String(src), Protocol: common.String("6"), IsStateless: common.Bool(false),
		TcpOptions: &core.TcpOptions{DestinationPortRange: &core.PortRange{Min: common.Int(port), Max: common.Int(port)}}}
}

func upstreamEgress(dst string, port int) core.EgressSecurityRule {
	return core.EgressSecurityRule{Destination: common.String(dst), Protocol: common.String("6"), IsStateless: common.Bool(false),
		TcpOptions: &core.TcpOptions{DestinationPortRange: &core.PortRange{Min: common.Int(port), Max: common.Int(port)}}}
}

// migrated is a VCN whose lists hold what the upstream CCM left for two Services in mode All —
// web (80, 443 → node ports 30080, 30443, open to the world) and api (8080 → 31080, from
// 192.168.0.0/16 only) — plus the rules of a Service deleted long ago (9443 → 32443) and
// undescribed rules that look like ours but are not exactly: stateless, UDP, a range.
type migrated struct {
	*vcn
	web, api seclist.Claim
}

func newMigrated(t *testing.T) *migrated {
	t.Helper()
	v := newVCN(t)
	m := &migrated{vcn: v}
	m.web = v.claim("default/web", 80, 30080)
	m.web.ListenerPorts, m.web.NodePorts = []int{80, 443}, []int{30080, 30443}
	m.api = v.claim("default/api", 8080, 31080)
	m.api.SourceCIDRs = []string{"192.168.0.0/16"}

	stateless := upstreamIngress("0.0.0.0/0", 443)
	stateless.IsStateless = common.Bool(true)
	udp := core.IngressSecurityRule{Source: common.String("0.0.0.0/0"), Protocol: common.String("17"),
		UdpOptions: &core.UdpOptions{DestinationPortRange: &core.PortRange{Min: common.Int(80), Max: common.Int(80)}}}
	wide := upstreamIngress("0.0.0.0/0", 80)
	wide.TcpOptions.DestinationPortRange.Max = common.Int(90)
	notExact := []core.IngressSecurityRule{stateless, udp, wide}
	gone := []core.IngressSecurityRule{upstreamIngress("0.0.0.0/0", 9443)}

	lbIn := []core.IngressSecurityRule{upstreamIngress("0.0.0.0/0", 80), upstreamIngress("0.0.0.0/0", 443), upstreamIngress("192.168.0.0/16", 8080)}
	var lbOut []core.EgressSecurityRule
	var nodeIn []core.IngressSecurityRule
	for _, p := range []int{30080, 30443, 10256, 31080, 10256} {
		lbOut = append(lbOut, upstreamEgress(v.nodeCIDR, p))
		nodeIn = append(nodeIn, upstreamIngress(v.lbCIDR, p)) // upstream wrote 10256 once per Service
	}
	v.srv.EditSecurityList(v.lbList, func(l *core.SecurityList) {
		l.IngressSecurityRules = slices.Concat(l.IngressSecurityRules, lbIn, gone, notExact)
		l.EgressSecurityRules = append(l.EgressSecurityRules, lbOut...)
	})
	v.srv.EditSecurityList(v.nodeList, func(l *core.SecurityList) {
		l.IngressSecurityRules = append(l.IngressSecurityRules, nodeIn...)
		l.EgressSecurityRules = append(l.EgressSecurityRules, upstreamEgress("0.0.0.0/0", 443)) // nothing needs it
	})
	return m
}

func (m *migrated) manager(t *testing.T, adopt bool, onAdopt func([]seclist.Adopted)) *seclist.Manager {
	return m.vcn.manager(t, seclist.Options{Policy: seclist.Policy{Cluster: cluster, AdoptUndescribed: adopt}, OnAdopt: onAdopt})
}

// undescribed returns "direction cidr:ports" for every rule of the list without a description.
func undescribed(l core.SecurityList) []string {
	var out []string
	for _, r := range l.IngressSecurityRules {
		if r.Description == nil {
			out = append(out, "in "+*r.Protocol+" "+rulePort(*r.Source, r.TcpOptions))
		}
	}
	for _, r := range l.EgressSecurityRules {
		if r.Description == nil {
			out = append(out, "out "+*r.Protocol+" "+rulePort(*r.Destination, r.TcpOptions))
		}
	}
	slices.Sort(out)
	return out
}

func TestTakeoverOfUpstreamRules(t *testing.T) {
	// What no Service needs, or is not exactly a rule one needs, stays undescribed either way.
	neverTaken := struct{ lb, nodes []string }{
		lb: []string{"in 17 0.0.0.0/0:?", "in 6 0.0.0.0/0:22", "in 6 0.0.0.0/0:443", "in 6 0.0.0.0/0:80-90", "in 6 0.0.0.0/0:9443",
			"out all 0.0.0.0/0:?"},
		nodes: []string{"out 6 0.0.0.0/0:443"},
	}
	tests := []struct {
		name  string
		adopt bool
		// wantAfterReconcile are the undescribed rules left once both Services are reconciled.
		wantLB, wantNodes []string
		// wantOwned are the rules of ours in the LB list then (ingress, egress).
		wantOwnedIn, wantOwnedOut []string
		wantAdopted               int
		// wantLeftAfterDelete are the undescribed rules left once both Services are deleted.
		wantLeftLB, wantLeftNodes []string
	}{
		{
			name: "off: upstream's rules are kept as the user's, ours are added beside them, and they stay after the Services",
			wantLB: slices.Concat(neverTaken.lb, []string{"in 6 0.0.0.0/0:443", "in 6 0.0.0.0/0:80", "in 6 192.168.0.0/16:8080",
				"out 6 10.0.10.0/24:10256", "out 6 10.0.10.0/24:10256", "out 6 10.0.10.0/24:30080", "out 6 10.0.10.0/24:30443", "out 6 10.0.10.0/24:31080"}),
			wantNodes: slices.Concat(neverTaken.nodes, []string{"in 6 10.0.1.0/24:10256", "in 6 10.0.1.0/24:10256",
				"in 6 10.0.1.0/24:30080", "in 6 10.0.1.0/24:30443", "in 6 10.0.1.0/24:31080"}),
			wantOwnedIn:  []string{"0.0.0.0/0:443", "0.0.0.0/0:80", "192.168.0.0/16:8080"},
			wantOwnedOut: []string{"10.0.10.0/24:10256", "10.0.10.0/24:30080", "10.0.10.0/24:30443", "10.0.10.0/24:31080"},
		},
		{
			name:         "on: exact matches become ours, duplicates go, and they leave with the Services",
			adopt:        true,
			wantLB:       neverTaken.lb,
			wantNodes:    neverTaken.nodes,
			wantOwnedIn:  []string{"0.0.0.0/0:443", "0.0.0.0/0:80", "192.168.0.0/16:8080"},
			wantOwnedOut: []string{"10.0.10.0/24:10256", "10.0.10.0/24:30080", "10.0.10.0/24:30443", "10.0.10.0/24:31080"},
			wantAdopted:  3 + 5 + 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMigrated(t)
			var mu sync.Mutex
			var adopted []seclist.Adopted
			mgr := m.manager(t, tt.adopt, func(a []seclist.Adopted) { mu.Lock(); adopted = append(adopted, a...); mu.Unlock() })
			if err := mgr.Prime([]seclist.Claim{m.web, m.api}); err != nil { // the CCM's start-up
				t.Fatal(err)
			}
			before := m.srv.Calls()

			for _, c := range []seclist.Claim{m.web, m.api} {
				if err := mgr.Reconcile(t.Context(), c); err != nil {
					t.Fatal(err)
				}
			}

			lb, nodes := m.list(t, m.lbList), m.list(t, m.nodeList)
			if diff := cmp.Diff(sorted(tt.wantLB), undescribed(lb)); diff != "" {
				t.Errorf("undescribed rules in the LB list (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(sorted(tt.wantNodes), undescribed(nodes)); diff != "" {
				t.Errorf("undescribed rules in the node list (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantOwnedIn, ownedIngress(lb)); diff != "" {
				t.Errorf("LB ingress of ours (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantOwnedOut, ownedEgress(lb)); diff != "" {
				t.Errorf("LB egress of ours (-want +got):\n%s", diff)
			}
			if got := m.srv.Calls().Since(before).Op("UpdateSecurityList"); got != 2 {
				t.Errorf("UpdateSecurityList calls = %d, want 2 (the first reconcile writes both lists for both primed claims)", got)
			}
			mu.Lock()
			if len(adopted) != tt.wantAdopted {
				t.Errorf("OnAdopt reported %d rules, want %d: %v", len(adopted), tt.wantAdopted, adopted)
			}
			for _, a := range adopted {
				if a.Rule.Ports.Min == 80 && !slices.Equal(a.Services, []types.NamespacedName{nameOf("default/web")}) ||
					a.Rule.Ports.Min == 10256 && !slices.Equal(a.Services, []types.NamespacedName{nameOf("default/api"), nameOf("default/web")}) {
					t.Errorf("adopted %v needed by %v; want the Services that need it", a.Rule, a.Services)
				}
			}
			mu.Unlock()

			for _, c := range []seclist.Claim{m.web, m.api} {
				if err := mgr.Delete(t.Context(), seclist.Claim{Service: c.Service}); err != nil {
					t.Fatal(err)
				}
			}
			lb, nodes = m.list(t, m.lbList), m.list(t, m.nodeList)
			if got := slices.Concat(ownedIngress(lb), ownedEgress(lb), ownedIngress(nodes)); len(got) != 0 {
				t.Errorf("rules of ours left after both Services went: %v", got)
			}
			wantLeft, wantLeftNodes := tt.wantLB, tt.wantNodes // off: everything undescribed stays
			if tt.adopt {
				wantLeft, wantLeftNodes = neverTaken.lb, neverTaken.nodes
			}
			if diff := cmp.Diff(sorted(wantLeft), undescribed(lb)); diff != "" {
				t.Errorf("undescribed rules left in the LB list after the Services went (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(sorted(wantLeftNodes), undescribed(nodes)); diff != "" {
				t.Errorf("undescribed rules left in the node list after the Services went (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTakeoverAfterRunningWithoutItHalvesTheLists: a cluster migrated with the takeover off has
// every rule twice (upstream's and ours); turning it on removes the copies at the first write.
func TestTakeoverAfterRunningWithoutItHalvesTheLists(t *testing.T) {
	m := newMigrated(t)
	off := m.manager(t, false, nil)
	for _, c := range []seclist.Claim{m.web, m.api} {
		if err := off.Reconcile(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	doubled := len(m.list(t, m.nodeList).IngressSecurityRules)

	on := m.manager(t, true, nil) // a restart with the option set
	if err := on.Prime([]seclist.Claim{m.web, m.api}); err != nil {
		t.Fatal(err)
	}
	if err := on.Reconcile(t.Context(), m.web); err != nil {
		t.Fatal(err)
	}

	nodes := m.list(t, m.nodeList)
	if got, want := len(nodes.IngressSecurityRules), 4; got != want {
		t.Errorf("node list ingress rules = %d (were %d), want %d: 10256, 30080, 30443, 31080 once each", got, doubled, want)
	}
	if diff := cmp.Diff([]string{"out 6 0.0.0.0/0:443"}, undescribed(nodes)); diff != "" {
		t.Errorf("undescribed node rules left, want only the egress nobody needs (-want +got):\n%s", diff)
	}
}

func TestUndescribedRulesListsWhatMatchesAServiceAndWhatMatchesNone(t *testing.T) {
	for _, adopt := range []bool{false, true} {
		m := newMigrated(t)
		mgr := m.manager(t, adopt, nil)
		if err := mgr.Prime([]seclist.Claim{m.web, m.api}); err != nil {
			t.Fatal(err)
		}
		before := m.srv.Calls()

		got, err := mgr.UndescribedRules(t.Context())
		if err != nil {
			t.Fatal(err)
		}

		calls := m.srv.Calls().Since(before)
		if calls.Op("UpdateSecurityList") != 0 || calls.Op("GetSecurityList") != 2 {
			t.Errorf("adopt=%v: %d writes, %d list reads; a dry run reads each list once and writes nothing",
				adopt, calls.Op("UpdateSecurityList"), calls.Op("GetSecurityList"))
		}
		var matchNone, matches []string
		for _, u := range got {
			if len(u.Services) == 0 {
				matchNone = append(matchNone, u.Text)
			} else {
				var names []string
				for _, s := range u.Services {
					names = append(names, s.String())
				}
				matches = append(matches, u.Text+" <- "+strings.Join(names, ","))
			}
		}
		wantNone := []string{
			"egress 6 to 0.0.0.0/0 to port 443",
			"egress all to 0.0.0.0/0",
			"ingress 17 from 0.0.0.0/0 to port 80",
			"ingress 6 from 0.0.0.0/0 to port 22",
			"ingress 6 from 0.0.0.0/0 to port 443 (stateless)",
			"ingress 6 from 0.0.0.0/0 to port 80-90",
			"ingress 6 from 0.0.0.0/0 to port 9443",
		}
		if diff := cmp.Diff(wantNone, sorted(matchNone)); diff != "" {
			t.Errorf("adopt=%v: undescribed rules matching no Service (-want +got):\n%s", adopt, diff)
		}
		if len(matches) != 13 || !slices.Contains(matches, "ingress 6 from 0.0.0.0/0 to port 80 <- default/web") ||
			!slices.Contains(matches, "ingress 6 from 10.0.1.0/24 to port 10256 <- default/api,default/web") {
			t.Errorf("adopt=%v: undescribed rules matching a Service: %d %v", adopt, len(matches), matches)
		}
	}

	v := newVCN(t)
	unprimed, err := seclist.NewManager(v.vn, seclist.Options{Policy: seclist.Policy{Cluster: cluster}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unprimed.UndescribedRules(t.Context()); err != seclist.ErrNotPrimed {
		t.Errorf("UndescribedRules before Prime = %v, want ErrNotPrimed", err)
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
