// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/seclist"
)

func nodes(n int) []*v1.Node {
	out := make([]*v1.Node, n)
	for i := range out {
		out[i] = &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i)},
			Spec:       v1.NodeSpec{ProviderID: fmt.Sprintf("oci://ocid1.instance.oc1.phx.node-%d", i)},
			Status: v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP,
				Address: fmt.Sprintf("10.0.%d.%d", 8+i/250, 1+i%250)}}},
		}
	}
	return out
}

var benchCfg = &config.Config{CompartmentID: "ocid1.compartment.oc1..bench",
	LoadBalancer: config.LoadBalancer{Subnet1: "ocid1.subnet.oc1.phx.lb1", Subnet2: "ocid1.subnet.oc1.phx.lb2"}}

// BenchmarkDesiredAndDiff computes a Service's Spec over 1,000 nodes and 16 ports (a subset of 32
// Nodes: OCI allows 512 backends per load balancer) and diffs it against the same Spec with one
// backend fewer in every backend set.
func BenchmarkDesiredAndDiff(b *testing.B) {
	s := svc("big", portsOf(16)...)
	all := nodes(1000)
	observed, err := lb.Desired(s, all, benchCfg, lb.Known{})
	if err != nil {
		b.Fatal(err)
	}
	observed.ID, observed.Owner.Cluster = "ocid1.loadbalancer.oc1.phx.bench", "bench"
	for name, bs := range observed.BackendSets {
		bs.Backends = bs.Backends[1:]
		observed.BackendSets[name] = bs
	}
	b.ReportAllocs()
	for b.Loop() {
		desired, err := lb.Desired(s, all, benchCfg, lb.Known{})
		if err != nil {
			b.Fatal(err)
		}
		desired.Owner.Cluster = "bench"
		plan, err := lb.Diff(observed, desired)
		// 16 backend-set updates, and the ownership tags a Spec not read from OCI lacks.
		if err != nil || len(plan.Changes) != 17 {
			b.Fatalf("plan %v, err %v; want 16 backend-set updates and the tags", plan, err)
		}
	}
}

// BenchmarkSecurityRules computes every security list's rules for 1,000 Services of 2 ports each.
func BenchmarkSecurityRules(b *testing.B) {
	subnets := map[string]seclist.Subnet{
		"lb1":   {ID: "lb1", CIDR: "10.0.1.0/24", SecurityListIDs: []string{"sl-lb1"}},
		"lb2":   {ID: "lb2", CIDR: "10.0.2.0/24", SecurityListIDs: []string{"sl-lb2"}},
		"nodes": {ID: "nodes", CIDR: "10.0.8.0/21", SecurityListIDs: []string{"sl-nodes"}},
	}
	claims := make([]seclist.Claim, 1000)
	for i := range claims {
		claims[i] = seclist.Claim{Service: types.NamespacedName{Namespace: "default", Name: fmt.Sprintf("svc-%d", i)}, LBSubnets: []string{"lb1", "lb2"},
			NodeSubnets: []string{"nodes"}, ListenerPorts: []int{80, 443},
			NodePorts: []int{30000 + 2*i%2767, 30001 + 2*i%2767}, HealthCheckPort: 10256}
	}
	p := seclist.Policy{Cluster: "bench"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := seclist.Desired(claims, subnets, p); err != nil {
			b.Fatal(err)
		}
	}
}

func TestClockWaitedIsTheUnionOfWaits(t *testing.T) {
	c := NewClock(1)
	t0 := c.Now()
	c.waits = []interval{{t0, t0.Add(2 * time.Second)}, {t0.Add(time.Second), t0.Add(3 * time.Second)}, {t0.Add(5 * time.Second), t0.Add(6 * time.Second)}}
	if got := c.Waited(); got != 4*time.Second {
		t.Errorf("Waited = %v, want 4s (0–3 s and 5–6 s)", got)
	}
	if got := c.Waited(); got != 0 {
		t.Errorf("second Waited = %v, want 0", got)
	}
}

func TestUpstreamPollsEveryFiveSecondsAfterFive(t *testing.T) {
	for d, want := range map[time.Duration]int{500 * time.Millisecond: 1, 2 * time.Second: 1, 10 * time.Second: 2,
		30 * time.Second: 6, 120 * time.Second: 24, 31 * time.Second: 7} {
		if got := upstreamPolls(d); got != want {
			t.Errorf("upstreamPolls(%v) = %d, want %d", d, got, want)
		}
	}
}

