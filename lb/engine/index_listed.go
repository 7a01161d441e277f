// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"time"
)

// A whole-compartment listing carries every load balancer complete (listeners, backend sets,
// certificates, tags), as GetLoadBalancer would return it. After a restart the service controller
// reconciles every Service at once, and the first of them lists the compartment for the name
// index; keeping the listed load balancers lets each of those reconciles use its own entry
// instead of a GetLoadBalancer, so rebuilding state costs one call per page of 100 load
// balancers, not one per Service.
//
// An entry stands in while it is at most listedMaxAge old and this process has not written to
// its load balancer since: the service controller syncs each Service twice at start-up (the
// second after its own finalizer patch), and both are served by the one listing. A plan that
// writes drops the entry first, so the reconcile after a change (or a failed one) reads afresh.
// A load balancer changed out of band within that window yields a plan against slightly old
// state; a failure is retried with a fresh read, and the drift check finds what is left.

// listedMaxAge bounds how old a listed load balancer may be to stand in for a read, by the
// Reconciler's clock (Options.Now). The listing's memory is freed after listedMaxAge of wall
// time at the latest: on a clock that runs faster (a benchmark's), it has stopped standing in
// for reads before then.
const listedMaxAge = time.Minute

// keepListedLocked keeps the live load balancers of a whole listing of c, by OCID, for
// listedMaxAge. Caller holds x.mu.
func (x *nameIndex) keepListedLocked(compartmentID string, c *compartmentIndex, lbs []found) {
	kept := make(map[string]found, len(lbs))
	for _, lb := range lbs {
		if !lb.Gone() {
			kept[lb.ID] = lb
		}
	}
	c.listedLBs, c.listedAt = kept, x.now()
	generation := c.generation
	time.AfterFunc(listedMaxAge, func() {
		x.mu.Lock()
		defer x.mu.Unlock()
		if c := x.comps[compartmentID]; c != nil && c.generation == generation {
			c.listedLBs = nil
		}
	})
}

// listed returns the listed load balancer id; ok is false when there is none.
func (x *nameIndex) listed(compartmentID, id string) (found, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	c := x.comps[compartmentID]
	if c == nil {
		return found{}, false
	}
	if x.now().Sub(c.listedAt) > listedMaxAge {
		c.listedLBs = nil
		return found{}, false
	}
	lb, ok := c.listedLBs[id]
	return lb, ok
}

// dropListed forgets the listed load balancer id, in every compartment: it is about to change.
func (x *nameIndex) dropListed(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, c := range x.comps {
		delete(c.listedLBs, id)
	}
}

// getListed is get, answered from the last whole listing when listedOK and it holds the load
// balancer ACTIVE. Delete and Get never use the listing: before a finalizer is released, or a
// load balancer reported, it is read afresh.
//
// A load balancer the listing showed in any other state (CREATING after a restart in the middle
// of a create, UPDATING, FAILED) is read afresh too, and its entry dropped: such a state says the
// load balancer is about to change, and a reconcile refused for it ("its creation is still in
// progress") must see it turn ACTIVE at the next try, not a minute later when the listing expires.
func (r *Reconciler) getListed(ctx context.Context, e *driver, ref lbRef, listedOK bool) (*found, error) {
	if listedOK {
		if lb, ok := e.index.listed(ref.CompartmentID, ref.ID); ok {
			if lb.State == lifecycleActive {
				return &lb, nil
			}
			e.index.dropListed(ref.ID)
		}
	}
	return r.get(ctx, e, ref)
}
