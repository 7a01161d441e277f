// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/internal/equal"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// Node syncs that do not wait for OCI.
//
// When Nodes join or leave, the service controller calls UpdateLoadBalancer for every load
// balancer Service with --concurrent-service-syncs workers. Each call changes only backend sets
// (one UpdateBackendSet per port), and each work request runs 20–40 s in OCI (users' logs; OCI
// publishes no durations). A worker that waits for them reconciles one Service a minute, so
// 1,000 Services take hours while the writes themselves would fit in minutes under OCI's rate
// limit. So Update, the
// service controller's UpdateLoadBalancer path, returns once OCI has accepted such a plan's work
// requests, and FollowUp watches them finish:
//
//   - Only a plan made solely of UpdateBackendSet changes that differ in their backends alone
//     (the node set changed) on an ACTIVE classic load balancer returns early. A create,
//     listeners, certificates, shapes, health checks, anything else waits as Ensure does: their
//     failures change what a Service gets (addresses, ports) and belong in the caller's error.
//   - Network load balancers always wait. An NLB refuses a change while another runs (409, see
//     busy.go), so nothing can be queued behind an accepted change: the next node sync would
//     wait for it anyway. And a failed NLB work request can leave the NLB FAILED, which the
//     next change has to repair (repairNLB) and so has to know about at once.
//   - A classic load balancer's work requests run one at a time, in the order OCI accepted them
//     (ACCEPTED means "in the work request queue"), and each UpdateBackendSet replaces the
//     whole backend list. The backends of an accepted, unfinished change are what the set will
//     hold once the queue reaches it, so every plan of that load balancer (Ensure's, Update's,
//     the drift check's) is computed against the observed load balancer with those backends laid
//     over it (overlay). A second node sync that wants the same backends writes nothing; one that
//     wants others records the whole new list to be sent once the queue is through, without
//     waiting for it. Nothing stale is sent and nothing is sent twice.
//   - A node sync sends only its first backend set's change when nothing else is pending on the
//     load balancer, and defers the others (all of them when something is pending): OCI would
//     queue them behind that change anyway, so sending them once it ran costs the load balancer
//     nothing, and leaves the write tokens to other load balancers' first changes. FollowUp
//     sends the deferred changes once the load balancer's queue is empty: a lone one as a
//     yielding write (ociclient.YieldWrites: it takes only tokens no other write would miss),
//     several at once without yielding (each is a work request more on the queue), so in a storm
//     every load balancer's first change goes out first, and the last changes out end the storm
//     one work request after the last write, not two. Deferred changes are laid over observed
//     state like accepted ones; a newer node sync's list replaces a deferred one; Ensure takes
//     them over (sends them itself and waits), after any change being sent; one that OCI
//     refuses requeues the Service; if FollowUp stops, the Services with changes not sent are
//     requeued.
//   - FollowUp waits for each accepted work request of a load balancer in the order OCI
//     accepted them, which is the order its queue runs them: each wait lasts as long as that
//     work request runs, so it costs the polls a waiting Update would have made, and no read of
//     the load balancer. A set whose last change FAILED, or a queue that did not finish within
//     Options.Timeout, is reported to the requeue function, which makes the service controller
//     reconcile the Service again through Ensure (which waits, against OCI as it is), and an
//     Event says what failed. Update returns early only while a FollowUp runs: a caller that
//     does not run one keeps Ensure's behaviour.

// Update is Ensure for the service controller's UpdateLoadBalancer: the set of Nodes changed.
// While a FollowUp runs, a plan that only changes the backends of a classic load balancer's
// backend sets returns as soon as OCI has accepted its work requests, and FollowUp makes sure
// they finish (see the comment at the top of async.go); every other plan, and every plan while
// no FollowUp runs, waits like Ensure. The Result and errors are Ensure's; Result.Plan is what
// was sent.
//
// Update waits at most Options.MaxWait, like Ensure (see background.go).
func (r *Reconciler) Update(ctx context.Context, svc *v1.Service, nodes []*v1.Node, secrets lb.Secrets) (*Result, error) {
	return r.inBackground(ctx, "update", svc, func(ctx context.Context) (*Result, error) {
		return r.ensure(ctx, svc, nodes, secrets, true)
	})
}

