// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	kclock "k8s.io/utils/clock"
)

// cache is a TTL cache of one kind of read, keyed by the read's arguments. Concurrent misses
// for the same key make one call (singleflight). Failed reads are not cached, and a 404 drops
// the key. With a TTL below zero it only passes calls through.
//
// Entries live in a utilcache.Expiring, which sweeps expired entries on every store: memory
// follows what was read within the last TTL, not every key ever read (instances come and go
// under autoscaling, and nobody looks up a deleted instance's key again).
type cache[V any] struct {
	name    string
	ttl     time.Duration
	metrics Metrics
	// keep, if set, says whether a loaded value may be cached; values it refuses are returned
	// but read again next time.
	keep func(V) bool

	mu         sync.Mutex
	entries    *utilcache.Expiring // key → V; replaced whole by invalidateAll
	newEntries func() *utilcache.Expiring
	// gen counts invalidations. A load that started before an invalidation does not store its
	// result, which may predate the change the invalidation was for.
	gen uint64

	flights singleflight.Group

	// afterMiss, when set (by tests only), runs between a missed lookup and joining or starting
	// a flight: where another caller's flight may land unseen.
	afterMiss func(key string)
}

func newCache[V any](name string, c *caller) *cache[V] {
	// The caller's clock, read through a pointer, so a test that swaps it swaps this one.
	clk := callerClock{c: &c.clock}
	newEntries := func() *utilcache.Expiring { return utilcache.NewExpiringWithClock(clk) }
	return &cache[V]{name: name, ttl: c.cacheTTL, metrics: c.metrics, entries: newEntries(), newEntries: newEntries}
}

// callerClock shows a caller's clock to utilcache.Expiring, which reads only Now; the timer
// methods it never calls are real time's.
type callerClock struct {
	kclock.RealClock
	c *clock
}

// Now is the caller's now.
func (k callerClock) Now() time.Time { return k.c.now() }

// Since is the time elapsed since t on the caller's clock.
func (k callerClock) Since(t time.Time) time.Duration { return k.c.now().Sub(t) }

// maxLeaderRetries bounds how often a caller whose shared load was cut short by another
// caller's context starts its own.
const maxLeaderRetries = 3

// get returns the cached value for key, or loads it. load runs under the context of the caller
// that starts the flight; callers that join it stop waiting when their own context ends.
func (c *cache[V]) get(ctx context.Context, key string, load func(context.Context) (V, error)) (V, error) {
	if c.ttl < 0 {
		return load(ctx)
	}
	var zero V
	for try := 0; ; try++ {
		if v, ok := c.lookup(key); ok {
			c.metrics.CountCacheLookup(ctx, c.name, "hit")
			return v, nil
		}
		if c.afterMiss != nil {
			c.afterMiss(key)
		}
		led := false // set only if this caller's function is the one that runs
		ch := c.flights.DoChan(key, func() (any, error) {
			led = true
			// A flight for key may have landed between our miss and this one starting: the
			// singleflight group forgets a flight once it returns, so only the cache knows.
			if v, ok := c.lookup(key); ok {
				c.metrics.CountCacheLookup(ctx, c.name, "hit")
				return v, nil
			}
			c.metrics.CountCacheLookup(ctx, c.name, "miss")
			return c.loadAndStore(ctx, key, load)
		})
		select {
		case <-ctx.Done():
			return zero, fmt.Errorf("%s %s: %w", c.name, key, ctx.Err())
		case res := <-ch:
			if !led {
				c.metrics.CountCacheLookup(ctx, c.name, "shared")
			}
			if res.Err != nil && ctx.Err() == nil && try < maxLeaderRetries &&
				(errors.Is(res.Err, context.Canceled) || errors.Is(res.Err, context.DeadlineExceeded)) {
				// The flight ran under another caller's context, which ended; ours has not.
				continue
			}
			if res.Err != nil {
				return zero, res.Err
			}
			return res.Val.(V), nil
		}
	}
}

// fresh loads key from OCI whatever the cache holds, and never joins a flight that began before
// it: its answer is from a read that began after the call did. What it reads replaces the
// cached value (a 404 drops it), and loads already under way no longer store theirs, which may
// be older. Concurrent fresh reads of one key are not shared: each makes its own call.
func (c *cache[V]) fresh(ctx context.Context, key string, load func(context.Context) (V, error)) (V, error) {
	if c.ttl < 0 {
		return load(ctx)
	}
	c.invalidate(key)
	return c.loadAndStore(ctx, key, load)
}

// loadAndStore loads key and stores what it read, unless the cache was invalidated while it
// loaded (what it read may predate that); a 404 drops the entry.
func (c *cache[V]) loadAndStore(ctx context.Context, key string, load func(context.Context) (V, error)) (V, error) {
	gen := c.generation()
	v, err := load(ctx)
	switch {
	case err == nil && (c.keep == nil || c.keep(v)):
		c.store(key, v, gen)
	case IsNotFound(err):
		c.invalidate(key)
	}
	return v, err
}

func (c *cache[V]) lookup(key string) (V, bool) {
	c.mu.Lock()
	entries := c.entries
	c.mu.Unlock()
	v, ok := entries.Get(key) // false for an expired entry not yet swept
	if !ok {
		var zero V
		return zero, false
	}
	return v.(V), true
}

func (c *cache[V]) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// store caches v unless the cache was invalidated since gen was read.
func (c *cache[V]) store(key string, v V, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	c.entries.Set(key, v, c.ttl)
}

// put caches v as freshly read (e.g. an instance seen in a list).
func (c *cache[V]) put(key string, v V) {
	if c.ttl < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries.Set(key, v, c.ttl)
}

// invalidate drops key.
func (c *cache[V]) invalidate(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.entries.Delete(key)
}

// invalidateAll drops every entry.
func (c *cache[V]) invalidateAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.entries = c.newEntries()
}

// cacheKey joins the parts of a composite key. OCIDs never contain "|".
func cacheKey(parts ...string) string { return strings.Join(parts, "|") }

// pages collects every item of a paged list: it calls fetch with the previous response's
// opc-next-page until there is none. A token OCI repeats would loop forever; it is an error.
func pages[T any](ctx context.Context, fetch func(ctx context.Context, page *string) (items []T, next *string, err error)) ([]T, error) {
	var all []T
	var page *string
	seen := map[string]bool{}
	for {
		items, next, err := fetch(ctx, page)
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if next == nil || *next == "" {
			return all, nil
		}
		if seen[*next] {
			return nil, fmt.Errorf("paging: OCI repeated page token %q", *next)
		}
		seen[*next] = true
		page = next
	}
}
