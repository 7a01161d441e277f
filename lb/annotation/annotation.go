// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package annotation names every Service annotation oci-ccm reads.
//
// The keys are the ones users of the upstream OCI cloud-controller-manager already write, so a
// Service moves between the two unchanged. Each constant's doc comment is its user
// documentation: the first paragraph describes it, and its Type, Default and Example lines are
// rendered into the reference table of lb/README.md by `go generate ./lb`; `make lint` fails when
// that table is stale. Package lb parses and validates the values; this package only names them,
// so a program that builds or inspects Services can use the constants without the rest of lb.
//
// The constants prefixed NLB apply to network load balancers
// (LoadBalancerType "nlb"); the others to load balancers, except where their comment says
// otherwise.
package annotation

// Name is the key of a Service annotation oci-ccm reads.
type Name string

// String returns the annotation key.
func (n Name) String() string { return string(n) }

// Value returns the annotation's value in a Service's annotations, and whether it is set.
func (n Name) Value(annotations map[string]string) (string, bool) {
	v, ok := annotations[string(n)]
	return v, ok
}

// All lists every annotation oci-ccm reads, in documentation order: the load balancer
// annotations, then the network load balancer ones.
func All() []Name {
	return []Name{
		Internal, Shape, ShapeFlexMin, ShapeFlexMax,
		Subnet1, Subnet2, SSLPorts, TLSSecret,
		TLSBackendSetSecret, BackendProtocol, HealthCheckRetries,
		HealthCheckInterval, HealthCheckTimeout, ConnectionIdleTimeout,
		ProxyProtocolVersion, SecurityListManagementMode, Policy,
		NetworkSecurityGroups, InitialFreeformTags, InitialDefinedTags,
		NodeLabelSelector, LoadBalancerType, ListenerSSLConfig,
		BackendSetSSLConfig, RuleSets, SourceRanges, IngressIPMode,
		AdoptLoadBalancerID, SecurityRuleManagementMode, BackendNetworkSecurityGroups,
		CompartmentID, WorkloadServiceAccount, LoadBalancerCompartmentID,
		NLBInternal, NLBSubnet, NLBNetworkSecurityGroups,
		NLBHealthCheckRetries, NLBHealthCheckInterval, NLBHealthCheckTimeout,
		NLBBackendPolicy, NLBPreserveSource, NLBProxyProtocolV2,
		NLBSecurityListManagementMode, NLBNodeLabelSelector,
		NLBInitialFreeformTags, NLBInitialDefinedTags, NLBFreeformTags, NLBDefinedTags, NLBExternalIPOnly,
		NLBAssignedPrivateIPv4, NLBAssignedIPv6,
	}
}
