// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"fmt"
	"maps"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/backendnode"
	"github.com/oci-ccm/oci-ccm/lb/internal/listener"
	"github.com/oci-ccm/oci-ccm/lb/internal/lookup"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Health-check and listener defaults, the same as the upstream CCM's.
const (
	// KubeProxyHealthPort is kube-proxy's node health endpoint (/healthz), probed for
	// externalTrafficPolicy Cluster: model.KubeProxyHealthPort, which seclist opens.
	KubeProxyHealthPort = model.KubeProxyHealthPort
	// healthCheckPath is the path probed on the health-check port.
	healthCheckPath = "/healthz"

	defaultHealthRetries    = 3
	defaultHealthIntervalMs = 10000
	defaultHealthTimeoutMs  = 3000
	defaultIdleTimeoutTCP   = listener.DefaultIdleTimeoutTCP
	defaultIdleTimeoutHTTP  = listener.DefaultIdleTimeoutHTTP
	defaultPolicy           = "ROUND_ROBIN"
	defaultGRPCCipherSuite  = "oci-default-http2-ssl-cipher-suite-v1"
	// maxListeners is OCI's limit of listeners (and of backend sets) per load balancer.
	maxListeners = 16
	// nlbMaxListeners is OCI's limit of listeners and of backend sets per network load balancer
	// (OCI "Introduction to Network Load Balancer", "Limits on Network Load Balancers": 50 each).
	nlbMaxListeners = 50
)

// The listener protocols of KindLoadBalancer.
const (
	protocolTCP  = listener.ProtocolTCP
	protocolHTTP = listener.ProtocolHTTP
	protocolGRPC = listener.ProtocolGRPC
)

// Manages reports whether oci-ccm is responsible for svc: a Service of type LoadBalancer without
// spec.loadBalancerClass. A Service with any class belongs to another controller and must be
// left alone, which the upstream service controller also assumes of the default provider.
func Manages(svc *v1.Service) bool {
	return svc != nil && svc.Spec.Type == v1.ServiceTypeLoadBalancer && svc.Spec.LoadBalancerClass == nil
}

// Desired computes the load balancer svc asks for, from the Service, the cluster's Nodes, the
// configuration and what is known of the cluster and OCI (Known: TLS Secrets, the Nodes that run
// the Service's endpoints, subnets' IPv6 prefixes and regions, the frontend NSG, the load
// balancer that exists). It is pure: it reads only its arguments,
// never changes them, and returns every problem it finds in one *ValidationError.
//
// The returned Spec's Owner.Cluster is cfg.ClusterID, the cluster's identity (a binary resolves
// it from clusterID or --cluster-name with config.Config.ClusterIdentity).
func Desired(svc *v1.Service, nodes []*v1.Node, cfg *config.Config, known Known) (*model.Spec, error) {
	if !Manages(svc) {
		return nil, ErrNotManaged
	}
	nodes, left := localNodes(svc, nodes, known.EndpointNodes)
	spec, err := desired(svc, nodes, cfg, known.Secrets, false)
	if err != nil {
		return nil, err
	}
	if spec, err = dualStack(svc, nodes, cfg, known, spec); err != nil {
		return nil, err
	}
	if err := frontendNSG(svc, known, spec); err != nil {
		return nil, err
	}
	existing(svc, cfg, known, spec)
	for _, name := range left {
		if spec.ExcludedNodes == nil {
			spec.ExcludedNodes = map[string]string{}
		}
		spec.ExcludedNodes[name] = reasonNoLocalEndpoint
	}
	return spec, nil
}

