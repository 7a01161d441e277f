// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/identity"
	"gopkg.in/yaml.v3"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func TestDefaultTenancySeedsWhatTheDemoNeeds(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{}) // a server starts with DefaultTenancy
	seeded := f.srv.Seeded()
	comp := &seeded.Compartment
	if seeded.Compartment == f.srv.TenancyID() || !strings.HasPrefix(seeded.Compartment, "ocid1.compartment.") {
		t.Errorf("compartment %s, want a generated compartment distinct from the tenancy", seeded.Compartment)
	}

	ads, err := f.ident.ListAvailabilityDomains(t.Context(), identity.ListAvailabilityDomainsRequest{CompartmentId: comp})
	if err != nil {
		t.Fatal(err)
	}
	if len(ads.Items) != 3 {
		t.Errorf("%d ADs, want 3", len(ads.Items))
	}

	subnets, err := f.vcn.ListSubnets(t.Context(), core.ListSubnetsRequest{CompartmentId: comp, VcnId: &seeded.VCN})
	if err != nil {
		t.Fatal(err)
	}
	type subnet struct {
		CIDR, AD, SecurityList, IPv6 string
		Public                       bool
	}
	var gotSubnets []subnet
	for _, sn := range subnets.Items {
		if len(sn.SecurityListIds) != 1 {
			t.Fatalf("subnet %s has %d security lists, want 1", *sn.DisplayName, len(sn.SecurityListIds))
		}
		l, err := f.vcn.GetSecurityList(t.Context(), core.GetSecurityListRequest{SecurityListId: &sn.SecurityListIds[0]})
		if err != nil {
			t.Fatal(err)
		}
		gotSubnets = append(gotSubnets, subnet{*sn.CidrBlock, textOr(sn.AvailabilityDomain), *l.DisplayName, textOr(sn.Ipv6CidrBlock),
			!*sn.ProhibitPublicIpOnVnic})
	}
	wantSubnets := []subnet{
		{"10.0.1.0/24", "Uocm:PHX-AD-1", "lb-1", "", true},
		{"10.0.2.0/24", "Uocm:PHX-AD-2", "lb-2", "", true},
		{"10.0.10.0/24", "", "nodes", "", true},
		{"10.0.3.0/24", "", "public", "2001:db8:0:103::/64", true},
		{"10.0.4.0/24", "", "private", "2001:db8:0:104::/64", false},
		{"10.0.20.0/24", "", "pods", "", false},
	}
	if diff := cmp.Diff(wantSubnets, gotSubnets); diff != "" {
		t.Errorf("subnets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{seeded.Subnets["lb-1"], seeded.Subnets["lb-2"]}, seeded.LoadBalancerSubnets); diff != "" {
		t.Errorf("load balancer subnets (-want +got):\n%s", diff)
	}

	instances, err := f.compute.ListInstances(t.Context(), core.ListInstancesRequest{CompartmentId: comp})
	if err != nil {
		t.Fatal(err)
	}
	type node struct{ Name, AD, FD, Private, Public string }
	var gotNodes []node
	for _, inst := range instances.Items {
		atts, err := f.compute.ListVnicAttachments(t.Context(), core.ListVnicAttachmentsRequest{CompartmentId: comp, InstanceId: inst.Id})
		if err != nil || len(atts.Items) != 1 {
			t.Fatalf("%s: %d attachments, err %v", *inst.DisplayName, len(atts.Items), err)
		}
		v, err := f.vcn.GetVnic(t.Context(), core.GetVnicRequest{VnicId: atts.Items[0].VnicId})
		if err != nil {
			t.Fatal(err)
		}
		gotNodes = append(gotNodes, node{*inst.DisplayName, *inst.AvailabilityDomain, *inst.FaultDomain, *v.PrivateIp, textOr(v.PublicIp)})
	}
	wantNodes := []node{
		{"node-1", "Uocm:PHX-AD-1", "FAULT-DOMAIN-1", "10.0.10.2", "198.51.100.1"},
		{"node-2", "Uocm:PHX-AD-2", "FAULT-DOMAIN-2", "10.0.10.3", "198.51.100.2"},
		{"node-3", "Uocm:PHX-AD-3", "FAULT-DOMAIN-3", "10.0.10.4", "198.51.100.3"},
	}
	if diff := cmp.Diff(wantNodes, gotNodes); diff != "" {
		t.Errorf("instances (-want +got):\n%s", diff)
	}

	reserved, err := f.vcn.ListPublicIps(t.Context(), core.ListPublicIpsRequest{Scope: core.ListPublicIpsScopeRegion,
		CompartmentId: comp, Lifetime: core.ListPublicIpsLifetimeReserved})
	if err != nil {
		t.Fatal(err)
	}
	if len(reserved.Items) != 1 || *reserved.Items[0].Id != seeded.ReservedPublicIPs["reserved-1"] {
		t.Errorf("reserved IPs %d, want just reserved-1", len(reserved.Items))
	}
	if status, body := metadataGet(t, f.srv, "/opc/v2/instance/id", "Bearer Oracle"); status != 200 || string(body) != seeded.Instances["node-1"] {
		t.Errorf("self is %q (%d), want node-1 %s", body, status, seeded.Instances["node-1"])
	}
}

