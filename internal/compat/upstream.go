// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// The upstream OCI CCM's (oracle/oci-cloud-controller-manager v1.35.0) Service annotations and
// cloud-provider.yaml keys, each with a value its users write and what upstream builds for it,
// read from upstream's code (cited per row; files are under pkg/cloudprovider/providers/oci/).
// oci-ccm's side is not written here: classify runs oci-ccm's own code on the same value.
//
// An expectation is the facets upstream's outcome changes from upstream's for the plain sample
// Service (upstreamPlain) or the empty configuration (upstreamPlainConfig); "" removes a facet.
// The samples describe a new load balancer: upstream reads an existing one's shape
// (getLBShape), and a subnet's being regional from OCI (getOciLoadBalancerSubnets); the sample
// subnets are availability-domain subnets.

const (
	s = "service.beta.kubernetes.io/"
	o = "oci.oraclecloud.com/"
	n = "oci-network-load-balancer.oraclecloud.com/"
)

// upstreamAnnotation is one annotation, a sample Service's annotations that set it, and what the
// upstream CCM builds for that Service.
type upstreamAnnotation struct {
	Key, Value string
	// With carries what the value needs beside it to be meaningful (ssl-ports beside a TLS secret).
	With map[string]string
	// Spec, when set, gives the sample Service what the value needs (an IP family, a traffic
	// policy); SpecNote says what, for the table.
	Spec     func(*v1.ServiceSpec)
	SpecNote string
	// Config, when set, changes the sample configuration for this sample (not for the plain
	// Service it is compared against); ConfigNote says how, for the table.
	Config     func(*config.Config)
	ConfigNote string
	// Upstream is what the upstream CCM builds: the facets that differ from upstreamPlain's of
	// the sample's kind without Key. Required: a row without it fails generation.
	Upstream Facets
	// Difference says how and why oci-ccm's facets differ from Upstream. Required exactly when
	// they differ: a difference without it, or it without a difference, fails generation.
	Difference string
	// Also is a difference beyond what a new load balancer's facets show (updates, names over
	// time), for the table.
	Also string
	// Unseen says what the value changes when that is in no facet (the Service's status).
	Unseen string
	// AnyValue marks an edge sample whose outcome holds for every value of the key, the sample's
	// being one example: the preflight check (internal/compatdata) matches it on the key alone.
	AnyValue bool
}

// nlb is the annotation that makes a Service's load balancer a network load balancer: every
// network load balancer annotation is classified beside it.
var nlb = map[string]string{o + "load-balancer-type": "nlb"}

// Values the upstream expectations repeat.
const (
	upstreamHealth      = "HTTP :10256/healthz, 3 retries, every 10000 ms, timeout 3000 ms"
	upstreamListener    = "TCP-80: TCP :80 → TCP-80"
	upstreamBothNodes   = "TCP-80 [10.0.10.2:30080 10.0.10.3:30080]"
	upstreamWebNode     = "TCP-80 [10.0.10.2:30080]"
	sslConfig           = `{"CipherSuiteName":"oci-default-ssl-cipher-suite-v1","Protocols":["TLSv1.2"]}`
	sslConfigFacet      = ", cipher suite oci-default-ssl-cipher-suite-v1, TLSv1.2"
	certificateHashNote = "certificates are named after the Secret and a hash of its content, as with tls-secret"
)

// upstreamPlain is what the upstream CCM builds for the plain sample Service (sampleService: port
// 80/TCP, node port 30080, externalTrafficPolicy Cluster; sampleNodes; sampleConfig's
// compartment and subnets) of each kind. load_balancer_spec.go, NewLBSpec: getLBShape gives
// lbDefaultShape (100Mbps) without annotations; getListenersOciLoadBalancer names the listener
// "<protocol>-<port>" and sends no idle timeout without the annotations, so OCI applies its
// default, lbConnectionIdleTimeoutTCP (300 s, load_balancer.go); getBackendSets uses
// DefaultLoadBalancerPolicy (ROUND_ROBIN) or DefaultNetworkLoadBalancerPolicy (FIVE_TUPLE) and
// getHealthChecker kube-proxy's /healthz on 10256 with 3 retries, 10000 ms and 3000 ms;
// getBackends every Node with an instance providerID; getLoadBalancerSourceRanges 0.0.0.0/0;
// getSecurityListManagementMode All for a load balancer, None for a network load balancer;
// getLoadBalancerCompartment the configured compartment. load_balancer.go:
// getOciLoadBalancerSubnets gives loadBalancer.subnet1 and subnet2, getNetworkLoadbalancerSubnets
// subnet1 alone.
var upstreamPlain = map[model.Kind]Facets{
	model.KindLoadBalancer: {
		Kind: "lb", Shape: "100Mbps", Subnets: "loadBalancer.subnet1, loadBalancer.subnet2", Compartment: sampleCompartment,
		Listeners: upstreamListener, IdleTimeout: "300s", Policy: "ROUND_ROBIN", HealthCheck: upstreamHealth,
		Backends: upstreamBothNodes, SourceCIDRs: "0.0.0.0/0", RuleMode: "All",
	},
	model.KindNetworkLoadBalancer: {
		Kind: "nlb", Subnets: "loadBalancer.subnet1", Compartment: sampleCompartment, IPFamilies: "IPv4",
		Listeners: upstreamListener, Policy: "FIVE_TUPLE", HealthCheck: upstreamHealth,
		Backends: upstreamBothNodes, SourceCIDRs: "0.0.0.0/0", RuleMode: "None",
	},
}

