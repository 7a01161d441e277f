// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package backendnode

import (
	"net/netip"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// FuzzInternalIPv4 holds InternalIPv4 to the address netip prints: it returns the Node's address
// as written, which is only right while ParseAddr takes no other spelling of an IPv4 address.
func FuzzInternalIPv4(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "0.0.0.0", "255.255.255.255", "010.0.0.1", "10.0.0.1 ", "::ffff:10.0.0.1",
		"fd00::1", "10.0.0.256", "1.2.3", "1.2.3.4%eth0", "", "10.0.0.1/24"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		n := &v1.Node{Status: v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: addr}}}}
		want := ""
		if ip, err := netip.ParseAddr(addr); err == nil && ip.Is4() {
			want = ip.String()
		}
		if got := InternalIPv4(n); got != want {
			t.Errorf("InternalIPv4 of %q = %q, want %q", addr, got, want)
		}
	})
}
