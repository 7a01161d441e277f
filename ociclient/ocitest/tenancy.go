// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/core"
)

// Tenancy describes, by name, a small tenancy to seed a server with: one VCN with its subnets,
// security lists and network security groups, instances, and reserved public IPs. It reads from
// YAML or JSON; Seed turns it into resources and the names into OCIDs.
type Tenancy struct {
	// Region, when set, must be the server's region (Options.Region).
	Region string `json:"region,omitempty" yaml:"region,omitempty"`
	// Compartment is the OCID every resource goes in; "" generates a compartment OCID, so code
	// that confuses tenancy and compartment fails.
	Compartment string `json:"compartment,omitempty" yaml:"compartment,omitempty"`
	// CompartmentName is the name policy statements use for Compartment (default "cluster").
	CompartmentName string `json:"compartmentName,omitempty" yaml:"compartmentName,omitempty"`
	// Compartments are the names of further compartments (each gets a generated OCID). Resources
	// go in Compartment unless their own compartment field names one of these.
	Compartments []string `json:"compartments,omitempty" yaml:"compartments,omitempty"`
	// Policy holds OCI policy statements, loaded after seeding (see Server.SetPolicy). A server
	// started with a tenancy without statements allows nothing (Options.AllowAll turns IAM off);
	// Seed of a further tenancy without statements leaves the loaded policy as it is.
	Policy []string `json:"policy,omitempty" yaml:"policy,omitempty"`
	// AvailabilityDomains are the ADs' names, e.g. "Uocm:PHX-AD-1".
	AvailabilityDomains []string `json:"availabilityDomains" yaml:"availabilityDomains"`
	// VCN is the virtual cloud network.
	VCN TenancyVCN `json:"vcn" yaml:"vcn"`
	// SecurityLists are the VCN's security lists.
	SecurityLists []TenancySecurityList `json:"securityLists,omitempty" yaml:"securityLists,omitempty"`
	// NetworkSecurityGroups are the names of the VCN's network security groups (without rules).
	NetworkSecurityGroups []string `json:"networkSecurityGroups,omitempty" yaml:"networkSecurityGroups,omitempty"`
	// Subnets are the VCN's subnets.
	Subnets []TenancySubnet `json:"subnets" yaml:"subnets"`
	// Instances are the compute instances, each with one VNIC.
	Instances []TenancyInstance `json:"instances,omitempty" yaml:"instances,omitempty"`
	// ReservedPublicIPs are unassigned reserved public IPs, e.g. for Service.spec.loadBalancerIP.
	ReservedPublicIPs []TenancyPublicIP `json:"reservedPublicIPs,omitempty" yaml:"reservedPublicIPs,omitempty"`
	// LoadBalancerShapeLimits is the tenancy's limit of load balancers per fixed shape, e.g.
	// {"100Mbps": 2}; a shape not listed has none, as in a new tenancy (see LBLimits.FixedShapes).
	LoadBalancerShapeLimits map[string]int `json:"loadBalancerShapeLimits,omitempty" yaml:"loadBalancerShapeLimits,omitempty"`
	// TagNamespaces are the tenancy's tag namespaces, each with its key definitions, e.g.
	// {"Operations": ["CostCenter"]}: definedTags naming any other namespace or key are refused
	// (tags.go).
	TagNamespaces map[string][]string `json:"tagNamespaces,omitempty" yaml:"tagNamespaces,omitempty"`
}

// TenancyVCN describes the VCN.
type TenancyVCN struct {
	Name string `json:"name" yaml:"name"`
	CIDR string `json:"cidr" yaml:"cidr"`
	// IPv6CIDR makes the VCN IPv6-enabled with this prefix (OCI allocates a /56), e.g.
	// "2001:db8:0:100::/56"; "" for an IPv4-only VCN.
	IPv6CIDR string `json:"ipv6Cidr,omitempty" yaml:"ipv6Cidr,omitempty"`
	// Compartment is the name of the compartment it is in ("": Tenancy.Compartment).
	Compartment string `json:"compartment,omitempty" yaml:"compartment,omitempty"`
}

// TenancySecurityList describes a security list and the rules it starts with.
type TenancySecurityList struct {
	Name string `json:"name" yaml:"name"`
	// Compartment is the name of the compartment it is in ("": Tenancy.Compartment).
	Compartment string        `json:"compartment,omitempty" yaml:"compartment,omitempty"`
	Ingress     []TenancyRule `json:"ingress,omitempty" yaml:"ingress,omitempty"`
	Egress      []TenancyRule `json:"egress,omitempty" yaml:"egress,omitempty"`
}

