// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/oci-ccm/oci-ccm/ociclient"
)

// nameIndex maps display names to load balancer OCIDs, per compartment. The first lookup in a
// compartment lists it whole, once, for every Service (the start-up resync looks up all of them
// at once), instead of one list per Service as the upstream CCM does. Later misses (a new
// Service) list only the names looked up, with OCI's display-name filter: one page, however large
// the compartment. Concurrent identical lists are merged into one call, and a caller whose
// context ends stops waiting at once, while the list goes on for the others. Safe for concurrent
// use. Each product has its own index.
type nameIndex struct {
	lister product
	flight singleflight.Group
	now    func() time.Time // Options.Now, or time.Now

	mu    sync.Mutex
	comps map[string]*compartmentIndex
}

type compartmentIndex struct {
	// listed is set once the whole compartment has been listed; before, a miss proves nothing.
	listed bool
	// generation counts whole listings; a lookup that missed at generation g lists the
	// compartment only if no listing has happened since.
	generation uint64
	names      map[string][]string // display name → OCIDs
	// listed holds the load balancers of the last whole listing, made at listedAt (see
	// index_listed.go): the reconciles right after a restart need no read of their own.
	listedLBs map[string]found
	listedAt  time.Time
	// refusedAt is when OCI last refused Known's listing for a reason a retry would not change
	// (the policy does not allow it); Known does not ask again for refusedListingBackoff.
	refusedAt time.Time
}

// refusedListingBackoff is how long Known answers from what it knows after OCI refused its
// listing (e.g. a policy that allows one product only): a policy fixed meanwhile is used within
// that time, and a cluster without the grant makes one failing call per period, not per reconcile.
const refusedListingBackoff = 5 * time.Minute

// listTimeout bounds one shared list: it runs on past the caller that started it, so that
// caller's deadline does not bound it.
const listTimeout = 2 * time.Minute

// indexMatch is a load balancer found under one of the names looked up.
type indexMatch struct {
	Name string
	ID   string
}

// newNameIndex returns an empty index that lists through l and tells time by now.
func newNameIndex(l product, now func() time.Time) *nameIndex {
	return &nameIndex{lister: l, now: now, comps: map[string]*compartmentIndex{}}
}

// Lookup returns the load balancers named any of names, in the order of names. If none is known
// it lists the compartment (the first time) or each of names (later), and looks again.
func (x *nameIndex) Lookup(ctx context.Context, compartmentID string, names ...string) ([]indexMatch, error) {
	matches, gen, listed := x.lookup(compartmentID, names)
	if len(matches) > 0 {
		return matches, nil
	}
	if !listed {
		if err := x.refresh(ctx, compartmentID, gen); err != nil {
			return nil, err
		}
	} else {
		for _, n := range names {
			if err := x.refreshName(ctx, compartmentID, n); err != nil {
				return nil, err
			}
		}
	}
	matches, _, _ = x.lookup(compartmentID, names)
	return matches, nil
}

// Known returns the load balancers named any of names that the index knows: from the
// compartment's whole listing (made now if there never was one) and what this process created
// since. Unlike Lookup it never lists by name on a miss, so asking costs nothing once the
// compartment is listed; a load balancer another process made after the listing may be missed.
// After OCI refused the listing for good (not a transient error), Known answers from what it
// knows, without listing, for refusedListingBackoff.
func (x *nameIndex) Known(ctx context.Context, compartmentID string, names ...string) ([]indexMatch, error) {
	matches, gen, listed := x.lookup(compartmentID, names)
	if len(matches) > 0 || listed || x.refusedRecently(compartmentID) {
		return matches, nil
	}
	if err := x.refresh(ctx, compartmentID, gen); err != nil {
		if !ociclient.IsRetryable(err) && ctx.Err() == nil {
			x.mu.Lock()
			x.compartment(compartmentID).refusedAt = x.now()
			x.mu.Unlock()
		}
		return nil, err
	}
	matches, _, _ = x.lookup(compartmentID, names)
	return matches, nil
}

// refusedRecently says whether Known's listing of the compartment was refused for good less
// than refusedListingBackoff ago.
func (x *nameIndex) refusedRecently(compartmentID string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	c := x.comps[compartmentID]
	return c != nil && !c.refusedAt.IsZero() && x.now().Sub(c.refusedAt) < refusedListingBackoff
}

