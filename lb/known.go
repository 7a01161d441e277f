// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/lookup"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Known is what Desired needs to know besides the Service, its Nodes and the configuration: what
// the cluster and OCI hold, read before the Spec is built, so that Desired itself reads nothing.
// The zero value knows nothing: no TLS Secrets, endpoints and subnets unknown, no load balancer
// yet.
type Known struct {
	// Secrets are the TLS Secrets the Service names (RequiredSecrets), by reference.
	Secrets Secrets
	// EndpointNodes are the names of the Nodes that run an endpoint of the Service that may take
	// traffic (ready, or serving while it terminates, as kube-proxy counts them). For a Service
	// with externalTrafficPolicy Local only those become backends, so a 3-replica Service of a
	// 5,000-Node cluster has 3. nil means not known (no EndpointSlice seen yet): every eligible
	// Node is a backend, and the health check on healthCheckNodePort decides; an empty, non-nil
	// map means no endpoint, and the backend sets are empty.
	EndpointNodes map[string]bool
	// SubnetIPv6 says, by subnet OCID, whether a subnet has an IPv6 prefix. A network load
	// balancer Service with ipFamilyPolicy PreferDualStack gets both IP families in such a
	// subnet; one with RequireDualStack in a subnet known to lack one is refused. A subnet not
	// in the map is not known: PreferDualStack stays single-stack, and RequireDualStack is left
	// to OCI.
	SubnetIPv6 map[string]bool
	// FrontendNSG is the OCID of the Service's frontend network security group, in
	// security-rule management mode NSG (seclist's Manager.FrontendNSG makes it): the load
	// balancer is attached to it besides the groups the Service's annotation names, which may
	// then name one fewer (model.MaxNetworkSecurityGroups in all). Empty means none.
	FrontendNSG string
	// Existing is the load balancer the Service already has, as OCI reports it (what Diff
	// compares the Spec with); nil means none, it is to be created. Under the uid naming scheme
	// it keeps its display name when that is one of the Service's upstream names (so a rollback
	// to the upstream CCM finds it); otherwise it gets the scheme's name. Desired reads its Kind,
	// Name and Subnets only (lb/engine remembers no more of it between node syncs).
	Existing *model.Spec
	// SubnetRegional says, by subnet OCID, whether a subnet is regional (not tied to one
	// availability domain). A regional subnet hosts both the primary and the standby, so the
	// first such subnet a load balancer Service names in oci-load-balancer-subnet1, then
	// subnet2, is its only subnet. It is asked only of a load balancer to be created, or of one
	// in a single subnet where the Service names two; a subnet not in the map counts as not
	// regional.
	SubnetRegional map[string]bool
}

// existing settles what of spec depends on the load balancer that exists (Known.Existing) and
// on whether the subnets the Service names are regional (Known.SubnetRegional): its display
// name, and an annotated regional subnet as its only subnet.
func existing(svc *v1.Service, cfg *config.Config, known Known, spec *model.Spec) {
	spec.Name = lookup.For(cfg).TargetName(svc, known.Existing, spec)
	for _, s := range lookup.RegionalCandidates(svc, spec, known.Existing) {
		if known.SubnetRegional[s.ID] {
			spec.Subnets = []string{s.ID}
			return
		}
	}
}

// frontendNSG adds known's frontend network security group to spec's, unless it is there
// already; with it, the annotation may name at most model.MaxNetworkSecurityGroups-1 groups (a
// refusal names the annotation of spec's kind: a network load balancer has its own).
func frontendNSG(svc *v1.Service, known Known, spec *model.Spec) error {
	id := known.FrontendNSG
	if id == "" || slices.Contains(spec.NetworkSecurityGroups, id) {
		return nil
	}
	if len(spec.NetworkSecurityGroups) >= model.MaxNetworkSecurityGroups {
		return &ValidationError{Service: svc.Namespace + "/" + svc.Name, Problems: []*Problem{problemf(lookup.NSGAnnotation(spec.Kind),
			strings.Join(spec.NetworkSecurityGroups, ","),
			"at most %d OCIDs with %s: NSG (oci-ccm attaches the frontend NSG as well)", model.MaxNetworkSecurityGroups-1, annotation.SecurityRuleManagementMode)}}
	}
	spec.NetworkSecurityGroups = append(spec.NetworkSecurityGroups, id)
	slices.Sort(spec.NetworkSecurityGroups)
	return nil
}

// dualStack settles a network load balancer's IP families against what is known of its subnet
// (Known.SubnetIPv6): PreferDualStack gets both families when the subnet has an IPv6 prefix;
// RequireDualStack in a subnet without one is a validation error naming the subnet, rather than
// OCI's create failing.
func dualStack(svc *v1.Service, nodes []*v1.Node, cfg *config.Config, known Known, spec *model.Spec) (*model.Spec, error) {
	policy := svc.Spec.IPFamilyPolicy
	if spec.Kind != model.KindNetworkLoadBalancer || policy == nil || *policy == v1.IPFamilyPolicySingleStack || len(spec.Subnets) == 0 {
		return spec, nil
	}
	hasIPv6, ok := known.SubnetIPv6[spec.Subnets[0]]
	switch {
	case !ok:
		return spec, nil
	case *policy == v1.IPFamilyPolicyRequireDualStack && !hasIPv6:
		return nil, &ValidationError{Service: svc.Namespace + "/" + svc.Name, Problems: []*Problem{{
			Field: "spec.ipFamilyPolicy", Value: string(*policy),
			Allowed: fmt.Sprintf("PreferDualStack or SingleStack: the network load balancer's subnet %s has no IPv6 prefix", spec.Subnets[0])}}}
	case *policy == v1.IPFamilyPolicyPreferDualStack && hasIPv6:
		return desired(svc, nodes, cfg, known.Secrets, true)
	}
	return spec, nil
}