// TenancyRule is a stateful security rule in short form.
type TenancyRule struct {
	// Protocol is "tcp", "udp", "icmp", "icmpv6", "all", or an IANA protocol number.
	Protocol string `json:"protocol" yaml:"protocol"`
	// CIDR is the source of an ingress rule or the destination of an egress rule.
	CIDR string `json:"cidr" yaml:"cidr"`
	// Ports is the destination port or range of a tcp or udp rule, e.g. "443" or
	// "30000-32767"; "" means all ports.
	Ports       string `json:"ports,omitempty" yaml:"ports,omitempty"`
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
}

// Subnet roles, which say what cloud-provider.yaml uses a subnet for.
const (
	// RoleLoadBalancer marks a subnet load balancers go in (loadBalancer.subnet1 and subnet2).
	RoleLoadBalancer = "loadBalancer"
	// RoleNode marks a subnet the cluster's nodes are in.
	RoleNode = "node"
)

// TenancySubnet describes a subnet.
type TenancySubnet struct {
	Name string `json:"name" yaml:"name"`
	CIDR string `json:"cidr" yaml:"cidr"`
	// AvailabilityDomain makes the subnet AD-specific; "" makes it regional.
	AvailabilityDomain string `json:"availabilityDomain,omitempty" yaml:"availabilityDomain,omitempty"`
	// Public allows public IPs on the subnet's VNICs.
	Public bool `json:"public,omitempty" yaml:"public,omitempty"`
	// Role is RoleLoadBalancer, RoleNode or "".
	Role string `json:"role,omitempty" yaml:"role,omitempty"`
	// SecurityLists are names of the Tenancy's security lists.
	SecurityLists []string `json:"securityLists,omitempty" yaml:"securityLists,omitempty"`
	// Compartment is the name of the compartment it is in ("": Tenancy.Compartment).
	Compartment string `json:"compartment,omitempty" yaml:"compartment,omitempty"`
	// IPv6CIDR makes the subnet IPv6-enabled (dual-stack) with this /64 prefix, inside the VCN's
	// IPv6CIDR; "" for an IPv4-only subnet.
	IPv6CIDR string `json:"ipv6Cidr,omitempty" yaml:"ipv6Cidr,omitempty"`
}

// TenancyInstance describes an instance with one VNIC.
type TenancyInstance struct {
	Name               string `json:"name" yaml:"name"`
	Shape              string `json:"shape,omitempty" yaml:"shape,omitempty"`
	AvailabilityDomain string `json:"availabilityDomain,omitempty" yaml:"availabilityDomain,omitempty"`
	FaultDomain        string `json:"faultDomain,omitempty" yaml:"faultDomain,omitempty"`
	// Subnet is the name of the subnet the VNIC is in.
	Subnet string `json:"subnet" yaml:"subnet"`
	// PrivateIP is the VNIC's address; "" takes the subnet's lowest free one.
	PrivateIP string `json:"privateIP,omitempty" yaml:"privateIP,omitempty"`
	// PublicIP is "" for none, "auto" for the pool's next address, or an address.
	PublicIP string   `json:"publicIP,omitempty" yaml:"publicIP,omitempty"`
	IPv6     []string `json:"ipv6,omitempty" yaml:"ipv6,omitempty"`
	// State is the lifecycle state; "" means RUNNING.
	State        string            `json:"state,omitempty" yaml:"state,omitempty"`
	FreeformTags map[string]string `json:"freeformTags,omitempty" yaml:"freeformTags,omitempty"`
	// Self makes this the instance the metadata service describes.
	Self bool `json:"self,omitempty" yaml:"self,omitempty"`
	// Compartment is the name of the compartment the instance, its VNIC and VNIC attachment
	// are in ("": Tenancy.Compartment).
	Compartment string `json:"compartment,omitempty" yaml:"compartment,omitempty"`
}

// TenancyPublicIP describes a reserved public IP.
type TenancyPublicIP struct {
	Name string `json:"name" yaml:"name"`
	// IP is the address; "" takes the pool's next one.
	IP string `json:"ip,omitempty" yaml:"ip,omitempty"`
	// Compartment is the name of the compartment it is in ("": Tenancy.Compartment).
	Compartment string `json:"compartment,omitempty" yaml:"compartment,omitempty"`
}