// desired is Desired on the Nodes given; subnetHasIPv6 says the network load balancer's subnet
// has an IPv6 prefix, so a PreferDualStack Service gets both families (dualStack).
func desired(svc *v1.Service, nodes []*v1.Node, cfg *config.Config, secrets Secrets, subnetHasIPv6 bool) (*model.Spec, error) {
	if !Manages(svc) {
		return nil, ErrNotManaged
	}
	if cfg == nil {
		cfg = &config.Config{}
	}
	p := &parser{ann: svc.Annotations}
	d := &desiredBuilder{svc: svc, cfg: cfg, secrets: secrets, p: p, subnetHasIPv6: subnetHasIPv6}
	spec := d.build(nodes)
	if len(p.problems) > 0 {
		return nil, &ValidationError{Service: svc.Namespace + "/" + svc.Name, Problems: p.problems}
	}
	return spec, nil
}

// desiredBuilder carries what the parts of Desired share.
type desiredBuilder struct {
	svc     *v1.Service
	cfg     *config.Config
	secrets Secrets
	p       *parser
	// subnetHasIPv6: see desired.
	subnetHasIPv6 bool
}

func (d *desiredBuilder) build(nodes []*v1.Node) *model.Spec {
	if d.kind() == model.KindNetworkLoadBalancer {
		return d.buildNLB(nodes)
	}
	p := d.p
	spec := d.base(model.KindLoadBalancer, annotation.Internal, "ocid1.loadbalancer.", "a load balancer OCID (ocid1.loadbalancer.…)")
	spec.Subnets, spec.Defaulted.Subnets = d.subnets(spec.Internal)
	spec.Shape, spec.Defaulted.Shape = p.shape()
	spec.ReservedIP = d.reservedIP(spec.Internal)
	spec.NetworkSecurityGroups = p.ocids(annotation.NetworkSecurityGroups, "networksecuritygroup", model.MaxNetworkSecurityGroups)
	spec.IPFamilies = d.ipFamilies()
	// A classic load balancer serves IPv4 only (a PreferDualStack Service gets IPv4).
	spec.SourceCIDRs = d.sourceCIDRs([]v1.IPFamily{v1.IPv4Protocol})
	spec.SecurityListMode = d.securityListMode()
	spec.BackendNSGs = d.backendNSGs(spec.SecurityListMode)
	spec.FreeformTags, spec.DefinedTags = d.tags()
	spec.IPMode = d.ipMode()
	spec.RuleSets = p.ruleSets()
	d.serviceSpecChecks(maxListeners)
	d.refuseUnsupported(model.KindLoadBalancer)

	// The backends are sorted once the subset is chosen: a few hundred out of thousands of Nodes.
	ips, excluded := backendnode.EligibleIPv4(nodes, d.selector(annotation.NodeLabelSelector))
	spec.ExcludedNodes = excluded
	d.portsAndListeners(spec, ips)
	d.subsetBackends(spec, nodes, lbBackendLimits, annotation.NodeLabelSelector)
	sortBackends(spec)
	return spec
}

// selector parses a node-label-selector annotation; nil when absent (or invalid: a Problem).
func (d *desiredBuilder) selector(a annotation.Name) labels.Selector {
	v, ok := d.svc.Annotations[string(a)]
	if !ok {
		return nil
	}
	sel, err := labels.Parse(v)
	if err != nil {
		d.p.add(problemf(a, v, "a label selector such as \"pool=web,zone!=ad-3\" (%v)", err))
		return nil
	}
	return sel
}

// base is the part of the Spec every kind builds alike: its kind, name, owner, compartment and
// adopted load balancer, internal when the annotation of kind says so. An adopted OCID must start
// with adoptPrefix (allowed says what it must be); a workload identity is checked.
func (d *desiredBuilder) base(kind model.Kind, internal annotation.Name, adoptPrefix, allowed string) *model.Spec {
	svc, p := d.svc, d.p
	spec := &model.Spec{
		Kind:         kind,
		Name:         lookup.For(d.cfg).Name(svc),
		Internal:     p.boolean(internal, false),
		Owner:        model.Owner{Cluster: d.cfg.ClusterID, Service: svc.Namespace + "/" + svc.Name, UID: string(svc.UID)},
		Certificates: map[string]model.Certificate{},
		AdoptID:      p.str(annotation.AdoptLoadBalancerID, ""),
	}
	if spec.AdoptID != "" && !strings.HasPrefix(spec.AdoptID, adoptPrefix) {
		p.add(problemf(annotation.AdoptLoadBalancerID, spec.AdoptID, "%s", allowed))
	}
	d.compartment(spec)
	d.workloadAccount()
	return spec
}

