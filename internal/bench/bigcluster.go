// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// BigClusterOptions shape the big-cluster scenarios (issue 31): Services two-port Services on
// Nodes Nodes, each Service's backends its own subset (loadBalancer.backendSubset: auto).
type BigClusterOptions struct {
	Services, Nodes int
	// Replaced is how many Nodes the rolling replacement replaces.
	Replaced int
	// Workers is the service controller's --concurrent-service-syncs.
	Workers int
	// WriteQPS and ReadQPS are OCI's limits (real-time calls per second).
	WriteQPS, ReadQPS float64
	// Cap bounds the real time each phase may run.
	Cap time.Duration
	// Scale is the clock's speed in the rolling replacement, as StormOptions.Scale. The steady
	// state and the single-Node phases run at real time: a node sync of 2,000 Services at 5,000
	// Nodes spends seconds of CPU before OCI's first work request ends, and a faster clock would
	// count them several times over against OCI's durations (the goal is within 1.1× the floor).
	Scale float64
	// FastSteady runs the steady state at Scale too (StormOptions.FastRestart).
	FastSteady bool
	// ProfileDir, if set, gets a CPU profile of each phase, phase-1.pprof onwards: the service
	// controller, the CCM, ocitest and the harness in one process.
	ProfileDir string
}

// BigCluster is what the big-cluster scenarios measured.
type BigCluster struct {
	Options BigClusterOptions
	// Phases are the steady state (a restart's resync with nothing to change), one Node added,
	// one Node removed and the rolling replacement, each with Floor as chainFloor has it.
	Phases []Phase
	// Moved is, per phase, the backends each load balancer's backend sets gained or lost in OCI.
	Moved []Moved
	// Chains are, per phase, the work requests of the load balancer that finished last (zero for
	// a phase that wrote nothing): where its time went beside the floor.
	Chains []Chain
	// HeapBefore is the heap in use after a GC once the World was seeded (ocitest's state, the
	// fake API's objects, the harness) and before the CCM and the service controller started;
	// HeapAfter the same after the steady state, with the CCM's informers and caches filled.
	HeapBefore, HeapAfter uint64
}

// Moved counts the backends a phase moved: Services is how many load balancers' backends
// changed, Most the most backends added plus removed in one backend set.
type Moved struct {
	Services, Most int
}

// backendsByService is every load balancer's backend addresses per backend set, by the
// namespace/name of its Service.
type backendsByService map[string]map[string][]string

// ociBackends reads the backends of every load balancer from ocitest's state.
func ociBackends(srv *ocitest.Server) backendsByService {
	out := backendsByService{}
	for _, l := range srv.LoadBalancers() {
		sets := map[string][]string{}
		for name, set := range l.BackendSets {
			for _, b := range set.Backends {
				if b.IpAddress != nil {
					sets[name] = append(sets[name], *b.IpAddress)
				}
			}
		}
		out[l.FreeformTags[model.TagService]] = sets
	}
	return out
}

// moved compares two reads of ociBackends.
func moved(before, after backendsByService) Moved {
	var m Moved
	for svc, sets := range after {
		most := 0
		for name, ips := range sets {
			n := 0
			for _, count := range tally(before[svc][name], ips) {
				if count != 0 {
					n++
				}
			}
			most = max(most, n)
		}
		if most > 0 {
			m.Services++
		}
		m.Most = max(m.Most, most)
	}
	return m
}

// tally counts each address +1 for each time in after and -1 for each time in before: the ones
// not zero were added or removed.
func tally(before, after []string) map[string]int {
	out := make(map[string]int, len(after))
	for _, ip := range after {
		out[ip]++
	}
	for _, ip := range before {
		out[ip]--
	}
	return out
}

// Chain is the work requests a phase wrote on one load balancer, placed in the phase: Start is
// when OCI accepted the first of them, Idle the time the load balancer's queue stood empty
// between one finishing and the next starting (the CCM noticing the end and writing the next),
// End when the last finished, all from the phase's start.
type Chain struct {
	WorkRequests int
	Runs         time.Duration
	Start, Idle  time.Duration
	End          time.Duration
	// Accepted is when OCI accepted each of them, from the phase's start.
	Accepted []time.Duration
	// Longest, from lastChain, is the longest chain of any load balancer in the phase: the
	// floor a CCM would have if it knew which load balancer to write first.
	Longest time.Duration
}

