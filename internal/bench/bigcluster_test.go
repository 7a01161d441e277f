// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Not under the race detector: these tests run k8s.io/cloud-provider's service controller with
// node syncs after service syncs, and that controller has a data race of its own
// (controllers/service/controller.go in v0.37.2: processServiceCreateOrUpdate writes
// cachedService.state outside serviceCache's lock, which allServices reads under it, from the
// node worker). make unit runs them without -race instead.

//go:build !race

package bench

import (
	"strings"
	"testing"
	"time"
)

// In a cluster of 1,000 Nodes a Node joining or leaving moves at most two backends of any
// backend set (the Node, and the one it displaces from a subset) and writes only the backend
// sets of the Services whose subset changed; a resync with nothing to change writes nothing.
func TestBigClusterNodeChangesMoveAtMostTwoBackends(t *testing.T) {
	const services = 12
	b, err := RunBigCluster(BigClusterOptions{Services: services, Nodes: 1000, Replaced: 20, Workers: 4,
		WriteQPS: 10, ReadQPS: 50, Cap: 2 * time.Minute, Scale: 0.02, FastSteady: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Phases) != 4 {
		t.Fatalf("%d phases, want 4", len(b.Phases))
	}
	for i, p := range b.Phases {
		if p.CutShort != "" || p.Errors > 0 {
			t.Errorf("%s: cut short %q, %d failed reconciles (%s)", p.Name, p.CutShort, p.Errors, p.FirstError)
		}
		t.Logf("%s: %d writes, %d 429s, moved %+v, took %v, floor %v", p.Name, p.Writes, p.Status429, b.Moved[i], p.Took, p.Floor)
	}
	if p := b.Phases[0]; p.Writes != 0 {
		t.Errorf("steady state: %d writes, want none", p.Writes)
	}
	for _, i := range []int{1, 2} {
		p, m := b.Phases[i], b.Moved[i]
		if m.Most > 2 || m.Most == 0 {
			t.Errorf("%s: at most %d backends moved in a set, want 1 or 2", p.Name, m.Most)
		}
		// A subset of 256 of 1,000 Nodes: a Node enters about a quarter of them, not all.
		if m.Services == 0 || m.Services == services {
			t.Errorf("%s: the backends of %d of %d Services moved, want some but not all", p.Name, m.Services, services)
		}
		// Two backend sets per Service whose subset changed, and nothing else (a 429 is retried).
		if p.Writes-p.Status429 != 2*m.Services {
			t.Errorf("%s: %d writes (%d refused with 429), want 2 for each of the %d Services whose subset changed", p.Name, p.Writes, p.Status429, m.Services)
		}
		if p.Floor <= 0 || p.Took < p.Floor {
			t.Errorf("%s: took %v, floor %v: the floor is not a floor", p.Name, p.Took, p.Floor)
		}
		// The load balancer that finished last had its two backend sets changed, within the phase.
		if ch := b.Chains[i]; ch.WorkRequests != 2 || ch.Runs > p.Floor || ch.Start < 0 || ch.Start+ch.Runs+ch.Idle > ch.End || ch.End > p.Took {
			t.Errorf("%s: last load balancer %+v, want 2 work requests ending within the phase's %v, none longer than its floor %v", p.Name, ch, p.Took, p.Floor)
		}
	}
	if ch := b.Chains[0]; ch.WorkRequests != 0 {
		t.Errorf("steady state: last load balancer %+v, want none (nothing written)", ch)
	}
	if b.HeapAfter == 0 || b.HeapBefore == 0 {
		t.Errorf("heap %d before, %d after, want both", b.HeapBefore, b.HeapAfter)
	}
}

// A Service created in the middle of a storm gets its IP, and so does one created alone after it;
// the report names both and the bound.
func TestStormReportsANewServicesTimeToIP(t *testing.T) {
	ps, err := Storm(StormOptions{Services: 20, Nodes: 300, Added: 10, Workers: 4, WriteQPS: 10, ReadQPS: 50,
		Cap: 2 * time.Minute, Scale: 0.02, FastRestart: true, NewServiceAt: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	n := ps[len(ps)-1].New
	if n == nil {
		t.Fatalf("no fair-storm figures in %d phases", len(ps))
	}
	if n.Storm <= 0 || n.Alone <= 0 || n.CreateRun <= 0 {
		t.Errorf("figures %+v, want a time to IP in the storm and alone, and the create's run", *n)
	}
	// Each waits at least for its create work request (60–120 s in OCI's profile).
	if n.Storm < n.CreateRun || n.Alone < time.Minute {
		t.Errorf("figures %+v: a time to IP shorter than a create work request", *n)
	}
	var out strings.Builder
	WriteStorm(&out, "t", ps)
	if !strings.Contains(out.String(), "A new Service created during the storm's node phase got its IP in") {
		t.Errorf("report without the fair-storm line:\n%s", out.String())
	}
}

func TestNewServiceBoundIsAloneAndOneCreateAndTenSeconds(t *testing.T) {
	s := time.Second
	n := NewService{Storm: 200 * s, Alone: 100 * s, CreateRun: 80 * s}
	if got := n.Bound(); got != 190*s {
		t.Errorf("Bound() = %v, want 190s", got)
	}
	if got := n.String(); !strings.Contains(got, "**miss**: 200.0 s > 190.0 s") {
		t.Errorf("String() = %q, want the miss named", got)
	}
	n.Storm = 190 * s
	if got := n.String(); !strings.HasSuffix(got, ": met.") {
		t.Errorf("String() = %q, want met", got)
	}
}

// The floor of a phase is its write limit, or a load balancer's chain of work requests started
// no earlier than the writes accepted before its first allow.
func TestFloorWaitsForTheWritesBeforeAChain(t *testing.T) {
	const qps, burst = 10.0, 10
	var all []Chain
	for i := range 15 { // one work request each, accepted every 100 ms, 30 s runs
		at := time.Duration(i) * 100 * time.Millisecond
		all = append(all, Chain{WorkRequests: 1, Runs: 30 * time.Second, Start: at, End: at + 30*time.Second, Accepted: []time.Duration{at}})
	}
	if got, want := writeBoundFloor(all, 30*time.Second, 15, qps, burst), 31500*time.Millisecond; got != want {
		t.Errorf("15 writes, runs of 30 s: floor %v, want %v (the write limit, 1.5 s, and the shortest run)", got, want)
	}
	// The fifteenth written has the longest chain: 14 writes went before it, the first 10 at once
	// (the burst), the others at 10/s, so it could start at 0.5 s at the earliest.
	all[14].Runs = 60 * time.Second
	if got, want := writeBoundFloor(all, 30*time.Second, 15, qps, burst), 60500*time.Millisecond; got != want {
		t.Errorf("the last written runs 60 s: floor %v, want %v", got, want)
	}
	// Written first, nothing waits before it.
	all[14].Runs, all[0].Runs = 30*time.Second, 60*time.Second
	if got, want := writeBoundFloor(all, 30*time.Second, 15, qps, burst), 60*time.Second; got != want {
		t.Errorf("the first written runs 60 s: floor %v, want %v", got, want)
	}
}
