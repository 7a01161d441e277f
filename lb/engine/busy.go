// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// A network load balancer takes one change at a time: a change sent while another runs answers
// 409 Conflict ("Invalid State Transition of NLB lifeCycle state from Updating to Updating").
// ociclient retries it for seconds; a work request runs for tens of seconds (users' logs show
// 20–40 s for a load balancer change; OCI publishes no durations). So when a change still meets
// a busy network load balancer, the applier waits, reading it, until it is no longer UPDATING,
// and sends the change again; the reconcile's deadline bounds the wait. A 409 from one that was
// not busy is returned as it is.

// idlePoll is the first wait between reads of a busy network load balancer; it doubles up to
// idlePollMax.
const (
	idlePoll    = time.Second
	idlePollMax = 8 * time.Second
)

// busy reports whether err is a network load balancer refusing a change while another runs.
func busy(p product, err error) bool {
	return p.Kind() == model.KindNetworkLoadBalancer && ociclient.IsConflict(err) && !ociclient.IsInvalidatedRetryToken(err)
}

// changeWhenIdle is p.change, sent again after the network load balancer finishes what it is
// busy with.
func (a *applier) changeWhenIdle(ctx context.Context, id string, c model.Change) (string, error) {
	for {
		wr, err := a.p.Change(ctx, id, c)
		if !busy(a.p, err) {
			return wr, err
		}
		wasBusy, werr := a.awaitIdle(ctx, id)
		switch {
		case werr != nil:
			return "", fmt.Errorf("%w (then waiting for it to finish its other change: %w)", err, werr)
		case !wasBusy:
			return "", err // a 409 for another reason
		}
	}
}

// awaitIdle reads the network load balancer until it is not UPDATING; wasBusy is false when the
// first read found it so.
func (a *applier) awaitIdle(ctx context.Context, id string) (wasBusy bool, err error) {
	delay := idlePoll
	for {
		f, err := a.p.Get(ctx, id)
		if err != nil {
			return wasBusy, err
		}
		if f.State != lifecycleUpdating {
			return wasBusy, nil
		}
		wasBusy = true
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return wasBusy, ctx.Err()
		case <-t.C:
		}
		delay = min(2*delay, idlePollMax)
	}
}