// chains are the work requests OCI accepted since t0 and finished, per load balancer, each
// placed as a Chain, and the shortest run among them.
func chains(srv *ocitest.Server, t0 time.Time) ([]Chain, time.Duration) {
	by := map[string][]ocitest.WorkRequestInfo{}
	shortest := time.Duration(0)
	for _, wr := range srv.WorkRequests() {
		if wr.TimeAccepted.Before(t0) || wr.TimeFinished.IsZero() {
			continue
		}
		by[wr.ResourceID] = append(by[wr.ResourceID], wr)
		if run := wr.TimeFinished.Sub(wr.TimeStarted); shortest == 0 || run < shortest {
			shortest = run
		}
	}
	var out []Chain
	for _, c := range by {
		slices.SortFunc(c, func(a, b ocitest.WorkRequestInfo) int { return a.TimeStarted.Compare(b.TimeStarted) })
		ch := Chain{WorkRequests: len(c), Start: c[0].TimeAccepted.Sub(t0), End: c[len(c)-1].TimeFinished.Sub(t0)}
		for i, wr := range c {
			ch.Accepted = append(ch.Accepted, wr.TimeAccepted.Sub(t0))
			ch.Runs += wr.TimeFinished.Sub(wr.TimeStarted)
			if i > 0 {
				ch.Idle += max(0, wr.TimeStarted.Sub(c[i-1].TimeFinished))
			}
		}
		out = append(out, ch)
	}
	return out, shortest
}

// lastChain is the Chain of the load balancer whose work requests since t0 finished last (the
// phase's critical path, when OCI's work sets its end), with the longest chain of all.
func lastChain(srv *ocitest.Server, t0 time.Time) Chain {
	all, _ := chains(srv, t0)
	var out Chain
	longest := time.Duration(0)
	for _, ch := range all {
		longest = max(longest, ch.Runs)
		if ch.End > out.End {
			out = ch
		}
	}
	out.Longest = longest
	return out
}

// chainFloor is the least time the work requests a phase wrote since t0 could take, for a CCM
// that writes as fast as OCI's write limit (qps, burst) lets it, in the order the Services came,
// without knowing in advance how long each work request will run (OCI does not say). It is the
// latest of:
//   - the write limit: writes ÷ qps, plus the shortest work request;
//   - for each load balancer, the earliest its first work request could be accepted, after
//     the phase's work requests OCI accepted before it (each took a write), plus its chain: the
//     sum of its work requests' runs, which OCI runs one after another.
//
// With a few hundred writes a work request's 20–40 s, not the rate, is most of it; but when a
// node sync changes a hundred load balancers, the last of them to be written cannot start before
// the tenth second at 10 writes/s, and which one has the longest chain is known only afterwards.
func chainFloor(srv *ocitest.Server, t0 time.Time, writes int, qps float64, burst int) time.Duration {
	all, shortest := chains(srv, t0)
	return writeBoundFloor(all, shortest, writes, qps, burst)
}

// writeBoundFloor is chainFloor over the phase's chains and its shortest work request.
func writeBoundFloor(all []Chain, shortest time.Duration, writes int, qps float64, burst int) time.Duration {
	floor := time.Duration(float64(writes)/qps*float64(time.Second)) + shortest
	var starts []time.Duration
	for _, ch := range all {
		starts = append(starts, ch.Accepted...)
	}
	slices.Sort(starts)
	for _, ch := range all {
		before, _ := slices.BinarySearch(starts, ch.Start) // accepted before its first
		earliest := time.Duration(float64(max(0, before+1-burst)) / qps * float64(time.Second))
		floor = max(floor, earliest+ch.Runs)
	}
	return floor
}

