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
// from the one the user asked for. (Network load balancer annotations are refused by prefix.)
var unsupportedAnnotations = map[string]string{
	"oci.oraclecloud.com/oci-load-balancer-rule-sets": "not supported by oci-ccm yet " +
		"(listener rule sets are not managed); remove it",
	"oci.oraclecloud.com/compartment-id": "not supported by oci-ccm yet on a Service " +
		"(load balancers are created in the configured compartment); remove it",
	"oci.oraclecloud.com/workload-service-account": "not supported by oci-ccm " +
		"(workload identity is not implemented); remove it",
}

// refuseUnsupported adds a Problem for every upstream annotation oci-ccm does not implement, in
// key order so the error reads the same every time.
func (d *desiredBuilder) refuseUnsupported() {
	var keys []string
	for k := range d.svc.Annotations {
		if _, ok := unsupportedAnnotations[k]; ok || strings.HasPrefix(k, nlbAnnotationPrefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		reason, ok := unsupportedAnnotations[k]
		if !ok {
			reason = "network load balancer annotations are not supported by oci-ccm yet; " +
				"remove it (and " + string(AnnotationLoadBalancerType) + ": nlb)"
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