func TestGoalNamesTheFiguresOfEveryMiss(t *testing.T) {
	s := time.Second
	tests := []struct {
		name string
		m    Measure
		wr   time.Duration
		want string
	}{
		{name: "both met", m: Measure{Reads: 2, Writes: 2, Polls: 8, Upstream: 24, Net: 65 * s, Floor: 62 * s}, want: "met"},
		{name: "exactly 0.75x and 1.1x", m: Measure{Reads: 6, Writes: 4, Polls: 2, Upstream: 16, Net: 11 * s, Floor: 10 * s}, wr: 10 * s, want: "met"},
		{name: "too many calls", m: Measure{Reads: 6, Writes: 4, Polls: 6, Upstream: 17, Net: 10 * s, Floor: 10 * s}, wr: 10 * s,
			want: "**miss**: calls 16 > 12.8 (0.75×17)"},
		{name: "late and too many calls", m: Measure{Reads: 6, Writes: 4, Polls: 9, Upstream: 21, Net: 34600 * time.Millisecond, Floor: 30 * s}, wr: 30 * s,
			want: "**miss**: calls 19 > 15.8 (0.75×21); waiting 34.6 s > 33.0 s (1.1× floor)"},
		{name: "under 10 s: floor + 1 s", m: Measure{Polls: 1, Upstream: 16, Net: 3500 * time.Millisecond, Floor: 2 * s}, wr: 2 * s,
			want: "**miss**: waiting 3.5 s > 3.0 s (floor + 1 s)"},
		{name: "no upstream figure: time only, and says so", m: Measure{Polls: 6, Net: 89 * s, Floor: 90 * s}, wr: 30 * s,
			want: "time met (no upstream calls to compare)"},
		{name: "no-op: no work request, calls only", m: Measure{Reads: 1, Upstream: 8}, want: "met"},
		{name: "an error is a miss", m: Measure{Upstream: 8, Err: errors.New("boom")}, want: "**miss**: error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.m.Goal(tt.wr); got != tt.want {
				t.Errorf("Goal = %q, want %q", got, tt.want)
			}
			if got, want := tt.m.Missed(tt.wr), strings.HasPrefix(tt.want, "**miss**"); got != want {
				t.Errorf("Missed = %v, want %v", got, want)
			}
		})
	}
}

