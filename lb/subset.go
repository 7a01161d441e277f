// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/backendnode"
	"github.com/oci-ccm/oci-ccm/lb/internal/ipaddr"
	"github.com/oci-ccm/oci-ccm/lb/internal/limits"
	"github.com/oci-ccm/oci-ccm/lb/internal/subset"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// backendLimits are OCI's limits on the backends of one load balancer: per backend set, and over
// all its backend sets.
type backendLimits struct {
	perSet, total int
}

// OCI's backend limits (package limits has their sources).
var (
	lbBackendLimits  = backendLimits{perSet: limits.LBBackendsPerSet, total: limits.LBBackends}
	nlbBackendLimits = backendLimits{perSet: limits.NLBBackendsPerSet, total: limits.NLBBackends}
)

// The Node labels a subset is spread over (package subset).
const (
	labelZone        = subset.LabelZone
	labelFaultDomain = subset.LabelFaultDomain
)

// subsetBackends applies loadBalancer.backendSubset to spec, whose backend sets hold a backend
// for every eligible Node (every Node of nodes that spec.ExcludedNodes does not name).
//
// When the eligible Nodes fit OCI's limits (and the configured size, if any), nothing changes.
// Otherwise the load balancer keeps the backends of a subset of them and spec.Subset says so.
// The subset is what a big cluster needs from it:
//   - stable: Nodes are ranked by a hash of the Node's name salted with the Service's, and a
//     Service takes the top of the ranking, so a Node joining or leaving moves at most a backend
//     or two per backend set, never a reshuffle, and no state is kept between reconciles;
//   - spread: the places (zone and fault domain) share the subset evenly (see pickSubset), so a
//     subset survives the loss of a fault domain or an availability domain;
//   - different per Service: the salt gives each Service its own ranking, so the load of many
//     Services spreads over all Nodes.
//
// With backendSubset "off", a Service that would exceed the limits is a Problem: nothing is
// applied, rather than OCI refusing the plan half way through.
func (d *desiredBuilder) subsetBackends(spec *model.Spec, nodes []*v1.Node, limits backendLimits, selector annotation.Name) {
	if len(spec.BackendSets) == 0 {
		return
	}
	size, on, err := config.ParseBackendSubset(d.cfg.LoadBalancer.BackendSubset)
	if err != nil {
		// config's Validate refuses it too; a library caller may not have validated.
		d.p.add(&Problem{Field: "loadBalancer.backendSubset (cloud-provider.yaml)", Value: d.cfg.LoadBalancer.BackendSubset,
			Allowed: err.Error()})
		return
	}
	eligible := make([]*v1.Node, 0, len(nodes))
	for _, n := range nodes {
		if n != nil && spec.ExcludedNodes[n.Name] == "" {
			eligible = append(eligible, n)
		}
	}
	sets := len(spec.BackendSets)
	fit := min(limits.perSet, limits.total/sets) // Nodes that fit whatever their addresses
	if !on {
		if perSet, total := backendCounts(spec); perSet > limits.perSet || total > limits.total {
			d.p.add(&Problem{Field: "loadBalancer.backendSubset (cloud-provider.yaml)", Value: config.BackendSubsetOff,
				Allowed: fmt.Sprintf("auto, or Nodes selected with %s: %d eligible Nodes make %d backends over %d backend sets, "+
					"and OCI allows %d per backend set and %d per load balancer (at most %d Nodes for this Service)",
					selector, len(eligible), total, sets, limits.perSet, limits.total, fit)})
		}
		return
	}
	k := fit
	if size > 0 && size < k {
		k = size
	}
	if len(eligible) <= k {
		return
	}
	chosen := subset.Pick(eligible, k, spec.Owner.Service, func(n *v1.Node) string { return n.Name }, subset.NodePlaces())
	keep := make(map[string]bool, 2*len(chosen))
	for _, n := range chosen {
		keep[backendnode.InternalIPv4(n)] = true
		if ip := nodeIPv6(n); ip != "" {
			keep[ip] = true
		}
	}
	for name, bs := range spec.BackendSets {
		bs.Backends = slices.DeleteFunc(bs.Backends, func(b model.Backend) bool { return !keep[b.IP] })
		spec.BackendSets[name] = bs
	}
	spec.Subset = model.Subset{Nodes: len(chosen), Eligible: len(eligible)}
}

// sortBackends orders each backend set's backends by address (ipaddr's order), as OCI lists them
// back and plans print them.
func sortBackends(spec *model.Spec) {
	for name, bs := range spec.BackendSets {
		ipaddr.SortBy(bs.Backends, func(b model.Backend) string { return b.IP }, nil)
		spec.BackendSets[name] = bs
	}
}

// backendCounts returns the most backends in one backend set of spec and the backends over all.
func backendCounts(spec *model.Spec) (perSet, total int) {
	for _, bs := range spec.BackendSets {
		perSet = max(perSet, len(bs.Backends))
		total += len(bs.Backends)
	}
	return perSet, total
}
