// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

// This file is how the Reconciler finds a Service's load balancer: by the adoption annotation, by
// the OCID it remembers for the Service, else through the name index of each compartment the
// load balancer may be in.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/freeform"
	"github.com/oci-ccm/oci-ccm/lb/internal/lookup"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// find returns svc's load balancer, or nil if there is none, and how it was found: by the
// adoption annotation (explicit, so it wins), by the OCID cached for the Service, else through
// the name index under naming.Candidates for e's kind (the scheme's name, then the Service's
// upstream names). An untagged load balancer found only by a name without the Service's UID is an
// ownershipError; load balancers tagged for another cluster or Service are skipped.
//
// With listedOK, a load balancer of the index's last whole listing stands in for a read (see
// index_listed.go); Delete and Get read afresh.
func (r *Reconciler) find(ctx context.Context, e *driver, svc *v1.Service, adoptID string, listedOK bool) (*found, foundBy, error) {
	cached := r.cached(svc.UID)
	if cached.kind() != e.p.Kind() {
		cached = lbRef{} // the Service's other load balancer (see switch.go)
	}
	if adoptID != "" {
		// The Service's address shows its load balancer was adopted once: without it, a
		// missing adoption target never carried the Service and may be taken for gone.
		ref := lbRef{Kind: e.p.Kind(), ID: adoptID, CompartmentID: r.compartments(svc)[0], Adopted: len(svc.Status.LoadBalancer.Ingress) > 0}
		if cached.ID == adoptID {
			ref = cached
		}
		lb, err := r.get(ctx, e, ref)
		return lb, foundByAdoption, err
	}
	if cached.ID != "" {
		lb, err := r.getListed(ctx, e, cached, listedOK)
		if err != nil || lb != nil {
			return lb, foundByCachedID, err
		}
		r.forget(svc.UID)
	}
	// Twice at most: when every indexed match turns out gone, the index has forgotten them and
	// the second lookup asks OCI (a load balancer made by another process, e.g. before a restart).
	began := r.now()
	for range 2 {
		lb, claim, stale, err := r.findByName(ctx, e, svc, listedOK)
		if lb != nil || err != nil {
			return lb, claim, err
		}
		if !stale {
			break
		}
	}
	if r.lag.complete(serviceKey(string(svc.UID)), began) {
		return nil, foundByName, nil
	}
	// The listing began too soon after the start to show what the process before this one made
	// just before it stopped, or after this one's own create for the Service whose answer was
	// lost (lag.go): look again once it would. Delete and Get would take the
	// miss for absence; Ensure would make a second load balancer, as its retry token answers the
	// first only if the Service is unchanged since (OCI refuses a token reused with another body).
	klog.FromContext(ctx).V(2).Info("A listing right after the start may lack a load balancer; looking again once it shows every one",
		"service", klog.KObj(svc), "from", r.lag.shows(serviceKey(string(svc.UID))))
	if !r.lag.shows(serviceKey(string(svc.UID))).After(r.now()) {
		r.lag.count(ctx) // the lag has passed meanwhile: no wait (which counts), but a listing again
	}
	if err := r.lag.await(ctx, serviceKey(string(svc.UID))); err != nil {
		return nil, foundByName, fmt.Errorf("look up the %s of %s/%s: %w", e.p.Words().Noun, svc.Namespace, svc.Name, err)
	}
	for _, comp := range r.compartments(svc) {
		if err := e.index.Relist(ctx, comp, r.namer.Candidates(svc, e.p.Kind())...); err != nil {
			return nil, foundByName, r.lookupError(e, svc, comp, err)
		}
	}
	lb, claim, _, err := r.findByName(ctx, e, svc, listedOK)
	return lb, claim, err
}

// findByName is find through the name index, in each of the Service's compartments in turn
// (compartments); stale reports that nothing was found and every indexed match was gone (and
// has been removed from the index). An untagged load balancer refused in one compartment is
// reported only when no other compartment has the Service's.
func (r *Reconciler) findByName(ctx context.Context, e *driver, svc *v1.Service, listedOK bool) (_ *found, _ foundBy, stale bool, _ error) {
	var refused error
	for _, comp := range r.compartments(svc) {
		lb, claim, goneHere, err := r.findByNameIn(ctx, e, svc, comp, listedOK)
		var owned *ownershipError
		switch {
		case lb != nil:
			return lb, claim, false, nil
		case errors.As(err, &owned):
			refused = cmp.Or(refused, err)
		case err != nil:
			return nil, claim, false, err
		}
		stale = stale || goneHere
	}
	return nil, foundByName, stale && refused == nil, refused
}

