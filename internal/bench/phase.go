// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// This file holds what a phase of a storm measures (Phase) and how it is judged (Goal), and the
// figures of the machine it ran on.

// Phase is one phase of a storm: what it cost and how far it got.
type Phase struct {
	Name                            string
	Reads, Writes, Polls, Status429 int
	// Done counts the Services converged: reconciled by the service controller and their load
	// balancers as OCI has them holding the backends lb chooses (see ociConverged); Of is all of them.
	Done, Of int
	// Start is when the phase began, on the clock: every time of the phase is from it.
	Start       time.Time
	Took, Floor time.Duration
	// Errors counts failed reconciles; FailedWorkRequests the work requests that ended FAILED.
	Errors             int64
	FailedWorkRequests int
	// MaxRules is the most ingress or egress rules any security list holds at the end.
	MaxRules int
	// FirstError is the error of the first failed reconcile of the storm, if any.
	FirstError string
	// CutShort says, for a phase stopped at the cap, what it was still waiting for.
	CutShort string
	// CPU is the CPU time this process (CCM, ocitest and harness together) spent in the phase,
	// CPUWait how long its threads were ready to run but waited for a CPU (the machine's other
	// work, or its own), Wall the real time the phase took: a fast clock is only faithful while
	// the CPU keeps up.
	CPU, CPUWait, Wall time.Duration
	// Reconciles counts the service controller's calls into the cloud provider that ended in the
	// phase; Busy is the clock's time they took, summed: with one worker, Busy near Took means
	// the worker set the pace, not OCI's limits.
	Reconciles int64
	Busy       time.Duration
	// LastAccepted is when, from the phase's start, OCI accepted its last work request, and
	// LastRan how long the work request that finished last ran: a storm cannot end before its
	// floor plus the run of a work request written last.
	LastAccepted, LastRan time.Duration
	// AcceptedPer10s counts the work requests OCI accepted in each 10 s of the clock from the
	// phase's start: a count under the write limit's 100 is write tokens unused.
	AcceptedPer10s []int
	// Accepted and Finished are when, from the phase's start, each work request of the phase
	// was accepted and finished (the finished ones), in order: StormChart draws them.
	Accepted, Finished []time.Duration
	// Drift, for the drift check after the storm, is what it was asked to find and found.
	Drift *DriftFigures
	// New, for the phase after the drift check, is the fair-storm figures (NewServiceAt).
	New *NewService
}

// DriftFigures are a drift check's: of LoadBalancers, Made were changed out of band, and Found
// of them reported drifted (with Reasons); Skipped are the Services not compared, by why.
type DriftFigures struct {
	LoadBalancers, Made, Found int
	Reasons                    []string
	Skipped                    map[string]int
}

// cpuBound is the share of the machine's CPUs above which a phase is reported as bound by
// them: the clock then runs ahead of the work, and every figure in time overstates OCI's.
const cpuBound = 0.7

// CPUShare is the CPU the phase wanted (used, and waited for) as a share of all the machine's
// CPUs over its real time.
func (p Phase) CPUShare() float64 {
	if p.Wall <= 0 {
		return 0
	}
	return (p.CPU + p.CPUWait).Seconds() / (p.Wall.Seconds() * float64(runtime.NumCPU()))
}

// CPUPerThousandCalls is the phase's CPU time per 1,000 OCI calls (reads, writes and polls),
// zero without calls or CPU figures. The process holds the harness and ocitest too, so it
// overstates the CCM's own share; it compares runs of the same bench.
func (p Phase) CPUPerThousandCalls() time.Duration {
	calls := p.Reads + p.Writes + p.Polls
	if calls == 0 || p.CPU <= 0 {
		return 0
	}
	return p.CPU * 1000 / time.Duration(calls)
}

// cpuWait is how long this process's threads have waited for a CPU while ready to run, from
// Linux's per-thread schedstat (0 where there is none).
func cpuWait() time.Duration {
	tasks, _ := os.ReadDir("/proc/self/task")
	var total time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) >= 2 {
			ns, _ := strconv.ParseInt(f[1], 10, 64)
			total += time.Duration(ns)
		}
	}
	return total
}

// processCPU is the CPU time, user and system, this process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// PeakRSS is the process's peak resident memory (VmHWM), ocitest's state included.
func PeakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return "unknown"
}

// Storm goals (issue #15): the Services converge within stormGoal times the floor, with no
// failed reconcile and no list over OCI's rule limit; a restart's reads are O(list pages): at
// most one per page of listPage load balancers, plus restartOtherReads (the security lists and
// subnets, as many whatever the number of Services).
const (
	stormGoal         = 1.2
	listPage          = 100
	ociRuleLimit      = 200
	restartOtherReads = 5
)

// Goal checks a phase against the storm goals: "met", or "**miss**: " and what missed.
func (p Phase) Goal() string {
	var miss []string
	if p.CutShort != "" {
		miss = append(miss, "cut short")
	}
	if p.Errors > 0 {
		miss = append(miss, fmt.Sprintf("%d failed reconciles", p.Errors))
	}
	if p.MaxRules > ociRuleLimit {
		miss = append(miss, fmt.Sprintf("%d rules in a list > %d", p.MaxRules, ociRuleLimit))
	}
	switch {
	case p.Drift != nil:
		pages := (p.Drift.LoadBalancers + listPage - 1) / listPage
		if calls := p.Reads + p.Writes + p.Polls; calls > pages {
			miss = append(miss, fmt.Sprintf("%d calls > %d (one per %d load balancers)", calls, pages, listPage))
		}
		if p.Drift.Found < p.Drift.Made {
			miss = append(miss, fmt.Sprintf("found %d of %d", p.Drift.Found, p.Drift.Made))
		}
	case p.Floor > 0 && p.Took.Seconds() > stormGoal*p.Floor.Seconds():
		miss = append(miss, fmt.Sprintf("%s > %s (%.1f× floor)", secs(p.Took), secs(time.Duration(stormGoal*float64(p.Floor))), stormGoal))
	case p.Writes == 0:
		if pages := (p.Of + listPage - 1) / listPage; p.Reads > pages+restartOtherReads {
			miss = append(miss, fmt.Sprintf("%d reads > %d pages + %d", p.Reads, pages, restartOtherReads))
		}
	}
	if len(miss) == 0 {
		return "met"
	}
	return "**miss**: " + strings.Join(miss, "; ")
}

// LoadAverage is the machine's 1-minute load average and CPU count, e.g. "3.86 on 2 CPUs": the
// 100× clock turns every millisecond this machine's other work takes from the harness into
// 0.1 s of scaled time, so a loaded machine shifts the figures (the storm most, which is
// CPU-bound; "waiting" least, which counts only waits).
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return "unknown"
	}
	return fmt.Sprintf("%s on %d CPUs", fields[0], runtime.NumCPU())
}
