// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package backendnode says which Nodes may be backends of a load balancer, one rule for lb (a
// Service's load balancer) and lb/binding (the backends of a set someone else owns): the
// exclusion label, a node-label selector, deletion, an OCI providerID and an IPv4 InternalIP.
package backendnode

import (
	"net/netip"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/ipaddr"
)

// The reasons a Node is not a backend (model.Spec.ExcludedNodes).
const (
	ReasonExcludeLabel  = "labelled " + v1.LabelNodeExcludeBalancers
	ReasonNotSelected   = "does not match " + string(annotation.NodeLabelSelector)
	ReasonDeleting      = "being deleted"
	ReasonNoProviderID  = "has no OCI providerID yet (the cloud node controller has not initialised it)"
	ReasonNoInternalIP  = "has no IPv4 InternalIP address"
	ReasonDuplicateAddr = "shares its InternalIP with another Node"
)

// IPv4 returns the IPv4 InternalIPs of the Nodes that serve traffic, sorted, and the Nodes left
// out with the reason. An empty result is valid: the load balancer keeps its listeners with empty
// backend sets (the upstream CCM panicked here). A nil selector selects every Node.
//
// Readiness is deliberately not a reason. Since KEP-3458 the service controller no longer calls
// the provider when a Node's Ready condition changes, only when Nodes come and go or their
// exclusion label or providerID change; a provider that dropped NotReady Nodes would never add a
// Node that registered NotReady (every new Node does). Whether a Node gets traffic is the load
// balancer's health check's call, which follows kube-proxy (or the Service's endpoints with
// externalTrafficPolicy Local) within seconds.
func IPv4(nodes []*v1.Node, selector labels.Selector) ([]string, map[string]string) {
	ips, excluded := EligibleIPv4(nodes, selector)
	ipaddr.Sort(ips)
	return ips, excluded
}

// EligibleIPv4 is IPv4 with the addresses in the Nodes' order: for a caller that keeps a few of
// thousands (a backend subset) and sorts only those.
func EligibleIPv4(nodes []*v1.Node, selector labels.Selector) ([]string, map[string]string) {
	var ips []string
	var excluded map[string]string // nil when every Node is a backend
	seen := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		if n == nil {
			continue
		}
		reason := ExcludedBecause(n, selector)
		ip := ""
		if reason == "" {
			if ip = InternalIPv4(n); ip == "" {
				reason = ReasonNoInternalIP
			} else if seen[ip] {
				reason = ReasonDuplicateAddr
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
	return ips, excluded
}

func hasLabel(n *v1.Node, key string) bool {
	_, ok := n.Labels[key]
	return ok
}

// InternalIPv4 returns the Node's first IPv4 InternalIP address.
func InternalIPv4(n *v1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type != v1.NodeInternalIP {
			continue
		}
		if ip, err := netip.ParseAddr(a.Address); err == nil && ip.Is4() {
			// ParseAddr takes IPv4 only in the form String gives (four decimal fields, no
			// leading zeros), so the address is returned as written, without a copy.
			return a.Address
		}
	}
	return ""
}

// ExcludedBecause says why a Node is not a backend of any load balancer, or "" when it is one:
// the exclusion label, a node-label selector it does not match, deletion, or no OCI providerID.
func ExcludedBecause(n *v1.Node, selector labels.Selector) string {
	switch {
	case hasLabel(n, v1.LabelNodeExcludeBalancers):
		return ReasonExcludeLabel
	case selector != nil && !selector.Matches(labels.Set(n.Labels)):
		return ReasonNotSelected
	case n.DeletionTimestamp != nil:
		return ReasonDeleting
	case !ociProviderID(n.Spec.ProviderID):
		return ReasonNoProviderID
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
