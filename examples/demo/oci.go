// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// What the demo reads back from the in-memory OCI to show and check each step's effect. These
// are the server's own getters: what OCI holds, not what the provider believes.

// loadBalancer returns the load balancer with a display name, unless it is gone or going.
func loadBalancer(srv *ocitest.Server, name string) (loadbalancer.LoadBalancer, bool) {
	for _, lb := range srv.LoadBalancers() {
		if lb.DisplayName == nil || *lb.DisplayName != name {
			continue
		}
		switch lb.LifecycleState {
		case loadbalancer.LoadBalancerLifecycleStateDeleting, loadbalancer.LoadBalancerLifecycleStateDeleted:
			return loadbalancer.LoadBalancer{}, false
		}
		return lb, true
	}
	return loadbalancer.LoadBalancer{}, false
}

// lbName is the display name the provider gives a Service's load balancer under the name scheme.
func lbName(service string) string { return strings.ReplaceAll(service, "/", "-") }

// backendCounts returns the number of backends of each of the load balancer's backend sets.
func backendCounts(lb loadbalancer.LoadBalancer) map[string]int {
	out := map[string]int{}
	for name, bs := range lb.BackendSets {
		out[name] = len(bs.Backends)
	}
	return out
}

// listenerCertificate returns the certificate name a listener presents, or "".
func listenerCertificate(lb loadbalancer.LoadBalancer, listener string) string {
	l, ok := lb.Listeners[listener]
	if !ok || l.SslConfiguration == nil || l.SslConfiguration.CertificateName == nil {
		return ""
	}
	return *l.SslConfiguration.CertificateName
}

// rule is one security rule, as the demo shows it.
type rule struct {
	List      string // the security list's name in the tenancy
	Direction string // ingress or egress
	Peer      string // "from <source CIDR>" or "to <destination CIDR>"
	Ports     string // e.g. "tcp 80"
}

// ownedRules reads every seeded security list and returns the rules this cluster wrote (their
// description is seclist.Owner).
func ownedRules(srv *ocitest.Server, seeded ocitest.Seeded) []rule {
	owner := seclist.Owner(clusterName)
	var out []rule
	for _, name := range slices.Sorted(maps.Keys(seeded.SecurityLists)) {
		list, ok := srv.SecurityList(seeded.SecurityLists[name])
		if !ok {
			continue
		}
		for _, r := range list.IngressSecurityRules {
			if deref(r.Description) == owner {
				out = append(out, rule{name, "ingress", "from " + deref(r.Source), ports(r.Protocol, r.TcpOptions)})
			}
		}
		for _, r := range list.EgressSecurityRules {
			if deref(r.Description) == owner {
				out = append(out, rule{name, "egress", "to " + deref(r.Destination), ports(r.Protocol, r.TcpOptions)})
			}
		}
	}
	return out
}

// ruleChanges returns the rules added (+) and removed (-) between two readings as table rows,
// one per list, direction and peer, with the ports together: "+ lb-1 egress to 10.0.10.0/24
// tcp 10256, 30080".
func ruleChanges(before, after []rule) [][]string {
	type group struct{ sign, list, direction, peer string }
	var order []group
	ports := map[group][]string{}
	note := func(sign string, r rule) {
		g := group{sign, r.List, r.Direction, r.Peer}
		if _, ok := ports[g]; !ok {
			order = append(order, g)
		}
		ports[g] = append(ports[g], r.Ports)
	}
	for _, r := range after {
		if !slices.Contains(before, r) {
			note("+", r)
		}
	}
	for _, r := range before {
		if !slices.Contains(after, r) {
			note("-", r)
		}
	}
	rows := make([][]string, 0, len(order))
	for _, g := range order {
		rows = append(rows, []string{g.sign, g.list, g.direction, g.peer, joinPorts(ports[g])})
	}
	return rows
}

// joinPorts turns ["tcp 443", "tcp 80"] into "tcp 80, 443".
func joinPorts(ps []string) string {
	proto := ""
	var nums []string
	for _, p := range ps {
		pr, num, _ := strings.Cut(p, " ")
		if proto != "" && pr != proto {
			return strings.Join(ps, ", ")
		}
		proto = pr
		nums = append(nums, num)
	}
	slices.SortFunc(nums, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b)) })
	return proto + " " + strings.Join(nums, ", ")
}

// ports renders a rule's protocol and destination ports, e.g. "tcp 80" or "tcp 30000-32767".
func ports(protocol *string, tcp *core.TcpOptions) string {
	proto := deref(protocol)
	if proto == "6" {
		proto = "tcp"
	}
	if tcp == nil || tcp.DestinationPortRange == nil {
		return proto + " all"
	}
	pr := tcp.DestinationPortRange
	if *pr.Min == *pr.Max {
		return fmt.Sprintf("%s %d", proto, *pr.Min)
	}
	return fmt.Sprintf("%s %d-%d", proto, *pr.Min, *pr.Max)
}

// workRequestsSince returns the load balancer work requests that were not in known, in the order
// OCI accepted them.
func workRequestsSince(srv *ocitest.Server, known map[string]bool) []ocitest.WorkRequestInfo {
	var out []ocitest.WorkRequestInfo
	for _, wr := range srv.WorkRequests() {
		if !known[wr.ID] {
			out = append(out, wr)
		}
	}
	slices.SortStableFunc(out, func(a, b ocitest.WorkRequestInfo) int { return a.TimeAccepted.Compare(b.TimeAccepted) })
	return out
}

// workRequestIDs returns the IDs of every work request so far.
func workRequestIDs(srv *ocitest.Server) map[string]bool {
	ids := map[string]bool{}
	for _, wr := range srv.WorkRequests() {
		ids[wr.ID] = true
	}
	return ids
}

// short abbreviates an OCID for a table: its type and the first characters of its unique part.
func short(ocid string) string {
	i := strings.LastIndex(ocid, ".")
	if i < 0 || len(ocid)-i <= 8 {
		return ocid
	}
	return ocid[:i+7] + "…"
}

// ocidPattern matches the OCIDs ocitest makes (and real ones).
var ocidPattern = regexp.MustCompile(`ocid1\.[a-z0-9]+\.[a-z0-9]+\.[a-z0-9-]*\.[a-z0-9]+`)

// shortenOCIDs abbreviates every OCID in a text, so plans fit a terminal.
func shortenOCIDs(text string) string { return ocidPattern.ReplaceAllStringFunc(text, short) }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