// FollowUp follows the work requests that Update returned before they finished, and sends the
// changes Update deferred, until ctx ends. For a load balancer whose changed backend sets do not
// end up with the backends sent, it calls requeue with the Service and a reason (e.g. "backend
// set TCP-80 not updated: ...") within Options.Timeout of the last change accepted; requeue
// should make the Service reconcile again and record why. Run it once per Reconciler, for as
// long as Update is called; it returns once every goroutine it started has stopped. Work
// requests accepted when it stops are no longer followed and no longer laid over observed load
// balancers; a Service with changes not yet sent (or not known to be) is requeued then, with a
// context of its own bounded by stopRequeueTimeout, since ctx has ended.
func (r *Reconciler) FollowUp(ctx context.Context, requeue func(ctx context.Context, namespace, name, reason string) error) {
	given := requeue
	requeue = func(ctx context.Context, namespace, name, reason string) error {
		// What was accepted did not take effect: the next Update reads the load balancer
		// (unchanged.go).
		r.forgetSynced(types.NamespacedName{Namespace: namespace, Name: name})
		return given(ctx, namespace, name, reason)
	}
	e := r.drivers[model.KindLoadBalancer]
	p := r.pending
	p.start()
	var wg sync.WaitGroup
	defer func() {
		p.stop()
		wg.Wait()
		r.requeueUnsent(ctx, requeue)
		p.dropIfUnfollowed()
	}()
	for {
		for _, id := range p.unwatched() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r.follow(ctx, e, id, requeue)
			}()
		}
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		}
	}
}

// stopRequeueTimeout bounds the requeues of a FollowUp that stops with changes not sent.
const stopRequeueTimeout = 30 * time.Second

// requeueUnsent requeues, once FollowUp stopped, every Service with a deferred change not sent:
// nothing would send it, and the service controller would not reconcile the Service until its
// Nodes change again.
func (r *Reconciler) requeueUnsent(ctx context.Context, requeue func(ctx context.Context, namespace, name, reason string) error) {
	unsent := r.pending.unsent()
	if len(unsent) == 0 {
		return
	}
	logger := klog.FromContext(ctx)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopRequeueTimeout)
	defer cancel()
	for _, u := range unsent {
		logger.Info("Follow-up stopped before sending backend changes; requeueing the Service", "service", u.svc.String(), "reason", u.reason)
		if err := requeue(rctx, u.svc.Namespace, u.svc.Name, u.reason); err != nil {
			logger.Error(err, "Could not requeue the Service", "service", u.svc.String())
		}
	}
}

// earlyOK reports whether a plan may return once OCI accepted it: only backend changes caused
// by the node set, on an ACTIVE classic load balancer, while a FollowUp runs.
func (r *Reconciler) earlyOK(p *planned) bool {
	if p.found == nil || p.found.Kind != model.KindLoadBalancer || p.found.State != lifecycleActive ||
		p.plan.Empty() || !r.pending.followed() {
		return false
	}
	for _, c := range p.plan.Changes {
		if !nodeOnly(c) {
			return false
		}
	}
	return true
}

// nodeOnly reports whether c updates a backend set's backends and nothing else.
func nodeOnly(c model.Change) bool {
	before, ok := c.Before.(model.BackendSet)
	after, ok2 := c.After.(model.BackendSet)
	if c.Op != model.OpUpdate || !ok || !ok2 {
		return false
	}
	before.Backends = after.Backends
	return equal.BackendSet(before, after)
}

// accept sends p's first change (a backend-set update, see earlyOK) when its load balancer has
// nothing pending, defers the others for FollowUp, and records the one sent. If FollowUp stopped
// meanwhile, it sends and waits for them as Ensure would.
func (r *Reconciler) accept(ctx context.Context, svc *v1.Service, p *planned) error {
	plan, a := p.plan, p.driver.applier
	key := nameOf(svc)
	send, ok := r.pending.begin(key, plan.LoadBalancerID, plan.Changes)
	if !ok {
		return r.sendAndWait(ctx, a, plan.LoadBalancerID, plan.Changes)
	}
	for _, c := range send {
		wr, err := a.changeWhenIdle(ctx, plan.LoadBalancerID, c)
		if err != nil {
			r.pending.abandon(plan.LoadBalancerID, c, plan.Changes)
			return fmt.Errorf("%s %s of load balancer %s: %w", c.Verb(), c.Name, plan.LoadBalancerID, err)
		}
		if !r.pending.sent(plan.LoadBalancerID, c, wr, nil) {
			// FollowUp stopped; it requeues the Service for the changes deferred.
			if err := a.p.Wait(ctx, wr); err != nil {
				return fmt.Errorf("update backend sets of load balancer %s: work request %s: %w", plan.LoadBalancerID, wr, err)
			}
		}
	}
	klog.FromContext(ctx).V(2).Info("Load balancer backend changes accepted or deferred; following them up", "service", klog.KObj(svc),
		"loadBalancer", plan.LoadBalancerID, "sent", len(send), "deferred", len(plan.Changes)-len(send))
	return nil
}

