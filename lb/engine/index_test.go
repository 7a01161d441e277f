// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/lb/internal/sdkval"
	lbproduct "github.com/oci-ccm/oci-ccm/lb/oci/loadbalancer"
)

// countingLister serves a fixed list and counts calls; release, when set, holds every call until
// it is closed so concurrent callers overlap. It is a Client that only lists.
type countingLister struct {
	lbproduct.Client
	mu      sync.Mutex
	lbs     []loadbalancer.LoadBalancer
	calls   atomic.Int32
	release chan struct{}
	started chan struct{}
	once    sync.Once
	names   []string // the displayName of each call ("" for the whole compartment)
}

func (l *countingLister) ListLoadBalancers(ctx context.Context, compartmentID, displayName string) ([]loadbalancer.LoadBalancer, error) {
	l.calls.Add(1)
	l.mu.Lock()
	l.names = append(l.names, displayName)
	l.mu.Unlock()
	if l.release != nil {
		l.once.Do(func() { close(l.started) })
		select {
		case <-l.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []loadbalancer.LoadBalancer
	for _, lb := range l.lbs {
		if displayName == "" || sdkval.Deref(lb.DisplayName) == displayName {
			out = append(out, lb)
		}
	}
	return out, nil
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
	x := newNameIndex(lbproduct.New(l), time.Now)

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
	if diff := cmp.Diff([]indexMatch{{Name: "new", ID: "ocid-new"}}, m); diff != "" {
		t.Errorf("Lookup after refresh (-want +got):\n%s", diff)
	}

	x.Add("c1", "created", "ocid-created")
	before := l.calls.Load()
	if m, _ := x.Lookup(ctx, "c1", "created"); len(m) != 1 || l.calls.Load() != before {
		t.Errorf("an added load balancer needed a list: %v", m)
	}
	x.Remove("c1", "ocid-created")
	if m, _, _ := x.lookup("c1", []string{"created"}); len(m) != 0 {
		t.Errorf("a removed load balancer is still indexed: %v", m)
	}
}

func TestIndexMergesConcurrentRefreshes(t *testing.T) {
	l := &countingLister{release: make(chan struct{}), started: make(chan struct{})}
	l.add("a", "ocid-a", loadbalancer.LoadBalancerLifecycleStateActive)
	x := newNameIndex(lbproduct.New(l), time.Now)
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

func TestIndexWaiterReturnsWhenItsOwnContextEnds(t *testing.T) {
	l := &countingLister{release: make(chan struct{}), started: make(chan struct{})}
	l.add("a", "ocid-a", loadbalancer.LoadBalancerLifecycleStateActive)
	x := newNameIndex(lbproduct.New(l), time.Now)
	leader := make(chan error, 1)
	go func() {
		_, err := x.Lookup(context.Background(), "c1", "a")
		leader <- err
	}()
	<-l.started
	waiterCtx, cancel := context.WithCancel(context.Background())
	waiter := make(chan error, 1)
	go func() {
		_, err := x.Lookup(waiterCtx, "c1", "a")
		waiter <- err
	}()
	cancel()
	select {
	case err := <-waiter:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled waiter got %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a waiter whose context ended still waits for another caller's list")
	}
	close(l.release)
	if err := <-leader; err != nil {
		t.Errorf("leader: %v", err)
	}
}

func TestIndexListOutlivesTheCallerThatStartedIt(t *testing.T) {
	l := &countingLister{release: make(chan struct{}), started: make(chan struct{})}
	l.add("a", "ocid-a", loadbalancer.LoadBalancerLifecycleStateActive)
	x := newNameIndex(lbproduct.New(l), time.Now)
	leaderCtx, cancel := context.WithCancel(context.Background())
	leader := make(chan error, 1)
	go func() {
		_, err := x.Lookup(leaderCtx, "c1", "a")
		leader <- err
	}()
	<-l.started
	cancel()
	if err := <-leader; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled leader got %v, want context.Canceled", err)
	}
	// Another Service looks up meanwhile: it joins the list still running.
	got := make(chan []indexMatch, 1)
	go func() {
		m, err := x.Lookup(context.Background(), "c1", "a")
		if err != nil {
			t.Errorf("Lookup: %v", err)
		}
		got <- m
	}()
	close(l.release)
	if diff := cmp.Diff([]indexMatch{{Name: "a", ID: "ocid-a"}}, <-got); diff != "" {
		t.Errorf("Lookup (-want +got):\n%s", diff)
	}
	if n := l.calls.Load(); n != 1 {
		t.Errorf("%d lists, want 1: the one the cancelled caller started serves the others", n)
	}
}

func TestIndexMissOnAWarmIndexListsOnlyTheNamesLookedUp(t *testing.T) {
	l := &countingLister{}
	l.add("a", "ocid-a", loadbalancer.LoadBalancerLifecycleStateActive)
	x := newNameIndex(lbproduct.New(l), time.Now)
	if _, err := x.Lookup(context.Background(), "c1", "a"); err != nil {
		t.Fatal(err)
	}
	l.add("new", "ocid-new", loadbalancer.LoadBalancerLifecycleStateActive)
	m, err := x.Lookup(context.Background(), "c1", "new", "uid")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]indexMatch{{Name: "new", ID: "ocid-new"}}, m); diff != "" {
		t.Errorf("Lookup (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"", "new", "uid"}, l.names); diff != "" {
		t.Errorf("lists by display name (\"\" = the whole compartment) (-want +got):\n%s", diff)
	}
}