// upstreamPlainRow is the plain sample of a kind, compared on every facet.
type upstreamPlainRow struct {
	Kind       model.Kind
	Sample     string
	Difference string
}

var upstreamPlainRows = []upstreamPlainRow{
	{Kind: model.KindLoadBalancer, Sample: "a Service of type LoadBalancer, no annotations",
		Difference: "a new load balancer is flexible 10–100 Mbps (upstream: the fixed 100Mbps shape, which OCI has deprecated); " +
			"an existing load balancer keeps its shape"},
	{Kind: model.KindNetworkLoadBalancer, Sample: "the same with load-balancer-type=\"nlb\""},
}

// upstreamAnnotations has one sample per upstream annotation, the value its users write; the
// migration guide's pre-switch check is made from these rows.
var upstreamAnnotations = []upstreamAnnotation{
	// isInternalLB; getOciLoadBalancerSubnets keeps the first subnet of an internal one.
	{Key: s + "oci-load-balancer-internal", Value: "true",
		Upstream: Facets{Internal: "true", Subnets: "loadBalancer.subnet1"}},
	// getLBShape: flexible with both bandwidths.
	{Key: s + "oci-load-balancer-shape", Value: "flexible",
		With:     map[string]string{s + "oci-load-balancer-shape-flex-min": "10", s + "oci-load-balancer-shape-flex-max": "100"},
		Upstream: Facets{Shape: "flexible 10–100 Mbps"}},
	{Key: s + "oci-load-balancer-shape-flex-min", Value: "50",
		With:     map[string]string{s + "oci-load-balancer-shape": "flexible", s + "oci-load-balancer-shape-flex-max": "200"},
		Upstream: Facets{Shape: "flexible 50–200 Mbps"}},
	{Key: s + "oci-load-balancer-shape-flex-max", Value: "500",
		With:     map[string]string{s + "oci-load-balancer-shape": "flexible", s + "oci-load-balancer-shape-flex-min": "10"},
		Upstream: Facets{Shape: "flexible 10–500 Mbps"}},
	// getOciLoadBalancerSubnets: the annotation replaces subnet1, subnet2 stays the config's.
	{Key: s + "oci-load-balancer-subnet1", Value: "ocid1.subnet.oc1.phx.annotated1",
		Upstream: Facets{Subnets: "ocid1.subnet.oc1.phx.annotated1, loadBalancer.subnet2"}},
	{Key: s + "oci-load-balancer-subnet2", Value: "ocid1.subnet.oc1.phx.annotated2",
		With:     map[string]string{s + "oci-load-balancer-subnet1": "ocid1.subnet.oc1.phx.annotated1"},
		Upstream: Facets{Subnets: "ocid1.subnet.oc1.phx.annotated1, ocid1.subnet.oc1.phx.annotated2"}},
	// Certificates names the certificate after the Secret; getSSLConfiguration puts it on the
	// listeners of the ssl ports (getListenersOciLoadBalancer).
	{Key: s + "oci-load-balancer-ssl-ports", Value: "80", With: map[string]string{s + "oci-load-balancer-tls-secret": "web-tls"},
		Upstream:   Facets{ListenerTLS: "certificate web-tls"},
		Difference: certificateHashNote},
	{Key: s + "oci-load-balancer-tls-secret", Value: "web-tls", With: map[string]string{s + "oci-load-balancer-ssl-ports": "80"},
		Upstream:   Facets{ListenerTLS: "certificate web-tls"},
		Difference: "certificates are named after the Secret and a hash of its content, so a rotated Secret reaches the load balancer (upstream: after the Secret, created once)"},
	// getBackendSets puts the certificate on the backend sets of the ssl ports; getHealthChecker
	// probes in plain text whenever the annotation is set.
	{Key: s + "oci-load-balancer-tls-backendset-secret", Value: "backend-tls", With: map[string]string{s + "oci-load-balancer-ssl-ports": "80"},
		Upstream:   Facets{BackendTLS: "certificate backend-tls", HealthCheck: upstreamHealth + ", plain HTTP"},
		Difference: certificateHashNote},
	// getListenersOciLoadBalancer.
	{Key: s + "oci-load-balancer-connection-idle-timeout", Value: "120", Upstream: Facets{IdleTimeout: "120s"}},
	{Key: s + "oci-load-balancer-connection-proxy-protocol-version", Value: "2", Upstream: Facets{Proxy: "v2"}},
	// getListenersOciLoadBalancer: the listener is HTTP; the backend set keeps the Service
	// port's protocol in its name; no idle timeout is sent, OCI's HTTP default is 60 s
	// (lbConnectionIdleTimeoutHTTP).
	{Key: s + "oci-load-balancer-backend-protocol", Value: "HTTP",
		Upstream: Facets{Listeners: "HTTP-80: HTTP :80 → TCP-80", IdleTimeout: "60s"}},
	// getHealthCheckRetries, getHealthCheckInterval, getHealthCheckTimeout.
	{Key: s + "oci-load-balancer-health-check-retries", Value: "5",
		Upstream: Facets{HealthCheck: "HTTP :10256/healthz, 5 retries, every 10000 ms, timeout 3000 ms"}},
	{Key: s + "oci-load-balancer-health-check-interval", Value: "15000",
		Upstream: Facets{HealthCheck: "HTTP :10256/healthz, 3 retries, every 15000 ms, timeout 3000 ms"}},
	{Key: s + "oci-load-balancer-health-check-timeout", Value: "2000",
		Upstream: Facets{HealthCheck: "HTTP :10256/healthz, 3 retries, every 10000 ms, timeout 2000 ms"}},
	// getSecurityListManagementMode.
	{Key: s + "oci-load-balancer-security-list-management-mode", Value: "Frontend", Upstream: Facets{RuleMode: "Frontend"},
		Also: "an unknown value is refused, naming the allowed ones (upstream logs it and manages All, " +
			"which writes security lists the user may have meant to leave alone); Backend is accepted too"},
	// getLoadBalancerSourceRanges, through the API's GetLoadBalancerSourceRanges.
	{Key: s + "load-balancer-source-ranges", Value: "10.0.0.0/8", Upstream: Facets{SourceCIDRs: "10.0.0.0/8"}},
	// getSSLConfiguration reads the cipher suite and protocols from the annotation.
	{Key: o + "oci-load-balancer-listener-ssl-config", Value: sslConfig,
		With:       map[string]string{s + "oci-load-balancer-ssl-ports": "80", s + "oci-load-balancer-tls-secret": "web-tls"},
		Upstream:   Facets{ListenerTLS: "certificate web-tls" + sslConfigFacet},
		Difference: certificateHashNote},
	{Key: o + "oci-load-balancer-backendset-ssl-config", Value: sslConfig,
		With:       map[string]string{s + "oci-load-balancer-ssl-ports": "80", s + "oci-load-balancer-tls-backendset-secret": "backend-tls"},
		Upstream:   Facets{BackendTLS: "certificate backend-tls" + sslConfigFacet, HealthCheck: upstreamHealth + ", plain HTTP"},
		Difference: certificateHashNote},
	// getNetworkSecurityGroupIds.
	{Key: o + "oci-network-security-groups", Value: "ocid1.networksecuritygroup.oc1.phx.a",
		Upstream: Facets{NSGs: "ocid1.networksecuritygroup.oc1.phx.a"},
		Also:     "the groups attached are recorded in tags, so a group removed from the annotation is detached and one attached by hand is kept"},
	// getLoadBalancerPolicy.
	{Key: o + "loadbalancer-policy", Value: "IP_HASH", Upstream: Facets{Policy: "IP_HASH"}},
	// getLoadBalancerTags.
	{Key: o + "initial-freeform-tags-override", Value: `{"team":"web"}`, Upstream: Facets{Freeform: `{"team":"web"}`}},
	{Key: o + "initial-defined-tags-override", Value: `{"ops":{"team":"web"}}`, Upstream: Facets{Defined: `{"ops":{"team":"web"}}`}},
	// filterNodes, getNodeFilter (load_balancer.go).
	{Key: o + "node-label-selector", Value: "pool=web", Upstream: Facets{Backends: upstreamWebNode}},
	// getRuleSets; getListenersOciLoadBalancer names them on every listener.
	{Key: o + "oci-load-balancer-rule-sets", Value: `{"hdr":{"items":[{"action":"ADD_HTTP_REQUEST_HEADER","header":"x","value":"y"}]}}`,
		Upstream: Facets{RuleSets: "TCP-80: hdr"},
		Also: "the rule sets it names are recorded in tags: one it no longer names, or all of them once it is removed, is " +
			"detached and deleted, while rule sets made by other means are kept, on the listeners too (upstream deletes every " +
			"rule set it does not name while set, and touches nothing once removed); a rule's field OCI returns that the " +
			"annotation leaves out is not compared"},
	// getLoadBalancerType and the network load balancer branches of NewLBSpec's parts.
	{Key: o + "load-balancer-type", Value: "nlb",
		Upstream: Facets{Kind: "nlb", Shape: "", IdleTimeout: "", Subnets: "loadBalancer.subnet1", Policy: "FIVE_TUPLE", RuleMode: "None", IPFamilies: "IPv4"},
		Also:     "changing it between lb and nlb replaces the load balancer: the new one is created, the Service moved to it, then the old one deleted"},
	// getRuleManagementMode.
	{Key: o + "security-rule-management-mode", Value: "NSG", Upstream: Facets{RuleMode: "NSG"},
		Also: "NSG rules carry oci-ccm's ownership description (oci-ccm cluster=<cluster>) and the frontend NSG its tags; " +
			"the configuration file cannot make NSG the default (it is chosen per Service)"},
	// getManagedBackendNSG, used with mode NSG.
	{Key: o + "oci-backend-network-security-group", Value: "ocid1.networksecuritygroup.oc1.phx.b",
		With:     map[string]string{o + "security-rule-management-mode": "NSG"},
		Upstream: Facets{RuleMode: "NSG", BackendNSGs: "ocid1.networksecuritygroup.oc1.phx.b"},
		Also:     "only with security-rule-management-mode NSG; with another mode it is refused rather than ignored"},
	// getIngressIpMode.
	{Key: o + "ingress-ip-mode", Value: "proxy", Upstream: Facets{IPMode: "Proxy"}},
	// getLoadBalancerProvider (load_balancer.go) calls the load balancer API as the ServiceAccount.
	{Key: o + "workload-service-account", Value: "ccm", Upstream: Facets{AuthPrincipal: "workload identity of ServiceAccount ccm"}},
	// getLoadBalancerCompartment.
	{Key: o + "compartment-id", Value: "ocid1.compartment.oc1..other", Upstream: Facets{Compartment: "ocid1.compartment.oc1..other"},
		Also: "a changed value is refused while the load balancer is in another compartment (upstream looks only in the new one, " +
			"creates a second load balancer there and leaves the first); the frontend NSG of mode NSG stays in the configured " +
			"compartment (upstream creates it in this one)"},

	// The network load balancer annotations, read by the NLB branches of the same functions.
	{Key: n + "internal", Value: "true", With: nlb, Upstream: Facets{Internal: "true"}},
	{Key: n + "subnet", Value: "ocid1.subnet.oc1.phx.nlb", With: nlb, Upstream: Facets{Subnets: "ocid1.subnet.oc1.phx.nlb"}},
	{Key: n + "oci-network-security-groups", Value: "ocid1.networksecuritygroup.oc1.phx.c", With: nlb,
		Upstream: Facets{NSGs: "ocid1.networksecuritygroup.oc1.phx.c"}},
	{Key: n + "health-check-retries", Value: "5", With: nlb,
		Upstream: Facets{HealthCheck: "HTTP :10256/healthz, 5 retries, every 10000 ms, timeout 3000 ms"}},
	{Key: n + "health-check-interval", Value: "20000", With: nlb,
		Upstream: Facets{HealthCheck: "HTTP :10256/healthz, 3 retries, every 20000 ms, timeout 3000 ms"}},
	{Key: n + "health-check-timeout", Value: "2000", With: nlb,
		Upstream: Facets{HealthCheck: "HTTP :10256/healthz, 3 retries, every 10000 ms, timeout 2000 ms"}},
	{Key: n + "backend-policy", Value: "THREE_TUPLE", With: nlb, Upstream: Facets{Policy: "THREE_TUPLE"}},
	{Key: n + "security-list-management-mode", Value: "Frontend", With: nlb, Upstream: Facets{RuleMode: "Frontend"}},
	{Key: n + "initial-freeform-tags-override", Value: `{"team":"web"}`, With: nlb, Upstream: Facets{Freeform: `{"team":"web"}`}},
	{Key: n + "initial-defined-tags-override", Value: `{"ops":{"team":"web"}}`, With: nlb, Upstream: Facets{Defined: `{"ops":{"team":"web"}}`}},
	{Key: n + "freeform-tags", Value: `{"team":"web"}`, With: nlb, Upstream: Facets{Freeform: `{"team":"web"}`}},
	{Key: n + "defined-tags", Value: `{"ops":{"team":"web"}}`, With: nlb, Upstream: Facets{Defined: `{"ops":{"team":"web"}}`}},
	{Key: n + "node-label-selector", Value: "pool=web", With: nlb, Upstream: Facets{Backends: upstreamWebNode}},
	// getPreserveSource; getHealthChecker probes the Service's healthCheckNodePort (Local).
	{Key: n + "is-preserve-source", Value: "true", With: nlb, Spec: local, SpecNote: "externalTrafficPolicy Local",
		Upstream: Facets{Preserve: "true", HealthCheck: "HTTP :32000/healthz, 3 retries, every 10000 ms, timeout 3000 ms"}},
	// getListenersNetworkLoadBalancer.
	{Key: n + "is-ppv2-enabled", Value: "true", With: nlb, Upstream: Facets{Proxy: "v2"}},
	// isSkipPrivateIP, read by the status (loadBalancerToStatus): nothing in the spec.
	{Key: n + "external-ip-only", Value: "true", With: nlb, Upstream: Facets{},
		Unseen: "no facet: the Service's status lists the public address only (upstream: isSkipPrivateIP, loadBalancerToStatus)"},
	// getAssignedPrivateIP.
	{Key: n + "assigned-private-ipv4", Value: "10.0.0.10", With: nlb, Upstream: Facets{AssignedIP: "10.0.0.10"}},
	// getListenersNetworkLoadBalancer and getBackendSetNamePortMap name IPv6 listeners and
	// backend sets "-IPv6"; getLoadBalancerSourceRanges gives ::/0; the Node has no IPv6 address.
	{Key: n + "assigned-ipv6", Value: "2001:db8::10", With: nlb, Spec: ipv6, SpecNote: "ipFamilies [IPv6]",
		Upstream: Facets{AssignedIP: "2001:db8::10", IPFamilies: "IPv6", Listeners: "TCP-80-IPv6: TCP :80 → TCP-80-IPv6",
			Backends: "TCP-80-IPv6 []", SourceCIDRs: "::/0"}},
}

