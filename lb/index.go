package lb

import (
	"context"
	"sync"

	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	"golang.org/x/sync/singleflight"
)

// Lister lists a compartment's load balancers (all pages; every name when displayName is empty).
type Lister interface {
	ListLoadBalancers(ctx context.Context, compartmentID, displayName string) ([]loadbalancer.LoadBalancer, error)
}

// Index maps display names to load balancer OCIDs, per compartment, from one paged
// ListLoadBalancers call shared by every Service, instead of one list per Service as the upstream
// CCM does. A lookup that finds nothing refreshes the compartment once; concurrent refreshes of
// a compartment are merged into one call. Safe for concurrent use.
type Index struct {
	lister Lister
	flight singleflight.Group

	mu    sync.Mutex
	comps map[string]*compartmentIndex
}

type compartmentIndex struct {
	// generation counts refreshes; a lookup that missed at generation g refreshes only if no
	// refresh has happened since.
	generation uint64
	names      map[string][]string // display name → OCIDs
}

// Match is a load balancer found under one of the names looked up.
type Match struct {
	Name string
	ID   string
}

// NewIndex returns an empty index that lists through l.
func NewIndex(l Lister) *Index {
	return &Index{lister: l, comps: map[string]*compartmentIndex{}}
}

// Lookup returns the load balancers named any of names, in the order of names. If none is known
// it refreshes the compartment's index (unless another lookup refreshed it meanwhile) and looks
// again.
func (x *Index) Lookup(ctx context.Context, compartmentID string, names ...string) ([]Match, error) {
	matches, gen := x.lookup(compartmentID, names)
	if len(matches) > 0 {
		return matches, nil
	}
	if err := x.refresh(ctx, compartmentID, gen); err != nil {
		return nil, err
	}
	matches, _ = x.lookup(compartmentID, names)
	return matches, nil
}

func (x *Index) lookup(compartmentID string, names []string) ([]Match, uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	c := x.comps[compartmentID]
	if c == nil {
		return nil, 0
	}
	var out []Match
	for _, n := range names {
		for _, id := range c.names[n] {
			out = append(out, Match{Name: n, ID: id})
		}
	}
	return out, c.generation
}

// refresh lists the compartment unless it was refreshed after generation seen.
func (x *Index) refresh(ctx context.Context, compartmentID string, seen uint64) error {
	_, err, _ := x.flight.Do(compartmentID, func() (any, error) {
		x.mu.Lock()
		c := x.comps[compartmentID]
		fresh := c != nil && c.generation > seen
		x.mu.Unlock()
		if fresh {
			return nil, nil
		}
		lbs, err := x.lister.ListLoadBalancers(ctx, compartmentID, "")
		if err != nil {
			return nil, err
		}
		names := make(map[string][]string, len(lbs))
		for _, lb := range lbs {
			switch lb.LifecycleState {
			case loadbalancer.LoadBalancerLifecycleStateDeleted, loadbalancer.LoadBalancerLifecycleStateDeleting:
				continue
			}
			n := deref(lb.DisplayName)
			names[n] = append(names[n], deref(lb.Id))
		}
		x.mu.Lock()
		defer x.mu.Unlock()
		c = x.comps[compartmentID]
		if c == nil {
			c = &compartmentIndex{}
			x.comps[compartmentID] = c
		}
		c.generation++
		c.names = names
		return nil, nil
	})
	return err
}

// Add records a load balancer this process created or renamed, so the next lookup needs no list.
func (x *Index) Add(compartmentID, name, id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	c := x.comps[compartmentID]
	if c == nil {
		c = &compartmentIndex{names: map[string][]string{}}
		x.comps[compartmentID] = c
	}
	x.removeLocked(c, id)
	c.names[name] = append(c.names[name], id)
}

// Remove forgets a load balancer (deleted, or found gone).
func (x *Index) Remove(compartmentID, id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if c := x.comps[compartmentID]; c != nil {
		x.removeLocked(c, id)
	}
}

func (x *Index) removeLocked(c *compartmentIndex, id string) {
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
