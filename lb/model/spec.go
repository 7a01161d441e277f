// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package model

import (
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/internal/ipaddr"
)

// MaxNetworkSecurityGroups is how many network security groups OCI lets a load balancer or a
// network load balancer be in (OCI's "maxNetworkSecurityGroups" per resource).
const MaxNetworkSecurityGroups = 5

// Kind is the OCI product that realises a Service.
type Kind string

// The kinds. Both go through the same lb.Desired, lb.Diff, ordering and engine.Reconciler (lb/oci).
const (
	// KindLoadBalancer is the OCI Load Balancer service (layer 4/7, API 20170115).
	KindLoadBalancer Kind = "lb"
	// KindNetworkLoadBalancer is the OCI Network Load Balancer service (layer 4, API 20200501).
	KindNetworkLoadBalancer Kind = "nlb"
)

// KubeProxyHealthPort is kube-proxy's node health endpoint (/healthz): what a load balancer
// health-checks for externalTrafficPolicy Cluster, and so a port the security rules open to it.
const KubeProxyHealthPort = 10256

// Spec is a load balancer as a value: what a Service asks for (lb.Desired) or what OCI has
// (engine.Reconciler.Get's Result.Spec). lb.Diff compares two of them. Maps are keyed by the resource's
// name.
//
// Fields under "desired only" are computed from the Service and are not observable on an OCI
// load balancer; an observed Spec leaves them empty and lb.Diff ignores them. Security rules are
// computed from them (see Ports and ccm/service's ClaimFor).
type Spec struct {
	// Kind is the OCI product. Immutable.
	Kind Kind
	// ID is the load balancer's OCID; empty in a desired Spec.
	ID string
	// Name is the OCI display name (engine.Reconciler.Name).
	Name string
	// CompartmentID is where the load balancer lives.
	CompartmentID string
	// Internal means private IP only. Immutable.
	Internal bool
	// Subnets are the load balancer's subnet OCIDs. Immutable.
	Subnets []string
	// Shape is the bandwidth shape.
	Shape Shape
	// ReservedIP is a reserved public IP address to use (spec.loadBalancerIP). Immutable once
	// created.
	ReservedIP string
	// NetworkSecurityGroups are NSG OCIDs, sorted.
	NetworkSecurityGroups []string
	// AssignedIPv4 and AssignedIPv6 are the private addresses a network load balancer is created
	// with (annotation.NLBAssignedPrivateIPv4, annotation.NLBAssignedIPv6); empty lets OCI pick.
	// Create only: not observed or compared.
	AssignedIPv4 string
	AssignedIPv6 string

	Listeners    map[string]Listener
	BackendSets  map[string]BackendSet
	Certificates map[string]Certificate
	// RuleSets are the load balancer's rule sets (KindLoadBalancer only): in a desired Spec those
	// annotation.RuleSets defines, in an observed one all the load balancer has. Which of those
	// oci-ccm manages is recorded in the freeform tags (lb.Diff).
	RuleSets map[string]RuleSet

	// Owner is who the load balancer belongs to, as recorded in its freeform tags.
	Owner Owner
	// FreeformTags and DefinedTags are applied when the load balancer is created (ownership tags
	// are added to FreeformTags then). An observed Spec has the current tags. Diff never
	// changes them except to add ownership tags.
	FreeformTags map[string]string
	DefinedTags  map[string]map[string]any

	// Defaulted marks fields that came from defaults rather than the Service. For an existing
	// load balancer the observed value of such a field wins, so changing a default in
	// cloud-provider.yaml never breaks or reshapes existing load balancers.
	Defaulted Defaulted

	// Desired only.

	// Ports are the Service's ports as the security rules need them.
	Ports []Port
	// SourceCIDRs are the client CIDRs allowed in, normalised and sorted.
	SourceCIDRs []string
	// SecurityListMode is the effective security-list management mode (annotation, else config).
	SecurityListMode config.SecurityListMode
	// BackendNSGs are the OCIDs of the NSGs the backends are in, sorted
	// (annotation.BackendNetworkSecurityGroups; mode NSG only).
	BackendNSGs []string
	// PreserveSource is true when a network load balancer keeps the client's address as the
	// source of the packets it forwards (annotation.NLBPreserveSource), so the backends need
	// ingress from the client source ranges rather than from the load balancer's subnet (see
	// ccm/service's ClaimFor).
	PreserveSource bool
	// IPFamilies are the IP families the load balancer serves: the Service's for a network load
	// balancer (IPv4, IPv6 or both; see Desired), IPv4 for a load balancer.
	IPFamilies []v1.IPFamily
	// IPMode is reported in the Service status when set.
	IPMode *v1.LoadBalancerIPMode
	// AdoptID is the OCID from annotation.AdoptLoadBalancerID, if any.
	AdoptID string
	// ExcludedNodes maps the name of each Node that is not a backend to the reason, for logs
	// and events; an exclusion is not an error.
	ExcludedNodes map[string]string
	// Subset, when its Nodes are not zero, says the backends are a subset of the eligible Nodes
	// (config loadBalancer.backendSubset): the Service has more of them than OCI's backend limits
	// or the configured size allow. Like ExcludedNodes it is for logs and events.
	Subset Subset
}