// profile starts a CPU profile into the file path; stop ends it.
func profile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// heapInUse is the heap in use after a full GC.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// RunBigCluster seeds o.Services load balancers over o.Nodes Nodes as Storm does, then measures
// through the upstream service controller: the steady state (its start: every Service synced
// against load balancers that need nothing), one Node added, one Node removed, and o.Replaced
// Nodes replaced (each new Node created, then an old one deleted, one pair after another without
// pause: a node pool replaced at once), and the heap.
func RunBigCluster(o BigClusterOptions) (BigCluster, error) {
	res := BigCluster{Options: o}
	ctx, cancel := context.WithCancel(quiet)
	c, err := newStormCluster(ctx, StormOptions{Services: o.Services, Nodes: o.Nodes, Added: 1 + o.Replaced, Workers: o.Workers,
		WriteQPS: o.WriteQPS, ReadQPS: o.ReadQPS, Cap: o.Cap, Scale: o.Scale, FastRestart: o.FastSteady})
	if err != nil {
		cancel()
		return res, err
	}
	defer c.w.Close()
	defer cancel() // the controller stops before the server
	w, kube := c.w, c.w.Kube.CoreV1().Nodes()
	res.HeapBefore = heapInUse()
	current := slices.Clone(w.Nodes[:o.Nodes])
	phase := func(name string, start func() error) error {
		if o.ProfileDir != "" {
			stop, err := profile(filepath.Join(o.ProfileDir, fmt.Sprintf("phase-%d.pprof", len(res.Phases)+1)))
			if err != nil {
				return err
			}
			defer stop()
		}
		before := ociBackends(w.Srv)
		p, err := c.measure(name, int64(o.Services), current, start)
		if err != nil {
			return err
		}
		var ch Chain
		if p.Writes > 0 {
			p.Floor = chainFloor(w.Srv, p.Start, p.Writes, o.WriteQPS, burstFor(o.WriteQPS))
			ch = lastChain(w.Srv, p.Start)
		}
		res.Phases = append(res.Phases, p)
		res.Chains = append(res.Chains, ch)
		res.Moved = append(res.Moved, moved(before, ociBackends(w.Srv)))
		return nil
	}
	if err := phase("steady state: the service controller's resync, nothing to change", func() error {
		c.run(ctx)
		return nil
	}); err != nil {
		return res, err
	}
	res.HeapAfter = heapInUse()
	c.limits()
	added := w.Nodes[o.Nodes]
	current = append(current, added)
	if err := phase("one Node added", func() error {
		_, err := kube.Create(ctx, added, metav1.CreateOptions{})
		return err
	}); err != nil {
		return res, err
	}
	removed := current[0]
	current = current[1:]
	if err := phase("one Node removed", func() error {
		return kube.Delete(ctx, removed.Name, metav1.DeleteOptions{})
	}); err != nil {
		return res, err
	}
	w.Clock.SetScale(w.scale)
	c.limits()
	fresh, old := w.Nodes[o.Nodes+1:], slices.Clone(current[:o.Replaced])
	current = append(current[o.Replaced:], fresh...)
	err = phase(fmt.Sprintf("rolling replacement of %d Nodes (%.0f%%)", o.Replaced, 100*float64(o.Replaced)/float64(o.Nodes)), func() error {
		for i, n := range fresh {
			if _, err := kube.Create(ctx, n, metav1.CreateOptions{}); err != nil {
				return err
			}
			if err := kube.Delete(ctx, old[i].Name, metav1.DeleteOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
	return res, err
}

// upstreamBig is the upstream CCM's reads and writes for a big-cluster phase, by its pattern:
// every Service's load balancer read on each sync, and every backend set written when the Nodes
// change (every Node is a backend of every set, so every set changes). Its load balancers could
// not exist at this size: OCI allows 512 backends per load balancer. For the rolling replacement
// it is the least: one node sync; each further sync during the rollout writes every set again.
func upstreamBig(p Phase, services, ports int) (reads, writes int, atLeast bool) {
	switch {
	case strings.HasPrefix(p.Name, "steady state"):
		return services, 0, false
	case strings.HasPrefix(p.Name, "rolling"):
		return services, services * ports, true
	}
	return services, services * ports, false
}

// WriteBigCluster writes the big-cluster table and its notes.
func WriteBigCluster(out io.Writer, title string, b BigCluster) {
	o := b.Options
	fmt.Fprintf(out, "\n#### %s\n\n", title)
	fmt.Fprintln(out, "| phase | converged in OCI | reads | writes | polls | 429s | failed reconciles | Services whose backends moved | most backends moved in a set | time | floor | ratio | upstream reads | upstream writes | goal |")
	fmt.Fprintln(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for i, p := range b.Phases {
		ratio := "—"
		if p.Floor > 0 {
			ratio = fmt.Sprintf("%.2f", p.Took.Seconds()/p.Floor.Seconds())
		}
		ur, uw, atLeast := upstreamBig(p, o.Services, 2)
		least := ""
		if atLeast {
			least = "≥ "
		}
		m := b.Moved[i]
		fmt.Fprintf(out, "| %s | %d of %d | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s%d | %s%d | %s |\n", p.Name, p.Done, p.Of,
			p.Reads, p.Writes, p.Polls, p.Status429, p.Errors, m.Services, m.Most, secs(p.Took), secs(p.Floor), ratio, least, ur, least, uw, bigGoal(p, m, i))
	}
	fmt.Fprintln(out)
	for _, p := range b.Phases {
		bound := "not bound by the CPU"
		if p.CPUShare() > cpuBound {
			bound = fmt.Sprintf("**CPU-bound** (over %.0f%%: its times overstate OCI's)", cpuBound*100)
		}
		fmt.Fprintf(out, "%s: %.1f s of CPU used and %.1f s waited for in %.1f s of real time, %.0f%% of %d CPUs wanted, %s; %d reconciles, %.0f ms each on average.\n",
			p.Name, p.CPU.Seconds(), p.CPUWait.Seconds(), p.Wall.Seconds(), 100*p.CPUShare(), runtime.NumCPU(), bound,
			p.Reconciles, float64(p.Busy.Milliseconds())/float64(max(1, p.Reconciles)))
		if p.CutShort != "" {
			fmt.Fprintf(out, "%s, cut short: %s.\n", p.Name, p.CutShort)
		}
	}
	for i, p := range b.Phases {
		if i < len(b.Chains) && b.Chains[i].WorkRequests > 0 {
			ch := b.Chains[i]
			fmt.Fprintf(out, "%s: the load balancer that finished last had %d work requests running %s (the longest chain: %s), the first accepted at %s, idle %s between them, the last finished at %s; work requests accepted in each 10 s: %s.\n",
				p.Name, ch.WorkRequests, secs(ch.Runs), secs(ch.Longest), secs(ch.Start), secs(ch.Idle), secs(ch.End), strings.Trim(fmt.Sprint(p.AcceptedPer10s), "[]"))
		}
	}
	fmt.Fprintf(out, "\nHeap in use after a GC at %d Nodes × %d Services: %.0f MiB once seeded, before the CCM started (ocitest's %d load balancers, the fake API's objects, the harness); %.0f MiB after the steady state, so about %.0f MiB for the CCM, the service controller and their informers.\n",
		o.Nodes, o.Services, mib(b.HeapBefore), o.Services, mib(b.HeapAfter), mib(b.HeapAfter)-mib(b.HeapBefore))
	if n := len(b.Phases); n > 0 && b.Phases[n-1].FirstError != "" {
		fmt.Fprintf(out, "\nThe first failed reconcile: %s\n", b.Phases[n-1].FirstError)
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// Big-cluster goals (issue 31): a single Node's change converges within bigRatio times its floor
// and moves at most maxMoved backends in any backend set; the steady state writes nothing.
const (
	bigRatio = 1.1
	maxMoved = 2
)

// bigGoal checks phase i of a big-cluster run: "met", or "**miss**: " and what missed.
func bigGoal(p Phase, m Moved, i int) string {
	var miss []string
	if p.CutShort != "" {
		miss = append(miss, "cut short")
	}
	if p.Errors > 0 {
		miss = append(miss, fmt.Sprintf("%d failed reconciles", p.Errors))
	}
	switch i {
	case 0:
		if p.Writes > 0 {
			miss = append(miss, fmt.Sprintf("%d writes, want none", p.Writes))
		}
	case 1, 2:
		if m.Most > maxMoved {
			miss = append(miss, fmt.Sprintf("%d backends moved in a set > %d", m.Most, maxMoved))
		}
		if p.Floor > 0 && p.Took.Seconds() > bigRatio*p.Floor.Seconds() {
			miss = append(miss, fmt.Sprintf("%s > %s (%.1f× floor)", secs(p.Took), secs(time.Duration(bigRatio*float64(p.Floor))), bigRatio))
		}
	default:
		return "reported (no goal)"
	}
	if len(miss) == 0 {
		return "met"
	}
	return "**miss**: " + strings.Join(miss, "; ")
}

// BigClusterBars are the big cluster's writes per phase, ours and upstream's pattern, for a
// BarChart (the steady state writes nothing either way, and is left out).
func BigClusterBars(b BigCluster) []Bar {
	var bars []Bar
	for _, p := range b.Phases {
		_, uw, atLeast := upstreamBig(p, b.Options.Services, 2)
		if uw == 0 && p.Writes == 0 {
			continue
		}
		label := p.Name
		if atLeast { // the chart's labels have room for some 38 characters
			label = fmt.Sprintf("%.0f%% replaced (upstream: at least)", 100*float64(b.Options.Replaced)/float64(b.Options.Nodes))
		}
		bars = append(bars, Bar{Label: label, Ours: float64(p.Writes), Upstream: float64(uw)})
	}
	return bars
}
