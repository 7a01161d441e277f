// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/backendnode"
	"github.com/oci-ccm/oci-ccm/lb/internal/ipaddr"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// The network load balancer's values and defaults.
const (
	// nlbMinHealthIntervalMs is OCI's lowest health-check interval of a network load balancer.
	nlbMinHealthIntervalMs = 10000
	nlbDefaultPolicy       = "FIVE_TUPLE"
	// protocolUDP and protocolTCPAndUDP are network load balancer listener protocols.
	protocolUDP       = "UDP"
	protocolTCPAndUDP = "TCP_AND_UDP"
	// ipv6Suffix ends the names of a network load balancer's IPv6 listeners and backend sets
	// ("TCP-80-IPv6"), single-stack too, as the upstream CCM names them (getListenersNetworkLoadBalancer
	// and getBackendSetNamePortMap in its load_balancer_spec.go); the IPv4 ones keep the plain names.
	ipv6Suffix = "-IPv6"
)

// buildNLB is build for a network load balancer: the same Spec, with the network load balancer
// annotations, one subnet, no shape or certificates, TCP/UDP listeners and backends by instance.
func (d *desiredBuilder) buildNLB(nodes []*v1.Node) *model.Spec {
	p := d.p
	spec := d.base(model.KindNetworkLoadBalancer, annotation.NLBInternal, "ocid1.networkloadbalancer.",
		fmt.Sprintf("a network load balancer OCID (ocid1.networkloadbalancer.…) with %s: nlb", annotation.LoadBalancerType))
	spec.Subnets, spec.Defaulted.Subnets = d.nlbSubnet()
	spec.ReservedIP = d.reservedIP(spec.Internal)
	// The load balancer's oci-network-security-groups is not read, as upstream does not read it
	// on a network load balancer: groups attached at the switch could close it to its clients.
	spec.NetworkSecurityGroups = p.ocids(annotation.NLBNetworkSecurityGroups, "networksecuritygroup", model.MaxNetworkSecurityGroups)
	spec.IPFamilies = d.nlbIPFamilies()
	spec.SourceCIDRs = d.sourceCIDRs(spec.IPFamilies)
	spec.SecurityListMode = d.nlbSecurityListMode()
	spec.FreeformTags, spec.DefinedTags = d.nlbTags()
	spec.IPMode = d.ipMode()
	spec.AssignedIPv4, spec.AssignedIPv6 = d.assignedIPs(spec.IPFamilies)
	spec.PreserveSource = d.preserveSource()
	p.boolean(annotation.NLBExternalIPOnly, false) // read by the status (lookup.Status); checked here
	d.serviceSpecChecks(0)
	d.refuseUnsupported(model.KindNetworkLoadBalancer)

	selector := annotation.NodeLabelSelector
	if p.has(annotation.NLBNodeLabelSelector) {
		selector = annotation.NLBNodeLabelSelector
	}
	backends, excluded := nlbBackendNodes(nodes, d.selector(selector), spec.IPFamilies)
	spec.ExcludedNodes = excluded
	d.nlbPortsAndListeners(spec, backends)
	// A listener and a backend set per port and IP family: refused here, rather than by OCI
	// halfway through a plan.
	if n := len(spec.BackendSets); n > nlbMaxListeners {
		d.p.add(&Problem{Field: "spec.ports", Value: fmt.Sprintf("%d ports", len(d.svc.Spec.Ports)),
			Allowed: fmt.Sprintf("at most %d listeners and backend sets (%d here: one per port and IP family): an OCI network load balancer has at most %d of each; split the ports over several Services",
				nlbMaxListeners, n, nlbMaxListeners)})
	}
	d.subsetBackends(spec, nodes, nlbBackendLimits, selector)
	return spec
}