// Subset is the account of a backend subset: Nodes of the Eligible ones are backends.
type Subset struct {
	Nodes, Eligible int
}

// Defaulted lists the Spec fields that were not set by the Service.
type Defaulted struct {
	Subnets bool
	Shape   bool
	// Compartment is set when the Service names no compartment: an existing load balancer stays
	// in the compartment it is in (adopted, or moved by hand), and nothing is refused for it.
	Compartment bool
}

// Shape is a load balancer shape. Fixed shapes have only a Name; "flexible" has a bandwidth
// range.
type Shape struct {
	Name    string
	MinMbps int
	MaxMbps int
}

// shapeFlexible is the name of the flexible shape.
const shapeFlexible = "flexible"

// IsFlexible reports whether the shape is the flexible one.
func (s Shape) IsFlexible() bool { return s.Name == shapeFlexible }

// String returns e.g. "flexible 10–100 Mbps" or "100Mbps".
func (s Shape) String() string {
	if s.IsFlexible() {
		return fmt.Sprintf("%s %d–%d Mbps", s.Name, s.MinMbps, s.MaxMbps)
	}
	return s.Name
}

// Listener is a port the load balancer accepts connections on.
type Listener struct {
	Name string
	// Protocol is TCP, HTTP or GRPC (KindLoadBalancer); TCP, UDP or TCP_AND_UDP
	// (KindNetworkLoadBalancer).
	Protocol string
	// IPv6 marks a network load balancer's IPv6 listener (false: IPv4).
	IPv6 bool
	Port int
	// BackendSet is the name of the backend set the listener forwards to.
	BackendSet string
	// TLS, when set, terminates TLS with a certificate from Spec.Certificates.
	TLS *TLS
	// IdleTimeoutSeconds is the connection idle timeout; always explicit in a desired Spec, so
	// a load balancer created elsewhere with OCI's defaults compares equal.
	IdleTimeoutSeconds int64
	// ProxyProtocolVersion is 1 or 2 to send a PROXY header to backends, 0 for none.
	ProxyProtocolVersion int
	// Routing is what an OCI listener may carry beyond its port and backend set. An observed Spec
	// has it, and Diff carries it into the update of an existing listener, so that a change (the
	// update replaces the whole listener) never drops what a user configured. Only RuleSets is
	// managed, and only in part: a desired Spec names its RuleSets there, Diff adds those and
	// drops the rule sets oci-ccm no longer wants, keeping the others; it is compared as a set.
	Routing ListenerRouting
}

// ListenerRouting names the load balancer's hostnames, rule sets, routing policy and path route
// set a listener uses. oci-ccm leaves all but some of the rule sets as it finds them (see
// Listener.Routing).
type ListenerRouting struct {
	Hostnames     []string
	RuleSets      []string
	RoutingPolicy string
	PathRouteSet  string
}

// Clone returns a deep copy.
func (r ListenerRouting) Clone() ListenerRouting {
	r.Hostnames, r.RuleSets = slices.Clone(r.Hostnames), slices.Clone(r.RuleSets)
	return r
}

// TLS is a listener's or backend set's TLS settings.
type TLS struct {
	// Certificate is the name of an entry in Spec.Certificates.
	Certificate string
	// CipherSuite is an OCI cipher-suite name; empty means OCI's default (and then the observed
	// value is not compared).
	CipherSuite string
	// Protocols are TLS versions (e.g. TLSv1.2); empty means OCI's default.
	Protocols []string
}

// BackendSet is a group of backends with a health check and balancing policy.
type BackendSet struct {
	Name string
	// Policy is ROUND_ROBIN, LEAST_CONNECTIONS or IP_HASH (KindLoadBalancer); TWO_TUPLE,
	// THREE_TUPLE or FIVE_TUPLE (KindNetworkLoadBalancer).
	Policy string
	// PreserveSource makes a network load balancer pass the client's address to the backends.
	PreserveSource bool
	// IPv6 marks a network load balancer's IPv6 backend set (false: IPv4).
	IPv6     bool
	Backends []Backend
	// HealthCheck is how the load balancer probes each backend.
	HealthCheck HealthCheck
	// TLS, when set, makes the load balancer speak TLS to the backends.
	TLS *TLS
}

// Backend is one node behind a backend set.
type Backend struct {
	// IP is the node's address. A network load balancer's backend named by TargetID is compared
	// by TargetID alone (OCI resolves the address).
	IP   string
	Port int
	// TargetID is the node's instance OCID, by which a network load balancer addresses an IPv4
	// backend when the Node has a providerID.
	TargetID string
}

// HealthCheck is a backend set's health checker.
type HealthCheck struct {
	// Protocol is HTTP or TCP.
	Protocol string
	Port     int
	// Path is the HTTP path, e.g. /healthz.
	Path string
	// ReturnCode is the HTTP status that means healthy.
	ReturnCode     int
	Retries        int
	IntervalMillis int
	TimeoutMillis  int
	// ForcePlainText probes with plain HTTP even when the backend set uses TLS (kube-proxy and
	// kubelet health endpoints are plain HTTP).
	ForcePlainText bool
}

