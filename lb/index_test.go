package lb

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

// countingLister serves a fixed list and counts calls; release, when set, holds every call until
// it is closed so concurrent callers overlap.
type countingLister struct {
	mu      sync.Mutex
	lbs     []loadbalancer.LoadBalancer
	calls   atomic.Int32
	release chan struct{}
	started chan struct{}
	once    sync.Once
}

func (l *countingLister) ListLoadBalancers(ctx context.Context, compartmentID, displayName string) ([]loadbalancer.LoadBalancer, error) {
	l.calls.Add(1)
	if l.release != nil {
		l.once.Do(func() { close(l.started) })
		<-l.release
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]loadbalancer.LoadBalancer(nil), l.lbs...), nil
}

func (l *countingLister) add(name, id string, state loadbalancer.LoadBalancerLifecycleStateEnum) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lbs = append(l.lbs, loadbalancer.LoadBalancer{DisplayName: common.String(name), Id: common.String(id), LifecycleState: state})
}

func TestIndexListsOnceForManyServicesAndOnMiss(t *testing.T) {
	ctx := context.Background()
	l := &countingLister{}
	l.add("a", "ocid-a", loadbalancer.LoadBalancerLifecycleStateActive)
	l.add("b", "ocid-b", loadbalancer.LoadBalancerLifecycleStateActive)
	l.add("gone", "ocid-gone", loadbalancer.LoadBalancerLifecycleStateDeleted)
	x := NewIndex(l)

	for _, name := range []string{"a", "b", "a"} {
		m, err := x.Lookup(ctx, "c1", name)
		if err != nil || len(m) != 1 || m[0].ID != "ocid-"+name {
			t.Fatalf("Lookup(%s) = %v, %v", name, m, err)
		}
	}
	if n := l.calls.Load(); n != 1 {
		t.Errorf("3 lookups of known names listed %d times, want 1", n)
	}

	if m, _ := x.Lookup(ctx, "c1", "gone"); len(m) != 0 {
		t.Errorf("a DELETED load balancer was found: %v", m)
	}
	if n := l.calls.Load(); n != 2 {
		t.Errorf("a miss listed %d times in total, want 2", n)
	}

	l.add("new", "ocid-new", loadbalancer.LoadBalancerLifecycleStateActive)
	m, _ := x.Lookup(ctx, "c1", "missing", "new")
	if diff := cmp.Diff([]Match{{Name: "new", ID: "ocid-new"}}, m); diff != "" {
		t.Errorf("Lookup after refresh (-want +got):\n%s", diff)
	}

	x.Add("c1", "created", "ocid-created")
	before := l.calls.Load()
	if m, _ := x.Lookup(ctx, "c1", "created"); len(m) != 1 || l.calls.Load() != before {
		t.Errorf("an added load balancer needed a list: %v", m)
	}
	x.Remove("c1", "ocid-created")
	if m, _ := x.lookup("c1", []string{"created"}); len(m) != 0 {
		t.Errorf("a removed load balancer is still indexed: %v", m)
	}
}

func TestIndexMergesConcurrentRefreshes(t *testing.T) {
	l := &countingLister{release: make(chan struct{}), started: make(chan struct{})}
	l.add("a", "ocid-a", loadbalancer.LoadBalancerLifecycleStateActive)
	x := NewIndex(l)
	var wg sync.WaitGroup
	var found atomic.Int32
	for range 8 {
		wg.Go(func() {
			if m, err := x.Lookup(context.Background(), "c1", "a"); err == nil && len(m) == 1 {
				found.Add(1)
			}
		})
	}
	<-l.started
	close(l.release)
	wg.Wait()
	if found.Load() != 8 {
		t.Errorf("%d of 8 lookups found the load balancer", found.Load())
	}
	// Callers that joined while the list ran shared it; those that came later found a fresh
	// index (or a refresh newer than their miss) and did not list again.
	if n := l.calls.Load(); n != 1 {
		t.Errorf("8 concurrent lookups listed %d times, want 1", n)
	}
}