// nlbSubnet returns the annotation's subnet, else loadBalancer.subnet1; the bool is true when it
// came from the config.
func (d *desiredBuilder) nlbSubnet() ([]string, bool) {
	v := d.p.str(annotation.NLBSubnet, "")
	defaulted := v == ""
	if defaulted {
		v = d.cfg.LoadBalancer.Subnet1
	}
	switch {
	case v == "":
		d.p.add(problemf(annotation.NLBSubnet, "", "a subnet OCID; none is set here or in cloud-provider.yaml (loadBalancer.subnet1)"))
		return nil, defaulted
	case !strings.HasPrefix(v, "ocid1.subnet."):
		d.p.add(problemf(annotation.NLBSubnet, v, "a subnet OCID (ocid1.subnet.…)"))
		return nil, defaulted
	}
	return []string{v}, defaulted
}

// nlbSecurityListMode is security-rule-management-mode, else the network load balancer's own
// annotation, else None: the upstream CCM's default for network load balancers (the config's
// mode is for load balancers).
func (d *desiredBuilder) nlbSecurityListMode() config.SecurityListMode {
	if mode, ok := d.securityRuleMode(); ok {
		return mode
	}
	modes := []string{string(config.SecurityListModeAll), string(config.SecurityListModeFrontend),
		string(config.SecurityListModeBackend), string(config.SecurityListModeNone)}
	return config.SecurityListMode(d.p.oneOf(annotation.NLBSecurityListManagementMode, string(config.SecurityListModeNone), modes...))
}

// nlbTags are the tags a new network load balancer gets: its tag annotations (the current
// spelling, else the older one, as the upstream CCM reads them), else the config's. The load
// balancer's tag annotations are not read, as upstream does not read them on a network load
// balancer.
func (d *desiredBuilder) nlbTags() (map[string]string, map[string]map[string]any) {
	freeform, defined := annotation.NLBInitialFreeformTags, annotation.NLBInitialDefinedTags
	if !d.p.has(freeform) {
		freeform = annotation.NLBFreeformTags
	}
	if !d.p.has(defined) {
		defined = annotation.NLBDefinedTags
	}
	return d.tagsFrom(freeform, defined)
}

// nlbIPFamilies are the families the network load balancer serves: the Service's first family
// (IPv4 when none is set), both with RequireDualStack. PreferDualStack gets both when the subnet
// is known to have an IPv6 prefix (subnetHasIPv6), else the first family alone: a dual-stack
// create in an IPv4-only subnet would fail where the Service only prefers dual stack.
func (d *desiredBuilder) nlbIPFamilies() []v1.IPFamily {
	fams := d.svc.Spec.IPFamilies
	for i, f := range fams {
		if f != v1.IPv4Protocol && f != v1.IPv6Protocol {
			d.p.add(&Problem{Field: fmt.Sprintf("spec.ipFamilies[%d]", i), Value: string(f), Allowed: "IPv4 or IPv6"})
			return []v1.IPFamily{v1.IPv4Protocol}
		}
	}
	if len(fams) == 0 {
		return []v1.IPFamily{v1.IPv4Protocol}
	}
	if p := d.svc.Spec.IPFamilyPolicy; p != nil && (*p == v1.IPFamilyPolicyRequireDualStack || *p == v1.IPFamilyPolicyPreferDualStack && d.subnetHasIPv6) {
		return []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol}
	}
	return []v1.IPFamily{fams[0]}
}

// assignedIPs reads the addresses a new network load balancer asks for.
func (d *desiredBuilder) assignedIPs(fams []v1.IPFamily) (v4, v6 string) {
	read := func(a annotation.Name, fam v1.IPFamily) string {
		v := d.p.str(a, "")
		if v == "" {
			return ""
		}
		ip, err := netip.ParseAddr(v)
		switch {
		case err != nil || (fam == v1.IPv4Protocol) != ip.Is4():
			d.p.add(problemf(a, v, "an %s address", fam))
		case !slices.Contains(fams, fam):
			d.p.add(problemf(a, v, "no value: the Service's IP families (%s) do not include %s", ipaddr.Families(fams), fam))
		default:
			return ip.String()
		}
		return ""
	}
	return read(annotation.NLBAssignedPrivateIPv4, v1.IPv4Protocol), read(annotation.NLBAssignedIPv6, v1.IPv6Protocol)
}

