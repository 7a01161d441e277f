// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"
)

// This file writes a storm's phases as RESULTS.md shows them.

// WriteStorm writes a storm's phases.
func WriteStorm(out io.Writer, title string, ps []Phase) {
	fmt.Fprintf(out, "\n#### %s\n\n", title)
	fmt.Fprintln(out, "| phase | converged in OCI | reads | writes | polls | 429s | failed reconciles | failed work requests | most rules in a list | time | projected for all | floor (writes ÷ limit, projected) | ratio | goal |")
	fmt.Fprintln(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, p := range ps {
		if p.New != nil {
			continue // below the table
		}
		// A phase cut short is projected linearly to all Services, its floor too.
		done := min(max(p.Done, 1), p.Of)
		scale := float64(p.Of) / float64(done)
		projected := time.Duration(float64(p.Took) * scale)
		floor := time.Duration(float64(p.Floor) * scale)
		ratio := "—"
		if floor > 0 {
			ratio = fmt.Sprintf("%.2f", projected.Seconds()/floor.Seconds())
		}
		fmt.Fprintf(out, "| %s | %d of %d | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s | %s |\n", p.Name, p.Done, p.Of, p.Reads, p.Writes,
			p.Polls, p.Status429, p.Errors, p.FailedWorkRequests, p.MaxRules, secs(p.Took), secs(projected), secs(floor), ratio, p.Goal())
	}
	fmt.Fprintln(out)
	for _, p := range ps {
		if p.Wall == 0 {
			continue // the drift check: no CPU figures
		}
		bound := "not bound by the CPU"
		if p.CPUShare() > cpuBound {
			bound = fmt.Sprintf("**CPU-bound** (over %.0f%%: its times overstate OCI's)", cpuBound*100)
		}
		fmt.Fprintf(out, "%s: %.1f s of CPU used and %.1f s waited for in %.1f s of real time, %.0f%% of %d CPUs wanted, %s.\n",
			p.Name, p.CPU.Seconds(), p.CPUWait.Seconds(), p.Wall.Seconds(), 100*p.CPUShare(), runtime.NumCPU(), bound)
		// Only where calls are what the CPU went to: a restart's 2,000 syncs make a dozen calls.
		if per := p.CPUPerThousandCalls(); per > 0 && p.Reads+p.Writes+p.Polls >= 1000 {
			fmt.Fprintf(out, "%s: %.1f s of CPU per 1,000 OCI calls (the harness, ocitest and the CCM in one process).\n", p.Name, per.Seconds())
		}
	}
	for _, p := range ps {
		if p.Reconciles > 0 {
			fmt.Fprintf(out, "%s: %d reconciles took %.1f s of the clock in all, %.0f ms each on average.\n",
				p.Name, p.Reconciles, p.Busy.Seconds(), float64(p.Busy.Milliseconds())/float64(p.Reconciles))
		}
		if p.Drift != nil {
			reasons := p.Drift.Reasons
			if len(reasons) > 5 {
				reasons = append(reasons[:5:5], fmt.Sprintf("and %d more", len(p.Drift.Reasons)-5))
			}
			fmt.Fprintf(out, "%s: %d of %d load balancers checked, found drifted: %s.", p.Name, p.Done, p.Of, strings.Join(reasons, "; "))
			for _, why := range slices.Sorted(maps.Keys(p.Drift.Skipped)) {
				fmt.Fprintf(out, " Not checked: %d (%s).", p.Drift.Skipped[why], why)
			}
			fmt.Fprintln(out)
		}
		if len(p.AcceptedPer10s) > 0 {
			fmt.Fprintf(out, "%s: work requests accepted in each 10 s of the clock: %s.\n", p.Name, strings.Trim(fmt.Sprint(p.AcceptedPer10s), "[]"))
		}
		if p.LastAccepted > 0 {
			fmt.Fprintf(out, "%s: the last work request was accepted at %s (floor %s), the last to finish ran %s.\n",
				p.Name, secs(p.LastAccepted), secs(p.Floor), secs(p.LastRan))
		}
	}
	for _, p := range ps {
		if p.CutShort != "" {
			fmt.Fprintf(out, "\n%s, cut short: %s.\n", p.Name, p.CutShort)
		}
	}
	for _, p := range ps {
		if p.New != nil {
			fmt.Fprintf(out, "\n%s\n", p.New)
		}
	}
	for i := len(ps) - 1; i >= 0; i-- {
		if ps[i].FirstError != "" {
			fmt.Fprintf(out, "\nThe first failed reconcile: %s\n", ps[i].FirstError)
			break
		}
	}
}

// fairSlack is what a Service created in a storm may take beyond its time alone and one create
// work request (issue 31).
const fairSlack = 10 * time.Second

// Bound is the time to an IP a Service created in a storm should keep within: its time alone,
// plus one create work request, plus fairSlack; 0 without both figures.
func (n NewService) Bound() time.Duration {
	if n.Alone == 0 || n.CreateRun == 0 {
		return 0
	}
	return n.Alone + n.CreateRun + fairSlack
}

// String reports the fair-storm figures and the goal.
func (n NewService) String() string {
	if n.Storm == 0 {
		return "A new Service created during the storm: **miss**: it got no IP (or the node phase ended before it was created)."
	}
	goal := "met"
	switch b := n.Bound(); {
	case b == 0:
		goal = "**miss**: no figure alone or no create work request to bound it"
	case n.Storm > b:
		goal = fmt.Sprintf("**miss**: %s > %s", secs(n.Storm), secs(b))
	}
	return fmt.Sprintf("A new Service created during the storm's node phase got its IP in %s; one created alone after the storm in %s; "+
		"the first one's create work request ran %s, so the bound is %s + %s + %s = %s: %s.",
		secs(n.Storm), secs(n.Alone), secs(n.CreateRun), secs(n.Alone), secs(n.CreateRun), secs(fairSlack), secs(n.Bound()), goal)
}
