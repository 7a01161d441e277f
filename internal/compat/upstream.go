// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import v1 "k8s.io/api/core/v1"

// The upstream OCI CCM's (oracle/oci-cloud-controller-manager v1.35) Service annotations and
// cloud-provider.yaml keys, each with a value its users write. The status of each is not written
// here: classify runs oci-ccm's own code on the value and reports what it does.

const (
	s = "service.beta.kubernetes.io/"
	o = "oci.oraclecloud.com/"
	n = "oci-network-load-balancer.oraclecloud.com/"
)

// upstreamAnnotation is one annotation and a sample Service's annotations that set it. With
// carries what the value needs beside it to be meaningful (ssl-ports beside a TLS secret).
type upstreamAnnotation struct {
	Key, Value string
	With       map[string]string
	// Difference says how oci-ccm's support differs from upstream's, for supported keys only.
	Difference string
	// Spec, when set, gives the sample Service what the value needs (an IP family, a traffic
	// policy).
	Spec func(*v1.ServiceSpec)
}

// nlb is the annotation that makes a Service's load balancer a network load balancer: every
// network load balancer annotation is classified beside it.
var nlb = map[string]string{o + "load-balancer-type": "nlb"}

var upstreamAnnotations = []upstreamAnnotation{
	{Key: s + "oci-load-balancer-internal", Value: "true"},
	{Key: s + "oci-load-balancer-shape", Value: "flexible",
		Difference: "without it a new load balancer is flexible 10–100 Mbps (upstream: the fixed 100Mbps shape, which OCI has deprecated); " +
			"an existing load balancer keeps its shape"},
	{Key: s + "oci-load-balancer-shape-flex-min", Value: "10", With: map[string]string{s + "oci-load-balancer-shape": "flexible"},
		Difference: "also read without the shape annotation, which then means flexible (upstream reads it only with shape flexible " +
			"or on a load balancer already flexible); above OCI's 8000 Mbps it is refused (upstream sends 8192, which OCI refuses)"},
	{Key: s + "oci-load-balancer-shape-flex-max", Value: "100", With: map[string]string{s + "oci-load-balancer-shape": "flexible"},
		Difference: "as flex-min"},
	{Key: s + "oci-load-balancer-subnet1", Value: "ocid1.subnet.oc1.phx.annotated1"},
	{Key: s + "oci-load-balancer-subnet2", Value: "ocid1.subnet.oc1.phx.annotated2", With: map[string]string{s + "oci-load-balancer-subnet1": "ocid1.subnet.oc1.phx.annotated1"}},
	{Key: s + "oci-load-balancer-ssl-ports", Value: "80", With: map[string]string{s + "oci-load-balancer-tls-secret": "web-tls"}},
	{Key: s + "oci-load-balancer-tls-secret", Value: "web-tls", With: map[string]string{s + "oci-load-balancer-ssl-ports": "80"},
		Difference: "certificates are named after the Secret's content hash, so a rotated Secret reaches the load balancer"},
	{Key: s + "oci-load-balancer-tls-backendset-secret", Value: "backend-tls", With: map[string]string{s + "oci-load-balancer-ssl-ports": "80"}},
	{Key: s + "oci-load-balancer-connection-idle-timeout", Value: "300"},
	{Key: s + "oci-load-balancer-connection-proxy-protocol-version", Value: "2"},
	{Key: s + "oci-load-balancer-backend-protocol", Value: "TCP"},
	{Key: s + "oci-load-balancer-health-check-retries", Value: "3"},
	{Key: s + "oci-load-balancer-health-check-interval", Value: "10000"},
	{Key: s + "oci-load-balancer-health-check-timeout", Value: "3000"},
	{Key: s + "oci-load-balancer-security-list-management-mode", Value: "Frontend",
		Difference: "an unknown value is refused, naming the allowed ones (upstream logs it and manages All, " +
			"which writes security lists the user may have meant to leave alone); Backend is accepted too"},
	{Key: s + "load-balancer-source-ranges", Value: "10.0.0.0/8"},
	{Key: o + "oci-load-balancer-listener-ssl-config", Value: `{"CipherSuiteName":"oci-default-ssl-cipher-suite-v1","Protocols":["TLSv1.2"]}`,
		With: map[string]string{s + "oci-load-balancer-ssl-ports": "80", s + "oci-load-balancer-tls-secret": "web-tls"}},
	{Key: o + "oci-load-balancer-backendset-ssl-config", Value: `{"CipherSuiteName":"oci-default-ssl-cipher-suite-v1","Protocols":["TLSv1.2"]}`,
		With: map[string]string{s + "oci-load-balancer-ssl-ports": "80", s + "oci-load-balancer-tls-backendset-secret": "backend-tls"}},
	{Key: o + "oci-network-security-groups", Value: "ocid1.networksecuritygroup.oc1.phx.a",
		Difference: "the groups attached are recorded in tags, so a group removed from the annotation is detached and one attached by hand is kept"},
	{Key: o + "loadbalancer-policy", Value: "IP_HASH"},
	{Key: o + "initial-freeform-tags-override", Value: `{"team":"web"}`},
	{Key: o + "initial-defined-tags-override", Value: `{"ops":{"team":"web"}}`},
	{Key: o + "node-label-selector", Value: "pool=web"},
	{Key: o + "oci-load-balancer-rule-sets", Value: `{"hdr":{"items":[{"action":"ADD_HTTP_REQUEST_HEADER","header":"x","value":"y"}]}}`},
	{Key: o + "load-balancer-type", Value: "nlb",
		Difference: "changing it between lb and nlb replaces the load balancer: the new one is created, the Service moved to it, then the old one deleted"},
	{Key: o + "security-rule-management-mode", Value: "NSG",
		Difference: "NSG rules carry oci-ccm's ownership description (oci-ccm cluster=<cluster>) and the frontend NSG its tags; " +
			"the configuration file cannot make NSG the default (it is chosen per Service)"},
	{Key: o + "oci-backend-network-security-group", Value: "ocid1.networksecuritygroup.oc1.phx.b",
		With:       map[string]string{o + "security-rule-management-mode": "NSG"},
		Difference: "only with security-rule-management-mode NSG; with another mode it is refused rather than ignored"},
	{Key: o + "ingress-ip-mode", Value: "proxy"},
	{Key: o + "workload-service-account", Value: "ccm"},
	{Key: o + "compartment-id", Value: "ocid1.compartment.oc1..other"},
	{Key: n + "internal", Value: "true", With: nlb},
	{Key: n + "subnet", Value: "ocid1.subnet.oc1.phx.nlb", With: nlb},
	{Key: n + "oci-network-security-groups", Value: "ocid1.networksecuritygroup.oc1.phx.c", With: nlb},
	{Key: n + "health-check-retries", Value: "3", With: nlb},
	{Key: n + "health-check-interval", Value: "10000", With: nlb},
	{Key: n + "health-check-timeout", Value: "3000", With: nlb},
	{Key: n + "backend-policy", Value: "FIVE_TUPLE", With: nlb},
	{Key: n + "security-list-management-mode", Value: "None", With: nlb},
	{Key: n + "initial-freeform-tags-override", Value: `{"team":"web"}`, With: nlb},
	{Key: n + "initial-defined-tags-override", Value: `{"ops":{"team":"web"}}`, With: nlb},
	{Key: n + "freeform-tags", Value: `{"team":"web"}`, With: nlb},
	{Key: n + "defined-tags", Value: `{"ops":{"team":"web"}}`, With: nlb},
	{Key: n + "node-label-selector", Value: "pool=web", With: nlb},
	{Key: n + "is-preserve-source", Value: "true", With: nlb, Spec: func(s *v1.ServiceSpec) {
		s.ExternalTrafficPolicy, s.HealthCheckNodePort = v1.ServiceExternalTrafficPolicyLocal, 32000
	}},
	{Key: n + "is-ppv2-enabled", Value: "true", With: nlb},
	{Key: n + "external-ip-only", Value: "true", With: nlb},
	{Key: n + "assigned-private-ipv4", Value: "10.0.0.10", With: nlb},
	{Key: n + "assigned-ipv6", Value: "2001:db8::10", With: nlb, Spec: func(s *v1.ServiceSpec) { s.IPFamilies = []v1.IPFamily{v1.IPv6Protocol} }},
}

