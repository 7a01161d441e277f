// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"slices"
	"testing"
	"time"
)

// A young Reconciler waits for OCI's listings on the clock that measured the wait
// (Options.Sleep with Options.Now): slept on the wall clock, a wait measured on the bench's fast
// clock lasted a hundred times longer.
func TestTheListingLagIsWaitedOnTheClockItIsMeasuredBy(t *testing.T) {
	now := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	var slept []time.Duration
	l := newListingLag(func() time.Time { return now }, func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		now = now.Add(d)
		return nil
	}, 5*time.Second)
	now = now.Add(2 * time.Second) // the Reconciler has run 2 s of its 5 s lag
	if err := l.await(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if err := l.await(context.Background(), ""); err != nil { // the lag has passed: no wait
		t.Fatal(err)
	}
	if want := []time.Duration{3 * time.Second}; !slices.Equal(slept, want) {
		t.Errorf("slept %v on the Reconciler's clock, want %v", slept, want)
	}
}
