// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/oci-ccm/oci-ccm/internal/ctxtime"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// A listing is not proof of absence the moment after a create. OCI's listings may lag behind its
// creates (Options.ListingLag): a load balancer made a moment ago, by this process or by the one
// before it (a restart, a leader change), can be missing from ListLoadBalancers while
// GetLoadBalancer finds it. Taking that silence for absence releases a Service whose load
// balancer still runs, reports it deleted, or makes a second one.
//
// So a listing counts as proof that a load balancer is absent only if it began once the lag had
// passed since the load balancer's create could have happened: ListingLag after this Reconciler
// started (what the processes before it made, they made before that), and ListingLag after a
// create this Reconciler made itself. Before then, a lookup that misses (Ensure, Plan, Delete,
// Get) or a 404's confirmation waits until then and lists again; the drift check, which runs
// again anyway, skips the Service. Only a listing right after the start, or right after a
// create, waits: a CCM that has run for ListingLag never does. The create's retry token
// (createRetryToken) is the second line: OCI answers a repeated create with the load balancer
// the first made, if the Service did not change in between.

// DefaultListingLag is Options.ListingLag's default: how long after a load balancer's create
// OCI's listings may still lack it. OCI documents no figure (assumed); ocitest lags 2 seconds by
// default (ocitest.DefaultListingLag).
const DefaultListingLag = 5 * time.Second

// listingLag knows from when a listing shows a load balancer. Safe for concurrent use; a nil
// *listingLag knows of no lag.
type listingLag struct {
	now     func() time.Time
	sleep   func(ctx context.Context, d time.Duration) error // on now's clock
	lag     time.Duration                                    // <= 0: listings never lag
	settled time.Time                                        // the Reconciler's start plus lag
	// observer counts the waits (Options.Consistency); nil counts none.
	observer ociclient.ConsistencyObserver

	mu sync.Mutex
	// created holds when this Reconciler last created, or tried to create, a load balancer, by
	// its OCID and by its Service (serviceKey), for lag after it.
	created map[string]time.Time
}

// serviceKey is the key under which listingLag remembers a create for the Service uid: a
// create whose answer was lost left a load balancer whose OCID this Reconciler never learned.
func serviceKey(uid string) string { return "service/" + uid }

func newListingLag(now func() time.Time, sleep func(context.Context, time.Duration) error, lag time.Duration) *listingLag {
	lag = max(lag, 0)
	if sleep == nil {
		sleep = ctxtime.Sleep
	}
	return &listingLag{now: now, sleep: sleep, lag: lag, settled: now().Add(lag), created: map[string]time.Time{}}
}

// recordCreate notes that this Reconciler created, or tried to create, a load balancer now: key
// is its OCID or its Service's serviceKey.
func (l *listingLag) recordCreate(id string) {
	if l == nil || l.lag <= 0 || id == "" {
		return
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, at := range l.created {
		if !now.Before(at.Add(l.lag)) {
			delete(l.created, k)
		}
	}
	l.created[id] = now
}

// deleted notes that this Reconciler saw the load balancers keys name deleted (their delete's
// work request succeeded): that proves their absence, no listing needs to show it.
func (l *listingLag) deleted(keys ...string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		delete(l.created, k)
	}
}

// shows returns when a listing that begins then shows what key names (an OCID, a serviceKey), if
// it exists: "" is any load balancer this Reconciler did not create.
func (l *listingLag) shows(id string) time.Time {
	if l == nil {
		return time.Time{} // no lag known: every listing is complete
	}
	from := l.settled
	l.mu.Lock()
	defer l.mu.Unlock()
	if at, ok := l.created[id]; ok && at.Add(l.lag).After(from) {
		from = at.Add(l.lag)
	}
	return from
}

// awaitCreate waits until a listing begun then shows a load balancer whose create OCI accepted
// at accepted (by l.now), if it exists.
func (l *listingLag) awaitCreate(ctx context.Context, accepted time.Time) error {
	if l == nil {
		return nil
	}
	from := accepted.Add(l.lag)
	if l.settled.After(from) {
		from = l.settled
	}
	return l.until(ctx, from, "a load balancer created a moment ago")
}

// complete reports whether a listing that began at began shows id, if it exists.
func (l *listingLag) complete(id string, began time.Time) bool {
	return !began.Before(l.shows(id))
}

// await waits until a listing begun then shows id, if it exists.
func (l *listingLag) await(ctx context.Context, id string) error {
	if l == nil {
		return nil
	}
	return l.until(ctx, l.shows(id), "every load balancer created before this one")
}

// until waits until from, by l.now and on its clock (a wait measured on a fast clock but slept
// on the wall clock would last that many times longer); what is what the listing is to show,
// for the error.
func (l *listingLag) until(ctx context.Context, from time.Time, what string) error {
	d := from.Sub(l.now())
	if d <= 0 {
		return nil
	}
	l.count(ctx)
	if err := l.sleep(ctx, d); err != nil {
		return fmt.Errorf("waiting %s for OCI's listings to show %s (Options.ListingLag): %w", d.Round(time.Millisecond), what, err)
	}
	return nil
}

// count counts one wait for the lag, or one listing made again because of it, with the
// observer (Options.Consistency).
func (l *listingLag) count(ctx context.Context) {
	if l != nil && l.observer != nil {
		l.observer.CountConsistencyWait(ctx, "lb", ociclient.ConsistencyListingLag)
	}
}
