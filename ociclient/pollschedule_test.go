// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// defaultPoll is the schedule a Client gets when Options.Poll is zero.
var defaultPoll = PollPolicy{Initial: DefaultPollInitial, Max: DefaultPollMax, Factor: DefaultPollFactor}

// past is a work request the process saw end before, by operation and duration.
type past struct {
	op string
	d  time.Duration
}

// simulatePolls runs the default schedule on an injected clock (no waiting) against a work
// request of service and operation op that ends after d, after the process saw history end:
// it returns how many polls found it done and how late the last one was. percent, if set, is
// the percentComplete the work request reports after running for a time.
func simulatePolls(t *testing.T, service string, history []past, op string, d time.Duration, percent func(time.Duration) float64) (polls int, late time.Duration) {
	t.Helper()
	var h durationHistory
	for _, p := range history {
		h.record(service, p.op, p.d)
	}
	sched, wait := h.newSchedule(service, defaultPoll)
	var elapsed time.Duration
	for polls = 1; polls < 1000; polls++ {
		elapsed += wait
		if elapsed >= d {
			return polls, elapsed - d
		}
		st := workRequestStatus{state: "IN_PROGRESS", operation: op}
		if percent != nil {
			st.percent = percent(elapsed)
		}
		wait = sched.next(elapsed, st)
	}
	t.Fatalf("a %v work request was never found done", d)
	return 0, 0
}

const sec = time.Second

