// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package model

import (
	"fmt"
	"maps"
	"net"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/oci-ccm/oci-ccm/lb/internal/ipaddr"
)

// compareOptions make equal what OCI treats as equal: nil and empty, slice order of backends,
// NSGs and TLS versions.
var compareOptions = cmp.Options{
	cmpopts.EquateEmpty(),
	cmpopts.SortSlices(func(a, b Backend) bool {
		if a.IP != b.IP {
			return ipaddr.Compare(a.IP, b.IP) < 0
		}
		return a.Port < b.Port
	}),
	cmpopts.SortSlices(func(a, b string) bool { return a < b }),
}

// Equal reports whether x and y, two values of this package (Specs or their parts), describe
// the same load balancer as OCI sees it: nil and empty alike, backends, NSGs and TLS versions in
// any order.
func Equal(x, y any) bool { return cmp.Equal(x, y, compareOptions) }

// String renders the plan as a readable diff, one numbered change per line with the fields that
// change under it, and "(after 1, 2)" for its requirements:
//
//	load balancer "default-web" (ocid1.loadbalancer…): 3 changes
//	  1. + certificate "web-tls-3f9a2c1b7e44"
//	  2. ~ listener "TCP-443" (after 1)
//	       TLS.Certificate: "web-tls-0a1b2c3d4e5f" → "web-tls-3f9a2c1b7e44"
//	  3. - certificate "web-tls-0a1b2c3d4e5f" (after 2)
//
// Private keys never appear.
func (p *Plan) String() string {
	if p == nil {
		return "no plan"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "load balancer %q", p.Name)
	if p.LoadBalancerID != "" {
		fmt.Fprintf(&b, " (%s)", p.LoadBalancerID)
	}
	switch len(p.Changes) {
	case 0:
		b.WriteString(": no changes\n")
		return b.String()
	case 1:
		b.WriteString(": 1 change\n")
	default:
		fmt.Fprintf(&b, ": %d changes\n", len(p.Changes))
	}
	for i, c := range p.Changes {
		fmt.Fprintf(&b, "  %d. %s", i+1, c)
		if len(c.Requires) > 0 {
			req := make([]string, len(c.Requires))
			for j, r := range c.Requires {
				req[j] = fmt.Sprint(r + 1)
			}
			fmt.Fprintf(&b, " (after %s)", strings.Join(req, ", "))
		}
		b.WriteString("\n")
		for _, line := range c.details() {
			fmt.Fprintf(&b, "       %s\n", line)
		}
	}
	return b.String()
}

// details returns the lines shown under a change: for updates the fields that differ, for
// creates a summary of what is created.
func (c Change) details() []string {
	if lines, ok := backendOnlyDiffs(c); ok {
		return lines
	}
	switch after := c.After.(type) {
	case *Spec:
		if after != nil && c.Op == OpCreate {
			return createSummary(after)
		}
	case Listener:
		if c.Op == OpCreate {
			return []string{describeListener(after)}
		}
	case BackendSet:
		if c.Op == OpCreate {
			return []string{describeBackendSet(after)}
		}
	case RuleSet:
		return describeRules(after.Rules)
	}
	if c.Op == OpUpdate {
		return FieldDiffs(c.Before, c.After)
	}
	return nil
}

// describeRules lists a rule set's rules, one a line (Rules compared as sets by FieldDiffs
// would hide a change of order).
func describeRules(rules []string) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = fmt.Sprintf("rule %d: %s", i+1, r)
	}
	return out
}

func createSummary(s *Spec) []string {
	vis := "public"
	if s.Internal {
		vis = "internal"
	}
	lines := []string{fmt.Sprintf("%s, shape %s, subnets %s", vis, s.Shape, strings.Join(s.Subnets, ","))}
	if s.Kind == KindNetworkLoadBalancer {
		lines = []string{fmt.Sprintf("%s network load balancer, %s, subnet %s", vis, ipaddr.Families(s.IPFamilies), strings.Join(s.Subnets, ","))}
	}
	if s.ReservedIP != "" {
		lines = append(lines, "reserved IP "+s.ReservedIP)
	}
	if len(s.NetworkSecurityGroups) > 0 {
		lines = append(lines, "network security groups "+strings.Join(s.NetworkSecurityGroups, ","))
	}
	for _, name := range slices.Sorted(maps.Keys(s.Certificates)) {
		lines = append(lines, fmt.Sprintf("+ certificate %q", name))
	}
	for _, name := range slices.Sorted(maps.Keys(s.BackendSets)) {
		bs := s.BackendSets[name]
		lines = append(lines, fmt.Sprintf("+ backend set %q: %s", bs.Name, describeBackendSet(bs)))
	}
	for _, name := range slices.Sorted(maps.Keys(s.RuleSets)) {
		lines = append(lines, fmt.Sprintf("+ rule set %q: %d rule(s)", name, len(s.RuleSets[name].Rules)))
	}
	for _, name := range slices.Sorted(maps.Keys(s.Listeners)) {
		l := s.Listeners[name]
		lines = append(lines, fmt.Sprintf("+ listener %q: %s", l.Name, describeListener(l)))
	}
	return lines
}

func describeListener(l Listener) string {
	s := fmt.Sprintf("%s :%d → backend set %q", l.Protocol, l.Port, l.BackendSet)
	if l.TLS != nil {
		s += fmt.Sprintf(", TLS with certificate %q", l.TLS.Certificate)
	}
	if l.ProxyProtocolVersion != 0 {
		s += fmt.Sprintf(", PROXY v%d", l.ProxyProtocolVersion)
	}
	if l.IPv6 {
		s += ", IPv6"
	}
	if len(l.Routing.RuleSets) > 0 {
		s += ", rule sets " + strings.Join(l.Routing.RuleSets, ",")
	}
	return s
}

