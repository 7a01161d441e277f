// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package ipaddr orders IP addresses and names IP families the same way for lb and lb/model:
// backends sort numerically everywhere a load balancer is printed or compared.
package ipaddr

import (
	"net/netip"
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

// Families returns e.g. "IPv4, IPv6".
func Families(fams []v1.IPFamily) string {
	out := make([]string, len(fams))
	for i, f := range fams {
		out[i] = string(f)
	}
	return strings.Join(out, ", ")
}