// lookupError says which compartment's listing failed. A 404 there means the compartment does
// not exist or the policy does not let the CCM list it; the statement it most likely lacks is
// named (manage: the Service's load balancer is also created and deleted there).
func (r *Reconciler) lookupError(e *driver, svc *v1.Service, compartmentID string, err error) error {
	w := e.p.Words()
	if ociclient.IsNotFound(err) {
		source := "compartment in cloud-provider.yaml"
		if compartmentID != r.cfg.CompartmentID {
			source = string(annotation.CompartmentID)
		}
		return fmt.Errorf("look up the %s of %s/%s: listing compartment %s answered 404 NotAuthorizedOrNotFound: the compartment "+
			"does not exist (check %s), or the CCM's IAM policy lacks \"Allow dynamic-group <the CCM's group> to manage %s in compartment id %s\": %w",
			w.Noun, svc.Namespace, svc.Name, compartmentID, source, w.Resource, compartmentID, err)
	}
	return fmt.Errorf("look up the %s of %s/%s in compartment %s (IAM: inspect %s): %w",
		w.Noun, svc.Namespace, svc.Name, compartmentID, w.Resource, err)
}

// findByNameIn is findByName in one compartment.
func (r *Reconciler) findByNameIn(ctx context.Context, e *driver, svc *v1.Service, compartmentID string, listedOK bool) (_ *found, _ foundBy, stale bool, _ error) {
	matches, err := e.index.Lookup(ctx, compartmentID, r.namer.Candidates(svc, e.p.Kind())...)
	if err != nil {
		return nil, foundByName, false, r.lookupError(e, svc, compartmentID, err)
	}
	want := r.owner(svc).Owner
	var refused error
	removed := 0
	for _, m := range matches {
		lb, err := r.getListed(ctx, e, lbRef{Kind: e.p.Kind(), ID: m.ID, Name: m.Name, CompartmentID: compartmentID}, listedOK)
		if err != nil {
			return nil, foundByName, false, err
		}
		if lb == nil {
			e.index.Remove(compartmentID, m.ID)
			removed++
			continue
		}
		claim := foundByName
		if slices.Contains(r.namer.UpstreamNames(svc, e.p.Kind()), m.Name) {
			claim = foundByUIDName
		}
		got, tagged := freeform.Owner(lb.FreeformTags)
		switch {
		case tagged && got.Cluster == want.Cluster && (got.Service == want.Service || got.UID == want.UID):
			return lb, claim, false, nil
		case tagged:
			continue // another cluster's or Service's load balancer with a colliding name
		case claim == foundByUIDName:
			return lb, claim, false, nil
		default:
			refused = &ownershipError{LoadBalancerID: m.ID, DisplayName: m.Name,
				Reason: "it has no " + model.TagManagedBy + " tag; set " + string(annotation.AdoptLoadBalancerID) + " to take it over, or delete it"}
		}
	}
	return nil, foundByName, removed > 0 && removed == len(matches), refused
}

// get reads a load balancer; nil when it is being deleted, or when it does not exist as a fresh
// listing of its compartment confirms (a 404 alone may be a missing policy: *AccessError).
func (r *Reconciler) get(ctx context.Context, e *driver, ref lbRef) (*found, error) {
	lb, err := e.p.Get(ctx, ref.ID)
	w := e.p.Words()
	switch {
	case ociclient.IsNotFound(err):
		return nil, confirmLoadBalancerGone(ctx, e.p, r.lag, ref, w.Get, "read "+w.Resource, err)
	case err != nil:
		return nil, fmt.Errorf("get %s %s: %w", w.Noun, ref.ID, err)
	case lb.Gone():
		return nil, nil
	}
	return lb, nil
}

// failedCreateOfOurs says whether found is a classic load balancer OCI failed to create that
// svc itself created (tagged with this cluster and svc's UID, not adopted): one a reconcile may
// delete and create again. A FAILED network load balancer is repaired instead (repairNLB).
func (r *Reconciler) failedCreateOfOurs(found *found, observed *model.Spec, svc *v1.Service, how foundBy) bool {
	return found.State == lifecycleFailed && found.Kind != model.KindNetworkLoadBalancer && how != foundByAdoption &&
		observed.Owner.Cluster == r.cluster && observed.Owner.UID == string(svc.UID)
}

// usable refuses load balancers that cannot be changed now. A FAILED network load balancer is
// usable: OCI repairs it by the next change (see repairNLB).
func usable(lb *found) error {
	switch {
	case lb.State == lifecycleCreating:
		return &stateError{LoadBalancerID: lb.ID, State: lb.StateName, Hint: "its creation is still in progress; retry later"}
	case lb.State == lifecycleFailed && lb.Kind != model.KindNetworkLoadBalancer:
		return &stateError{LoadBalancerID: lb.ID, State: lb.StateName,
			Hint: "OCI could not create it; delete the Service (or the load balancer) and recreate it"}
	}
	return nil
}

func (r *Reconciler) cached(uid types.UID) lbRef {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[uid]
}

func (r *Reconciler) remember(uid types.UID, ref lbRef) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids[uid] = ref
}

func (r *Reconciler) forget(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.ids, uid)
}

// compartments are where svc's load balancer is looked for, in order (lookup.Compartments).
func (r *Reconciler) compartments(svc *v1.Service) []string {
	return lookup.Compartments(svc, r.cfg.CompartmentID)
}