func TestPollScheduleCountsAtEachDuration(t *testing.T) {
	type result struct {
		Polls int
		Late  time.Duration
	}
	ociCreate := past{"CreateLoadBalancer", 85 * sec}
	tests := []struct {
		name    string
		service string // serviceLB unless set
		history []past
		op      string
		d       time.Duration
		percent func(time.Duration) float64
		want    result
	}{
		// Nothing known: 0.5 s, then ×1.5 up to 10 s between polls. Quick work requests (ocitest's
		// 30 ms default, the 0.5 s and 2 s sweeps) stay quick to find.
		{name: "nothing known, ocitest's default", op: "CreateLoadBalancer", d: 30 * time.Millisecond,
			want: result{1, 470 * time.Millisecond}},
		{name: "nothing known, 0.5 s", op: "CreateLoadBalancer", d: 500 * time.Millisecond, want: result{1, 0}},
		{name: "nothing known, 2 s", op: "CreateLoadBalancer", d: 2 * sec,
			want: result{3, 375 * time.Millisecond}}, // 0.5, 1.25, 2.375 s
		{name: "nothing known, 10 s", op: "CreateLoadBalancer", d: 10 * sec,
			want: result{6, 390625 * time.Microsecond}}, // …, 6.59, 10.39 s
		// The same kind took as long before (quicker than OCI): first poll at that time.
		{name: "a change after a change of 2 s", history: []past{{"UpdateBackendSet", 2 * sec}},
			op: "UpdateBackendSet", d: 2 * sec, want: result{1, 0}},
		// Every change is one kind: a listener created after backend sets were updated in 30 s
		// is polled at OCI's shortest change (20 s), then at 30 s.
		{name: "a new listener after backend-set updates of 30 s",
			history: []past{{"CreateLoadBalancer", 30 * sec}, {"UpdateBackendSet", 30 * sec}, {"UpdateBackendSet", 30 * sec}},
			op:      "CreateListener", d: 30 * sec, want: result{2, 0}},
		// Not OCI's pace (a 120 s change; OCI's are 20–40 s): the kind's own duration, after a
		// first poll at Max.
		{name: "a change after a change of 120 s", history: []past{{"CreateLoadBalancer", 120 * sec}, {"UpdateBackendSet", 120 * sec}},
			op: "UpdateBackendSet", d: 120 * sec, want: result{2, 0}},
		// The first change after a create at OCI's pace: OCI's change range, 20–40 s, polled at
		// 20 s and every tenth of the time elapsed: 20, 22, 24.2, …, 35.4, 39.0 s.
		{name: "the first change after a create at OCI's pace", history: []past{ociCreate},
			op: "UpdateBackendSet", d: 37 * sec, want: result{8, 1974342 * time.Microsecond}},
		// One change of 37 s says little about the next: OCI's range again, not 37 s.
		{name: "a quicker change after one of 37 s", history: []past{ociCreate, {"UpdateBackendSet", 37 * sec}},
			op: "UpdateBackendSet", d: 25 * sec, want: result{4, 1620 * time.Millisecond}}, // 20, 22, 24.2, 26.62 s
		// Several changes span 25–30 s: poll from 25 s; past the slowest, every tenth:
		// 20, 25, 27.5, 30.25, 33.3, 36.6, 40.3, 44.3, 48.7 s.
		{name: "a change slower than every recent one",
			history: []past{ociCreate, {"UpdateBackendSet", 25 * sec}, {"CreateListener", 30 * sec}},
			op:      "UpdateListener", d: 45 * sec, want: result{9, 3717928 * time.Microsecond}},
		// A create at OCI's pace: OCI's create range from 60 s.
		{name: "a second create at OCI's pace", history: []past{ociCreate, {"UpdateBackendSet", 30 * sec}},
			op: "CreateLoadBalancer", d: 115 * sec, want: result{9, 1293660 * time.Microsecond}}, // 20, 60, 66, …, 106.3, 116.3 s (at most Max apart)
		// Far quicker than OCI ever is: found at OCI's shortest, the price of trusting its pace.
		{name: "a change far quicker than OCI's", history: []past{ociCreate},
			op: "UpdateBackendSet", d: 300 * time.Millisecond, want: result{1, 19700 * time.Millisecond}},
		// The first change after a create of 30 s (not OCI's pace): first poll at Max, then
		// growing by half the time elapsed: 10, 15, 22.5, 32.5 s.
		{name: "the first change after a quick create", history: []past{{"CreateLoadBalancer", 30 * sec}},
			op: "UpdateBackendSet", d: 31 * sec, want: result{4, 1500 * time.Millisecond}},
		// NLB: no published durations. percentComplete at two polls gives the end; a second
		// estimate that agrees is waited for: 0.5, 1.25, 11.25, then 90 s.
		{name: "an NLB create reporting its progress", service: serviceNLB, op: "CREATE_NETWORK_LOAD_BALANCER", d: 90 * sec,
			percent: func(e time.Duration) float64 { return 100 * e.Seconds() / 90 }, want: result{4, 0}},
		// A reading of 100% before SUCCEEDED (a float32 rounds 99.9999 up): looked at again
		// after Initial, not Max. 0.5, 1.25, 11.25 s, then the end estimated a hair early
		// (reading 100), then 0.5 s later.
		{name: "an NLB create reading 100% a moment before its end", service: serviceNLB, op: "CREATE_NETWORK_LOAD_BALANCER",
			d: 90*sec + time.Millisecond, percent: func(e time.Duration) float64 { return min(100, 100*e.Seconds()/90) },
			want: result{5, 499 * time.Millisecond}},
		// Progress in steps of 25% every 22.5 s misleads a rate from two readings; estimates
		// that disagree wait at most Max: no worse than without progress (below).
		{name: "an NLB create reporting its progress in steps", service: serviceNLB, op: "CREATE_NETWORK_LOAD_BALANCER", d: 90 * sec,
			percent: func(e time.Duration) float64 { return 25 * float64(int(e.Seconds()/22.5)) }, want: result{15, 4628906 * time.Microsecond}},
		{name: "an NLB create without progress", service: serviceNLB, op: "CREATE_NETWORK_LOAD_BALANCER", d: 90 * sec,
			want: result{15, 4628906 * time.Microsecond}}, // …, 84.6, 94.6 s
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			service := tt.service
			if service == "" {
				service = serviceLB
			}
			polls, late := simulatePolls(t, service, tt.history, tt.op, tt.d, tt.percent)
			// Float arithmetic in the progress estimate may land a few nanoseconds either way.
			if diff := cmp.Diff(tt.want, result{polls, late.Round(time.Microsecond)}); diff != "" {
				t.Errorf("polls and lateness (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPollScheduleHonoursRetryAfterUpToMax(t *testing.T) {
	tests := []struct {
		pollAfter, want time.Duration
	}{
		{pollAfter: 0, want: 750 * time.Millisecond},                      // 0.5 s × 1.5
		{pollAfter: 4 * sec, want: 4 * sec},                               // longer than planned: OCI's wish
		{pollAfter: 100 * time.Millisecond, want: 750 * time.Millisecond}, // shorter: the plan
		{pollAfter: time.Minute, want: DefaultPollMax},                    // at most Max
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.pollAfter), func(t *testing.T) {
			var h durationHistory
			sched, first := h.newSchedule(serviceLB, defaultPoll)
			got := sched.next(first, workRequestStatus{operation: "CreateListener", pollAfter: tt.pollAfter})
			if got != tt.want {
				t.Errorf("wait after a poll asking for %v = %v, want %v", tt.pollAfter, got, tt.want)
			}
		})
	}
}

func TestKindOfGroupsOperationsByHowLongOCITakes(t *testing.T) {
	for op, want := range map[string]string{
		"CreateLoadBalancer":           kindCreate,
		"CREATE_NETWORK_LOAD_BALANCER": kindCreate,
		"DeleteLoadBalancer":           kindDelete,
		"DELETE_NETWORK_LOAD_BALANCER": kindDelete,
		"UpdateLoadBalancerShape":      kindShape,
		"CreateListener":               kindChange,
		"UpdateBackendSet":             kindChange,
		"DeleteCertificate":            kindChange,
		"UPDATE_NETWORK_LOAD_BALANCER": kindChange,
		"CREATE_BACKEND":               kindChange,
		"":                             "",
	} {
		if got := kindOf(op); got != want {
			t.Errorf("kindOf(%q) = %q, want %q", op, got, want)
		}
	}
}

func TestOCIsPaceIsTrustedOnlyWhenMostRecentWorkRequestsKeptIt(t *testing.T) {
	tests := []struct {
		name    string
		service string
		history []past
		want    time.Duration // the first wait of the next work request
	}{
		{name: "nothing known", history: nil, want: DefaultPollInitial},
		{name: "ocitest's quick work requests", history: []past{{"CreateLoadBalancer", 30 * time.Millisecond}}, want: DefaultPollInitial},
		{name: "creates of 30 s: not OCI's pace, at most Max", history: []past{{"CreateLoadBalancer", 30 * sec}}, want: DefaultPollMax},
		{name: "a create at OCI's pace: OCI's shortest change", history: []past{{"CreateLoadBalancer", 85 * sec}}, want: 20 * sec},
		{name: "half at OCI's pace is not most",
			history: []past{{"CreateLoadBalancer", 85 * sec}, {"UpdateBackendSet", 120 * sec}}, want: DefaultPollMax},
		{name: "deletes have no published duration and do not count",
			history: []past{{"CreateLoadBalancer", 85 * sec}, {"DeleteLoadBalancer", 45 * sec}, {"DeleteLoadBalancer", 45 * sec}}, want: 20 * sec},
		{name: "a quicker work request of a kind without a range lowers the first wait",
			history: []past{{"CreateLoadBalancer", 85 * sec}, {"UpdateLoadBalancerShape", 12 * sec}}, want: 12 * sec},
		{name: "NLB: no published durations", service: serviceNLB,
			history: []past{{"CREATE_NETWORK_LOAD_BALANCER", 85 * sec}}, want: DefaultPollMax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			service := tt.service
			if service == "" {
				service = serviceLB
			}
			var h durationHistory
			for _, p := range tt.history {
				h.record(service, p.op, p.d)
			}
			if got := h.firstWait(service, defaultPoll); got != tt.want {
				t.Errorf("first wait = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPercentOfReadsAnOptionalPercentComplete covers the helper the NLB waiter passes
// percentComplete through (an NLB work request may omit it).
func TestPercentOfReadsAnOptionalPercentComplete(t *testing.T) {
	half := float32(50)
	if got := percentOf(&half); got != 50 {
		t.Errorf("percentOf(50) = %v, want 50", got)
	}
	if got := percentOf(nil); got != 0 {
		t.Errorf("percentOf(nil) = %v, want 0 (not sent)", got)
	}
}
