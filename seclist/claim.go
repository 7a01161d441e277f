// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/config"
)

// AnyIPv4 is the source allowed when neither the Service nor the configuration restricts it.
const AnyIPv4 = "0.0.0.0/0"

// Claim is what one load balancer Service needs from the security lists. It is a plain value:
// the orchestrator builds it from the Service's reconciled load balancer and its nodes' subnets
// (ccm/service's ClaimFor), and this package never sees a Kubernetes object or a load balancer.
type Claim struct {
	// Service names the claim: the Service's namespace and name, the only thing about the
	// Service this package needs. One claim per Service; setting a claim for the same Service
	// again replaces the earlier one. Logs and errors write it "namespace/name". Claims of
	// another source (Manager.Expect) use names no Service can have: ccm/binding's are
	// "backendsetbinding:<name>" in the binding's namespace.
	Service types.NamespacedName
	// Mode overrides Policy.DefaultMode for this Service when set (the Service's
	// security-list-management-mode annotation).
	Mode config.SecurityListMode
	// LBSubnets are the OCIDs of the subnets the load balancer is in.
	LBSubnets []string
	// NodeSubnets are the OCIDs of the subnets of the backend nodes' primary VNICs.
	NodeSubnets []string
	// ListenerPorts are the ports the load balancer listens on (the Service's ports).
	ListenerPorts []int
	// SourceCIDRs are the clients allowed to reach the listeners: the Service's
	// loadBalancerSourceRanges. Empty means Policy.DefaultSourceCIDRs.
	SourceCIDRs []string
	// NodePorts are the Service's node ports, where the load balancer sends traffic.
	NodePorts []int
	// HealthCheckPort is the node port the load balancer health-checks: healthCheckNodePort
	// for externalTrafficPolicy Local, kube-proxy's 10256 otherwise. Zero means none.
	HealthCheckPort int
	// UDPListenerPorts and UDPNodePorts are the listener and node ports of the Service's UDP
	// ports (network load balancers only); ListenerPorts and NodePorts are TCP. The health
	// check is always TCP.
	UDPListenerPorts []int
	UDPNodePorts     []int
	// PreserveSource says the load balancer keeps the client's address as the source of the
	// packets it forwards (a network load balancer with is-preserve-source): the nodes then
	// need ingress on the node ports from the client source ranges, not from the load
	// balancer's subnet (which still needs ingress to the health-check port).
	PreserveSource bool
	// FrontendNSG is, in mode NSG, the OCID of the Service's frontend network security group
	// (the one attached to its load balancer). Empty means the Manager finds it: Manager.
	// FrontendNSG created it, or a listing finds it by its tags.
	FrontendNSG string
	// BackendNSGs are, in mode NSG, the OCIDs of the NSGs the backends are in; each gets
	// ingress from the frontend NSG on the node ports and the health-check port.
	BackendNSGs []string
	// Unknown, given to Prime, says that the Service has a load balancer and so may have rules,
	// but what it needs cannot be computed now (its annotations are invalid, a Secret it names
	// is missing). Its rules cannot be told from rules nobody needs, so while any Service's
	// claim is unknown the Manager adds rules but removes none. The Service's next Reconcile or
	// Delete replaces the unknown claim. Every other field is ignored. Only Prime accepts it.
	Unknown bool
}

// Subnet is what rule computation needs to know about a subnet.
type Subnet struct {
	ID   string
	CIDR string
	// SecurityListIDs are the lists attached to the subnet, in the order OCI returns them.
	SecurityListIDs []string
}