// Certificate is certificate material installed on the load balancer. Its name carries a hash
// of the content, so a changed Secret yields a new certificate.
type Certificate struct {
	Name string
	// PublicCertificate and CACertificate are PEM; either may be empty.
	PublicCertificate string
	CACertificate     string
	// PrivateKey and Passphrase are only known in a desired Spec.
	PrivateKey config.Secret
	Passphrase config.Secret
}

// Port is one Service port as the security rules need it.
type Port struct {
	// Protocol is the Service port's protocol (TCP, or UDP for a network load balancer).
	Protocol v1.Protocol
	// Listener is the port clients connect to on the load balancer.
	Listener int
	// NodePort is the port the load balancer connects to on the nodes.
	NodePort int
	// HealthCheck is the port the health checker probes on the nodes.
	HealthCheck int
}

// RuleSet is a named list of rules that the listeners naming it apply to their traffic
// (KindLoadBalancer only).
type RuleSet struct {
	Name string
	// Rules are OCI Load Balancer Rule objects in order, each as canonical JSON: an "action" and
	// that action's fields, keys sorted, no null fields, no spaces. Two rules are the same when
	// their texts are.
	Rules []string
}

// Owner identifies the cluster and Service a load balancer belongs to.
type Owner struct {
	// Cluster is the cluster identity (config.Config.ClusterID: clusterID, else --cluster-name).
	Cluster string
	// Service is "namespace/name".
	Service string
	// UID is the Service's UID.
	UID string
}

// ListenerPorts returns the listener ports, sorted: the ingress ports to open from SourceCIDRs.
func (s *Spec) ListenerPorts() []int {
	out := make([]int, 0, len(s.Listeners))
	for _, l := range s.Listeners {
		out = append(out, l.Port)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// NodePorts returns the backend ports on the nodes, sorted (desired Specs only).
func (s *Spec) NodePorts() []int {
	out := make([]int, 0, len(s.Ports))
	for _, p := range s.Ports {
		out = append(out, p.NodePort)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// HealthCheckPorts returns the health-check ports on the nodes, sorted (desired Specs only).
func (s *Spec) HealthCheckPorts() []int {
	out := make([]int, 0, len(s.Ports))
	for _, p := range s.Ports {
		out = append(out, p.HealthCheck)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// BackendIPs returns the addresses of every backend, sorted, each once: the nodes whose
// subnets need the security rules (see instances.Subnets and ccm/service's ClaimFor).
func (s *Spec) BackendIPs() []string {
	var out []string
	for _, bs := range s.BackendSets {
		for _, b := range bs.Backends {
			out = append(out, b.IP)
		}
	}
	ipaddr.Sort(out)
	return slices.Compact(out)
}

// Clone returns a deep copy, so a Spec handed to a caller can be changed without affecting the
// one it came from.
func (s *Spec) Clone() *Spec {
	if s == nil {
		return nil
	}
	c := *s
	c.Subnets = slices.Clone(s.Subnets)
	c.NetworkSecurityGroups = slices.Clone(s.NetworkSecurityGroups)
	c.Listeners = make(map[string]Listener, len(s.Listeners))
	for k, l := range s.Listeners {
		l.TLS = l.TLS.Clone()
		l.Routing = l.Routing.Clone()
		c.Listeners[k] = l
	}
	c.BackendSets = make(map[string]BackendSet, len(s.BackendSets))
	for k, b := range s.BackendSets {
		b.Backends = slices.Clone(b.Backends)
		b.TLS = b.TLS.Clone()
		c.BackendSets[k] = b
	}
	c.Certificates = make(map[string]Certificate, len(s.Certificates))
	for k, v := range s.Certificates {
		c.Certificates[k] = v
	}
	if s.RuleSets != nil {
		c.RuleSets = make(map[string]RuleSet, len(s.RuleSets))
		for k, v := range s.RuleSets {
			v.Rules = slices.Clone(v.Rules)
			c.RuleSets[k] = v
		}
	}
	c.FreeformTags = maps.Clone(s.FreeformTags)
	if s.DefinedTags != nil {
		c.DefinedTags = make(map[string]map[string]any, len(s.DefinedTags))
		for ns, kv := range s.DefinedTags {
			m := make(map[string]any, len(kv))
			for k, v := range kv {
				m[k] = v
			}
			c.DefinedTags[ns] = m
		}
	}
	c.Ports = slices.Clone(s.Ports)
	c.ExcludedNodes = maps.Clone(s.ExcludedNodes)
	c.SourceCIDRs = slices.Clone(s.SourceCIDRs)
	c.BackendNSGs = slices.Clone(s.BackendNSGs)
	c.IPFamilies = slices.Clone(s.IPFamilies)
	if s.IPMode != nil {
		m := *s.IPMode
		c.IPMode = &m
	}
	return &c
}

// Clone returns a deep copy (nil for nil).
func (t *TLS) Clone() *TLS {
	if t == nil {
		return nil
	}
	c := *t
	c.Protocols = slices.Clone(t.Protocols)
	return &c
}
