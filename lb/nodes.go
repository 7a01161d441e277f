// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"net/netip"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/ipaddr"
)

// The reasons a Node is not a backend (Spec.ExcludedNodes).
const (
	reasonExcludeLabel  = "labelled " + v1.LabelNodeExcludeBalancers
	reasonNotSelected   = "does not match " + string(annotation.NodeLabelSelector)
	reasonDeleting      = "being deleted"
	reasonNoProviderID  = "has no OCI providerID yet (the cloud node controller has not initialised it)"
	reasonNoInternalIP  = "has no IPv4 InternalIP address"
	reasonDuplicateAddr = "shares its InternalIP with another Node"
	// reasonNoLocalEndpoint: see localNodes.
	reasonNoLocalEndpoint = "runs no endpoint of the Service (externalTrafficPolicy Local)"
)

// localNodes returns the Nodes of nodes that may carry svc's traffic, and the names of the others:
// with externalTrafficPolicy Local and its endpoints known (running not nil, Known.EndpointNodes),
// the Nodes that run an endpoint (a
// Node without one would only fail the health check on healthCheckNodePort); otherwise every
// Node. So the backends follow the Service's pods, and a 3-replica Service of a 5,000-Node cluster
// has 3 backends, within OCI's limits and without subsetting.
func localNodes(svc *v1.Service, nodes []*v1.Node, running map[string]bool) ([]*v1.Node, []string) {
	if running == nil || svc.Spec.ExternalTrafficPolicy != v1.ServiceExternalTrafficPolicyLocal {
		return nodes, nil
	}
	var kept []*v1.Node
	var left []string
	for _, n := range nodes {
		switch {
		case n == nil:
		case running[n.Name]:
			kept = append(kept, n)
		default:
			left = append(left, n.Name)
		}
	}
	return kept, left
}

// backendNodes returns the IPv4 InternalIPs of the Nodes that serve traffic, sorted, and the
// Nodes left out with the reason. An empty result is valid: the load balancer keeps its listeners
// with empty backend sets (the upstream CCM panicked here).
//
// Readiness is deliberately not a reason. Since KEP-3458 the service controller no longer calls
// the provider when a Node's Ready condition changes, only when Nodes come and go or their
// exclusion label or providerID change; a provider that dropped NotReady Nodes would never add a
// Node that registered NotReady (every new Node does). Whether a Node gets traffic is the load
// balancer's health check's call, which follows kube-proxy (or the Service's endpoints with
// externalTrafficPolicy Local) within seconds.
func backendNodes(nodes []*v1.Node, selector labels.Selector) ([]string, map[string]string) {
	var ips []string
	var excluded map[string]string // nil when every Node is a backend
	seen := map[string]bool{}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		reason := excludedBecause(n, selector)
		ip := ""
		if reason == "" {
			if ip = internalIPv4(n); ip == "" {
				reason = reasonNoInternalIP
			} else if seen[ip] {
				reason = reasonDuplicateAddr
			}
		}
		if reason != "" {
			if excluded == nil {
				excluded = map[string]string{}
			}
			excluded[n.Name] = reason
			continue
		}
		seen[ip] = true
		ips = append(ips, ip)
	}
	ipaddr.Sort(ips)
	return ips, excluded
}

func hasLabel(n *v1.Node, key string) bool {
	_, ok := n.Labels[key]
	return ok
}

// internalIPv4 returns the Node's first IPv4 InternalIP address.
func internalIPv4(n *v1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type != v1.NodeInternalIP {
			continue
		}
		if ip, err := netip.ParseAddr(a.Address); err == nil && ip.Is4() {
			return ip.String()
		}
	}
	return ""
}

// excludedBecause says why a Node is not a backend of any load balancer of the Service, or ""
// when it is one: the exclusion label, a node-label selector it does not match, deletion, or no
// OCI providerID.
func excludedBecause(n *v1.Node, selector labels.Selector) string {
	switch {
	case hasLabel(n, v1.LabelNodeExcludeBalancers):
		return reasonExcludeLabel
	case selector != nil && !selector.Matches(labels.Set(n.Labels)):
		return reasonNotSelected
	case n.DeletionTimestamp != nil:
		return reasonDeleting
	case !ociProviderID(n.Spec.ProviderID):
		return reasonNoProviderID
	}
	return ""
}

// ociProviderID reports whether a Node's providerID names an OCI resource: "oci://<id>" or a bare
// "ocid1..." OCID, the forms the upstream CCM accepts (util.go, MapProviderIDToResourceID; its
// load_balancer_spec.go getBackends leaves out every other Node). A Node without one has not been
// initialised by the cloud node controller, or is not an OCI machine; the service controller
// syncs the load balancers again when a Node's providerID changes (k8s.io/cloud-provider,
// controllers/service/controller.go, shouldSyncUpdatedNode), so the Node joins once it has one.
func ociProviderID(id string) bool {
	return strings.HasPrefix(id, "oci://") && len(id) > len("oci://") || strings.HasPrefix(id, "ocid1.")
}