func (d *desiredBuilder) kind() model.Kind {
	return model.Kind(d.p.oneOfOrEmpty(annotation.LoadBalancerType, string(model.KindLoadBalancer), string(model.KindLoadBalancer), string(model.KindNetworkLoadBalancer)))
}

// subnets returns the subnets from the annotations, else the config. Internal load balancers use
// only the first. The bool is true when they came from the config.
func (d *desiredBuilder) subnets(internal bool) ([]string, bool) {
	s1 := d.p.str(annotation.Subnet1, "")
	s2 := d.p.str(annotation.Subnet2, "")
	defaulted := s1 == "" && s2 == ""
	if s1 == "" {
		s1 = d.cfg.LoadBalancer.Subnet1
	}
	if s2 == "" {
		s2 = d.cfg.LoadBalancer.Subnet2
		if s1 == "" && s2 != "" {
			// The config's second subnet is never a load balancer's only one: the upstream CCM
			// refuses such a Service (load_balancer.go, getOciLoadBalancerSubnets).
			d.p.add(problemf(annotation.Subnet1, "", "a subnet OCID; cloud-provider.yaml sets loadBalancer.subnet2 but not "+
				"loadBalancer.subnet1, so each Service names its first subnet here"))
			return nil, defaulted
		}
	}
	var out []string
	bad := false
	for _, s := range []struct {
		a annotation.Name
		v string
	}{{annotation.Subnet1, s1}, {annotation.Subnet2, s2}} {
		if s.v == "" {
			continue
		}
		if !strings.HasPrefix(s.v, "ocid1.subnet.") {
			d.p.add(problemf(s.a, s.v, "a subnet OCID (ocid1.subnet.…)"))
			bad = true
			continue
		}
		if !slices.Contains(out, s.v) {
			out = append(out, s.v)
		}
	}
	if len(out) == 0 && !bad {
		d.p.add(problemf(annotation.Subnet1, "", "a subnet OCID; none is set here or in cloud-provider.yaml (loadBalancer.subnet1)"))
	}
	if internal && len(out) > 1 {
		out = out[:1]
	}
	return out, defaulted
}

// reservedIP validates spec.loadBalancerIP. Whether the address is a reserved public IP that is
// available is checked against OCI when the load balancer is created.
func (d *desiredBuilder) reservedIP(internal bool) string {
	v := strings.TrimSpace(d.svc.Spec.LoadBalancerIP)
	if v == "" {
		return ""
	}
	ip, err := netip.ParseAddr(v)
	switch {
	case err != nil || !ip.Is4():
		d.p.add(&Problem{Field: "spec.loadBalancerIP", Value: v, Allowed: "an IPv4 address of a reserved public IP"})
	case internal:
		d.p.add(&Problem{Field: "spec.loadBalancerIP", Value: v,
			Allowed: "empty for an internal load balancer (reserved public IPs apply to public load balancers only)"})
	default:
		return ip.String()
	}
	return ""
}

