// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/core"
	"gopkg.in/yaml.v3"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func TestIPv6SubnetsAreSeededAndServedWithTheirPrefixes(t *testing.T) {
	tn := ocitest.DefaultTenancy()
	tn.VCN.IPv6CIDR = "2001:db8:0:100::/56"
	tn.Subnets[0].IPv6CIDR = "2001:db8:0:101::/64"
	f := newCoreFixture(t, ocitest.Options{Tenancy: &tn})
	seeded := f.srv.Seeded()
	dual := seeded.Subnets[tn.Subnets[0].Name]
	v4only := seeded.Subnets[tn.Subnets[1].Name]
	got, err := f.vcn.GetSubnet(t.Context(), core.GetSubnetRequest{SubnetId: &dual})
	if err != nil {
		t.Fatalf("GetSubnet: %v", err)
	}
	want := [3]string{"2001:db8:0:101::/64", "[2001:db8:0:101::/64]", "2001:db8:0:101::1"}
	if diff := cmp.Diff(want, [3]string{deref(got.Ipv6CidrBlock), fmt.Sprint(got.Ipv6CidrBlocks), deref(got.Ipv6VirtualRouterIp)}); diff != "" {
		t.Errorf("dual-stack subnet's ipv6CidrBlock, ipv6CidrBlocks, ipv6VirtualRouterIp (-want +got):\n%s", diff)
	}
	got, err = f.vcn.GetSubnet(t.Context(), core.GetSubnetRequest{SubnetId: &v4only})
	if err != nil {
		t.Fatalf("GetSubnet: %v", err)
	}
	if got.Ipv6CidrBlock != nil || len(got.Ipv6CidrBlocks) != 0 {
		t.Errorf("IPv4-only subnet has IPv6 prefixes %v %v", deref(got.Ipv6CidrBlock), got.Ipv6CidrBlocks)
	}
	vcn, err := f.vcn.GetVcn(t.Context(), core.GetVcnRequest{VcnId: &seeded.VCN})
	if err != nil || fmt.Sprint(vcn.Ipv6CidrBlocks) != "[2001:db8:0:100::/56]" {
		t.Errorf("VCN ipv6CidrBlocks %v, %v; want [2001:db8:0:100::/56]", vcn.Ipv6CidrBlocks, err)
	}
}

func TestIPv6SubnetPrefixesAreCheckedAsOCIDoes(t *testing.T) {
	tests := []struct {
		name, vcn6, subnet6, want string // want: a word of the error
	}{
		{"not a /64", "2001:db8::/56", "2001:db8::/60", "/64"},
		{"outside the VCN's prefix", "2001:db8::/56", "2001:db8:1::/64", "outside"},
		{"the VCN has no IPv6", "", "2001:db8::/64", "outside"},
		{"not IPv6", "2001:db8::/56", "10.1.0.0/24", "IPv6"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Empty and IAM off (no tenancy means no policy to test under; the test is not about IAM): the test seeds the broken tenancy itself, to read Seed's error.
			f := newCoreFixture(t, ocitest.Options{EmptyTenancy: true, AllowAll: true})
			tn := ocitest.DefaultTenancy()
			tn.VCN.IPv6CIDR = tc.vcn6
			tn.Subnets[0].IPv6CIDR = tc.subnet6
			_, err := f.srv.Seed(tn)
			if err == nil || !strings.Contains(err.Error(), "ipv6Cidr") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Seed error %v; want one naming ipv6Cidr and %q", err, tc.want)
			}
			// AddSubnet checks the same, with a panic (test setup).
			vcn := core.Vcn{CidrBlock: new("10.0.0.0/16")}
			if tc.vcn6 != "" {
				vcn.Ipv6CidrBlocks = []string{tc.vcn6}
			}
			v := f.srv.AddVCN(vcn)
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "ipv6") {
					t.Errorf("AddSubnet recovered %v; want a panic about the IPv6 prefix", r)
				}
			}()
			f.srv.AddSubnet(core.Subnet{VcnId: v.Id, CidrBlock: new("10.0.1.0/24"), Ipv6CidrBlock: new(tc.subnet6)})
		})
	}
}

func TestIPv6SubnetPrefixesMayNotOverlap(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	v := f.srv.AddVCN(core.Vcn{CidrBlock: new("10.0.0.0/16"), Ipv6CidrBlocks: []string{"2001:db8::/56"}})
	f.srv.AddSubnet(core.Subnet{VcnId: v.Id, CidrBlock: new("10.0.1.0/24"), Ipv6CidrBlocks: []string{"2001:db8::/64"}})
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "overlaps") {
			t.Errorf("AddSubnet recovered %v; want a panic about overlapping prefixes", r)
		}
	}()
	f.srv.AddSubnet(core.Subnet{VcnId: v.Id, CidrBlock: new("10.0.2.0/24"), Ipv6CidrBlock: new("2001:db8::/64")})
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func TestATenancyFileSeedsADualStackSubnet(t *testing.T) {
	const doc = `
availabilityDomains: ["AD-1"]
vcn: {name: vcn, cidr: 10.0.0.0/16, ipv6Cidr: "2001:db8:0:200::/56"}
subnets:
  - {name: lb, cidr: 10.0.1.0/24, ipv6Cidr: "2001:db8:0:201::/64", public: true, role: loadBalancer}
`
	var tn ocitest.Tenancy
	if err := yaml.Unmarshal([]byte(doc), &tn); err != nil {
		t.Fatalf("yaml: %v", err)
	}
	// IAM off: the file has no policy (which would allow nothing); the test reads what it seeded.
	f := newCoreFixture(t, ocitest.Options{Tenancy: &tn, AllowAll: true})
	seeded := f.srv.Seeded()
	id := seeded.Subnets["lb"]
	got, err := f.vcn.GetSubnet(t.Context(), core.GetSubnetRequest{SubnetId: &id})
	if err != nil || deref(got.Ipv6CidrBlock) != "2001:db8:0:201::/64" {
		t.Errorf("subnet ipv6CidrBlock %q, %v; want 2001:db8:0:201::/64", deref(got.Ipv6CidrBlock), err)
	}
}
