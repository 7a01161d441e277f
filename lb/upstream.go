// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"slices"
	"strings"

	"github.com/oci-ccm/oci-ccm/config"
)

// nlbAnnotationPrefix starts every annotation of the upstream CCM's network load balancers.
const nlbAnnotationPrefix = "oci-network-load-balancer.oraclecloud.com/"

// unsupportedAnnotations are the upstream CCM's Service annotations oci-ccm does not implement,
// with why. A Service carrying one is refused rather than reconciled without it: silently
// dropping, say, a rule set or a per-Service compartment would build a different load balancer
// from the one the user asked for. Annotations of the other kind, and unknown ones with the
// network load balancer prefix, are refused too (refuseUnsupported).
var unsupportedAnnotations = map[string]string{
	"oci.oraclecloud.com/oci-load-balancer-rule-sets": "not supported by oci-ccm yet " +
		"(listener rule sets are not managed); remove it",
	"oci.oraclecloud.com/compartment-id": "not supported by oci-ccm yet on a Service " +
		"(load balancers are created in the configured compartment); remove it",
	"oci.oraclecloud.com/workload-service-account": "not supported by oci-ccm " +
		"(workload identity is not implemented); remove it",
	nlbAnnotationPrefix + "freeform-tags": "not supported by oci-ccm: the older spelling of " +
		string(AnnotationNLBInitialFreeformTags) + "; rename it",
	nlbAnnotationPrefix + "defined-tags": "not supported by oci-ccm: the older spelling of " +
		string(AnnotationNLBInitialDefinedTags) + "; rename it",
}

// lbOnlyAnnotations apply to a load balancer and mean nothing to a network load balancer, with
// what to use instead ("" for nothing). A network load balancer Service carrying one is refused:
// silently ignoring, say, oci-load-balancer-internal would make a public one.
var lbOnlyAnnotations = map[Annotation]Annotation{
	AnnotationInternal: AnnotationNLBInternal, AnnotationShape: "", AnnotationShapeFlexMin: "", AnnotationShapeFlexMax: "",
	AnnotationSubnet1: AnnotationNLBSubnet, AnnotationSubnet2: AnnotationNLBSubnet, AnnotationSSLPorts: "", AnnotationTLSSecret: "",
	AnnotationTLSBackendSetSecret: "", AnnotationBackendProtocol: "", AnnotationHealthCheckRetries: AnnotationNLBHealthCheckRetries,
	AnnotationHealthCheckInterval: AnnotationNLBHealthCheckInterval, AnnotationHealthCheckTimeout: AnnotationNLBHealthCheckTimeout,
	AnnotationConnectionIdleTimeout: "", AnnotationProxyProtocolVersion: AnnotationNLBProxyProtocolV2,
	AnnotationSecurityListManagementMode: AnnotationNLBSecurityListManagementMode, AnnotationPolicy: AnnotationNLBBackendPolicy,
	AnnotationListenerSSLConfig: "", AnnotationBackendSetSSLConfig: "",
}

// refuseUnsupported adds a Problem for every upstream annotation oci-ccm does not implement, and
// for every annotation of the other kind than kind, in key order so the error reads the same
// every time.
func (d *desiredBuilder) refuseUnsupported(kind Kind) {
	var keys []string
	for k := range d.svc.Annotations {
		_, unsupported := unsupportedAnnotations[k]
		_, lbOnly := lbOnlyAnnotations[Annotation(k)]
		nlbOnly := strings.HasPrefix(k, nlbAnnotationPrefix)
		unknownNLB := nlbOnly && !slices.Contains(nlbAnnotations(), Annotation(k))
		if unsupported || unknownNLB || (kind == KindLoadBalancer && nlbOnly) || (kind == KindNetworkLoadBalancer && lbOnly) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		reason, ok := unsupportedAnnotations[k]
		switch {
		case ok:
		case strings.HasPrefix(k, nlbAnnotationPrefix) && !slices.Contains(nlbAnnotations(), Annotation(k)):
			reason = "an annotation oci-ccm does not know (see lb/README.md for the network load balancer annotations); remove it"
		case kind == KindLoadBalancer:
			reason = "nothing on a load balancer: it applies to network load balancers (" + string(AnnotationLoadBalancerType) + ": nlb); remove it"
		default:
			reason = "nothing on a network load balancer: it applies to load balancers (" + string(AnnotationLoadBalancerType) + ": lb); remove it"
			if alt := lbOnlyAnnotations[Annotation(k)]; alt != "" {
				reason += ", or use " + string(alt)
			}
		}
		d.p.add(&Problem{Field: k, Value: d.svc.Annotations[k], Allowed: reason})
	}
}

// backendNSGs reads AnnotationBackendNetworkSecurityGroups, which only mode NSG uses: set with
// another mode it would silently manage nothing, so it is refused.
func (d *desiredBuilder) backendNSGs(mode config.SecurityListMode) []string {
	if !d.p.has(AnnotationBackendNetworkSecurityGroups) {
		return nil
	}
	if mode != config.SecurityListModeNSG {
		d.p.add(AnnotationBackendNetworkSecurityGroups.problemf(d.p.ann[string(AnnotationBackendNetworkSecurityGroups)],
			"only with %s: NSG; remove it or set that mode", AnnotationSecurityRuleManagementMode))
		return nil
	}
	return d.p.ocids(AnnotationBackendNetworkSecurityGroups, "networksecuritygroup", maxBackendNSGs)
}

// maxBackendNSGs bounds the backend NSGs of one Service: each gets rules from the frontend NSG,
// whose 120 rules they share (a VNIC is in at most 5 NSGs, so more would be unusual).
const maxBackendNSGs = 5

// securityRuleMode reads AnnotationSecurityRuleManagementMode: the security-list mode it names
// and whether it is set.
func (d *desiredBuilder) securityRuleMode() (config.SecurityListMode, bool) {
	if !d.p.has(AnnotationSecurityRuleManagementMode) {
		return "", false
	}
	switch d.p.oneOf(AnnotationSecurityRuleManagementMode, "", "SL-All", "SL-Frontend", "NSG", "None") {
	case "NSG":
		return config.SecurityListModeNSG, true
	case "SL-All":
		return config.SecurityListModeAll, true
	case "SL-Frontend":
		return config.SecurityListModeFrontend, true
	case "None":
		return config.SecurityListModeNone, true
	}
	return "", false // refused by oneOf; the Problem names the allowed values
}