// Seeded is what Seed created: OCIDs by the names the Tenancy gave.
type Seeded struct {
	Region      string `json:"region"`
	TenancyID   string `json:"tenancy"`
	Compartment string `json:"compartment"`
	// Compartments are the OCIDs of the named compartments, Compartment's name included.
	Compartments        map[string]string `json:"compartments"`
	VCN                 string            `json:"vcn"`
	AvailabilityDomains []string          `json:"availabilityDomains"`
	// LoadBalancerSubnets are the OCIDs of the RoleLoadBalancer subnets, in Tenancy order.
	LoadBalancerSubnets []string `json:"loadBalancerSubnets"`
	// NodeSubnets are the OCIDs of the RoleNode subnets, in Tenancy order.
	NodeSubnets []string `json:"nodeSubnets"`
	// SubnetSecurityLists maps the OCID of each subnet that has security lists to the OCID of its
	// first one, the form of cloud-provider.yaml's loadBalancer.securityLists.
	SubnetSecurityLists   map[string]string `json:"subnetSecurityLists"`
	Subnets               map[string]string `json:"subnets"`
	SecurityLists         map[string]string `json:"securityLists"`
	NetworkSecurityGroups map[string]string `json:"networkSecurityGroups"`
	Instances             map[string]string `json:"instances"`
	ReservedPublicIPs     map[string]string `json:"reservedPublicIPs"`
}

// DefaultTenancy is the tenancy a server starts with (see Options.Tenancy), and the one the
// demo and the end-to-end tests run against. In availability domains Uocm:PHX-AD-1..3, compartment
// "cluster":
//
//   - VCN cluster-vcn, 10.0.0.0/16 and 2001:db8:0:100::/56;
//   - load balancer subnets lb-1 (10.0.1.0/24, AD-1) and lb-2 (10.0.2.0/24, AD-2), public, each
//     with its own security list: the classic subnet1/subnet2 pair (Seeded.LoadBalancerSubnets);
//   - public, a public regional subnet 10.0.3.0/24 with IPv6 prefix 2001:db8:0:103::/64, and
//     private, a private regional subnet (prohibitPublicIpOnVnic) 10.0.4.0/24 with IPv6 prefix
//     2001:db8:0:104::/64, each with its own security list: for one-subnet, internal and
//     dual-stack load balancers;
//   - nodes, a public regional subnet 10.0.10.0/24 with a security list (node to node, ssh);
//   - pods, a private regional subnet 10.0.20.0/24 with its own security list: where VCN-native
//     pod networking puts Pods, so pod-IP backends (BackendSetBindings' ip targets) are in a
//     subnet of the VCN;
//   - instances node-1..3 in nodes, one per availability domain and fault domain, running, with
//     private (10.0.10.2-4) and public IPs; node-1 is "self" for the metadata service;
//   - one reserved public IP, reserved-1;
//   - tag namespace Operations with key CostCenter, the defined tag examples/cloud-provider.yaml
//     shows (commented out) and the SDK's doc comments use;
//   - Policy, DefaultPolicy().
func DefaultTenancy() Tenancy {
	allOut := []TenancyRule{{Protocol: "all", CIDR: "0.0.0.0/0", Description: "all egress"}}
	t := Tenancy{
		AvailabilityDomains: []string{"Uocm:PHX-AD-1", "Uocm:PHX-AD-2", "Uocm:PHX-AD-3"},
		VCN:                 TenancyVCN{Name: "cluster-vcn", CIDR: "10.0.0.0/16", IPv6CIDR: "2001:db8:0:100::/56"},
		SecurityLists: []TenancySecurityList{
			{Name: "lb-1", Egress: allOut},
			{Name: "lb-2", Egress: allOut},
			{Name: "nodes", Egress: allOut, Ingress: []TenancyRule{
				{Protocol: "all", CIDR: "10.0.10.0/24", Description: "node to node"},
				{Protocol: "tcp", CIDR: "0.0.0.0/0", Ports: "22", Description: "ssh"},
			}},
			{Name: "public", Egress: allOut},
			{Name: "private", Egress: allOut},
			{Name: "pods", Egress: allOut},
		},
		Subnets: []TenancySubnet{
			{Name: "lb-1", CIDR: "10.0.1.0/24", AvailabilityDomain: "Uocm:PHX-AD-1", Public: true, Role: RoleLoadBalancer, SecurityLists: []string{"lb-1"}},
			{Name: "lb-2", CIDR: "10.0.2.0/24", AvailabilityDomain: "Uocm:PHX-AD-2", Public: true, Role: RoleLoadBalancer, SecurityLists: []string{"lb-2"}},
			{Name: "nodes", CIDR: "10.0.10.0/24", Public: true, Role: RoleNode, SecurityLists: []string{"nodes"}},
			{Name: "public", CIDR: "10.0.3.0/24", IPv6CIDR: "2001:db8:0:103::/64", Public: true, SecurityLists: []string{"public"}},
			{Name: "private", CIDR: "10.0.4.0/24", IPv6CIDR: "2001:db8:0:104::/64", SecurityLists: []string{"private"}},
			{Name: "pods", CIDR: "10.0.20.0/24", SecurityLists: []string{"pods"}},
		},
		ReservedPublicIPs: []TenancyPublicIP{{Name: "reserved-1"}},
		TagNamespaces:     map[string][]string{"Operations": {"CostCenter"}},
		Policy:            DefaultPolicy(),
	}
	for i := 1; i <= 3; i++ {
		t.Instances = append(t.Instances, TenancyInstance{
			Name:               fmt.Sprintf("node-%d", i),
			Shape:              "VM.Standard.E4.Flex",
			AvailabilityDomain: t.AvailabilityDomains[i-1],
			FaultDomain:        fmt.Sprintf("FAULT-DOMAIN-%d", i),
			Subnet:             "nodes",
			PublicIP:           "auto",
			Self:               i == 1,
		})
	}
	return t
}