// sourceCIDRs are the client CIDRs the load balancer of families admits: the Service's, else
// config loadBalancer.defaultSourceCIDRs. When that is none, or only 0.0.0.0/0 (Kubernetes' and
// the config's default), it admits every address of its families: 0.0.0.0/0 for IPv4 and ::/0
// for IPv6, as the upstream CCM does (getLoadBalancerSourceRanges in its load_balancer_spec.go),
// so IPv6 clients of an IPv6 or dual-stack Service are let in.
func (d *desiredBuilder) sourceCIDRs(families []v1.IPFamily) []string {
	var given []string
	if len(d.svc.Spec.LoadBalancerSourceRanges) > 0 {
		given = d.p.cidrs("spec.loadBalancerSourceRanges", d.svc.Spec.LoadBalancerSourceRanges)
	} else if v, err := annotationStrings(annotation.SourceRanges, d.svc.Annotations); err == nil && len(v) > 0 {
		given = d.p.cidrs(string(annotation.SourceRanges), v)
	} else if len(d.cfg.LoadBalancer.DefaultSourceCIDRs) > 0 {
		given = d.p.cidrs("config loadBalancer.defaultSourceCIDRs", d.cfg.LoadBalancer.DefaultSourceCIDRs)
	}
	if len(given) > 1 || len(given) == 1 && given[0] != anyIPv4 {
		return given
	}
	var out []string
	if len(families) == 0 || slices.Contains(families, v1.IPv4Protocol) {
		out = append(out, anyIPv4)
	}
	if slices.Contains(families, v1.IPv6Protocol) {
		out = append(out, anyIPv6)
	}
	return out
}

// The CIDRs of every IPv4 and every IPv6 address.
const (
	anyIPv4 = "0.0.0.0/0"
	anyIPv6 = "::/0"
)

func (d *desiredBuilder) securityListMode() config.SecurityListMode {
	if mode, ok := d.securityRuleMode(); ok {
		return mode
	}
	def := d.cfg.LoadBalancer.SecurityListManagementMode
	if def == "" {
		def = config.SecurityListModeAll
	}
	modes := []string{string(config.SecurityListModeAll), string(config.SecurityListModeFrontend),
		string(config.SecurityListModeBackend), string(config.SecurityListModeNone)}
	return config.SecurityListMode(d.p.oneOfOrEmpty(annotation.SecurityListManagementMode, string(def), modes...))
}

// tags returns the tags a new load balancer gets: the annotation overrides, else the config's.
func (d *desiredBuilder) tags() (map[string]string, map[string]map[string]any) {
	return d.tagsFrom(annotation.InitialFreeformTags, annotation.InitialDefinedTags)
}

// tagsFrom returns the tags the annotations freeformAnn and definedAnn give, each else the
// config's.
func (d *desiredBuilder) tagsFrom(freeformAnn, definedAnn annotation.Name) (map[string]string, map[string]map[string]any) {
	freeform, ok := d.p.freeformTags(freeformAnn)
	if !ok {
		freeform = maps.Clone(d.cfg.LoadBalancer.Tags.FreeformTags)
	}
	defined, ok := d.p.definedTags(definedAnn)
	if !ok && d.cfg.LoadBalancer.Tags.DefinedTags != nil {
		defined = make(map[string]map[string]any, len(d.cfg.LoadBalancer.Tags.DefinedTags))
		for ns, kv := range d.cfg.LoadBalancer.Tags.DefinedTags {
			defined[ns] = maps.Clone(kv)
		}
	}
	return freeform, defined
}

func (d *desiredBuilder) ipFamilies() []v1.IPFamily {
	fams := slices.Clone(d.svc.Spec.IPFamilies)
	hasV4 := slices.Contains(fams, v1.IPv4Protocol)
	requireDual := d.svc.Spec.IPFamilyPolicy != nil && *d.svc.Spec.IPFamilyPolicy == v1.IPFamilyPolicyRequireDualStack
	if (len(fams) > 0 && !hasV4) || requireDual {
		d.p.add(&Problem{Field: "spec.ipFamilies", Value: fmt.Sprint(fams),
			Allowed: "IPv4 (IPv6 load balancers are not supported yet; PreferDualStack Services get IPv4)"})
	}
	return fams
}

func (d *desiredBuilder) ipMode() *v1.LoadBalancerIPMode {
	v := d.p.oneOf(annotation.IngressIPMode, "", string(v1.LoadBalancerIPModeVIP), string(v1.LoadBalancerIPModeProxy))
	if v == "" {
		return nil
	}
	m := v1.LoadBalancerIPMode(v)
	return &m
}