// Policy is the cluster-wide part of rule computation.
type Policy struct {
	// Cluster names the cluster in the ownership mark of every rule (see Owner).
	Cluster string
	// DefaultMode applies to claims that set no Mode. Empty means All.
	DefaultMode config.SecurityListMode
	// SecurityLists maps a subnet OCID to the list to manage for it (configuration
	// loadBalancer.securityLists). Subnets not in the map use their first attached list.
	SecurityLists map[string]string
	// DefaultSourceCIDRs apply to claims with no SourceCIDRs. Empty means AnyIPv4.
	DefaultSourceCIDRs []string
	// NodePortRange, when set, is opened from every LB subnet to every node subnet a claim in
	// mode All or Backend pairs them in, with one rule per pair and direction, instead of a
	// rule per node port (configuration loadBalancer.openNodePortRange and nodePortRange).
	// Node and health-check ports outside it keep a rule each. The zero value opens nothing.
	NodePortRange PortRange
	// AdoptUndescribed takes over rules that have no description and exactly match a rule a
	// claim needs (configuration loadBalancer.adoptUndescribedRules); see Adopted. Security
	// lists only: rules in network security groups are never adopted.
	AdoptUndescribed bool
	// CompartmentID is where frontend NSGs are created and looked for (mode NSG): the
	// configured compartment of the load balancers (ccm sets it, so a Service whose load
	// balancer is in a compartment of its own keeps its frontend NSG here). Empty means the
	// compartment of the Spec given to Manager.FrontendNSG, else of the load balancer's first
	// subnet.
	CompartmentID string
}

// PolicyFromConfig builds the Policy for a cluster from its configuration: cfg.ClusterID is the
// cluster's identity (as for lb.Desired), cfg.LoadBalancer the rest. A node port range that does
// not parse (config.Validate reports it) is kept as an invalid range, so Policy.Validate refuses
// it rather than the rules quietly going per port.
func PolicyFromConfig(cfg *config.Config) Policy {
	lb := cfg.LoadBalancer
	p := Policy{
		Cluster:            cfg.ClusterID,
		DefaultMode:        lb.SecurityListManagementMode,
		SecurityLists:      lb.SecurityLists,
		DefaultSourceCIDRs: lb.DefaultSourceCIDRs,
		AdoptUndescribed:   lb.AdoptUndescribedRules,
	}
	if lb.OpenNodePortRange {
		lo, hi, err := config.ParseNodePortRange(lb.NodePortRange)
		if err != nil {
			lo, hi = 0, -1
		}
		p.NodePortRange = PortRange{Min: lo, Max: hi}
	}
	return p
}

// ErrInvalid marks errors caused by bad input (a claim or a policy), which retrying cannot fix.
var ErrInvalid = errors.New("invalid security list input")

// Validate reports every problem with the policy at once. Each wraps ErrInvalid.
func (p Policy) Validate() error {
	var errs []error
	if p.Cluster == "" {
		errs = append(errs, fmt.Errorf("%w: cluster name is empty", ErrInvalid))
	}
	if n := len(Owner(p.Cluster)); n > maxDescription {
		errs = append(errs, fmt.Errorf("%w: cluster name makes a rule description of %d characters; OCI allows %d",
			ErrInvalid, n, maxDescription))
	}
	if p.DefaultMode == config.SecurityListModeNSG {
		errs = append(errs, fmt.Errorf("%w: default mode NSG: it is chosen per Service (its security-rule management mode annotation, Claim.Mode), because the backend NSGs are named per Service",
			ErrInvalid))
	} else if p.DefaultMode != "" && !validMode(p.DefaultMode) {
		errs = append(errs, fmt.Errorf("%w: default mode %q is not one of All, Frontend, Backend, None", ErrInvalid, p.DefaultMode))
	}
	if r := p.NodePortRange; r != (PortRange{}) && (r.Min < 1 || r.Max > 65535 || r.Min > r.Max) {
		errs = append(errs, fmt.Errorf("%w: node port range %d-%d is not within 1-65535 with min <= max (configuration loadBalancer.nodePortRange)",
			ErrInvalid, r.Min, r.Max))
	}
	for _, c := range p.DefaultSourceCIDRs {
		if _, err := canonicalCIDR(c); err != nil {
			errs = append(errs, fmt.Errorf("%w: default source CIDR: %w", ErrInvalid, err))
		}
	}
	return errors.Join(errs...)
}