// configTags gives the sample configuration load balancer tags of both kinds.
func configTags(c *config.Config) {
	c.LoadBalancer.Tags = config.Tags{FreeformTags: map[string]string{"cfg": "x"}, DefinedTags: map[string]map[string]any{"ops": {"cfg": "x"}}}
}

const configTagsNote = `config loadBalancer.tags {"cfg":"x"} and {"ops":{"cfg":"x"}} (upstream: tags.loadBalancer)`

func local(s *v1.ServiceSpec) {
	s.ExternalTrafficPolicy, s.HealthCheckNodePort = v1.ServiceExternalTrafficPolicyLocal, 32000
}

func ipv6(s *v1.ServiceSpec) { s.IPFamilies = []v1.IPFamily{v1.IPv6Protocol} }

func dualStack(s *v1.ServiceSpec) {
	policy := v1.IPFamilyPolicyRequireDualStack
	s.IPFamilyPolicy, s.IPFamilies = &policy, []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol}
}

// upstreamConfigKey is one cloud-provider.yaml key (a dotted path), a document setting it, and
// what the upstream CCM makes of it.
type upstreamConfigKey struct {
	Key, YAML string
	// Upstream, Difference, Also and Unseen are as upstreamAnnotation's, against
	// upstreamPlainConfig.
	Upstream   Facets
	Difference string
	Also       string
	Unseen     string
}

