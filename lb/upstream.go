// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"slices"
	"strings"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// nlbAnnotationPrefix starts every annotation of the upstream CCM's network load balancers.
const nlbAnnotationPrefix = "oci-network-load-balancer.oraclecloud.com/"

// unsupportedAnnotations are the upstream CCM's Service annotations oci-ccm does not implement,
// with why. A Service carrying one is refused rather than reconciled without it: silently
// dropping, say, per-Service workload identity would call OCI as another identity than the
// user asked for. Annotations of the other kind, and unknown ones with the
// network load balancer prefix, are refused too (refuseUnsupported).
var unsupportedAnnotations = map[string]string{}

// lbOnlyAnnotations apply to a load balancer and mean nothing to a network load balancer, with
// what to use instead ("" for nothing). A network load balancer Service carrying one is refused:
// silently ignoring, say, oci-load-balancer-internal would make a public one.
var lbOnlyAnnotations = map[annotation.Name]annotation.Name{
	annotation.Internal: annotation.NLBInternal, annotation.Shape: "", annotation.ShapeFlexMin: "", annotation.ShapeFlexMax: "",
	annotation.Subnet1: annotation.NLBSubnet, annotation.Subnet2: annotation.NLBSubnet, annotation.SSLPorts: "", annotation.TLSSecret: "",
	annotation.TLSBackendSetSecret: "", annotation.BackendProtocol: "", annotation.HealthCheckRetries: annotation.NLBHealthCheckRetries,
	annotation.HealthCheckInterval: annotation.NLBHealthCheckInterval, annotation.HealthCheckTimeout: annotation.NLBHealthCheckTimeout,
	annotation.ConnectionIdleTimeout: "", annotation.ProxyProtocolVersion: annotation.NLBProxyProtocolV2,
	annotation.SecurityListManagementMode: annotation.NLBSecurityListManagementMode, annotation.Policy: annotation.NLBBackendPolicy,
	annotation.ListenerSSLConfig: "", annotation.BackendSetSSLConfig: "",
	// Network load balancers have no rule sets; upstream refuses it too ("Rule Sets are not
	// supported by Network Load Balancer", load_balancer_spec.go getRuleSets).
	annotation.RuleSets: "",
}

// refuseUnsupported adds a Problem for every upstream annotation oci-ccm does not implement, and
// for every annotation of the other kind than kind, in key order so the error reads the same
// every time.
func (d *desiredBuilder) refuseUnsupported(kind model.Kind) {
	var keys []string
	for k := range d.svc.Annotations {
		_, unsupported := unsupportedAnnotations[k]
		_, lbOnly := lbOnlyAnnotations[annotation.Name(k)]
		nlbOnly := strings.HasPrefix(k, nlbAnnotationPrefix)
		unknownNLB := nlbOnly && !slices.Contains(nlbAnnotations(), annotation.Name(k))
		if unsupported || unknownNLB || (kind == model.KindLoadBalancer && nlbOnly) || (kind == model.KindNetworkLoadBalancer && lbOnly) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		reason, ok := unsupportedAnnotations[k]
		switch {
		case ok:
		case strings.HasPrefix(k, nlbAnnotationPrefix) && !slices.Contains(nlbAnnotations(), annotation.Name(k)):
			reason = "an annotation oci-ccm does not know (see lb/README.md for the network load balancer annotations); remove it"
		case kind == model.KindLoadBalancer:
			reason = "nothing on a load balancer: it applies to network load balancers (" + string(annotation.LoadBalancerType) + ": nlb); remove it"
		default:
			reason = "nothing on a network load balancer: it applies to load balancers (" + string(annotation.LoadBalancerType) + ": lb); remove it"
			if alt := lbOnlyAnnotations[annotation.Name(k)]; alt != "" {
				reason += ", or use " + string(alt)
			}
		}
		d.p.add(&Problem{Field: k, Value: d.svc.Annotations[k], Allowed: reason})
	}
}

// backendNSGs reads annotation.BackendNetworkSecurityGroups, which only mode NSG uses: set with
// another mode it would silently manage nothing, so it is refused.
func (d *desiredBuilder) backendNSGs(mode config.SecurityListMode) []string {
	if !d.p.has(annotation.BackendNetworkSecurityGroups) {
		return nil
	}
	if mode != config.SecurityListModeNSG {
		d.p.add(problemf(annotation.BackendNetworkSecurityGroups, d.p.ann[string(annotation.BackendNetworkSecurityGroups)],
			"only with %s: NSG; remove it or set that mode", annotation.SecurityRuleManagementMode))
		return nil
	}
	return d.p.ocids(annotation.BackendNetworkSecurityGroups, "networksecuritygroup", maxBackendNSGs)
}

// maxBackendNSGs bounds the backend NSGs of one Service: each gets rules from the frontend NSG,
// whose 120 rules they share (a VNIC is in at most 5 NSGs, so more would be unusual).
const maxBackendNSGs = 5

// securityRuleMode reads annotation.SecurityRuleManagementMode: the security-list mode it names
// and whether it is set.
func (d *desiredBuilder) securityRuleMode() (config.SecurityListMode, bool) {
	if !d.p.has(annotation.SecurityRuleManagementMode) {
		return "", false
	}
	switch d.p.oneOf(annotation.SecurityRuleManagementMode, "", "SL-All", "SL-Frontend", "NSG", "None") {
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