// Validate reports every problem with the claim at once. Each wraps ErrInvalid.
func (c Claim) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: service %q: %s", ErrInvalid, c.key(), fmt.Sprintf(format, args...)))
	}
	if c.Service.Name == "" {
		bad("service name is empty")
	}
	if c.Unknown {
		return errors.Join(errs...)
	}
	if c.Mode != "" && !validMode(c.Mode) {
		bad("mode %q is not one of All, Frontend, Backend, NSG, None", c.Mode)
	}
	for _, id := range append([]string{c.FrontendNSG}, c.BackendNSGs...) {
		if id != "" && !isNSG(id) {
			bad("%q is not a network security group OCID (ocid1.networksecuritygroup.…)", id)
		}
	}
	for _, id := range append(append([]string(nil), c.LBSubnets...), c.NodeSubnets...) {
		if strings.TrimSpace(id) == "" {
			bad("empty subnet OCID")
		}
	}
	for _, p := range slices.Concat(c.ListenerPorts, c.NodePorts, c.UDPListenerPorts, c.UDPNodePorts) {
		if p < 1 || p > 65535 {
			bad("port %d is outside 1-65535", p)
		}
	}
	if c.HealthCheckPort < 0 || c.HealthCheckPort > 65535 {
		bad("health-check port %d is outside 1-65535", c.HealthCheckPort)
	}
	for _, s := range c.SourceCIDRs {
		if _, err := canonicalCIDR(s); err != nil {
			errs = append(errs, fmt.Errorf("%w: service %q: source range: %w", ErrInvalid, c.key(), err))
		}
	}
	return errors.Join(errs...)
}

// key is the claim's Service as "namespace/name": how the Manager keys its state, and how logs,
// errors and the frontend NSG's tags (model.TagService) write it.
func (c Claim) key() string { return c.Service.String() }

// subnetIDs returns every subnet the claim names, LB subnets first, without duplicates.
func (c Claim) subnetIDs() []string {
	seen := map[string]bool{}
	var ids []string
	for _, id := range append(append([]string(nil), c.LBSubnets...), c.NodeSubnets...) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}

// mode returns the mode that applies to c.
func (p Policy) mode(c Claim) config.SecurityListMode {
	switch {
	case c.Mode != "":
		return c.Mode
	case p.DefaultMode != "":
		return p.DefaultMode
	default:
		return config.SecurityListModeAll
	}
}

// sources returns the canonical source CIDRs that apply to c.
func (p Policy) sources(c Claim) []string {
	raw := c.SourceCIDRs
	if len(raw) == 0 {
		raw = p.DefaultSourceCIDRs
	}
	if len(raw) == 0 {
		raw = []string{AnyIPv4}
	}
	out := make([]string, 0, len(raw))
	for _, s := range raw {
		if cidr, err := canonicalCIDR(s); err == nil {
			out = append(out, cidr)
		}
	}
	return out
}

func validMode(m config.SecurityListMode) bool {
	switch m {
	case config.SecurityListModeAll, config.SecurityListModeFrontend,
		config.SecurityListModeBackend, config.SecurityListModeNone, config.SecurityListModeNSG:
		return true
	}
	return false
}

// nsgPrefix starts the OCID of every network security group. It is how a rule target (an OCID)
// is told to be an NSG rather than a security list.
const nsgPrefix = "ocid1.networksecuritygroup."

// isNSG reports whether the OCID names a network security group.
func isNSG(id string) bool { return strings.HasPrefix(id, nsgPrefix) }

// canonicalCIDR parses s and returns it with the host bits cleared ("10.0.0.5/24" →
// "10.0.0.0/24"), so the same network written two ways is one rule.
func canonicalCIDR(s string) (string, error) {
	p, err := netip.ParsePrefix(strings.TrimSpace(s))
	if err != nil {
		return "", fmt.Errorf("%q is not a CIDR block: %w", s, err)
	}
	return p.Masked().String(), nil
}