// upstreamConfigKey is one cloud-provider.yaml key (a dotted path) and a document setting it.
type upstreamConfigKey struct {
	Key, YAML string
	// Difference says how oci-ccm's support differs, for keys it accepts without a warning.
	Difference string
}

var upstreamConfigKeys = []upstreamConfigKey{
	{Key: "auth.region", YAML: "auth: {region: us-phoenix-1}"},
	{Key: "auth.tenancy", YAML: "auth: {tenancy: ocid1.tenancy.oc1..t}"},
	{Key: "auth.user", YAML: "auth: {user: ocid1.user.oc1..u}"},
	{Key: "auth.key", YAML: "auth: {key: pem}"},
	{Key: "auth.fingerprint", YAML: "auth: {fingerprint: 'aa:bb'}"},
	{Key: "auth.passphrase", YAML: "auth: {passphrase: secret}",
		Difference: "the passphrase reaches the SDK (upstream drops it)"},
	{Key: "auth.key_passphrase", YAML: "auth: {key_passphrase: secret}"},
	{Key: "auth.regionKey", YAML: "auth: {regionKey: PHX}"},
	{Key: "auth.useInstancePrincipals", YAML: "auth: {useInstancePrincipals: true}"},
	{Key: "auth.compartment", YAML: "auth: {compartment: ocid1.compartment.oc1..c}"},
	{Key: "useInstancePrincipals", YAML: "useInstancePrincipals: true"},
	{Key: "useWorkloadIdentity", YAML: "useWorkloadIdentity: true"},
	{Key: "compartment", YAML: "compartment: ocid1.compartment.oc1..c"},
	{Key: "vcn", YAML: "vcn: ocid1.vcn.oc1..v"},
	{Key: "regionKey", YAML: "regionKey: PHX"},
	{Key: "loadBalancer.disabled", YAML: "loadBalancer: {disabled: true}"},
	{Key: "loadBalancer.disableSecurityListManagement", YAML: "loadBalancer: {disableSecurityListManagement: true}"},
	{Key: "loadBalancer.securityListManagementMode", YAML: "loadBalancer: {securityListManagementMode: Frontend}",
		Difference: "honoured (upstream ignores it)"},
	{Key: "loadBalancer.subnet1", YAML: "loadBalancer: {subnet1: ocid1.subnet.oc1..a}"},
	{Key: "loadBalancer.subnet2", YAML: "loadBalancer: {subnet2: ocid1.subnet.oc1..b}"},
	{Key: "loadBalancer.securityLists", YAML: "loadBalancer: {securityLists: {ocid1.subnet.oc1..a: ocid1.securitylist.oc1..l}}"},
	{Key: "rateLimiter.rateLimitQPSRead", YAML: "rateLimiter: {rateLimitQPSRead: 20}"},
	{Key: "rateLimiter.rateLimitBucketRead", YAML: "rateLimiter: {rateLimitBucketRead: 5}"},
	{Key: "rateLimiter.rateLimitQPSWrite", YAML: "rateLimiter: {rateLimitQPSWrite: 20}"},
	{Key: "rateLimiter.rateLimitBucketWrite", YAML: "rateLimiter: {rateLimitBucketWrite: 5}"},
	{Key: "rateLimiter.disableRateLimiter", YAML: "rateLimiter: {disableRateLimiter: true}"},
	{Key: "metrics", YAML: "metrics: {compartmentID: ocid1.compartment.oc1..m, namespace: ns, resourceGroup: rg, prefix: p}"},
	{Key: "tags.loadBalancer", YAML: "tags: {loadBalancer: {freeform: {team: web}}}"},
	{Key: "tags.common", YAML: "tags: {common: {freeform: {team: web}}}"},
	{Key: "tags.blockVolume", YAML: "tags: {blockVolume: {freeform: {team: web}}}"},
	{Key: "tags.fss", YAML: "tags: {fss: {freeform: {team: web}}}"},
	{Key: "tags.lustre", YAML: "tags: {lustre: {freeform: {team: web}}}"},
}