// upstreamPlainConfig is what the upstream CCM makes of a configuration setting only the sample's
// compartment and subnets: the plain load balancer, a user API key (config.go,
// NewConfigurationProvider), rate limits of 20 QPS and bursts of 5 for reads and writes
// (pkg/oci/client/utils.go, NewRateLimiter), load balancers managed.
var upstreamPlainConfig = upstreamPlain[model.KindLoadBalancer].with(Facets{
	AuthPrincipal: "user API key", ReadQPS: "20", ReadBurst: "5", WriteQPS: "20", WriteBurst: "5",
	RateLimiter: "on", LoadBalancers: "managed",
})

// upstreamPlainConfigDifference documents the defaults that differ.
const upstreamPlainConfigDifference = "rate limits default to 20 QPS with a burst of 40 for reads and 5 QPS with a burst of 10 for writes " +
	"(upstream: 20 QPS, burst 5, both), see config/README.md; " + "a new load balancer is flexible 10–100 Mbps, as without annotations"

// Why some keys show no facet.
const (
	unseenRegionKey = "no facet: read by upstream's volume drivers, not by its load balancers"
	unseenStorage   = "no facet: tags of upstream's volumes and file systems"
)

var upstreamConfigKeys = []upstreamConfigKey{
	// config.go, NewConfigurationProvider passes these to the SDK.
	{Key: "auth.region", YAML: "auth: {region: us-phoenix-1}", Upstream: Facets{AuthRegion: "us-phoenix-1"}},
	{Key: "auth.tenancy", YAML: "auth: {tenancy: ocid1.tenancy.oc1..t}", Upstream: Facets{AuthTenancy: "ocid1.tenancy.oc1..t"}},
	{Key: "auth.user", YAML: "auth: {user: ocid1.user.oc1..u}", Upstream: Facets{AuthUser: "ocid1.user.oc1..u"}},
	{Key: "auth.key", YAML: "auth: {key: pem}", Upstream: Facets{AuthKey: "set"}},
	{Key: "auth.fingerprint", YAML: "auth: {fingerprint: 'aa:bb'}", Upstream: Facets{AuthFingerprint: "aa:bb"}},
	// NewConfigurationProvider passes auth.key_passphrase, never auth.passphrase.
	{Key: "auth.passphrase", YAML: "auth: {passphrase: secret}", Upstream: Facets{},
		Difference: "the passphrase reaches the SDK (upstream drops it)"},
	{Key: "auth.key_passphrase", YAML: "auth: {key_passphrase: secret}", Upstream: Facets{AuthPassphrase: "yes"}},
	// AuthConfig.RegionKey serves upstream's volume drivers, not its load balancers.
	{Key: "auth.regionKey", YAML: "auth: {regionKey: PHX}", Upstream: Facets{}, Unseen: unseenRegionKey},
	// Config.Complete.
	{Key: "auth.useInstancePrincipals", YAML: "auth: {useInstancePrincipals: true}", Upstream: Facets{AuthPrincipal: "instance principal"}},
	{Key: "auth.compartment", YAML: "auth: {compartment: ocid1.compartment.oc1..auth}", Upstream: Facets{Compartment: "ocid1.compartment.oc1..auth"}},
	{Key: "useInstancePrincipals", YAML: "useInstancePrincipals: true", Upstream: Facets{AuthPrincipal: "instance principal"}},
	// NewWorkloadIdentityConfigurationProvider.
	{Key: "useWorkloadIdentity", YAML: "useWorkloadIdentity: true", Upstream: Facets{AuthPrincipal: "workload identity"}},
	{Key: "compartment", YAML: "compartment: ocid1.compartment.oc1..top", Upstream: Facets{Compartment: "ocid1.compartment.oc1..top"}},
	{Key: "vcn", YAML: "vcn: ocid1.vcn.oc1..v", Upstream: Facets{VCN: "ocid1.vcn.oc1..v"}},
	{Key: "regionKey", YAML: "regionKey: PHX", Upstream: Facets{}, Unseen: unseenRegionKey},
	// ccm.go, CloudProvider.LoadBalancer.
	{Key: "loadBalancer.disabled", YAML: "loadBalancer: {disabled: true}", Upstream: Facets{LoadBalancers: "not managed"}},
	// LoadBalancerConfig.Complete turns it into securityListManagementMode None, which the
	// security list manager factory (ccm.go) never reads: getRuleManagementMode always names a
	// mode.
	{Key: "loadBalancer.disableSecurityListManagement", YAML: "loadBalancer: {disableSecurityListManagement: true}", Upstream: Facets{},
		Difference: "honoured, as loadBalancer.securityListManagementMode is: security lists are left alone (upstream ignores both)"},
	{Key: "loadBalancer.securityListManagementMode", YAML: "loadBalancer: {securityListManagementMode: Frontend}", Upstream: Facets{},
		Difference: "honoured (upstream ignores it)"},
	// getDefaultLBSubnets (load_balancer.go).
	{Key: "loadBalancer.subnet1", YAML: "loadBalancer: {subnet1: ocid1.subnet.oc1.phx.cfg1}", Upstream: Facets{Subnets: "ocid1.subnet.oc1.phx.cfg1"}},
	{Key: "loadBalancer.subnet2", YAML: "loadBalancer: {subnet1: ocid1.subnet.oc1.phx.cfg1, subnet2: ocid1.subnet.oc1.phx.cfg2}",
		Upstream: Facets{Subnets: "ocid1.subnet.oc1.phx.cfg1, ocid1.subnet.oc1.phx.cfg2"}},
	// newSecurityListManager (ccm.go) is given the map.
	{Key: "loadBalancer.securityLists", YAML: "loadBalancer: {securityLists: {ocid1.subnet.oc1..a: ocid1.securitylist.oc1..l}}",
		Upstream: Facets{SecurityLists: `{"ocid1.subnet.oc1..a":"ocid1.securitylist.oc1..l"}`}},
	// NewRateLimiter (pkg/oci/client/utils.go).
	{Key: "rateLimiter.rateLimitQPSRead", YAML: "rateLimiter: {rateLimitQPSRead: 7}", Upstream: Facets{ReadQPS: "7"}},
	{Key: "rateLimiter.rateLimitBucketRead", YAML: "rateLimiter: {rateLimitBucketRead: 9}", Upstream: Facets{ReadBurst: "9"}},
	{Key: "rateLimiter.rateLimitQPSWrite", YAML: "rateLimiter: {rateLimitQPSWrite: 3}", Upstream: Facets{WriteQPS: "3"}},
	{Key: "rateLimiter.rateLimitBucketWrite", YAML: "rateLimiter: {rateLimitBucketWrite: 4}", Upstream: Facets{WriteBurst: "4"}},
	{Key: "rateLimiter.disableRateLimiter", YAML: "rateLimiter: {disableRateLimiter: true}", Upstream: Facets{RateLimiter: "off"}},
	// MetricsConfig: metrics are pushed to OCI Monitoring when the section is set.
	{Key: "metrics", YAML: "metrics: {compartmentID: ocid1.compartment.oc1..m, namespace: ns, resourceGroup: rg, prefix: p}",
		Upstream:   Facets{MonitoringPush: "namespace ns"},
		Difference: "oci-ccm exposes Prometheus metrics and does not push to OCI Monitoring"},
	// getLoadBalancerTags returns InitialTags.LoadBalancer when the Service sets none.
	{Key: "tags.loadBalancer", YAML: "tags: {loadBalancer: {freeform: {team: web}}}", Upstream: Facets{Freeform: `{"team":"web"}`}},
	// NewLBSpec merges the common tags only with enableOkeSystemTags (load_balancer.go), false.
	{Key: "tags.common", YAML: "tags: {common: {freeform: {team: web}}}", Upstream: Facets{},
		Difference: "oci-ccm puts the common tags on new load balancers, under loadBalancer.tags and tags.loadBalancer, " +
			"as the key says (upstream v1.35 merges them only with enableOkeSystemTags, which is false outside OKE's own build)"},
	// Read by upstream's volume drivers only.
	{Key: "tags.blockVolume", YAML: "tags: {blockVolume: {freeform: {team: web}}}", Upstream: Facets{}, Unseen: unseenStorage},
	{Key: "tags.fss", YAML: "tags: {fss: {freeform: {team: web}}}", Upstream: Facets{}, Unseen: unseenStorage},
	{Key: "tags.lustre", YAML: "tags: {lustre: {freeform: {team: web}}}", Upstream: Facets{}, Unseen: unseenStorage},
}

