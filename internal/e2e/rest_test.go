// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// restWindow is how long atRest counts; restReads are the reads a CCM at rest makes none of: a
// load balancer and its parts, one by one. What runs on a schedule reads by listing (the drift
// check) or reads instances (the Node controllers), and is left out.
const restWindow = 20 * time.Second

var restReads = []string{"GetLoadBalancer", "GetNetworkLoadBalancer", "GetBackendSet", "GetBackendSetHealth"}

// atRest checks that the CCM, once what the steps before asked of it is done, leaves the load
// balancers alone: over restWindow, no write, no work-request poll and no read of a load balancer
// or its parts. A controller woken by its own writes, or a retry that skips its back-off, shows
// here as calls by the hundred (a refused BackendSetBinding read its load balancer 183 times a
// second so).
func (s *suite) atRest(t *testing.T, when string) {
	t.Helper()
	eventually(t, s.ctx, convergeTimeout, "no OCI write or work-request poll for 5 s "+when, func(ctx context.Context) (bool, string, error) {
		before, err := s.oci.calls(ctx)
		if err != nil {
			return false, "", err
		}
		time.Sleep(5 * time.Second)
		after, err := s.oci.calls(ctx)
		if err != nil {
			return false, "", err
		}
		d := after.Since(before)
		return d.Class(ocitest.ClassWrite)+d.Class(ocitest.ClassPoll) == 0, d.String(), nil
	})
	before, err := s.oci.calls(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(restWindow) // a window to count in, not a wait for anything
	after, err := s.oci.calls(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	d := after.Since(before)
	busy := d.Class(ocitest.ClassWrite) + d.Class(ocitest.ClassPoll)
	for _, op := range d.Ops() {
		if slices.Contains(restReads, op) {
			busy += d.Op(op)
		}
	}
	if busy > 0 {
		t.Errorf("OCI calls in %v at rest %s: %d writes, polls or reads of a load balancer, want none:\n%v", restWindow, when, busy, d)
	}
}