func TestTenancyReadsFromYAML(t *testing.T) {
	const doc = `
region: us-phoenix-1
compartment: ocid1.compartment.oc1..team
availabilityDomains: ["Uocm:PHX-AD-1"]
vcn: {name: v, cidr: 10.1.0.0/16}
securityLists:
  - name: edge
    ingress:
      - {protocol: tcp, cidr: 0.0.0.0/0, ports: "443"}
      - {protocol: udp, cidr: 10.1.0.0/16, ports: 30000-32767}
    egress:
      - {protocol: all, cidr: 0.0.0.0/0}
networkSecurityGroups: [backends]
subnets:
  - {name: edge, cidr: 10.1.1.0/24, public: true, role: loadBalancer, securityLists: [edge]}
  - {name: workers, cidr: 10.1.2.0/24, availabilityDomain: "Uocm:PHX-AD-1", role: node}
instances:
  - {name: w1, subnet: workers, privateIP: 10.1.2.9, state: stopped, ipv6: ["2001:db8::9"], freeformTags: {pool: a}}
reservedPublicIPs:
  - {name: ingress, ip: 192.0.2.44}
`
	var tn ocitest.Tenancy
	if err := yaml.Unmarshal([]byte(doc), &tn); err != nil {
		t.Fatal(err)
	}
	// IAM off: the file has no policy (which would allow nothing); the test reads what it seeded.
	f := newCoreFixture(t, ocitest.Options{Tenancy: &tn, AllowAll: true})
	seeded := f.srv.Seeded()
	if seeded.Compartment != "ocid1.compartment.oc1..team" || len(seeded.NodeSubnets) != 1 || len(seeded.NetworkSecurityGroups) != 1 {
		t.Errorf("seeded %+v", seeded)
	}
	l, _ := f.srv.SecurityList(seeded.SecurityLists["edge"])
	var ports []int
	for _, r := range l.IngressSecurityRules {
		switch {
		case r.TcpOptions != nil:
			ports = append(ports, *r.TcpOptions.DestinationPortRange.Min, *r.TcpOptions.DestinationPortRange.Max)
		case r.UdpOptions != nil:
			ports = append(ports, *r.UdpOptions.DestinationPortRange.Min, *r.UdpOptions.DestinationPortRange.Max)
		}
	}
	if diff := cmp.Diff([]int{443, 443, 30000, 32767}, ports); diff != "" || *l.EgressSecurityRules[0].Protocol != "all" {
		t.Errorf("rule ports (-want +got):\n%s", diff)
	}
	inst, _ := f.srv.Instance(seeded.Instances["w1"])
	vnic := f.srv.InstanceVNICs(*inst.Id)[0]
	got := []string{string(inst.LifecycleState), *inst.AvailabilityDomain, *vnic.PrivateIp, vnic.Ipv6Addresses[0], inst.FreeformTags["pool"], textOr(vnic.PublicIp)}
	if diff := cmp.Diff([]string{"STOPPED", "Uocm:PHX-AD-1", "10.1.2.9", "2001:db8::9", "a", ""}, got); diff != "" {
		t.Errorf("instance (-want +got):\n%s", diff)
	}
	edge, _ := f.vcn.GetSubnet(t.Context(), core.GetSubnetRequest{SubnetId: new(seeded.Subnets["edge"])})
	workers, _ := f.vcn.GetSubnet(t.Context(), core.GetSubnetRequest{SubnetId: new(seeded.Subnets["workers"])})
	if *edge.ProhibitPublicIpOnVnic || !*workers.ProhibitPublicIpOnVnic {
		t.Errorf("public edge prohibits public IPs %v, private workers %v", *edge.ProhibitPublicIpOnVnic, *workers.ProhibitPublicIpOnVnic)
	}
}

func TestSeedReportsEveryProblemWithItsPlaceAndCreatesNothing(t *testing.T) {
	bad := ocitest.DefaultTenancy()
	bad.Region = "eu-frankfurt-1"
	bad.Compartment = "ocid1.compartment.oc1..rejected"
	bad.VCN.Name = ""
	bad.Subnets[1].CIDR = "10.0.1.128/25"                    // overlaps lb-1
	bad.Subnets[2].SecurityLists = []string{"nodes", "nope"} // unknown list
	bad.Subnets = append(bad.Subnets, ocitest.TenancySubnet{Name: "lb-1", CIDR: "10.0.5.0/24", Role: "edge"})
	bad.SecurityLists[0].Ingress = []ocitest.TenancyRule{{Protocol: "icmp", CIDR: "0.0.0.0/0", Ports: "80"}}
	bad.Instances[0].Subnet = "missing"
	bad.Instances[1].PublicIP = "not-an-ip"
	bad.Instances[2].State = "DREAMING"
	bad.Instances[2].Self = true
	bad.ReservedPublicIPs = append(bad.ReservedPublicIPs, ocitest.TenancyPublicIP{Name: "reserved-1"})

	// IAM off: the test lists the rejected tenancy's compartment, which no policy names, to see
	// that Seed created nothing there.
	f := newCoreFixture(t, ocitest.Options{AllowAll: true})
	_, err := f.srv.Seed(bad)
	if err == nil {
		t.Fatal("Seed accepted a broken tenancy")
	}
	for _, place := range []string{
		"region:", "vcn.name:", "subnets[1] (lb-2).cidr:", "subnets[2] (nodes).securityLists:", "subnets[6].name:",
		"subnets[6] (lb-1).role:", "securityLists[0] (lb-1): ingress[0]", "instances[0] (node-1).subnet:",
		"instances[1] (node-2).publicIP:", "instances[2] (node-3).state:", "instances: 2 are marked self",
		"reservedPublicIPs[1].name:",
	} {
		if !strings.Contains(err.Error(), place) {
			t.Errorf("the error does not name %q:\n%v", place, err)
		}
	}
	vcns, lerr := f.vcn.ListVcns(t.Context(), core.ListVcnsRequest{CompartmentId: &bad.Compartment})
	if lerr != nil || len(vcns.Items) != 0 {
		t.Errorf("a rejected tenancy created %d VCNs (err %v)", len(vcns.Items), lerr)
	}
}