// applyWaiting applies a plan that waits for OCI (Ensure's, and Update's when it may not return
// early) after what is pending on its load balancer: queued behind any change being sent, and
// replacing the deferred changes of the sets it changes.
func (r *Reconciler) applyWaiting(ctx context.Context, e *driver, plan *model.Plan) (*found, error) {
	if !plan.Empty() {
		if err := r.pending.quiesce(ctx, plan); err != nil {
			return nil, err
		}
	}
	created, err := e.applier.apply(ctx, plan)
	if err == nil {
		r.pending.settled(plan)
	}
	return created, err
}

// sendAndWait sends changes one after the other and waits for their work requests.
func (r *Reconciler) sendAndWait(ctx context.Context, a *applier, id string, changes []model.Change) error {
	var wrs []string
	for i, c := range changes {
		wr, err := a.changeWhenIdle(ctx, id, c)
		if err != nil {
			var sent []string
			for _, done := range changes[:i] {
				sent = append(sent, done.Name)
			}
			return fmt.Errorf("%s %s of load balancer %s (accepted before it, still running: %v): %w", c.Verb(), c.Name, id, sent, err)
		}
		wrs = append(wrs, wr)
	}
	for _, wr := range wrs {
		if err := a.p.Wait(ctx, wr); err != nil {
			return fmt.Errorf("update backend sets of load balancer %s: work request %s: %w", id, wr, err)
		}
	}
	return nil
}

// follow works through what Update left on load balancer id: it waits for the accepted work
// requests one at a time in the order OCI accepted them (the order its queue runs them, so each
// wait is as long as that work request runs and is polled like any other), and once none is
// left, sends the deferred changes (a lone one with a yielding write, ociclient.YieldWrites: node
// syncs' writes go first), and follows them, until nothing is left, or ctx ends. A set whose last change
// FAILED or could not be sent, or one that did not finish within Options.Timeout, gets its
// Service requeued.
func (r *Reconciler) follow(ctx context.Context, e *driver, id string, requeue func(ctx context.Context, namespace, name, reason string) error) {
	logger := klog.FromContext(ctx).WithValues("loadBalancer", id)
	defer r.pending.release(id)
	for {
		s := r.pending.step(id)
		switch {
		case s.wait != "":
			wctx, cancel := context.WithTimeout(ctx, r.timeout)
			err := e.p.Wait(wctx, s.wait)
			timedOut := errors.Is(wctx.Err(), context.DeadlineExceeded)
			cancel()
			if ctx.Err() != nil {
				return
			}
			if err != nil && timedOut {
				// Queued behind it, the others would not finish either.
				err = fmt.Errorf("not finished within %s: %w", r.timeout, err)
			}
			r.pending.done(id, s.wait, err, timedOut)
		case len(s.send) > 0:
			// A lone change yields to other writes. Several (a Service synced again with other
			// Nodes while its first change ran) go out at once, queued behind each other in OCI,
			// without yielding: each is a work request more on the load balancer's queue, which
			// would end a storm that many work requests after a yielding write late in it.
			for i, c := range s.send {
				wctx := ctx
				if i == 0 && len(s.send) == 1 {
					wctx = ociclient.YieldWrites(ctx)
				}
				sctx, cancel := context.WithTimeout(wctx, r.timeout)
				wr, err := e.applier.changeWhenIdle(sctx, id, c)
				cancel()
				if err != nil && ctx.Err() != nil {
					for _, left := range s.send[i:] {
						r.pending.sent(id, left, "", errFollowUpStopped)
					}
					return
				}
				r.pending.sent(id, c, wr, err)
			}
		case !s.last:
			return // a change is being sent by Update; it wakes FollowUp once accepted
		case len(s.reasons) == 0:
			logger.V(4).Info("Accepted backend changes done", "service", s.svc.String())
			return
		default:
			reason := strings.Join(s.reasons, "; ")
			logger.Info("Accepted backend changes did not take effect; requeueing the Service", "service", s.svc.String(), "reason", reason)
			if err := requeue(ctx, s.svc.Namespace, s.svc.Name, reason); err != nil {
				// The drift check finds the same difference (nothing is laid over it any more).
				logger.Error(err, "Could not requeue the Service", "service", s.svc.String())
			}
			return
		}
	}
}

// errFollowUpStopped is why a deferred change was not sent: FollowUp's context ended.
var errFollowUpStopped = errors.New("follow-up stopped before it was sent")
