// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package annotation

// The network load balancer annotations (oci.oraclecloud.com/load-balancer-type: nlb), with the
// keys users of the upstream OCI CCM already write. A Service of the other kind carrying one is
// refused, so a typo in the type annotation never silently builds the wrong product.
const (
	// NLBInternal makes the network load balancer private: it gets only a private IP
	// address in its subnet. It cannot be changed after the network load balancer is created.
	//
	// Type: bool
	// Default: false
	// Example: "true"
	NLBInternal Name = "oci-network-load-balancer.oraclecloud.com/internal"

	// NLBSubnet sets the OCID of the network load balancer's subnet (it has one).
	// It cannot be changed after creation.
	//
	// Type: OCID
	// Default: loadBalancer.subnet1 from cloud-provider.yaml
	// Example: "ocid1.subnet.oc1.phx.aaaa…"
	NLBSubnet Name = "oci-network-load-balancer.oraclecloud.com/subnet"

	// NLBNetworkSecurityGroups lists up to five network security group OCIDs to attach
	// to the network load balancer, as oci-network-security-groups does for a load balancer
	// (and checked the same way before they are attached). oci-network-security-groups itself
	// is not read on a network load balancer (nor by the upstream CCM).
	//
	// Type: comma-separated OCIDs
	// Default: none
	// Example: "ocid1.networksecuritygroup.oc1.phx.aaaa…"
	NLBNetworkSecurityGroups Name = "oci-network-load-balancer.oraclecloud.com/oci-network-security-groups"

	// NLBHealthCheckRetries sets how many failed health checks mark a backend
	// unhealthy.
	//
	// Type: int, at least 1
	// Default: 3
	// Example: "5"
	NLBHealthCheckRetries Name = "oci-network-load-balancer.oraclecloud.com/health-check-retries"

	// NLBHealthCheckInterval sets the time between health checks, in milliseconds.
	//
	// Type: int, 10000–1800000
	// Default: 10000
	// Example: "30000"
	NLBHealthCheckInterval Name = "oci-network-load-balancer.oraclecloud.com/health-check-interval"

	// NLBHealthCheckTimeout sets how long a health check may take, in milliseconds.
	//
	// Type: int, 1–600000
	// Default: 3000
	// Example: "5000"
	NLBHealthCheckTimeout Name = "oci-network-load-balancer.oraclecloud.com/health-check-timeout"

	// NLBBackendPolicy sets how the network load balancer hashes connections to
	// backends: on the 2-tuple (source and destination address), the 3-tuple (and protocol) or
	// the 5-tuple (and ports).
	//
	// Type: string, one of TWO_TUPLE, THREE_TUPLE, FIVE_TUPLE
	// Default: FIVE_TUPLE
	// Example: "THREE_TUPLE"
	NLBBackendPolicy Name = "oci-network-load-balancer.oraclecloud.com/backend-policy"

	// NLBPreserveSource makes the backends see the clients' addresses. It needs
	// externalTrafficPolicy Local (with Cluster, kube-proxy forwards to other nodes, whose
	// replies would bypass the network load balancer). The node subnets' security rules then
	// admit the clients' source ranges.
	//
	// Type: bool
	// Default: true with externalTrafficPolicy Local, else false
	// Example: "false"
	NLBPreserveSource Name = "oci-network-load-balancer.oraclecloud.com/is-preserve-source"

	// NLBProxyProtocolV2 makes every listener send a PROXY protocol v2 header to the
	// backends.
	//
	// Type: bool
	// Default: false
	// Example: "true"
	NLBProxyProtocolV2 Name = "oci-network-load-balancer.oraclecloud.com/is-ppv2-enabled"

	// NLBSecurityListManagementMode chooses which security-list rules oci-ccm manages
	// for the network load balancer, as oci-load-balancer-security-list-management-mode does for
	// a load balancer. security-rule-management-mode, when set, overrides it.
	//
	// Type: string, one of All, Frontend, Backend, None
	// Default: None
	// Example: "All"
	NLBSecurityListManagementMode Name = "oci-network-load-balancer.oraclecloud.com/security-list-management-mode"

	// NLBNodeLabelSelector limits the backends to the Nodes matching a label selector,
	// as oci.oraclecloud.com/node-label-selector does (which a network load balancer honours too;
	// this one wins when both are set).
	//
	// Type: label selector
	// Default: every Node
	// Example: "pool=udp"
	NLBNodeLabelSelector Name = "oci-network-load-balancer.oraclecloud.com/node-label-selector"

	// NLBInitialFreeformTags sets the freeform tags a new network load balancer gets
	// (a JSON object), instead of loadBalancer.tags from cloud-provider.yaml. Tags are not
	// changed afterwards. oci.oraclecloud.com/initial-freeform-tags-override is not read on
	// a network load balancer (nor by the upstream CCM).
	//
	// Type: JSON object of strings
	// Default: loadBalancer.tags.freeformTags from cloud-provider.yaml
	// Example: "{\"team\":\"edge\"}"
	NLBInitialFreeformTags Name = "oci-network-load-balancer.oraclecloud.com/initial-freeform-tags-override"

	// NLBInitialDefinedTags sets the defined tags a new network load balancer gets (a
	// JSON object of namespaces), instead of the configured ones. Tags are not changed
	// afterwards. oci.oraclecloud.com/initial-defined-tags-override is not read on a
	// network load balancer (nor by the upstream CCM).
	//
	// Type: JSON object of objects
	// Default: loadBalancer.tags.definedTags from cloud-provider.yaml
	// Example: "{\"ops\":{\"cost-center\":\"42\"}}"
	NLBInitialDefinedTags Name = "oci-network-load-balancer.oraclecloud.com/initial-defined-tags-override"

	// NLBFreeformTags sets a new network load balancer's freeform tags under the older
	// spelling of initial-freeform-tags-override, which wins when both are set; the upstream
	// CCM reads both the same way. New Services should use the current spelling.
	//
	// Type: JSON object of strings
	// Default: loadBalancer.tags.freeformTags from cloud-provider.yaml
	// Example: "{\"team\":\"edge\"}"
	NLBFreeformTags Name = "oci-network-load-balancer.oraclecloud.com/freeform-tags"

	// NLBDefinedTags sets a new network load balancer's defined tags under the older spelling
	// of initial-defined-tags-override, which wins when both are set; the upstream CCM reads
	// both the same way. New Services should use the current spelling.
	//
	// Type: JSON object of objects
	// Default: loadBalancer.tags.definedTags from cloud-provider.yaml
	// Example: "{\"ops\":{\"cost-center\":\"42\"}}"
	NLBDefinedTags Name = "oci-network-load-balancer.oraclecloud.com/defined-tags"

	// NLBExternalIPOnly reports only the public addresses of a public network load
	// balancer in the Service status (by default its private address is reported too, as the
	// upstream CCM does).
	//
	// Type: bool
	// Default: false
	// Example: "true"
	NLBExternalIPOnly Name = "oci-network-load-balancer.oraclecloud.com/external-ip-only"

	// NLBAssignedPrivateIPv4 asks for this private IPv4 address in the subnet. It
	// cannot be changed after the network load balancer is created.
	//
	// Type: IPv4 address
	// Default: one OCI picks
	// Example: "10.0.0.20"
	NLBAssignedPrivateIPv4 Name = "oci-network-load-balancer.oraclecloud.com/assigned-private-ipv4"

	// NLBAssignedIPv6 asks for this IPv6 address in the subnet's IPv6 prefix (for an
	// IPv6 or dual-stack Service). It cannot be changed after the network load balancer is
	// created.
	//
	// Type: IPv6 address
	// Default: one OCI picks
	// Example: "2603:c020:4015:2100::20"
	NLBAssignedIPv6 Name = "oci-network-load-balancer.oraclecloud.com/assigned-ipv6"
)
