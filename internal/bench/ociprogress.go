// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"maps"
	"slices"
	"time"

	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// This file reads from ocitest how far a storm got in OCI: the work requests accepted and
// finished, and the load balancers holding the backends lb chooses.

// ociProgress is how far OCI is with a phase.
type ociProgress struct {
	// pending counts unfinished work requests, failed the FAILED ones accepted in the phase.
	pending, failed int
	// lastFinished is when the last work request accepted in the phase finished, lastRan how
	// long it ran; lastAccepted is when the last one was accepted.
	lastFinished, lastAccepted time.Time
	lastRan                    time.Duration
	// holding counts the load balancers whose every backend set holds the backends lb chooses
	// for its Service.
	holding int
}

// workProgress reads the work requests accepted since t0.
func workProgress(srv *ocitest.Server, t0 time.Time) ociProgress {
	var p ociProgress
	for _, wr := range srv.WorkRequests() {
		if wr.TimeAccepted.Before(t0) {
			continue
		}
		switch wr.State {
		case ocitest.WorkRequestAccepted, ocitest.WorkRequestInProgress, ocitest.WorkRequestCanceling:
			p.pending++
		case ocitest.WorkRequestFailed:
			p.failed++
		}
		if wr.TimeFinished.After(p.lastFinished) {
			p.lastFinished, p.lastRan = wr.TimeFinished, wr.TimeFinished.Sub(wr.TimeStarted)
		}
		if wr.TimeAccepted.After(p.lastAccepted) {
			p.lastAccepted = wr.TimeAccepted
		}
	}
	return p
}

// workTimes returns when, from t0, each work request accepted since t0 was accepted and
// finished (those finished), each in order.
func workTimes(srv *ocitest.Server, t0 time.Time) (accepted, finished []time.Duration) {
	for _, wr := range srv.WorkRequests() {
		if wr.TimeAccepted.Before(t0) {
			continue
		}
		accepted = append(accepted, wr.TimeAccepted.Sub(t0))
		if !wr.TimeFinished.IsZero() {
			finished = append(finished, wr.TimeFinished.Sub(t0))
		}
	}
	slices.Sort(accepted)
	slices.Sort(finished)
	return accepted, finished
}

// acceptedPer10s counts the work requests accepted in each 10 s of the clock since t0.
func acceptedPer10s(srv *ocitest.Server, t0 time.Time) []int {
	var out []int
	for _, wr := range srv.WorkRequests() {
		if wr.TimeAccepted.Before(t0) {
			continue
		}
		i := int(wr.TimeAccepted.Sub(t0) / (10 * time.Second))
		for len(out) <= i {
			out = append(out, 0)
		}
		out[i]++
	}
	return out
}

// ociConverged counts, into p.holding and as its result, the load balancers whose every backend
// set holds exactly the backends lb chooses for its Service (backends, by the Service's
// namespace/name: every Node, or a subset past OCI's limits), whatever their ports.
func ociConverged(srv *ocitest.Server, backends map[string]map[string]bool, p *ociProgress) int {
	p.holding = 0
	for _, l := range srv.LoadBalancers() {
		want := backends[l.FreeformTags[model.TagService]]
		ok := len(l.BackendSets) > 0 && want != nil
		for _, set := range l.BackendSets {
			have := make(map[string]bool, len(set.Backends))
			for _, b := range set.Backends {
				if b.IpAddress != nil {
					have[*b.IpAddress] = true
				}
			}
			ok = ok && maps.Equal(have, want)
		}
		if ok {
			p.holding++
		}
	}
	return p.holding
}