func TestClockSetScaleChangesTheSpeedAndNowGoesOn(t *testing.T) {
	c := NewClock(0.001) // 1,000 times faster than real time
	if err := c.Sleep(t.Context(), time.Second); err != nil {
		t.Fatal(err)
	}
	before := c.Now()
	c.SetScale(1)
	if after := c.Now(); after.Before(before) || after.Sub(before) > time.Second {
		t.Errorf("Now went from %v to %v across SetScale, want it to go on from where it was", before, after)
	}
	if c.Scale() != 1 {
		t.Errorf("Scale() = %g after SetScale(1)", c.Scale())
	}
	// At real time a 20 ms Sleep takes 20 ms of the wall clock (20 µs at the old speed).
	start := time.Now()
	if err := c.Sleep(t.Context(), 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 20*time.Millisecond {
		t.Errorf("a 20 ms Sleep at scale 1 took %v of real time", took)
	}
}

func TestStormGoalNamesEveryMiss(t *testing.T) {
	s := time.Second
	tests := []struct {
		name string
		p    Phase
		want string
	}{
		{name: "node phase within 1.2x", p: Phase{Of: 1000, Writes: 2005, Took: 238 * s, Floor: 200 * s, MaxRules: 6}, want: "met"},
		{name: "exactly 1.2x", p: Phase{Of: 1000, Writes: 2000, Took: 240 * s, Floor: 200 * s}, want: "met"},
		{name: "slow", p: Phase{Of: 1000, Writes: 2000, Took: 241 * s, Floor: 200 * s}, want: "**miss**: 241.0 s > 240.0 s (1.2× floor)"},
		{name: "failures and a full list", p: Phase{Of: 1000, Writes: 2000, Took: 230 * s, Floor: 200 * s, Errors: 3, MaxRules: 201},
			want: "**miss**: 3 failed reconciles; 201 rules in a list > 200"},
		{name: "cut short", p: Phase{Of: 1000, Writes: 900, Took: 1200 * s, Floor: 90 * s, CutShort: "..."},
			want: "**miss**: cut short; 1200.0 s > 108.0 s (1.2× floor)"},
		{name: "restart in pages", p: Phase{Of: 1000, Reads: 15}, want: "met"},
		{name: "restart read per Service", p: Phase{Of: 1000, Reads: 1004}, want: "**miss**: 1004 reads > 10 pages + 5"},
		{name: "drift found with a list per page", p: Phase{Of: 1000, Reads: 10, Drift: &DriftFigures{LoadBalancers: 1000, Made: 2, Found: 2}}, want: "met"},
		{name: "drift missed, and a read too many", p: Phase{Of: 1000, Reads: 11, Drift: &DriftFigures{LoadBalancers: 1000, Made: 2, Found: 1}},
			want: "**miss**: 11 calls > 10 (one per 100 load balancers); found 1 of 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Goal(); got != tt.want {
				t.Errorf("Goal = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestStormDriftCheckFindsTheListenerAndTheLoadBalancerDeleted: the storm's drift step, on a
// small world, finds both out-of-band changes with one listing.
func TestStormDriftCheckFindsTheListenerAndTheLoadBalancerDeleted(t *testing.T) {
	w, err := NewWorld(WorldOptions{Nodes: 3, Durations: func(string, string, uint64) time.Duration { return time.Second }})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var services []*v1.Service
	for i := range 3 {
		s := stormService(i)
		st, err := w.LB.EnsureLoadBalancer(t.Context(), "bench", s, w.Nodes)
		if err != nil {
			t.Fatal(err)
		}
		s.Status.LoadBalancer = *st
		if _, err := w.Kube.CoreV1().Services("default").Create(t.Context(), s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		services = append(services, s)
	}
	p, err := driftCheck(t.Context(), w, services)
	if err != nil {
		t.Fatal(err)
	}
	if p.Drift.Found != 2 || p.Reads != 1 || p.Goal() != "met" {
		t.Errorf("drift check: found %d of 2 (%v, not checked %v), %d reads, goal %q; want both found with 1 read",
			p.Drift.Found, p.Drift.Reasons, p.Drift.Skipped, p.Reads, p.Goal())
	}
}

// TestStormSeedsEachServiceWithItsOwnSubset: past OCI's 512 backends a load balancer, the storm's
// copied load balancers hold their own Service's subset, so a restart finds nothing to change,
// and convergence means holding that subset.
func TestStormSeedsEachServiceWithItsOwnSubset(t *testing.T) {
	w, err := NewWorld(WorldOptions{Nodes: 300, Durations: func(string, string, uint64) time.Duration { return time.Second }})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	first := stormService(0)
	if _, err := w.LB.EnsureLoadBalancer(t.Context(), "bench", first, w.Nodes); err != nil {
		t.Fatal(err)
	}
	var template loadbalancer.LoadBalancer
	for _, l := range w.Srv.LoadBalancers() {
		template = l
	}
	second := stormService(1)
	want := map[string]map[string]bool{}
	for _, s := range []*v1.Service{first, second} {
		if want[s.Namespace+"/"+s.Name], err = backendsOf(s, w.Nodes, w.cfg); err != nil {
			t.Fatal(err)
		}
	}
	if len(want["default/storm-0000"]) != 256 || maps.Equal(want["default/storm-0000"], want["default/storm-0001"]) {
		t.Fatalf("300 Nodes × 2 ports: subsets of %d and %d Nodes, equal %v; want two different subsets of 256",
			len(want["default/storm-0000"]), len(want["default/storm-0001"]), maps.Equal(want["default/storm-0000"], want["default/storm-0001"]))
	}
	l, err := copyFor(template, first, second, w.LB.GetLoadBalancerName(t.Context(), "bench", second), want["default/storm-0001"])
	if err != nil {
		t.Fatal(err)
	}
	w.Srv.AddLoadBalancer(l)
	var p ociProgress
	if got := ociConverged(w.Srv, want, &p); got != 2 {
		t.Errorf("%d of 2 load balancers hold their Service's backends", got)
	}
	// Holding another Service's subset is not converged.
	want["default/storm-0001"] = want["default/storm-0000"]
	if got := ociConverged(w.Srv, want, &p); got != 1 {
		t.Errorf("with another Service's subset wanted, %d of 2 converged, want 1", got)
	}
}

func TestCPUPerThousandCallsCountsEveryKindOfCall(t *testing.T) {
	p := Phase{Reads: 100, Writes: 300, Polls: 600, CPU: 5 * time.Second}
	if got := p.CPUPerThousandCalls(); got != 5*time.Second {
		t.Errorf("5 s over 1,000 calls = %v per 1,000, want 5s", got)
	}
	if got := (Phase{CPU: time.Second}).CPUPerThousandCalls(); got != 0 {
		t.Errorf("no calls: %v, want 0", got)
	}
}
