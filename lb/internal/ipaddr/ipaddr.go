// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package ipaddr orders, spells and names IP addresses and families the same way for lb, lb/model
// and the products (lb/oci/...): backends sort numerically everywhere a load balancer is printed
// or compared.
package ipaddr

import (
	"net/netip"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// Compare orders addresses numerically, falling back to text for anything unparsable.
func Compare(a, b string) int {
	x, errX := netip.ParseAddr(a)
	y, errY := netip.ParseAddr(b)
	if errX == nil && errY == nil {
		return x.Compare(y)
	}
	return strings.Compare(a, b)
}

// Sort orders addresses as Compare does, parsing each once: a load balancer's backends are
// sorted on every reconcile, and parsing on every comparison cost a 1,000-Service storm seconds
// of CPU.
func Sort(ips []string) {
	SortBy(ips, func(ip string) string { return ip }, nil)
}

// SortBy orders s by the address ip returns for each element, as Compare does, parsing each
// once; tie (may be nil) orders elements with equal addresses. The sort is stable.
func SortBy[T any](s []T, ip func(T) string, tie func(a, b T) int) {
	type keyed struct {
		addr  netip.Addr
		ok    bool
		text  string
		index int // the last tie-break: equal elements keep their order
		value T
	}
	ks := make([]keyed, len(s))
	for i, v := range s {
		t := ip(v)
		a, err := netip.ParseAddr(t)
		ks[i] = keyed{addr: a, ok: err == nil, text: t, index: i, value: v}
	}
	// A stable sort would do, but moves elements O(n log² n) times: thousands of Nodes listed in
	// no order cost a big cluster's node sync most of its CPU. The index makes the order total.
	slices.SortFunc(ks, func(x, y keyed) int {
		c := 0
		if x.ok && y.ok {
			c = x.addr.Compare(y.addr)
		} else {
			c = strings.Compare(x.text, y.text)
		}
		if c == 0 && tie != nil {
			c = tie(x.value, y.value)
		}
		if c == 0 {
			c = x.index - y.index
		}
		return c
	})
	for i, k := range ks {
		s[i] = k.value
	}
}

// Canonical is s in the form netip prints an address in (an IPv6 address compressed and in lower
// case), or s itself when it is not an address: OCI and the Service status may spell one address
// differently.
func Canonical(s string) string {
	if ip, err := netip.ParseAddr(s); err == nil {
		return ip.String()
	}
	return s
}

// Families returns e.g. "IPv4, IPv6".
func Families(fams []v1.IPFamily) string {
	out := make([]string, len(fams))
	for i, f := range fams {
		out[i] = string(f)
	}
	return strings.Join(out, ", ")
}
