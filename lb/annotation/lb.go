// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package annotation

// The annotations, with the keys users of the upstream OCI CCM already write.
const (
	// Internal makes the load balancer private: it gets only a private IP address in its
	// subnet. It cannot be changed after the load balancer is created.
	//
	// Type: bool
	// Default: false
	// Example: "true"
	Internal Name = "service.beta.kubernetes.io/oci-load-balancer-internal"

	// Shape selects the load balancer shape. "flexible" scales between the flex-min and
	// flex-max bandwidths; the fixed shapes are kept for existing load balancers. An existing
	// load balancer keeps its shape while the annotation is absent. A flexible load balancer
	// cannot be changed to a fixed shape.
	//
	// Type: string, one of flexible, 10Mbps, 10Mbps-Micro, 100Mbps, 400Mbps, 8000Mbps
	// Default: flexible (10–100 Mbps)
	// Example: "flexible"
	Shape Name = "service.beta.kubernetes.io/oci-load-balancer-shape"

	// ShapeFlexMin sets the minimum bandwidth of a flexible shape, in Mbps. A "Mbps"
	// suffix is accepted; a value below 10 counts as 10, as upstream reads it. Not read beside
	// a fixed shape.
	//
	// Type: int, up to 8000
	// Default: 10
	// Example: "10"
	ShapeFlexMin Name = "service.beta.kubernetes.io/oci-load-balancer-shape-flex-min"

	// ShapeFlexMax sets the maximum bandwidth of a flexible shape, in Mbps. A "Mbps"
	// suffix is accepted; a value below flex-min counts as flex-min, as upstream reads it. Not
	// read beside a fixed shape.
	//
	// Type: int, up to 8000
	// Default: 100
	// Example: "400"
	ShapeFlexMax Name = "service.beta.kubernetes.io/oci-load-balancer-shape-flex-max"

	// Subnet1 sets the OCID of the load balancer's subnet (a regional subnet, or the first
	// of two availability-domain subnets). A regional subnet is the load balancer's only one,
	// even when loadBalancer.subnet2 is configured. Subnets cannot be changed after creation.
	//
	// Type: OCID
	// Default: loadBalancer.subnet1 from cloud-provider.yaml
	// Example: "ocid1.subnet.oc1.phx.aaaa…"
	Subnet1 Name = "service.beta.kubernetes.io/oci-load-balancer-subnet1"

	// Subnet2 sets the OCID of the second availability-domain subnet of a public load
	// balancer. Internal load balancers use only the first subnet. A regional subnet here,
	// with an availability-domain subnet1, is the load balancer's only one (as upstream).
	//
	// Type: OCID
	// Default: loadBalancer.subnet2 from cloud-provider.yaml
	// Example: "ocid1.subnet.oc1.phx.bbbb…"
	Subnet2 Name = "service.beta.kubernetes.io/oci-load-balancer-subnet2"

	// SSLPorts lists the Service ports whose listeners terminate TLS with the
	// certificate from the tls-secret annotation (and, with tls-backendset-secret, re-encrypt to
	// the backends).
	//
	// Type: comma-separated list of Service ports
	// Default: none
	// Example: "443,8443"
	SSLPorts Name = "service.beta.kubernetes.io/oci-load-balancer-ssl-ports"

	// TLSSecret names the kubernetes.io/tls Secret (tls.crt, tls.key, optional ca.crt)
	// whose certificate the SSL listeners present. A namespace-less name means the Service's
	// namespace. Changing the Secret rotates the certificate without downtime.
	//
	// Type: [namespace/]name
	// Default: none
	// Example: "ingress/web-tls"
	TLSSecret Name = "service.beta.kubernetes.io/oci-load-balancer-tls-secret"

	// TLSBackendSetSecret names the Secret (ca.crt, and tls.crt/tls.key for client
	// authentication) the load balancer uses to speak TLS to the backends of the SSL ports.
	//
	// Type: [namespace/]name
	// Default: none
	// Example: "ingress/backend-ca"
	TLSBackendSetSecret Name = "service.beta.kubernetes.io/oci-load-balancer-tls-backendset-secret"

	// BackendProtocol sets the listener protocol. GRPC needs TLS on every port
	// (ssl-ports and tls-secret).
	//
	// Type: string, one of TCP, HTTP, GRPC
	// Default: TCP
	// Example: "HTTP"
	BackendProtocol Name = "service.beta.kubernetes.io/oci-load-balancer-backend-protocol"

	// HealthCheckRetries sets how many failed health checks mark a backend unhealthy.
	//
	// Type: int, at least 1
	// Default: 3
	// Example: "5"
	HealthCheckRetries Name = "service.beta.kubernetes.io/oci-load-balancer-health-check-retries"

	// HealthCheckInterval sets the time between health checks, in milliseconds.
	//
	// Type: int, 1000–1800000
	// Default: 10000
	// Example: "5000"
	HealthCheckInterval Name = "service.beta.kubernetes.io/oci-load-balancer-health-check-interval"

	// HealthCheckTimeout sets how long a health check waits for a reply, in milliseconds.
	//
	// Type: int, 1–600000
	// Default: 3000
	// Example: "2000"
	HealthCheckTimeout Name = "service.beta.kubernetes.io/oci-load-balancer-health-check-timeout"

	// ConnectionIdleTimeout sets the longest a connection may stay idle, in seconds.
	//
	// Type: int, 1–7200
	// Default: 300 for TCP listeners, 60 for HTTP and GRPC
	// Example: "600"
	ConnectionIdleTimeout Name = "service.beta.kubernetes.io/oci-load-balancer-connection-idle-timeout"

	// ProxyProtocolVersion makes TCP listeners send the PROXY protocol header to the
	// backends. Only with the TCP backend protocol.
	//
	// Type: int, 1 or 2
	// Default: none (no PROXY header)
	// Example: "2"
	ProxyProtocolVersion Name = "service.beta.kubernetes.io/oci-load-balancer-connection-proxy-protocol-version"

	// SecurityListManagementMode says which security-list rules are managed for this
	// load balancer: All (LB and node subnets), Frontend (LB-subnet ingress only), Backend
	// (between LB and node subnets only) or None.
	//
	// Type: string, one of All, Frontend, Backend, None
	// Default: loadBalancer.securityListManagementMode from cloud-provider.yaml (All)
	// Example: "Frontend"
	SecurityListManagementMode Name = "service.beta.kubernetes.io/oci-load-balancer-security-list-management-mode"

	// Policy sets how the load balancer spreads connections over backends.
	//
	// Type: string, one of ROUND_ROBIN, LEAST_CONNECTIONS, IP_HASH
	// Default: ROUND_ROBIN
	// Example: "LEAST_CONNECTIONS"
	Policy Name = "oci.oraclecloud.com/loadbalancer-policy"

	// NetworkSecurityGroups lists the network security groups the load balancer's
	// VNICs join. Removing an OCID (or the annotation) removes the load balancer from that
	// group; NSGs attached otherwise, e.g. by a user in the console, are never detached.
	// Before attaching an NSG, oci-ccm reads it: one that does not exist, that the CCM's policy
	// does not let it read, that is being deleted or that is in another VCN fails the Service's
	// sync with an error naming this annotation and the OCID, and nothing is changed.
	//
	// Type: comma-separated list of up to 5 NSG OCIDs (4 in security-rule-management-mode NSG, whose frontend NSG is the fifth)
	// Default: none
	// Example: "ocid1.networksecuritygroup.oc1.phx.aaaa…"
	NetworkSecurityGroups Name = "oci.oraclecloud.com/oci-network-security-groups"

	// InitialFreeformTags replaces the config's freeform tags on a load balancer when it
	// is created. Later changes are not applied (OCI users often edit tags themselves).
	//
	// Type: JSON object of string values
	// Default: loadBalancer.tags.freeformTags from cloud-provider.yaml
	// Example: '{"team":"web","cost-center":"42"}'
	InitialFreeformTags Name = "oci.oraclecloud.com/initial-freeform-tags-override"

	// InitialDefinedTags replaces the config's defined tags on a load balancer when it
	// is created. Later changes are not applied.
	//
	// Type: JSON object: tag namespace → key → value
	// Default: loadBalancer.tags.definedTags from cloud-provider.yaml
	// Example: '{"Operations":{"CostCenter":"42"}}'
	InitialDefinedTags Name = "oci.oraclecloud.com/initial-defined-tags-override"

	// NodeLabelSelector limits the backends to Nodes whose labels match.
	//
	// Type: Kubernetes label selector
	// Default: all Nodes
	// Example: "pool=web,zone!=ad-3"
	NodeLabelSelector Name = "oci.oraclecloud.com/node-label-selector"

	// LoadBalancerType selects the OCI product: "lb" the Load Balancer service, "nlb" a
	// Network Load Balancer (layer 4, TCP and UDP, client addresses preserved; configured by the
	// oci-network-load-balancer.oraclecloud.com annotations). Changing it replaces the load
	// balancer: the new one is created, the Service moved to it, then the old one deleted.
	//
	// Type: string, one of lb, nlb
	// Default: lb
	// Example: "lb"
	LoadBalancerType Name = "oci.oraclecloud.com/load-balancer-type"

	// ListenerSSLConfig sets the cipher suite and TLS versions of the SSL listeners.
	//
	// Type: JSON object with CipherSuiteName and Protocols (TLSv1, TLSv1.1, TLSv1.2, TLSv1.3)
	// Default: OCI's default cipher suite (GRPC: oci-default-http2-ssl-cipher-suite-v1)
	// Example: '{"CipherSuiteName":"oci-default-http2-tls-12-13-ssl-cipher-suite-v1","Protocols":["TLSv1.2","TLSv1.3"]}'
	ListenerSSLConfig Name = "oci.oraclecloud.com/oci-load-balancer-listener-ssl-config"

	// BackendSetSSLConfig sets the cipher suite and TLS versions used towards the
	// backends of the SSL ports (with tls-backendset-secret).
	//
	// Type: JSON object with CipherSuiteName and Protocols (TLSv1, TLSv1.1, TLSv1.2, TLSv1.3)
	// Default: OCI's default cipher suite
	// Example: '{"CipherSuiteName":"oci-default-ssl-cipher-suite-v1","Protocols":["TLSv1.2"]}'
	BackendSetSSLConfig Name = "oci.oraclecloud.com/oci-load-balancer-backendset-ssl-config"

	// RuleSets defines rule sets, named lists of OCI Load Balancer rules (add, extend or
	// remove a request or response header, allow by source, allowed HTTP methods, redirect,
	// header size limits, connection limits per IP), and applies every one of them to every
	// listener of the Service, as the upstream CCM does. The value is a JSON object from rule-set
	// name to {"items": [rule, ...]}, each rule an object of OCI's Rule type: its "action" and
	// that action's fields. At most 20 rules in a set and 50 in all (OCI's limits); rule sets
	// apply to HTTP listeners. oci-ccm manages only the rule sets this annotation names and
	// records them in the load balancer's freeform tags: a rule set it leaves (or the
	// annotation's removal) is detached from the listeners and then deleted; rule sets added by
	// other means, and their place on the listeners, are left alone. Load balancers only.
	//
	// Type: JSON object, rule-set name → {"items": [OCI Rule objects]}
	// Default: none
	// Example: '{"headers":{"items":[{"action":"ADD_HTTP_REQUEST_HEADER","header":"x-team","value":"web"}]}}'
	RuleSets Name = "oci.oraclecloud.com/oci-load-balancer-rule-sets"

	// SourceRanges lists the client CIDRs allowed in (through the managed security
	// rules). It is the annotation form of spec.loadBalancerSourceRanges, which wins when both
	// are set. Only 0.0.0.0/0 (given, or the default) means every address of the load
	// balancer's families: ::/0 for an IPv6 network load balancer, 0.0.0.0/0 and ::/0 for a
	// dual-stack one (as the upstream CCM does).
	//
	// Type: comma-separated list of CIDRs
	// Default: loadBalancer.defaultSourceCIDRs from cloud-provider.yaml (0.0.0.0/0)
	// Example: "203.0.113.0/24,198.51.100.7/32"
	SourceRanges Name = "service.beta.kubernetes.io/load-balancer-source-ranges"

	// IngressIPMode sets status.loadBalancer.ingress[].ipMode. "Proxy" tells kube-proxy
	// not to short-circuit in-cluster traffic to the load balancer IP (needed for PROXY protocol
	// and TLS termination to apply to it).
	//
	// Type: string, one of VIP, Proxy
	// Default: unset (Kubernetes treats it as VIP)
	// Example: "Proxy"
	IngressIPMode Name = "oci.oraclecloud.com/ingress-ip-mode"

	// AdoptLoadBalancerID asks oci-ccm to take over an existing load balancer it did not
	// create, by OCID. The load balancer must carry no oci-ccm ownership tags, or ones naming this
	// cluster and Service; it is reconfigured to match the Service, renamed and tagged as owned, so deleting
	// the Service deletes it. Subnets, visibility and reserved IP must already match.
	//
	// Type: OCID
	// Default: none
	// Example: "ocid1.loadbalancer.oc1.phx.aaaa…"
	AdoptLoadBalancerID Name = "oci.oraclecloud.com/adopt-load-balancer-id"

	// SecurityRuleManagementMode is the upstream CCM's newer way to choose which security
	// rules are managed; when set it overrides oci-load-balancer-security-list-management-mode.
	// SL-All, SL-Frontend and None mean the security-list modes All, Frontend and None. NSG
	// manages rules in network security groups instead of security lists: a frontend NSG that
	// oci-ccm creates and attaches to the load balancer (deleted with it), and rules in the
	// backend NSGs oci-backend-network-security-group names (see seclist/README.md).
	//
	// Type: string, one of SL-All, SL-Frontend, NSG, None
	// Default: the security-list mode (annotation, else config)
	// Example: "NSG"
	SecurityRuleManagementMode Name = "oci.oraclecloud.com/security-rule-management-mode"

	// BackendNetworkSecurityGroups names the network security groups the backend
	// nodes' VNICs are in, for security-rule-management-mode NSG: oci-ccm adds to each the
	// ingress rules from the load balancer's frontend NSG (owned by this cluster, removed with
	// the last Service needing them) and never touches their other rules. Only with that mode.
	//
	// Type: comma-separated list of NSG OCIDs
	// Default: none (no backend rules are managed)
	// Example: "ocid1.networksecuritygroup.oc1.phx.aaaa…"
	BackendNetworkSecurityGroups Name = "oci.oraclecloud.com/oci-backend-network-security-group"

	// CompartmentID puts the Service's load balancer in this compartment instead of the
	// configured one: it is created, looked up and deleted there. It applies to network load
	// balancers too (load-balancer-type nlb), as in the upstream CCM. Subnets, security lists,
	// NSGs (the frontend NSG of mode NSG included) and reserved IPs stay where they are; the
	// CCM's IAM policy needs three more statements for this compartment (seclist/README.md). An
	// existing load balancer is never moved, nor a second one made: a value other than its
	// compartment is refused until it names that compartment again, or the load balancer has
	// been moved there (OCI's ChangeLoadBalancerCompartment or
	// ChangeNetworkLoadBalancerCompartment). Removing the annotation leaves an existing load
	// balancer where it is.
	//
	// Type: compartment OCID (ocid1.compartment.…), or the tenancy OCID for the root compartment
	// Default: compartment from cloud-provider.yaml
	// Example: "ocid1.compartment.oc1..aaaa…"
	CompartmentID Name = "oci.oraclecloud.com/compartment-id"

	// WorkloadServiceAccount makes every Load Balancer and Network Load Balancer API call for
	// this Service as the OKE workload identity of this ServiceAccount in the Service's
	// namespace, as the upstream CCM does: the CCM requests a token for the ServiceAccount
	// (TokenRequest) and exchanges it at the cluster's OKE workload identity endpoint.
	// Security-list, NSG and other networking calls stay the CCM's own. The ServiceAccount's
	// workload needs an IAM policy for the load balancers (seclist/README.md, "Workload identity").
	// Only on OKE enhanced clusters; the CCM's environment must carry what the OCI SDK needs
	// (KUBERNETES_SERVICE_HOST, OCI_RESOURCE_PRINCIPAL_VERSION=2.2, OCI_RESOURCE_PRINCIPAL_REGION,
	// OCI_KUBERNETES_SERVICE_ACCOUNT_CERT_PATH). An empty value, or one that cannot name a
	// ServiceAccount, is refused; a ServiceAccount that does not exist fails the sync with
	// nothing changed in OCI.
	//
	// Type: ServiceAccount name (a DNS subdomain), in the Service's namespace
	// Default: none (calls are made as the CCM)
	// Example: "lb-owner"
	WorkloadServiceAccount Name = "oci.oraclecloud.com/workload-service-account"

	// LoadBalancerCompartmentID is written by oci-ccm, not by people: the compartment the
	// Service's load balancer is in, when that is not the configured one. oci-ccm looks there
	// too, so that after a restart it still finds a load balancer whose Service's compartment-id
	// was changed or removed since (and refuses the change, or leaves the load balancer where it
	// is) instead of making a second one. A program embedding lb keeps it as ccm does, from
	// Result.Spec.CompartmentID.
	//
	// Type: compartment OCID, written by oci-ccm
	// Default: none (the load balancer is in the configured compartment, or there is none yet)
	// Example: "ocid1.compartment.oc1..aaaa…"
	LoadBalancerCompartmentID Name = "oci-ccm.github.io/load-balancer-compartment-id"
)