func (x *nameIndex) lookup(compartmentID string, names []string) (_ []indexMatch, generation uint64, listed bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	c := x.comps[compartmentID]
	if c == nil {
		return nil, 0, false
	}
	var out []indexMatch
	for _, n := range names {
		for _, id := range c.names[n] {
			out = append(out, indexMatch{Name: n, ID: id})
		}
	}
	return out, c.generation, c.listed
}

// share runs list once for every concurrent caller with the same key. A caller whose context
// ends returns at once with ctx.Err(); the list runs on, bounded by listTimeout, for the others.
func (x *nameIndex) share(ctx context.Context, key string, list func(context.Context) error) error {
	ch := x.flight.DoChan(key, func() (any, error) {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), listTimeout)
		defer cancel()
		return nil, list(lctx)
	})
	select {
	case <-ctx.Done():
		return ctx.Err()
	case res := <-ch:
		return res.Err
	}
}

// refresh lists the whole compartment unless it was listed after generation seen.
func (x *nameIndex) refresh(ctx context.Context, compartmentID string, seen uint64) error {
	return x.share(ctx, compartmentID, func(ctx context.Context) error {
		x.mu.Lock()
		c := x.comps[compartmentID]
		fresh := c != nil && c.generation > seen
		x.mu.Unlock()
		if fresh {
			return nil
		}
		lbs, err := x.lister.List(ctx, compartmentID, "")
		if err != nil {
			return err
		}
		names := make(map[string][]string, len(lbs))
		for i := range lbs {
			if lb := &lbs[i]; !lb.Gone() {
				names[lb.Name] = append(names[lb.Name], lb.ID)
			}
		}
		x.mu.Lock()
		defer x.mu.Unlock()
		c = x.compartment(compartmentID)
		c.generation++
		c.listed = true
		c.names = names
		x.keepListedLocked(compartmentID, c, lbs)
		return nil
	})
}

// refreshName lists the load balancers named name (one page) and records them under it.
func (x *nameIndex) refreshName(ctx context.Context, compartmentID, name string) error {
	return x.share(ctx, compartmentID+"\x00"+name, func(ctx context.Context) error {
		lbs, err := x.lister.List(ctx, compartmentID, name)
		if err != nil {
			return err
		}
		var ids []string
		for i := range lbs {
			if lb := &lbs[i]; lb.Name == name && !lb.Gone() {
				ids = append(ids, lb.ID)
			}
		}
		x.mu.Lock()
		defer x.mu.Unlock()
		c := x.compartment(compartmentID)
		if len(ids) == 0 {
			delete(c.names, name)
		} else {
			c.names[name] = ids
		}
		return nil
	})
}

// Relist lists each of names afresh (one page each) and records what it finds, whether or not
// the index knew them: the miss of a listing made too early is not believed (lag.go).
func (x *nameIndex) Relist(ctx context.Context, compartmentID string, names ...string) error {
	for _, n := range names {
		if err := x.refreshName(ctx, compartmentID, n); err != nil {
			return err
		}
	}
	return nil
}

// compartment returns the index of a compartment, made empty if new. Caller holds x.mu.
func (x *nameIndex) compartment(compartmentID string) *compartmentIndex {
	c := x.comps[compartmentID]
	if c == nil {
		c = &compartmentIndex{names: map[string][]string{}}
		x.comps[compartmentID] = c
	}
	return c
}

// Add records a load balancer this process created or renamed, so the next lookup needs no list.
func (x *nameIndex) Add(compartmentID, name, id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	c := x.compartment(compartmentID)
	x.removeLocked(c, id)
	c.names[name] = append(c.names[name], id)
}

// Remove forgets a load balancer (deleted, or found gone).
func (x *nameIndex) Remove(compartmentID, id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if c := x.comps[compartmentID]; c != nil {
		x.removeLocked(c, id)
	}
}

func (x *nameIndex) removeLocked(c *compartmentIndex, id string) {
	delete(c.listedLBs, id)
	for n, ids := range c.names {
		kept := ids[:0:0]
		for _, v := range ids {
			if v != id {
				kept = append(kept, v)
			}
		}
		if len(kept) == 0 {
			delete(c.names, n)
		} else {
			c.names[n] = kept
		}
	}
}