// edgeAnnotations are further samples of some annotations: values the two CCMs are known to read
// differently, or that a fix made read alike (empty values, bandwidths out of range, letter
// case). They are not in the migration guide's pre-switch check, which looks for keys.
var edgeAnnotations = []upstreamAnnotation{
	// getLBShape refuses flexible without both bandwidths.
	{Key: s + "oci-load-balancer-shape", Value: "flexible",
		Upstream:   Facets{Refusal: "shape flexible requires flex-min and flex-max"},
		Difference: "flexible alone is 10–100 Mbps, the bandwidths' defaults (upstream refuses it, so no Service it runs carries it)"},
	// getLBShape lowers the letter case of flexible only; a fixed shape is sent as written.
	{Key: s + "oci-load-balancer-shape", Value: "FLEXIBLE",
		With:     map[string]string{s + "oci-load-balancer-shape-flex-min": "10", s + "oci-load-balancer-shape-flex-max": "100"},
		Upstream: Facets{Shape: "flexible 10–100 Mbps"}},
	{Key: s + "oci-load-balancer-shape", Value: "400Mbps", Upstream: Facets{Shape: "400Mbps"}},
	// getLBShape: a fixed shape does not read the bandwidths.
	{Key: s + "oci-load-balancer-shape-flex-min", Value: "50", With: map[string]string{s + "oci-load-balancer-shape": "100Mbps"},
		Upstream: Facets{}},
	// getLBShape: the bandwidths are read only with shape flexible (or on a load balancer
	// already flexible).
	{Key: s + "oci-load-balancer-shape-flex-min", Value: "50", Upstream: Facets{}, AnyValue: true,
		Difference: "also read without the shape annotation, which then means flexible (upstream reads it only with shape flexible " +
			"or on a load balancer already flexible)"},
	// getLBShape and parseFlexibleShapeBandwidth (load_balancer_util.go): below 10 is 10, a
	// maximum below the minimum is the minimum, separators and a Mbps suffix are dropped.
	{Key: s + "oci-load-balancer-shape-flex-min", Value: "5",
		With:     map[string]string{s + "oci-load-balancer-shape": "flexible", s + "oci-load-balancer-shape-flex-max": "100"},
		Upstream: Facets{Shape: "flexible 10–100 Mbps"}},
	{Key: s + "oci-load-balancer-shape-flex-max", Value: "5",
		With:     map[string]string{s + "oci-load-balancer-shape": "flexible", s + "oci-load-balancer-shape-flex-min": "20"},
		Upstream: Facets{Shape: "flexible 20–20 Mbps"}},
	{Key: s + "oci-load-balancer-shape-flex-max", Value: "1,000 Mbps",
		With:     map[string]string{s + "oci-load-balancer-shape": "flexible", s + "oci-load-balancer-shape-flex-min": "10"},
		Upstream: Facets{Shape: "flexible 10–1000 Mbps"}},
	// getLBShape caps at 8192, which OCI refuses (its maximum is 8000).
	{Key: s + "oci-load-balancer-shape-flex-max", Value: "9000",
		With:     map[string]string{s + "oci-load-balancer-shape": "flexible", s + "oci-load-balancer-shape-flex-min": "10"},
		Upstream: Facets{Shape: "flexible 10–8192 Mbps"}},
	// getOciLoadBalancerSubnets skips an empty annotation.
	{Key: s + "oci-load-balancer-subnet1", Value: "", Upstream: Facets{}},
	// isInternalLB: strconv.ParseBool refuses an empty value.
	{Key: s + "oci-load-balancer-internal", Value: "", Upstream: Facets{Refusal: "invalid value"}},
	// getListenersOciLoadBalancer: an empty value is no annotation.
	{Key: s + "oci-load-balancer-connection-idle-timeout", Value: "", Upstream: Facets{}},
	{Key: s + "oci-load-balancer-connection-proxy-protocol-version", Value: "", Upstream: Facets{}},
	{Key: s + "oci-load-balancer-backend-protocol", Value: "", Upstream: Facets{}},
	{Key: s + "oci-load-balancer-backend-protocol", Value: "http",
		Upstream: Facets{Listeners: "http-80: http :80 → TCP-80", IdleTimeout: "60s"},
		Difference: "the protocol is written in capitals, as OCI names it, in the listener's name and protocol " +
			"(upstream sends it as written); a listener upstream made under the other spelling is kept, not replaced"},
	// getHealthCheckInterval refuses below 1000 ms; getHealthCheckRetries takes any integer.
	{Key: s + "oci-load-balancer-health-check-interval", Value: "500", Upstream: Facets{Refusal: "should be between 1000 and 1800000"}},
	// getSecurityListManagementMode: an unknown value, an empty one and another letter case are
	// logged and mean All.
	{Key: s + "oci-load-balancer-security-list-management-mode", Value: "", Upstream: Facets{}},
	{Key: s + "oci-load-balancer-security-list-management-mode", Value: "Sometimes", Upstream: Facets{}},
	{Key: s + "oci-load-balancer-security-list-management-mode", Value: "frontend", Upstream: Facets{},
		Difference: "read in any letter case, so frontend is Frontend (upstream knows the exact spellings only and manages All); " +
			"upstream's rules stay where oci-ccm writes fewer, so nothing is closed at the switch"},
	{Key: s + "oci-load-balancer-security-list-management-mode", Value: "backend", Upstream: Facets{},
		Difference: "read in any letter case, so backend is Backend (upstream knows the exact spellings only and manages All); " +
			"upstream's rules stay where oci-ccm writes fewer, so nothing is closed at the switch"},
	{Key: s + "oci-load-balancer-security-list-management-mode", Value: "none", Upstream: Facets{},
		Difference: "read in any letter case, so none is None (upstream knows the exact spellings only and manages All); " +
			"oci-ccm manages no rules for it, so upstream's stay as they are (remove them by hand once they are not needed)"},
	{Key: s + "oci-load-balancer-security-list-management-mode", Value: "all", Upstream: Facets{}},
	// getLoadBalancerPolicy knows the exact spellings only.
	{Key: o + "loadbalancer-policy", Value: "ip_hash", Upstream: Facets{Refusal: `loadbalancer policy "ip_hash" is not valid`},
		Difference: "read in any letter case (upstream refuses it, so no Service it runs carries it)"},
	// getLoadBalancerType lowers the letter case; an empty or unknown value is lb.
	{Key: o + "load-balancer-type", Value: "", Upstream: Facets{}},
	{Key: o + "load-balancer-type", Value: "NLB",
		Upstream: Facets{Kind: "nlb", Shape: "", IdleTimeout: "", Subnets: "loadBalancer.subnet1", Policy: "FIVE_TUPLE", RuleMode: "None", IPFamilies: "IPv4"}},
	// getIngressIpMode lowers the letter case.
	{Key: o + "ingress-ip-mode", Value: "VIP", Upstream: Facets{IPMode: "VIP"}},
	// getLoadBalancerTags: an empty value is no annotation; annotation tags replace both of the
	// configuration's sets, freeform and defined.
	{Key: o + "initial-freeform-tags-override", Value: "", Upstream: Facets{}},
	{Key: o + "initial-freeform-tags-override", Value: `{"team":"web"}`, Config: configTags, ConfigNote: configTagsNote,
		Upstream: Facets{Freeform: `{"team":"web"}`},
		Difference: "each annotation replaces its own set only: the configuration's defined tags (often a tenancy's required " +
			"cost-tracking tags) stay when only freeform tags are annotated (upstream: an annotation's tags replace both sets)"},
	// getHealthCheckRetries takes any integer (OCI checks it).
	{Key: s + "oci-load-balancer-health-check-retries", Value: "20",
		Upstream: Facets{HealthCheck: "HTTP :10256/healthz, 20 retries, every 10000 ms, timeout 3000 ms"}},
	// getNetworkSecurityGroupIds and getNodeFilter read the network load balancer's own
	// annotations on a network load balancer.
	{Key: o + "oci-network-security-groups", Value: "ocid1.networksecuritygroup.oc1.phx.a", With: nlb, Upstream: Facets{}},
	{Key: o + "node-label-selector", Value: "pool=web", With: nlb, Upstream: Facets{}, AnyValue: true,
		Difference: "a network load balancer honours it too, its own annotation winning (lb/annotation: NLBNodeLabelSelector); upstream reads only its own"},
	// getSecurityListManagementMode refuses an unknown network load balancer mode.
	{Key: n + "security-list-management-mode", Value: "frontend", With: nlb, Upstream: Facets{Refusal: "invalid value: frontend"},
		Difference: "read in any letter case (upstream refuses it, so no Service it runs carries it)"},
	// getPreserveSource: on by default with externalTrafficPolicy Local, refused with Cluster.
	{Key: n + "is-preserve-source", Value: "false", With: nlb, Spec: local, SpecNote: "externalTrafficPolicy Local",
		Upstream: Facets{HealthCheck: "HTTP :32000/healthz, 3 retries, every 10000 ms, timeout 3000 ms"}},
	{Key: n + "is-preserve-source", Value: "true", With: nlb, Upstream: Facets{Refusal: "cannot be set when externalTrafficPolicy is set to Cluster"}},
	// getLoadBalancerTags reads only the network load balancer's tag annotations on one.
	{Key: o + "initial-freeform-tags-override", Value: `{"team":"web"}`, With: nlb, Upstream: Facets{}},
	// getLoadBalancerSourceRanges: 0.0.0.0/0 alone is the default; a single-stack IPv6 Service
	// gets ::/0 instead, a dual-stack one both; getListenersNetworkLoadBalancer and
	// getBackendSets build one listener and backend set per family, the IPv6 ones named -IPv6.
	{Key: s + "load-balancer-source-ranges", Value: "0.0.0.0/0", With: nlb, Spec: ipv6, SpecNote: "ipFamilies [IPv6]",
		Upstream: Facets{IPFamilies: "IPv6", Listeners: "TCP-80-IPv6: TCP :80 → TCP-80-IPv6", Backends: "TCP-80-IPv6 []", SourceCIDRs: "::/0"}},
	{Key: s + "load-balancer-source-ranges", Value: "0.0.0.0/0", With: nlb, Spec: dualStack, SpecNote: "RequireDualStack",
		Upstream: Facets{IPFamilies: "IPv4, IPv6", Listeners: upstreamListener + ", TCP-80-IPv6: TCP :80 → TCP-80-IPv6",
			Backends: upstreamBothNodes + ", TCP-80-IPv6 []", SourceCIDRs: "0.0.0.0/0, ::/0"}},
	// getListenersNetworkLoadBalancer: anything but true or false is no annotation.
	{Key: n + "is-ppv2-enabled", Value: "yes", With: nlb, Upstream: Facets{}},
}