// sameFamilies reports whether two lists hold the same IP families, in any order: what a network
// load balancer's IP version records. An empty list is IPv4, OCI's default.
func sameFamilies(a, b []v1.IPFamily) bool {
	return serves(a, v1.IPv4Protocol) == serves(b, v1.IPv4Protocol) && serves(a, v1.IPv6Protocol) == serves(b, v1.IPv6Protocol)
}

// serves reports whether a load balancer of these IP families serves family f.
func serves(fams []v1.IPFamily, f v1.IPFamily) bool {
	return slices.Contains(fams, f) || len(fams) == 0 && f == v1.IPv4Protocol
}

// familyOf is the IP family a listener or backend set serves.
func familyOf(ipv6 bool) v1.IPFamily {
	if ipv6 {
		return v1.IPv6Protocol
	}
	return v1.IPv4Protocol
}

// preserveSource reads annotation.NLBPreserveSource: by default on with externalTrafficPolicy
// Local, and refused with Cluster, where kube-proxy forwards to other nodes whose replies would
// not return through the network load balancer.
func (d *desiredBuilder) preserveSource() bool {
	local := d.svc.Spec.ExternalTrafficPolicy == v1.ServiceExternalTrafficPolicyLocal
	v := d.p.boolean(annotation.NLBPreserveSource, local)
	if v && !local {
		d.p.add(problemf(annotation.NLBPreserveSource, d.p.ann[string(annotation.NLBPreserveSource)],
			"false with externalTrafficPolicy %s (preserving the client's address needs externalTrafficPolicy Local)", d.svc.Spec.ExternalTrafficPolicy))
		return false
	}
	return v
}

// nlbNode is a backend Node's addresses and instance.
type nlbNode struct {
	v4, v6 string
	// target is the instance OCID from the providerID; empty without one.
	target string
}

// nlbBackendNodes returns the Nodes that serve traffic, by IPv4 (else IPv6) address, and those
// left out with the reason: the same choice as backendnode.IPv4, with the addresses of the families
// the network load balancer serves.
func nlbBackendNodes(nodes []*v1.Node, selector labels.Selector, fams []v1.IPFamily) ([]nlbNode, map[string]string) {
	var out []nlbNode
	var excluded map[string]string
	seen := map[string]bool{}
	wantV4, wantV6 := slices.Contains(fams, v1.IPv4Protocol), slices.Contains(fams, v1.IPv6Protocol)
	for _, n := range nodes {
		if n == nil {
			continue
		}
		reason := backendnode.ExcludedBecause(n, selector)
		nn := nlbNode{target: instanceOCID(n.Spec.ProviderID)}
		if reason == "" {
			if wantV4 {
				nn.v4 = backendnode.InternalIPv4(n)
			}
			if wantV6 {
				nn.v6 = nodeIPv6(n)
			}
			key := nn.v4 + "/" + nn.v6
			switch {
			case nn.v4 == "" && nn.v6 == "":
				reason = "has no InternalIP address of the Service's IP families"
			case seen[key]:
				reason = reasonDuplicateAddr
			}
			seen[key] = true
		}
		if reason != "" {
			if excluded == nil {
				excluded = map[string]string{}
			}
			excluded[n.Name] = reason
			continue
		}
		out = append(out, nn)
	}
	slices.SortFunc(out, func(a, b nlbNode) int {
		if c := ipaddr.Compare(a.v4, b.v4); c != 0 {
			return c
		}
		return ipaddr.Compare(a.v6, b.v6)
	})
	return out, excluded
}

// instanceOCID reads a Node's providerID: "oci://<ocid>" or the bare instance OCID; "" for
// anything else.
func instanceOCID(providerID string) string {
	id := strings.TrimPrefix(providerID, "oci://")
	if strings.HasPrefix(id, "ocid1.instance.") {
		return id
	}
	return ""
}

// nodeIPv6 returns the Node's first IPv6 InternalIP address, else its first IPv6 ExternalIP: an
// IPv6 InternalIP is optional, and the upstream CCM uses the ExternalIP then (load_balancer_spec.go,
// getBackends).
func nodeIPv6(n *v1.Node) string {
	for _, t := range []v1.NodeAddressType{v1.NodeInternalIP, v1.NodeExternalIP} {
		for _, a := range n.Status.Addresses {
			if a.Type != t {
				continue
			}
			if ip, err := netip.ParseAddr(a.Address); err == nil && ip.Is6() && !ip.Is4In6() {
				return ip.String()
			}
		}
	}
	return ""
}

