// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"fmt"
	"time"

	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

// Clock is the time a Client lives in: every wait it makes (work-request polls, retry backoff,
// the rate limiter) sleeps through it and every age it computes reads it. Production leaves
// Options.Clock nil (the wall clock). The benchmark harness passes a clock that runs 100 times
// faster, shared with an ocitest server on the same time, so OCI's real work-request durations
// play out in a hundredth of the time with every decision taken as it would be in real time.
type Clock interface {
	// Now is the current time.
	Now() time.Time
	// Sleep waits for d or until ctx ends, whichever is first, and returns ctx.Err() then.
	Sleep(ctx context.Context, d time.Duration) error
}

// workRequestStatus is one poll's view of a work request, whatever the service.
type workRequestStatus struct {
	// state is OCI's state as sent, e.g. "IN_PROGRESS".
	state string
	// operation is what the work request does, e.g. "CreateLoadBalancer".
	operation string
	// succeeded and failed are mutually exclusive; neither means it is still running.
	succeeded, failed bool
	// canceled says a failed work request was canceled rather than FAILED.
	canceled bool
	// messages explains a failure; called only when failed.
	messages func(ctx context.Context) ([]string, error)
	// pollAfter is the service's hint for the next poll, if it gave one.
	pollAfter time.Duration
	// accepted and finished are the work request's own timestamps (zero when not sent): how
	// long it really took, without the polling delay, is what the next one of its kind is
	// expected to take.
	accepted, finished time.Time
	// resourceID is the resource the work request acts on, e.g. the load balancer a
	// CreateLoadBalancer made ("" when not sent).
	resourceID string
	// percent is the work request's percentComplete (the NLB API sends it; 0 when not sent):
	// two readings give its rate, and so when it will end.
	percent float64
}

// percentOf reads an optional percentComplete: 0 when not sent.
func percentOf(p *float32) float64 {
	if p == nil {
		return 0
	}
	return float64(*p)
}

// awaitWorkRequest polls until the work request ends or ctx does, on the schedule described in
// pollschedule.go. It returns the resource the work request named (if any) and nil on success, and a
// *WorkRequestError on failure.
func (c *caller) awaitWorkRequest(ctx context.Context, service, id string, poll func(context.Context) (workRequestStatus, error)) (string, error) {
	log := c.logger(ctx).WithValues("service", service, "workRequest", id)
	start := c.clock.now()
	sched, wait := c.history.newSchedule(service, c.poll)
	var last workRequestStatus
	for polls := 1; ; polls++ {
		if err := c.clock.sleep(ctx, wait); err != nil {
			c.metrics.CountWorkRequest(ctx, service, "error")
			return "", fmt.Errorf("waiting for work request %s (%s, last state %q after %d polls): %w",
				id, last.operation, last.state, polls-1, err)
		}
		st, err := poll(ctx)
		c.metrics.CountWorkRequestPoll(ctx, service)
		if err != nil {
			c.metrics.CountWorkRequest(ctx, service, "error")
			return "", fmt.Errorf("polling work request %s: %w", id, err)
		}
		last = st
		log.V(4).Info("Polled work request", "state", st.state, "operation", st.operation, "poll", polls)
		// A work request queued behind others on its load balancer (lb's node syncs accept
		// several at once and wait for them in order) ran only from about when this wait began:
		// from its acceptance, its duration would include the queue.
		if began := later(st.accepted, start); (st.succeeded || st.failed) && !st.accepted.IsZero() && st.finished.After(began) {
			c.history.record(service, st.operation, st.finished.Sub(began))
		}
		switch {
		case st.succeeded:
			c.metrics.CountWorkRequest(ctx, service, "succeeded")
			log.V(2).Info("Work request succeeded", "operation", st.operation, "polls", polls,
				"duration", c.clock.now().Sub(start))
			return st.resourceID, nil
		case st.failed:
			c.metrics.CountWorkRequest(ctx, service, "failed")
			wrErr := &WorkRequestError{ID: id, Operation: st.operation, Canceled: st.canceled}
			if st.messages != nil {
				msgs, err := st.messages(ctx)
				if err != nil {
					// The failure is the news; the messages are a courtesy.
					msgs = append(msgs, fmt.Sprintf("(state %s; error details unavailable: %v)", st.state, err))
				}
				wrErr.Messages = msgs
			}
			log.V(2).Info("Work request failed", "operation", st.operation, "state", st.state, "polls", polls,
				"messages", wrErr.Messages)
			return "", wrErr
		}
		wait = sched.next(c.clock.now().Sub(start), st)
	}
}

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// WaitForWorkRequestResource is WaitForWorkRequest that also returns the OCID of the load
// balancer the work request acted on: for a CreateLoadBalancer, the new load balancer, which the
// create call itself does not return.
func (l *LoadBalancerClient) WaitForWorkRequestResource(ctx context.Context, workRequestID string) (string, error) {
	return l.c.awaitWorkRequest(ctx, serviceLB, workRequestID, func(ctx context.Context) (workRequestStatus, error) {
		req := loadbalancer.GetWorkRequestRequest{WorkRequestId: &workRequestID}
		resp, err := call(ctx, l.c, l.op("GetWorkRequest", classPoll, workRequestID), l.sdk.GetWorkRequest, req)
		if err != nil {
			return workRequestStatus{}, err
		}
		wr := resp.WorkRequest
		st := workRequestStatus{
			state:      string(wr.LifecycleState),
			operation:  deref(wr.Type),
			succeeded:  wr.LifecycleState == loadbalancer.WorkRequestLifecycleStateSucceeded,
			failed:     wr.LifecycleState == loadbalancer.WorkRequestLifecycleStateFailed,
			resourceID: deref(wr.LoadBalancerId),
		}
		if wr.TimeAccepted != nil && wr.TimeFinished != nil {
			st.accepted, st.finished = wr.TimeAccepted.Time, wr.TimeFinished.Time
		}
		if st.failed {
			st.messages = func(context.Context) ([]string, error) { return lbWorkRequestMessages(wr), nil }
		}
		return st, nil
	})
}
