// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/internal/backendnode"
)

// The reasons a Node is not a backend (Spec.ExcludedNodes); the rule is backendnode's, shared
// with lb/binding.
const (
	reasonExcludeLabel  = backendnode.ReasonExcludeLabel
	reasonNotSelected   = backendnode.ReasonNotSelected
	reasonDeleting      = backendnode.ReasonDeleting
	reasonNoProviderID  = backendnode.ReasonNoProviderID
	reasonNoInternalIP  = backendnode.ReasonNoInternalIP
	reasonDuplicateAddr = backendnode.ReasonDuplicateAddr
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
