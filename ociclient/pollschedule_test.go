// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// simulatePolls runs the default poll schedule against a work request that ends after d, with a
// fake clock (no waiting): it returns how many polls found it done and how late the last one
// was. history is the durations earlier work requests of the same kind took.
func simulatePolls(t *testing.T, d time.Duration, otherKind bool, history ...time.Duration) (polls int, late time.Duration) {
	t.Helper()
	p, err := Options{Provider: nil}.withDefaults()
	if err == nil {
		t.Fatal("withDefaults accepted a missing Provider")
	}
	var h durationHistory
	kind := "UpdateBackendSet"
	for _, past := range history {
		if otherKind {
			h.record(serviceLB, "CreateLoadBalancer", past)
		} else {
			h.record(serviceLB, kind, past)
		}
	}
	first := h.firstWait(serviceLB, p.Poll)
	elapsed, wait, jumped := time.Duration(0), first, false
	for polls = 1; polls < 1000; polls++ {
		elapsed += wait
		if elapsed >= d {
			return polls, elapsed - d
		}
		var jump bool
		wait, jump = p.Poll.nextPoll(elapsed, first, wait, h.expected(serviceLB, kind), jumped, workRequestStatus{})
		jumped = jumped || jump
	}
	t.Fatalf("a %v work request was never found done", d)
	return 0, 0
}

func TestPollScheduleCountsAtEachDuration(t *testing.T) {
	type result struct {
		Polls int
		Late  time.Duration
	}
	tests := []struct {
		d       time.Duration
		history []time.Duration
		// other says the history is of another kind of work request.
		other bool
		want  result
	}{
		// Nothing known: 0.5 s, then ×1.5 up to 10 s between polls.
		{d: 500 * time.Millisecond, want: result{1, 0}},
		{d: 2 * time.Second, want: result{3, 375 * time.Millisecond}},     // 0.5, 1.25, 2.375 s
		{d: 10 * time.Second, want: result{6, 390625 * time.Microsecond}}, // …, 6.6, 10.4 s
		// Work requests took as long before: the first poll at that time (at most Max, 10 s),
		// the second at the time the kind took.
		{d: 2 * time.Second, history: []time.Duration{2 * time.Second}, want: result{1, 0}},
		{d: 30 * time.Second, history: []time.Duration{30 * time.Second}, want: result{2, 0}},
		{d: 120 * time.Second, history: []time.Duration{120 * time.Second}, want: result{2, 0}},
		// The shortest recent duration counts; a longer one is found within a tenth of the
		// time elapsed (at most Max): 10, 20, 22, 24.2, 26.6, …, 39, 42.9 s.
		{d: 40 * time.Second, history: []time.Duration{40 * time.Second, 20 * time.Second}, want: result{10, 2871776200 * time.Nanosecond}},
		// Much quicker than every recent one: found at the first poll, at most Max late (the
		// price of not polling seconds before any change ever ended).
		{d: 300 * time.Millisecond, history: []time.Duration{30 * time.Second}, want: result{1, 9700 * time.Millisecond}},
		// The first of its kind after creates that took 85 s: first poll at Max, then growing by
		// half the time elapsed, at most Max: 10, 15, 22.5, 32.5 s.
		{d: 31 * time.Second, history: []time.Duration{85 * time.Second}, other: true, want: result{4, 1500 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v after %v (other kind %v)", tt.d, tt.history, tt.other), func(t *testing.T) {
			polls, late := simulatePolls(t, tt.d, tt.other, tt.history...)
			if diff := cmp.Diff(tt.want, result{polls, late}); diff != "" {
				t.Errorf("polls and lateness (-want +got):\n%s", diff)
			}
		})
	}
}
