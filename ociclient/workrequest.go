// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"fmt"
	"slices"
	"sync"
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
}

// lateFraction sizes the waits once a work request has run past the time its kind usually
// takes: a poll every tenth of the time elapsed, so finding it done costs at most ~10% extra
// time, within PollPolicy's Initial and Max.
const lateFraction = 10

// historySize is how many recent durations of each kind of work request the client remembers.
const historySize = 4

// durationHistory remembers how long recent work requests of each kind took, by their own
// timestamps. Safe for concurrent use.
type durationHistory struct {
	mu   sync.Mutex
	byOp map[string][]time.Duration
	// any holds the recent durations of every kind, by service.
	any map[string][]time.Duration
}

// record adds a finished work request's duration.
func (h *durationHistory) record(service, operation string, d time.Duration) {
	if operation == "" || d <= 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byOp == nil {
		h.byOp = map[string][]time.Duration{}
	}
	k := service + "/" + operation
	h.byOp[k] = lastN(append(h.byOp[k], d), historySize)
	if h.any == nil {
		h.any = map[string][]time.Duration{}
	}
	h.any[service] = lastN(append(h.any[service], d), 2*historySize)
}

func lastN(ds []time.Duration, n int) []time.Duration {
	if len(ds) > n {
		return ds[len(ds)-n:]
	}
	return ds
}

// firstWait is the wait before a work request's first poll, when its kind is not yet known:
// Initial, or the shortest recent duration of any work request of the service if longer, up to
// Max. With OCI's real durations (20 s and more) a change is not polled seconds before any
// change ever ended; a change that ends sooner than every recent one is found at most Max late.
func (h *durationHistory) firstWait(service string, p PollPolicy) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ds := h.any[service]; len(ds) > 0 {
		return min(max(p.Initial, slices.Min(ds)), p.Max)
	}
	return p.Initial
}

// expected is the shortest recent duration of a kind of work request, 0 if none is known: the
// shortest, so that a work request as quick as the quickest recent one is not found late.
func (h *durationHistory) expected(service, operation string) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	ds := h.byOp[service+"/"+operation]
	if len(ds) == 0 {
		return 0
	}
	return slices.Min(ds)
}

// nextPoll is the wait before the next poll of a work request that has run for elapsed, given
// the first and the previous wait, the time its kind recently took (0: unknown), whether the
// schedule already waited for that time, and what the last poll said.
//
// A work request's first poll comes after PollPolicy.Initial (or the shortest time any recent
// work request took, see firstWait), which finds quick changes quickly and tells the kind of
// work. If earlier work requests of that kind took longer than the time
// elapsed, the next poll waits until that time has passed: a listener change that took 30 s a
// minute ago costs two polls, not twenty. Past that time (or with no history) the wait grows:
// by PollPolicy.Factor per poll when nothing is known (by Factor-1 times the time elapsed when
// other kinds' durations set a long first wait), to a tenth of the time elapsed once it is late, always within Initial and Max. A Retry-After hint from OCI is honoured up to Max.
func (p PollPolicy) nextPoll(elapsed, first, prev, expected time.Duration, jumped bool, st workRequestStatus) (wait time.Duration, jump bool) {
	switch {
	case !jumped && expected > elapsed+p.Initial:
		wait, jump = expected-elapsed, true
	case jumped || expected > 0:
		wait = elapsed / lateFraction
	case first > p.Initial:
		// The first of its kind after a first wait as long as other work requests took: it
		// is probably about as long, so grow with the time elapsed, not from that long wait.
		wait = time.Duration(float64(elapsed) * (p.Factor - 1))
	default:
		wait = time.Duration(float64(prev) * p.Factor)
	}
	wait = min(max(wait, p.Initial), p.Max)
	if jump && expected-elapsed > wait {
		// The jump to the expected end may exceed Max: waiting less would only find it running.
		wait = expected - elapsed
	}
	if st.pollAfter > wait {
		wait = min(st.pollAfter, p.Max)
	}
	return wait, jump
}

// awaitWorkRequest polls until the work request ends or ctx does, on the schedule nextPoll
// describes. It returns the resource the work request named (if any) and nil on success, and a
// *WorkRequestError on failure.
func (c *caller) awaitWorkRequest(ctx context.Context, service, id string, poll func(context.Context) (workRequestStatus, error)) (string, error) {
	log := c.logger(ctx).WithValues("service", service, "workRequest", id)
	start := c.clock.now()
	wait := c.history.firstWait(service, c.poll)
	first, jumped := wait, false
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
		if (st.succeeded || st.failed) && !st.accepted.IsZero() && st.finished.After(st.accepted) {
			c.history.record(service, st.operation, st.finished.Sub(st.accepted))
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
		var jump bool
		wait, jump = c.poll.nextPoll(c.clock.now().Sub(start), first, wait, c.history.expected(service, st.operation), jumped, st)
		jumped = jumped || jump
	}
}

// WaitForWorkRequestResource is WaitForWorkRequest that also returns the OCID of the load
// balancer the work request acted on: for a CreateLoadBalancer, the new load balancer, which the
// create call itself does not return.
func (l *LoadBalancerClient) WaitForWorkRequestResource(ctx context.Context, workRequestID string) (string, error) {
	return l.c.awaitWorkRequest(ctx, serviceLB, workRequestID, func(ctx context.Context) (workRequestStatus, error) {
		req := loadbalancer.GetWorkRequestRequest{WorkRequestId: &workRequestID}
		resp, err := invoke(ctx, l.c, l.op("GetWorkRequest", classPoll, workRequestID),
			func(ctx context.Context) (loadbalancer.GetWorkRequestResponse, error) {
				return l.sdk.GetWorkRequest(ctx, req)
			})
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