func describeBackendSet(bs BackendSet) string {
	backends := make([]string, len(bs.Backends))
	for i, b := range bs.Backends {
		backends[i] = b.String()
	}
	s := fmt.Sprintf("%s, %d backend(s) [%s], health %s", bs.Policy, len(bs.Backends), strings.Join(backends, " "), bs.HealthCheck)
	if bs.TLS != nil {
		s += fmt.Sprintf(", TLS with certificate %q", bs.TLS.Certificate)
	}
	if bs.PreserveSource {
		s += ", client address preserved"
	}
	return s
}

// String returns "10.0.0.1:30080", or the instance OCID for a backend named by instance.
func (b Backend) String() string {
	host := b.IP
	if b.TargetID != "" {
		host = b.TargetID
	}
	return net.JoinHostPort(host, strconv.Itoa(b.Port))
}

// String returns e.g. "HTTP :10256/healthz".
func (h HealthCheck) String() string {
	if h.Protocol == "HTTP" {
		return fmt.Sprintf("%s :%d%s", h.Protocol, h.Port, h.Path)
	}
	return fmt.Sprintf("%s :%d", h.Protocol, h.Port)
}

// backendOnlyDiffs prints a change of backends alone as Plan.String does (FieldDiffs), by set
// arithmetic: cmp's reflection over 500 backends took 30 ms a plan, more than the rest of a node
// sync. ok is false for any other change.
func backendOnlyDiffs(c Change) (lines []string, ok bool) {
	before, ok := c.Before.(BackendSet)
	after, ok2 := c.After.(BackendSet)
	if c.Op != OpUpdate || !ok || !ok2 {
		return nil, false
	}
	// Anything else that changes is printed field by field (FieldDiffs).
	b, a := before, after
	b.Backends, a.Backends = nil, nil
	if !Equal(b, a) {
		return nil, false
	}
	type line struct {
		b    Backend
		sign string
	}
	had := make(map[string]bool, len(before.Backends))
	for _, b := range before.Backends {
		had[b.String()] = true
	}
	has := make(map[string]bool, len(after.Backends))
	var out []line
	for _, b := range after.Backends {
		has[b.String()] = true
		if !had[b.String()] {
			out = append(out, line{b, "+"})
		}
	}
	for _, b := range before.Backends {
		if !has[b.String()] {
			out = append(out, line{b, "-"})
		}
	}
	slices.SortFunc(out, func(x, y line) int {
		if c := ipaddr.Compare(x.b.IP, y.b.IP); c != 0 {
			return c
		}
		if x.b.Port != y.b.Port {
			return x.b.Port - y.b.Port
		}
		return strings.Compare(x.sign, y.sign) // "+" sorts before "-"
	})
	for _, l := range out {
		lines = append(lines, "Backends: "+l.sign+" "+l.b.String())
	}
	return lines, true
}

// FieldDiffs lists the leaf fields that differ between before and after, two values of this
// package of the same type, as
// "Path: old → new" (or "Path: + new" / "Path: - old" for added and removed elements).
func FieldDiffs(before, after any) []string {
	r := &fieldReporter{}
	cmp.Equal(before, after, compareOptions, cmp.Reporter(r))
	return r.lines
}

// fieldReporter is a cmp.Reporter that records differing leaves with a readable path.
type fieldReporter struct {
	path  cmp.Path
	lines []string
}

// PushStep implements cmp.Reporter.
func (r *fieldReporter) PushStep(ps cmp.PathStep) { r.path = append(r.path, ps) }

// PopStep implements cmp.Reporter.
func (r *fieldReporter) PopStep() { r.path = r.path[:len(r.path)-1] }

// Report implements cmp.Reporter: it records a differing leaf.
func (r *fieldReporter) Report(rs cmp.Result) {
	if rs.Equal() {
		return
	}
	vx, vy := r.path.Last().Values()
	path := readablePath(r.path)
	switch {
	case !present(vx):
		r.lines = append(r.lines, fmt.Sprintf("%s: + %s", path, show(vy)))
	case !present(vy):
		r.lines = append(r.lines, fmt.Sprintf("%s: - %s", path, show(vx)))
	default:
		r.lines = append(r.lines, fmt.Sprintf("%s: %s → %s", path, show(vx), show(vy)))
	}
}

func readablePath(p cmp.Path) string {
	var b strings.Builder
	for _, step := range p {
		switch s := step.(type) {
		case cmp.StructField:
			if b.Len() > 0 {
				b.WriteString(".")
			}
			b.WriteString(s.Name())
		case cmp.MapIndex:
			fmt.Fprintf(&b, "[%v]", s.Key())
		case cmp.SliceIndex:
			// Element positions are meaningless after sorting; "Backends" reads better alone.
		}
	}
	if b.Len() == 0 {
		return "value"
	}
	return b.String()
}

func present(v reflect.Value) bool {
	if !v.IsValid() {
		return false
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		return !v.IsNil()
	}
	return true
}

func show(v reflect.Value) string {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() || !v.CanInterface() {
		return "(none)"
	}
	if v.Kind() == reflect.String {
		if s, ok := v.Interface().(fmt.Stringer); ok {
			return s.String()
		}
		return fmt.Sprintf("%q", v.String())
	}
	return fmt.Sprintf("%v", v.Interface())
}