// serviceSpecChecks refuses spec fields OCI load balancers cannot honour.
func (d *desiredBuilder) serviceSpecChecks(maxPorts int) {
	if d.svc.Spec.SessionAffinity == v1.ServiceAffinityClientIP {
		d.p.add(&Problem{Field: "spec.sessionAffinity", Value: string(v1.ServiceAffinityClientIP),
			Allowed: "None (OCI load balancers do not support ClientIP affinity; " +
				string(annotation.Policy) + ": IP_HASH keeps a client on one node)"})
	}
	if len(d.svc.Spec.Ports) == 0 {
		d.p.add(&Problem{Field: "spec.ports", Value: "[]", Allowed: "at least one port"})
	}
	// Each port is a listener and a backend set; refused here, with the ports named, rather than
	// by OCI halfway through a plan.
	if n := len(d.svc.Spec.Ports); maxPorts > 0 && n > maxPorts {
		ports := make([]int, 0, n)
		for _, sp := range d.svc.Spec.Ports {
			ports = append(ports, int(sp.Port))
		}
		d.p.add(&Problem{Field: "spec.ports", Value: joinInts(ports),
			Allowed: fmt.Sprintf("at most %d ports (%d given): an OCI load balancer has at most %d listeners and %d backend sets; split the ports over several Services",
				maxListeners, n, maxListeners, maxListeners)})
	}
}

// healthCheck returns the health checker every backend set shares: kube-proxy's /healthz for
// externalTrafficPolicy Cluster, the Service's healthCheckNodePort for Local (so only nodes with
// a ready endpoint receive traffic).
func (d *desiredBuilder) healthCheck(backendTLS bool) model.HealthCheck {
	return d.healthCheckFrom(backendTLS, annotation.HealthCheckRetries, annotation.HealthCheckInterval, annotation.HealthCheckTimeout, 1000)
}

// healthCheckFrom is healthCheck with the kind's annotations and lowest interval.
func (d *desiredBuilder) healthCheckFrom(backendTLS bool, retries, interval, timeout annotation.Name, minInterval int) model.HealthCheck {
	hc := model.HealthCheck{
		Protocol:       protocolHTTP,
		Port:           KubeProxyHealthPort,
		Path:           healthCheckPath,
		ReturnCode:     http.StatusOK,
		Retries:        d.p.intAtLeast(retries, defaultHealthRetries, 1), // upstream sends any count; OCI bounds it
		IntervalMillis: d.p.intRange(interval, defaultHealthIntervalMs, minInterval, 1800000, " milliseconds"),
		TimeoutMillis:  d.p.intRange(timeout, defaultHealthTimeoutMs, 1, 600000, " milliseconds"),
		ForcePlainText: backendTLS,
	}
	if d.svc.Spec.ExternalTrafficPolicy == v1.ServiceExternalTrafficPolicyLocal {
		if d.svc.Spec.HealthCheckNodePort == 0 {
			d.p.add(&Problem{Field: "spec.healthCheckNodePort", Value: "0",
				Allowed: "a port allocated by the API server (externalTrafficPolicy Local needs one)"})
		}
		hc.Port = int(d.svc.Spec.HealthCheckNodePort)
	}
	return hc
}

// workloadAccount checks annotation.WorkloadServiceAccount (part of Desired).
func (d *desiredBuilder) workloadAccount() {
	v, ok := d.p.ann[string(annotation.WorkloadServiceAccount)]
	if !ok {
		return
	}
	if name := strings.TrimSpace(v); name == "" || len(validation.IsDNS1123Subdomain(name)) > 0 {
		d.p.add(problemf(annotation.WorkloadServiceAccount, v, "the name of a ServiceAccount in the Service's namespace "+
			"(lower-case letters, digits, '-' and '.'); remove the annotation to call OCI as the CCM"))
	}
}