// DefaultPolicy is the default tenancy's IAM policy: the minimal policy the CCM documents
// (seclist/README.md, "IAM policy") for dynamic group ccm in compartment cluster, so every test
// on the default tenancy runs under it. internal/iampolicy holds the two equal and proves the
// policy sufficient and minimal.
func DefaultPolicy() []string {
	var out []string
	for _, grant := range []string{
		"manage load-balancers", "manage network-load-balancers", "read instance-family",
		"read virtual-network-family", "use subnets", "use vnics", "manage security-lists",
		"manage network-security-groups", "use vcns", "use public-ips",
	} {
		out = append(out, "Allow dynamic-group ccm to "+grant+" in compartment cluster")
	}
	return out
}

// clone is a deep copy, so callers of Server.Seeded cannot change the server's.
func (sd Seeded) clone() Seeded {
	out := sd
	out.Compartments = maps.Clone(sd.Compartments)
	out.AvailabilityDomains = slices.Clone(sd.AvailabilityDomains)
	out.LoadBalancerSubnets = slices.Clone(sd.LoadBalancerSubnets)
	out.NodeSubnets = slices.Clone(sd.NodeSubnets)
	out.SubnetSecurityLists = maps.Clone(sd.SubnetSecurityLists)
	out.Subnets = maps.Clone(sd.Subnets)
	out.SecurityLists = maps.Clone(sd.SecurityLists)
	out.NetworkSecurityGroups = maps.Clone(sd.NetworkSecurityGroups)
	out.Instances = maps.Clone(sd.Instances)
	out.ReservedPublicIPs = maps.Clone(sd.ReservedPublicIPs)
	return out
}

