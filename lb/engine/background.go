// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Work that outlasts the caller's wait.
//
// The service controller runs few workers (--concurrent-service-syncs, 1 by default), and each
// EnsureLoadBalancer, UpdateLoadBalancer and EnsureLoadBalancerDeleted holds one until it
// returns. A create runs one to two minutes in OCI, and a work request that never finishes would
// hold the worker until Options.Timeout, again at every retry: a few such load balancers would
// stall every other Service of the cluster. So Ensure, Update and Delete run their work as a job
// of the Service, and wait for it at most Options.MaxWait (or until the caller's own deadline,
// if that comes first):
//
//   - A job that ends within the wait is the call's result, as if it had run in the caller.
//   - Otherwise the call returns a *PendingError saying what is being applied, and the job goes
//     on, bounded by Options.Timeout like any reconcile. When it ends, Options.PendingDone (if set)
//     is called, so the Service is synced again at once and that sync reports the outcome.
//   - A call for a Service whose job is still running returns a *PendingError at once, without
//     reading or writing anything in OCI: nothing is planned against a load balancer that is
//     still changing, and the worker is given back at once. The first call after the job ended
//     plans afresh from what OCI then has.
//
// A job runs on its own context: the caller's values (its logger) without its cancellation or
// deadline, within Options.Timeout.

// defaultMaxWait is how long a call waits for its job when Options.MaxWait is zero: a minute,
// which covers a change (20–40 s in OCI) and leaves most of a create (1–2 min) to the background.
const defaultMaxWait = time.Minute

// maxWaitTick is how often a waiting call reads the clock to see whether MaxWait has passed: a
// tenth of a second past MaxWait is nothing to a caller who waited a minute.
const maxWaitTick = 20 * time.Millisecond

// requeueTimeout bounds one call of Options.PendingDone.
const requeueTimeout = 30 * time.Second

// PendingError is returned by Ensure, Update and Delete when the Service's work was still running
// when the call stopped waiting (Options.MaxWait, or the caller's deadline): it goes on in the
// background, and Options.PendingDone is called when it ends. Nothing is wrong yet: sync the Service
// again later (the cloud-provider glue returns a retry error), and that sync reports the outcome.
type PendingError struct {
	// Service is the Service's namespace/name.
	Service string
	// Operation is what is running: "ensure", "update" or "delete".
	Operation string
	// LoadBalancerID is the load balancer being changed; empty while a create has not yet been
	// accepted, or before the load balancer was found.
	LoadBalancerID string
	// Pending says what is being applied (Summary of the plan); empty while the job is still
	// reading what exists.
	Pending string
	// Since is when the work started.
	Since time.Time
	// Waited is how long this call waited for it; zero when the work was left running by an
	// earlier call, which this one did not wait for.
	Waited time.Duration
	// CallerDeadline says the wait ended because the caller's context did, before MaxWait; the
	// error then also matches the context's error (errors.Is with context.DeadlineExceeded or
	// context.Canceled).
	CallerDeadline bool

	cause error // the caller's context error, with CallerDeadline
}

// Unwrap returns the caller's context error when that ended the wait, else nil.
func (e *PendingError) Unwrap() error { return e.cause }

func (e *PendingError) Error() string {
	what := e.Pending
	if what == "" {
		what = "reading the load balancer"
		if e.LoadBalancerID != "" {
			what += " " + e.LoadBalancerID
		}
	}
	var why string
	switch {
	case e.Waited == 0:
		why = "left running by an earlier sync"
	case e.CallerDeadline && errors.Is(e.cause, context.Canceled):
		why = fmt.Sprintf("not finished when the caller gave up (after %s)", e.Waited.Round(time.Millisecond))
	case e.CallerDeadline:
		why = fmt.Sprintf("not finished when the caller's deadline passed (after %s)", e.Waited.Round(time.Millisecond))
	default:
		why = fmt.Sprintf("not finished after %s (the longest a sync waits)", e.Waited.Round(time.Millisecond))
	}
	return fmt.Sprintf("%s load balancer of %s still in progress since %s, %s: %s; it goes on in the background and the Service is synced again when it ends",
		e.Operation, e.Service, e.Since.UTC().Format(time.RFC3339), why, what)
}

// job is one Service's Ensure, Update or Delete running on its own context.
type job struct {
	op      string
	svc     types.NamespacedName
	started time.Time
	done    chan struct{} // closed when the work has returned

	mu       sync.Mutex
	plan     *model.Plan // what is being applied, once planned
	lbID     string      // the load balancer, once found
	finished bool
	res      *Result
	err      error
	detached bool // a caller stopped waiting: the job requeues the Service when it ends
}

// jobKey carries the running job in its context, so the steps of a reconcile can say what they
// are doing (noteProgress) without every function passing it on.
type jobKey struct{}

