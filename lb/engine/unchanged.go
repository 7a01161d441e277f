// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"crypto/sha256"
	"encoding/json"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Node syncs with nothing to change.
//
// When a Node joins or leaves, the service controller calls UpdateLoadBalancer for every load
// balancer Service. With backend subsets (loadBalancer.backendSubset), a node selector or
// externalTrafficPolicy Local, most Services' backends stay as they are: one Node added to a
// cluster of 5,000 Nodes and 2,000 Services changes about a hundred of them. Reading the other
// load balancers only to find them as they should be would cost 2,000 reads (40 s at OCI's 50
// reads a second) and their JSON, for nothing.
//
// So the Reconciler remembers, per Service, the desired Spec its last reconcile applied in
// full (a digest of it) and what that Spec was built on that only OCI knows (the load balancer
// found, its subnets, the frontend NSG). Update builds the desired Spec again from the Service,
// the Nodes and the Secrets it is given, with that knowledge: when it is the same, the load
// balancer is already what the Service asks for, and Update returns the last Result without
// reading the load balancer. Anything else takes the full way (read, plan, apply).
//
// What this trusts is that nothing but this Reconciler changed the load balancer since: what
// OCI or a person changed behind its back is the drift check's to find (Drift, drift.go), as it
// is between syncs, and a Service it reports drifted is forgotten here. A reconcile that fails
// forgets the Service before it starts, and so do Delete and a requeue from FollowUp (accepted
// work that did not take effect). Ensure, the service controller's way for a changed Service,
// always takes the full way.

// synced is what a Service's last reconcile applied in full.
type synced struct {
	uid types.UID
	// known is what the Spec was built on, Secrets, EndpointNodes and SubnetIPv6 aside (Update
	// learns those afresh); Existing is slimmed to what lb.Desired reads of it (slim).
	known lb.Known
	// digest is desiredDigest of the desired Spec.
	digest [sha256.Size]byte
	// result is what the reconcile returned, its Plan dropped (Update's has an empty one) and
	// its Spec lean: without backends (the desired Spec built again has the same) or the Nodes
	// left out (a 5,000-Node cluster's memo would hold thousands per Service).
	result Result
}

// unchanged returns svc's last Result when its desired Spec, built again from svc, nodes and
// secrets with what the last reconcile knew, is the one that reconcile applied.
func (r *Reconciler) unchanged(ctx context.Context, svc *v1.Service, nodes []*v1.Node, secrets lb.Secrets) (*Result, bool) {
	r.mu.Lock()
	last, ok := r.synced[nameOf(svc)]
	r.mu.Unlock()
	if !ok || last.uid != svc.UID {
		return nil, false
	}
	known := r.knownOf(ctx, svc, secrets)
	known.FrontendNSG, known.Existing, known.SubnetRegional = last.known.FrontendNSG, last.known.Existing, last.known.SubnetRegional
	desired, err := lb.Desired(svc, nodes, r.cfg, known)
	if err != nil {
		return nil, false
	}
	digest, ok := desiredDigest(desired)
	if !ok || digest != last.digest {
		return nil, false
	}
	klog.FromContext(ctx).V(4).Info("Load balancer is as the Service asks since its last reconcile; nothing read", "service", klog.KObj(svc),
		"loadBalancer", last.result.LoadBalancerID)
	res := last.result
	spec := *res.Spec
	spec.BackendSets = make(map[string]model.BackendSet, len(res.Spec.BackendSets))
	for name, bs := range res.Spec.BackendSets {
		bs.Backends = desired.BackendSets[name].Backends // the same as applied: the digest says so
		spec.BackendSets[name] = bs
	}
	spec.ExcludedNodes, spec.Subset = desired.ExcludedNodes, desired.Subset
	res.Spec = &spec
	res.Plan, res.Accepted = &model.Plan{LoadBalancerID: res.LoadBalancerID, Target: res.Spec}, false
	return &res, true
}

// rememberSynced records what a reconcile of svc applied in full (see synced).
func (r *Reconciler) rememberSynced(svc *v1.Service, known lb.Known, desired *model.Spec, res *Result) {
	digest, ok := desiredDigest(desired)
	if !ok || res.Spec == nil {
		return
	}
	known.Secrets, known.EndpointNodes, known.SubnetIPv6 = nil, nil, nil
	known.Existing = slim(known.Existing)
	last := synced{uid: svc.UID, known: known, digest: digest, result: *res}
	last.result.Plan = nil
	lean := *res.Spec
	lean.BackendSets = make(map[string]model.BackendSet, len(res.Spec.BackendSets))
	for name, bs := range res.Spec.BackendSets {
		bs.Backends = nil
		lean.BackendSets[name] = bs
	}
	lean.ExcludedNodes, lean.Subset = nil, model.Subset{}
	last.result.Spec = &lean
	r.mu.Lock()
	defer r.mu.Unlock()
	r.synced[nameOf(svc)] = last
}

// forgetSynced makes svc's next Update take the full way.
func (r *Reconciler) forgetSynced(key types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.synced, key)
}

// nameOf is svc's namespace and name, by which the Reconciler keeps its per-Service state.
func nameOf(svc *v1.Service) types.NamespacedName {
	return types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}
}

// slim is what lb.Desired reads of an existing load balancer (Known.Existing): its kind, name
// and subnets. TestDesiredReadsOnlyTheSlimExisting (unchanged_internal_test.go) keeps that true.
func slim(existing *model.Spec) *model.Spec {
	if existing == nil {
		return nil
	}
	return &model.Spec{Kind: existing.Kind, ID: existing.ID, Name: existing.Name, Subnets: existing.Subnets}
}

// desiredDigest is a digest of every field of a desired Spec that decides what is applied (model's
// types are plain data, all exported, so their JSON holds them all; maps are written sorted). The
// Nodes left out and the subset's account are for logs: a Node joining changes how many Nodes
// were eligible for every Service, not what each one's load balancer holds.
func desiredDigest(spec *model.Spec) ([sha256.Size]byte, bool) {
	applied := *spec
	applied.ExcludedNodes, applied.Subset = nil, model.Subset{}
	b, err := json.Marshal(&applied)
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256(b), true
}