// nlbPortsAndListeners builds one listener and backend set per Service port number and IP
// family: TCP, UDP, or TCP_AND_UDP when the Service has the port on both protocols (one node port
// then serves both, as Kubernetes allocates it).
func (d *desiredBuilder) nlbPortsAndListeners(spec *model.Spec, nodes []nlbNode) {
	p := d.p
	policy := p.oneOf(annotation.NLBBackendPolicy, nlbDefaultPolicy, "TWO_TUPLE", "THREE_TUPLE", "FIVE_TUPLE")
	proxy := 0
	if p.boolean(annotation.NLBProxyProtocolV2, false) {
		proxy = 2
	}
	hc := d.healthCheckFrom(false, annotation.NLBHealthCheckRetries, annotation.NLBHealthCheckInterval, annotation.NLBHealthCheckTimeout, nlbMinHealthIntervalMs)

	type group struct {
		protocols []v1.Protocol
		nodePort  int
	}
	byPort := map[int]*group{}
	for i, sp := range d.svc.Spec.Ports {
		proto := sp.Protocol
		if proto == "" {
			proto = v1.ProtocolTCP
		}
		if proto != v1.ProtocolTCP && proto != v1.ProtocolUDP {
			p.add(&Problem{Field: fmt.Sprintf("spec.ports[%d].protocol", i), Value: string(proto),
				Allowed: "TCP or UDP (OCI network load balancers forward TCP and UDP)"})
			continue
		}
		nodePort, ok := p.allocatedNodePort(i, sp)
		if !ok {
			continue
		}
		port := int(sp.Port)
		g := byPort[port]
		if g == nil {
			g = &group{nodePort: nodePort}
			byPort[port] = g
		} else if g.nodePort != nodePort {
			p.add(&Problem{Field: fmt.Sprintf("spec.ports[%d].nodePort", i), Value: fmt.Sprint(nodePort),
				Allowed: fmt.Sprintf("%d, the node port of port %d on the other protocol (one TCP_AND_UDP listener forwards both to one node port)", g.nodePort, port)})
			continue
		}
		g.protocols = append(g.protocols, proto)
		spec.Ports = append(spec.Ports, model.Port{Protocol: proto, Listener: port, NodePort: nodePort, HealthCheck: hc.Port})
	}

	spec.Listeners = make(map[string]model.Listener, len(byPort)*len(spec.IPFamilies))
	spec.BackendSets = make(map[string]model.BackendSet, len(byPort)*len(spec.IPFamilies))
	for _, port := range slices.Sorted(maps.Keys(byPort)) {
		g := byPort[port]
		protocol := string(g.protocols[0])
		if len(g.protocols) > 1 {
			protocol = protocolTCPAndUDP
		}
		for _, fam := range spec.IPFamilies {
			v6 := fam == v1.IPv6Protocol
			name := listenerName(protocol, port)
			if v6 {
				name += ipv6Suffix
			}
			bs := model.BackendSet{Name: name, Policy: policy, PreserveSource: spec.PreserveSource, IPv6: v6, HealthCheck: hc,
				Backends: make([]model.Backend, 0, len(nodes))}
			for _, n := range nodes {
				switch {
				case !v6 && n.v4 != "":
					bs.Backends = append(bs.Backends, model.Backend{IP: n.v4, Port: g.nodePort, TargetID: n.target})
				case v6 && n.v6 != "":
					// By address: an instance's target resolves to its primary IPv4 address.
					bs.Backends = append(bs.Backends, model.Backend{IP: n.v6, Port: g.nodePort})
				}
			}
			spec.BackendSets[name] = bs
			spec.Listeners[name] = model.Listener{Name: name, Protocol: protocol, Port: port, BackendSet: name, IPv6: v6, ProxyProtocolVersion: proxy}
		}
	}
}
