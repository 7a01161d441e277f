package ociclient

import (
	"context"
	"fmt"
	"time"
)

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
}

// awaitWorkRequest polls until the work request ends or ctx does. It waits poll.Initial before
// the first poll (a work request never ends the instant it is accepted) and multiplies the wait
// by poll.Factor after each poll, up to poll.Max, so a quick change is seen quickly and a slow
// one costs few calls. It returns nil on success and a *WorkRequestError on failure.
func (c *caller) awaitWorkRequest(ctx context.Context, service, id string, poll func(context.Context) (workRequestStatus, error)) error {
	log := c.logger(ctx).WithValues("service", service, "workRequest", id)
	start := c.clock.now()
	wait := c.poll.Initial
	var last workRequestStatus
	for polls := 1; ; polls++ {
		if err := c.clock.sleep(ctx, wait); err != nil {
			c.metrics.CountWorkRequest(ctx, service, "error")
			return fmt.Errorf("waiting for work request %s (%s, last state %q after %d polls): %w",
				id, last.operation, last.state, polls-1, err)
		}
		st, err := poll(ctx)
		c.metrics.CountWorkRequestPoll(ctx, service)
		if err != nil {
			c.metrics.CountWorkRequest(ctx, service, "error")
			return fmt.Errorf("polling work request %s: %w", id, err)
		}
		last = st
		log.V(4).Info("Polled work request", "state", st.state, "operation", st.operation, "poll", polls)
		switch {
		case st.succeeded:
			c.metrics.CountWorkRequest(ctx, service, "succeeded")
			log.V(2).Info("Work request succeeded", "operation", st.operation, "polls", polls,
				"duration", c.clock.now().Sub(start))
			return nil
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
			return wrErr
		}
		wait = min(time.Duration(float64(wait)*c.poll.Factor), c.poll.Max)
		if st.pollAfter > wait {
			wait = min(st.pollAfter, c.poll.Max)
		}
	}
}
