// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/oci/nlb"
)

// TestNLBStatusReportsEveryAddressOrThePublicOnesWithExternalIPOnly: a public network load
// balancer has public and private IPv4 and IPv6 addresses; all are reported, or only the public
// ones with external-ip-only.
func TestNLBStatusReportsEveryAddressOrThePublicOnesWithExternalIPOnly(t *testing.T) {
	n := nlbapi.NetworkLoadBalancer{Id: common.String("ocid1.networkloadbalancer.oc1.x"), IsPrivate: common.Bool(false),
		LifecycleState: nlbapi.LifecycleStateActive, IpAddresses: []nlbapi.IpAddress{
			{IpAddress: common.String("10.0.0.9"), IsPublic: common.Bool(false)},
			{IpAddress: common.String("203.0.113.9"), IsPublic: common.Bool(true)},
			{IpAddress: common.String("2603:c020::9"), IsPublic: common.Bool(true), IpVersion: nlbapi.IpVersionIpv6},
		}}
	f := nlb.Found(n)
	ips := func(st *v1.LoadBalancerStatus) []string {
		var out []string
		for _, i := range st.Ingress {
			out = append(out, i.IP)
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		publicOnly bool
		want       []string
	}{
		{"every address", false, []string{"10.0.0.9", "203.0.113.9", "2603:c020::9"}},
		{"external-ip-only", true, []string{"203.0.113.9", "2603:c020::9"}},
	} {
		if diff := cmp.Diff(tc.want, ips(statusOf(&f, nil, tc.publicOnly))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