// noteProgress records, for a PendingError, the plan a job is applying and its load balancer.
// Outside a job it does nothing.
func noteProgress(ctx context.Context, plan *model.Plan) {
	j, _ := ctx.Value(jobKey{}).(*job)
	if j == nil || plan == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.plan = plan
	if plan.LoadBalancerID != "" {
		j.lbID = plan.LoadBalancerID
	}
}

// pending is the PendingError for j, as a call that waited waited long.
func (j *job) pending(waited time.Duration, callerDeadline bool) *PendingError {
	j.mu.Lock()
	defer j.mu.Unlock()
	pe := &PendingError{Service: j.svc.String(), Operation: j.op, LoadBalancerID: j.lbID, Since: j.started,
		Waited: waited, CallerDeadline: callerDeadline}
	if !j.plan.Empty() {
		pe.Pending = Summary(j.plan, nil)
	}
	return pe
}

// inBackground runs work as svc's job and waits for it at most r.maxWait (see the comment at the
// top of this file). op names the call in errors and logs.
func (r *Reconciler) inBackground(ctx context.Context, op string, svc *v1.Service, work func(ctx context.Context) (*Result, error)) (*Result, error) {
	if earlier := r.jobOf(svc.UID); earlier != nil {
		select {
		case <-earlier.done:
		default:
			return nil, earlier.pending(0, false)
		}
	}
	j := r.startJob(ctx, op, svc, work)
	return r.await(ctx, j)
}

// jobOf returns the job of the Service with uid, if one is running.
func (r *Reconciler) jobOf(uid types.UID) *job {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.jobs[uid]
}

// startJob starts work as svc's job.
func (r *Reconciler) startJob(ctx context.Context, op string, svc *v1.Service, work func(ctx context.Context) (*Result, error)) *job {
	j := &job{op: op, svc: nameOf(svc), started: r.now(), done: make(chan struct{})}
	r.mu.Lock()
	r.jobs[svc.UID] = j
	r.mu.Unlock()

	jctx, cancel := context.WithTimeout(context.WithValue(context.WithoutCancel(ctx), jobKey{}, j), r.timeout)
	go func() {
		defer close(j.done)
		defer cancel()
		res, err := work(jctx)
		err = r.timedOut(jctx, jctx, op, svc, err)

		r.mu.Lock()
		if r.jobs[svc.UID] == j {
			delete(r.jobs, svc.UID)
		}
		r.mu.Unlock()
		j.mu.Lock()
		j.finished, j.res, j.err = true, res, err
		detached, plan := j.detached, j.plan
		j.mu.Unlock()
		if detached {
			r.requeueAfterJob(jctx, j, plan, err)
		}
	}()
	return j
}

// await waits for j until it ends, r.maxWait passes or ctx ends; in the last two cases j goes on
// and the caller gets a *PendingError.
//
// MaxWait is judged by the Reconciler's clock (Options.Now), read every maxWaitTick: on a
// benchmark's fast clock a create outlasts it as it does in production.
func (r *Reconciler) await(ctx context.Context, j *job) (*Result, error) {
	start := r.now()
	var tick <-chan time.Time
	if r.maxWait > 0 {
		t := time.NewTicker(maxWaitTick)
		defer t.Stop()
		tick = t.C
	}
	callerDeadline := false
wait:
	for {
		select {
		case <-j.done:
			break wait
		case <-tick:
			if r.now().Sub(start) >= r.maxWait {
				break wait
			}
		case <-ctx.Done():
			callerDeadline = true
			break wait
		}
	}
	j.mu.Lock()
	if j.finished {
		res, err := j.res, j.err
		j.mu.Unlock()
		return res, err
	}
	j.detached = true
	j.mu.Unlock()
	pe := j.pending(r.now().Sub(start), callerDeadline)
	if callerDeadline {
		pe.cause = ctx.Err()
	}
	klog.FromContext(ctx).Info("Load balancer work goes on in the background", "service", j.svc.String(),
		"operation", j.op, "loadBalancer", pe.LoadBalancerID, "since", j.started, "pending", pe.Pending)
	return nil, pe
}

// requeueAfterJob tells Options.PendingDone that work a caller left to the background has ended,
// with what it applied and how it ended.
func (r *Reconciler) requeueAfterJob(ctx context.Context, j *job, plan *model.Plan, err error) {
	logger := klog.FromContext(ctx).WithValues("service", j.svc.String(), "operation", j.op)
	applied := Summary(plan, err)
	if err != nil {
		logger.Info("Load balancer work left to the background failed", "err", err)
	} else {
		logger.Info("Load balancer work left to the background finished", "plan", plan.String())
	}
	if r.pendingDone == nil {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), requeueTimeout)
	defer cancel()
	if rerr := r.pendingDone(rctx, j.svc.Namespace, j.svc.Name, applied, err); rerr != nil {
		logger.Error(rerr, "Could not requeue the Service after its background work ended")
	}
}