// Seed creates the tenancy's resources and returns their OCIDs. It validates the whole
// description first and reports every problem at once, with its place in the description;
// nothing is created then. A conflict with resources the server already had (an address in
// use, say) can still fail half-way.
func (s *Server) Seed(t Tenancy) (Seeded, error) {
	if err := s.validateTenancy(t); err != nil {
		return Seeded{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := Seeded{
		Region: s.opts.Region, TenancyID: s.opts.TenancyID, Compartment: t.Compartment,
		AvailabilityDomains: append([]string(nil), t.AvailabilityDomains...),
		Subnets:             map[string]string{}, SecurityLists: map[string]string{},
		NetworkSecurityGroups: map[string]string{}, Instances: map[string]string{},
		ReservedPublicIPs: map[string]string{}, LoadBalancerSubnets: []string{}, NodeSubnets: []string{},
		SubnetSecurityLists: map[string]string{}, Compartments: map[string]string{},
	}
	out.Compartment = s.bindCompartmentLocked(t.mainCompartmentName(), out.Compartment)
	out.Compartments[t.mainCompartmentName()] = out.Compartment
	for _, name := range t.Compartments {
		out.Compartments[name] = s.bindCompartmentLocked(name, "")
	}
	// in returns the OCID of a named compartment, "" meaning the main one.
	in := func(name string) *string {
		if name == "" {
			return new(out.Compartment)
		}
		return new(out.Compartments[name])
	}
	comp := &out.Compartment
	if t.LoadBalancerShapeLimits != nil {
		s.lb.limits.FixedShapes = maps.Clone(t.LoadBalancerShapeLimits)
	}
	for _, ad := range t.AvailabilityDomains {
		s.addAvailabilityDomainLocked(ad)
	}
	tv := core.Vcn{CompartmentId: in(t.VCN.Compartment), DisplayName: new(t.VCN.Name), CidrBlock: new(t.VCN.CIDR)}
	if t.VCN.IPv6CIDR != "" {
		tv.Ipv6CidrBlocks = []string{t.VCN.IPv6CIDR}
	}
	vcn, err := s.addVCNLocked(tv)
	if err != nil {
		return out, fmt.Errorf("vcn: %w", err)
	}
	out.VCN = *vcn.Id
	for i, sl := range t.SecurityLists {
		ingress, egress, _ := sl.rules()
		l, err := s.addSecurityListLocked(core.SecurityList{CompartmentId: in(sl.Compartment), VcnId: vcn.Id, DisplayName: new(sl.Name),
			IngressSecurityRules: ingress, EgressSecurityRules: egress})
		if err != nil {
			return out, fmt.Errorf("securityLists[%d] (%s): %w", i, sl.Name, err)
		}
		out.SecurityLists[sl.Name] = *l.Id
	}
	for i, name := range t.NetworkSecurityGroups {
		g, err := s.addNSGLocked(core.NetworkSecurityGroup{CompartmentId: comp, VcnId: vcn.Id, DisplayName: new(name)})
		if err != nil {
			return out, fmt.Errorf("networkSecurityGroups[%d] (%s): %w", i, name, err)
		}
		out.NetworkSecurityGroups[name] = *g.Id
	}
	for i, ts := range t.Subnets {
		sn := core.Subnet{CompartmentId: in(ts.Compartment), VcnId: vcn.Id, DisplayName: new(ts.Name), CidrBlock: new(ts.CIDR),
			ProhibitPublicIpOnVnic: new(!ts.Public), DnsLabel: new(subnetDNSLabel(ts.Name))}
		if ts.AvailabilityDomain != "" {
			sn.AvailabilityDomain = new(ts.AvailabilityDomain)
		}
		if ts.IPv6CIDR != "" {
			sn.Ipv6CidrBlock = new(ts.IPv6CIDR)
		}
		for _, name := range ts.SecurityLists {
			sn.SecurityListIds = append(sn.SecurityListIds, out.SecurityLists[name])
		}
		created, err := s.addSubnetLocked(sn)
		if err != nil {
			return out, fmt.Errorf("subnets[%d] (%s): %w", i, ts.Name, err)
		}
		out.Subnets[ts.Name] = *created.Id
		if len(created.SecurityListIds) > 0 {
			out.SubnetSecurityLists[*created.Id] = created.SecurityListIds[0]
		}
		switch ts.Role {
		case RoleLoadBalancer:
			out.LoadBalancerSubnets = append(out.LoadBalancerSubnets, *created.Id)
		case RoleNode:
			out.NodeSubnets = append(out.NodeSubnets, *created.Id)
		}
	}
	subnetAD := map[string]string{}
	for _, ts := range t.Subnets {
		subnetAD[ts.Name] = ts.AvailabilityDomain
	}
	for i, ti := range t.Instances {
		if ti.AvailabilityDomain == "" {
			ti.AvailabilityDomain = subnetAD[ti.Subnet] // "" for a regional subnet: the first AD
		}
		inst, vnic := ti.sdk(in(ti.Compartment), out.Subnets[ti.Subnet])
		created, err := s.addInstanceLocked(inst, []core.Vnic{vnic})
		if err != nil {
			return out, fmt.Errorf("instances[%d] (%s): %w", i, ti.Name, err)
		}
		out.Instances[ti.Name] = *created.Id
		if ti.Self {
			s.meta.self = *created.Id
		}
	}
	for i, ip := range t.ReservedPublicIPs {
		p := core.PublicIp{CompartmentId: in(ip.Compartment), DisplayName: new(ip.Name)}
		if ip.IP != "" {
			p.IpAddress = new(ip.IP)
		}
		created, err := s.addPublicIPLocked(p)
		if err != nil {
			return out, fmt.Errorf("reservedPublicIPs[%d] (%s): %w", i, ip.Name, err)
		}
		out.ReservedPublicIPs[ip.Name] = *created.Id
	}
	for _, ns := range slices.Sorted(maps.Keys(t.TagNamespaces)) {
		if err := s.addTagNamespaceLocked(ns, t.TagNamespaces[ns]); err != nil {
			return out, fmt.Errorf("tagNamespaces: %w", err) // unreachable: validateTenancy checked it
		}
	}
	if len(t.Policy) > 0 {
		if err := s.setPolicyLocked(t.Policy); err != nil {
			return out, fmt.Errorf("policy: %w", err) // unreachable: validateTenancy parsed it
		}
	}
	return out, nil
}

// mainCompartmentName is the name of Tenancy.Compartment in policy statements.
func (t Tenancy) mainCompartmentName() string {
	if t.CompartmentName != "" {
		return t.CompartmentName
	}
	return "cluster"
}

// validateTenancy checks everything that does not depend on the server's existing state.
func (s *Server) validateTenancy(t Tenancy) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if t.Region != "" && t.Region != s.opts.Region {
		bad("region: %q, but the server serves %q", t.Region, s.opts.Region)
	}
	comps := map[string]string{t.mainCompartmentName(): "ocid1.compartment.oc1..validating"}
	for i, name := range t.Compartments {
		if name == "" || comps[name] != "" {
			bad("compartments[%d]: %q is empty or repeated (%q names the main compartment)", i, name, t.mainCompartmentName())
		}
		comps[name] = "ocid1.compartment.oc1..validating"
	}
	inComp := func(where, name string) {
		if name != "" && comps[name] == "" {
			bad("%s.compartment: no compartment %q; declare it in compartments", where, name)
		}
	}
	inComp("vcn", t.VCN.Compartment)
	for i, sl := range t.SecurityLists {
		inComp(fmt.Sprintf("securityLists[%d] (%s)", i, sl.Name), sl.Compartment)
	}
	for i, sn := range t.Subnets {
		inComp(fmt.Sprintf("subnets[%d] (%s)", i, sn.Name), sn.Compartment)
	}
	for i, in := range t.Instances {
		inComp(fmt.Sprintf("instances[%d] (%s)", i, in.Name), in.Compartment)
	}
	for i, ip := range t.ReservedPublicIPs {
		inComp(fmt.Sprintf("reservedPublicIPs[%d] (%s)", i, ip.Name), ip.Compartment)
	}
	for _, ns := range slices.Sorted(maps.Keys(t.TagNamespaces)) {
		if err := checkTagName("namespace", ns); err != nil {
			bad("tagNamespaces: %v", err)
		}
		for _, k := range t.TagNamespaces[ns] {
			if err := checkTagName("key", k); err != nil {
				bad("tagNamespaces[%s]: %v", ns, err)
			}
		}
	}
	for i, text := range t.Policy {
		if _, err := parseStatement(text, comps); err != nil {
			bad("policy[%d] %q: %w", i, text, err)
		}
	}
	ads := map[string]bool{}
	if len(t.AvailabilityDomains) == 0 {
		bad("availabilityDomains: at least one is required")
	}
	for i, ad := range t.AvailabilityDomains {
		if ad == "" || ads[ad] {
			bad("availabilityDomains[%d]: %q is empty or repeated", i, ad)
		}
		ads[ad] = true
	}
	vcnCIDR, err := netip.ParsePrefix(t.VCN.CIDR)
	if err != nil {
		bad("vcn.cidr: %q is not a CIDR block", t.VCN.CIDR)
	}
	vcn6 := netip.Prefix{}
	if t.VCN.IPv6CIDR != "" {
		if vcn6, err = netip.ParsePrefix(t.VCN.IPv6CIDR); err != nil || !vcn6.Addr().Is6() || vcn6.Bits() > 64 {
			bad("vcn.ipv6Cidr: %q is not an IPv6 prefix of /64 or shorter", t.VCN.IPv6CIDR)
		}
	}
	if err := lbCheckShapeLimits(t.LoadBalancerShapeLimits); err != nil {
		bad("loadBalancerShapeLimits: %w", err)
	}
	if t.VCN.Name == "" {
		bad("vcn.name: required")
	}
	lists := checkNames(len(t.SecurityLists), func(i int) string { return t.SecurityLists[i].Name }, "securityLists", bad)
	checkNames(len(t.NetworkSecurityGroups), func(i int) string { return t.NetworkSecurityGroups[i] }, "networkSecurityGroups", bad)
	for i, sl := range t.SecurityLists {
		if _, _, err := sl.rules(); err != nil {
			bad("securityLists[%d] (%s): %w", i, sl.Name, err)
		}
	}
	subnets := checkNames(len(t.Subnets), func(i int) string { return t.Subnets[i].Name }, "subnets", bad)
	prefixes := map[string]netip.Prefix{}
	for i, sn := range t.Subnets {
		where := fmt.Sprintf("subnets[%d] (%s)", i, sn.Name)
		p, err := netip.ParsePrefix(sn.CIDR)
		switch {
		case err != nil:
			bad("%s.cidr: %q is not a CIDR block", where, sn.CIDR)
		case vcnCIDR.IsValid() && (p.Bits() < vcnCIDR.Bits() || !vcnCIDR.Contains(p.Addr())):
			bad("%s.cidr: %s is outside the VCN's %s", where, p, vcnCIDR)
		default:
			for other, op := range prefixes {
				if op.Overlaps(p) {
					bad("%s.cidr: %s overlaps subnet %s", where, p, other)
				}
			}
			prefixes[sn.Name] = p
		}
		if sn.IPv6CIDR != "" {
			p6, err := netip.ParsePrefix(sn.IPv6CIDR)
			switch {
			case err != nil || !p6.Addr().Is6() || p6.Bits() != 64:
				bad("%s.ipv6Cidr: %q is not an IPv6 /64 prefix", where, sn.IPv6CIDR)
			case !vcn6.IsValid() || vcn6.Bits() > 64 || !vcn6.Contains(p6.Addr()):
				bad("%s.ipv6Cidr: %s is outside the VCN's ipv6Cidr %q", where, p6, t.VCN.IPv6CIDR)
			}
		}
		if sn.AvailabilityDomain != "" && !ads[sn.AvailabilityDomain] {
			bad("%s.availabilityDomain: %q is not one of availabilityDomains", where, sn.AvailabilityDomain)
		}
		if sn.Role != "" && sn.Role != RoleLoadBalancer && sn.Role != RoleNode {
			bad("%s.role: %q is not %q, %q or empty", where, sn.Role, RoleLoadBalancer, RoleNode)
		}
		for _, l := range sn.SecurityLists {
			if !lists[l] {
				bad("%s.securityLists: no security list %q", where, l)
			}
		}
	}
	checkNames(len(t.Instances), func(i int) string { return t.Instances[i].Name }, "instances", bad)
	subnetAD := map[string]string{}
	for _, sn := range t.Subnets {
		subnetAD[sn.Name] = sn.AvailabilityDomain
	}
	self := 0
	for i, in := range t.Instances {
		where := fmt.Sprintf("instances[%d] (%s)", i, in.Name)
		if in.AvailabilityDomain != "" && !ads[in.AvailabilityDomain] {
			bad("%s.availabilityDomain: %q is not one of availabilityDomains", where, in.AvailabilityDomain)
		}
		if ad := subnetAD[in.Subnet]; ad != "" && in.AvailabilityDomain != "" && ad != in.AvailabilityDomain {
			bad("%s.availabilityDomain: %q, but subnet %s is in %q", where, in.AvailabilityDomain, in.Subnet, ad)
		}
		if !subnets[in.Subnet] {
			bad("%s.subnet: no subnet %q", where, in.Subnet)
		} else if p, ok := prefixes[in.Subnet]; ok && in.PrivateIP != "" {
			if a, err := netip.ParseAddr(in.PrivateIP); err != nil || !p.Contains(a) {
				bad("%s.privateIP: %q is not an address in subnet %s", where, in.PrivateIP, p)
			}
		}
		if in.PublicIP != "" && in.PublicIP != "auto" {
			if _, err := netip.ParseAddr(in.PublicIP); err != nil {
				bad("%s.publicIP: %q is neither \"auto\" nor an address", where, in.PublicIP)
			}
		}
		if in.State != "" {
			if _, ok := core.GetMappingInstanceLifecycleStateEnum(in.State); !ok {
				bad("%s.state: %q is not an instance lifecycle state", where, in.State)
			}
		}
		if in.Self {
			self++
		}
	}
	if self > 1 {
		bad("instances: %d are marked self; at most one may be", self)
	}
	checkNames(len(t.ReservedPublicIPs), func(i int) string { return t.ReservedPublicIPs[i].Name }, "reservedPublicIPs", bad)
	for i, ip := range t.ReservedPublicIPs {
		if ip.IP != "" {
			if _, err := netip.ParseAddr(ip.IP); err != nil {
				bad("reservedPublicIPs[%d] (%s).ip: %q is not an address", i, ip.Name, ip.IP)
			}
		}
	}
	return errors.Join(errs...)
}

// checkNames checks that n names are set and distinct, and returns them as a set.
func checkNames(n int, name func(int) string, field string, bad func(string, ...any)) map[string]bool {
	set := map[string]bool{}
	for i := range n {
		switch nm := name(i); {
		case nm == "":
			bad("%s[%d].name: required", field, i)
		case set[nm]:
			bad("%s[%d].name: %q is used twice", field, i, nm)
		default:
			set[nm] = true
		}
	}
	return set
}

// rules converts the short-form rules into SDK rules, checked as UpdateSecurityList checks them.
func (sl TenancySecurityList) rules() ([]core.IngressSecurityRule, []core.EgressSecurityRule, error) {
	ingress := make([]core.IngressSecurityRule, 0, len(sl.Ingress))
	egress := make([]core.EgressSecurityRule, 0, len(sl.Egress))
	for i, r := range sl.Ingress {
		proto, tcp, udp, icmp, err := r.options()
		if err != nil {
			return nil, nil, fmt.Errorf("ingress[%d]: %w", i, err)
		}
		ingress = append(ingress, core.IngressSecurityRule{Protocol: &proto, Source: new(r.CIDR), TcpOptions: tcp,
			UdpOptions: udp, IcmpOptions: icmp, Description: descriptionOf(r.Description)})
	}
	for i, r := range sl.Egress {
		proto, tcp, udp, icmp, err := r.options()
		if err != nil {
			return nil, nil, fmt.Errorf("egress[%d]: %w", i, err)
		}
		egress = append(egress, core.EgressSecurityRule{Protocol: &proto, Destination: new(r.CIDR), TcpOptions: tcp,
			UdpOptions: udp, IcmpOptions: icmp, Description: descriptionOf(r.Description)})
	}
	return ingress, egress, checkSecurityListRules(ingress, egress)
}

func descriptionOf(d string) *string {
	if d == "" {
		return nil
	}
	return &d
}

// options maps the short protocol name to OCI's number and the ports to the protocol's options.
func (r TenancyRule) options() (string, *core.TcpOptions, *core.UdpOptions, *core.IcmpOptions, error) {
	proto := map[string]string{"tcp": "6", "udp": "17", "icmp": "1", "icmpv6": "58", "all": "all"}[strings.ToLower(r.Protocol)]
	if proto == "" {
		proto = r.Protocol
	}
	if r.Ports == "" {
		return proto, nil, nil, nil, nil
	}
	lo, hi, isRange := strings.Cut(r.Ports, "-")
	if !isRange {
		hi = lo
	}
	first, err1 := strconv.Atoi(lo)
	last, err2 := strconv.Atoi(hi)
	if err1 != nil || err2 != nil {
		return "", nil, nil, nil, fmt.Errorf("ports %q is neither a port nor a range like 30000-32767", r.Ports)
	}
	pr := &core.PortRange{Min: &first, Max: &last}
	switch proto {
	case "6":
		return proto, &core.TcpOptions{DestinationPortRange: pr}, nil, nil, nil
	case "17":
		return proto, nil, &core.UdpOptions{DestinationPortRange: pr}, nil, nil
	default:
		return "", nil, nil, nil, fmt.Errorf("ports need protocol tcp or udp, not %q", r.Protocol)
	}
}

// sdk converts the description into the instance and VNIC AddInstance takes.
func (ti TenancyInstance) sdk(compartment *string, subnetID string) (core.Instance, core.Vnic) {
	inst := core.Instance{CompartmentId: compartment, DisplayName: new(ti.Name), FreeformTags: ti.FreeformTags}
	if ti.Shape != "" {
		inst.Shape = new(ti.Shape)
	}
	if ti.AvailabilityDomain != "" {
		inst.AvailabilityDomain = new(ti.AvailabilityDomain)
	}
	if ti.FaultDomain != "" {
		inst.FaultDomain = new(ti.FaultDomain)
	}
	if ti.State != "" {
		inst.LifecycleState = core.InstanceLifecycleStateEnum(strings.ToUpper(ti.State))
	}
	vnic := core.Vnic{SubnetId: &subnetID, HostnameLabel: new(hostnameLabel(ti.Name)), Ipv6Addresses: ti.IPv6}
	if ti.PrivateIP != "" {
		vnic.PrivateIp = new(ti.PrivateIP)
	}
	switch ti.PublicIP {
	case "":
	case "auto":
		vnic.PublicIp = new("")
	default:
		vnic.PublicIp = new(ti.PublicIP)
	}
	return inst, vnic
}

// hostnameLabel makes a VNIC hostname label of a name: lower-case letters, digits and hyphens,
// at most 63 characters.
func hostnameLabel(name string) string {
	return labelOf(name, true, 63)
}

// subnetDNSLabel makes a subnet DNS label of a name: lower-case letters and digits, at most 15
// characters.
func subnetDNSLabel(name string) string {
	return labelOf(name, false, 15)
}

func labelOf(name string, hyphens bool, maxLen int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || (hyphens && r == '-') {
			b.WriteRune(r)
		}
	}
	l := b.String()
	return l[:min(len(l), maxLen)]
}
