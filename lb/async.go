// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Node syncs that do not wait for OCI.
//
// When Nodes join or leave, the service controller calls UpdateLoadBalancer for every load
// balancer Service with --concurrent-service-syncs workers. Each call changes only backend sets
// (one UpdateBackendSet per port), and each work request runs 20–40 s in OCI (FACTS.md). A
// worker that waits for them reconciles one Service a minute, so 1,000 Services take hours
// while the writes themselves would fit in minutes under OCI's rate limit. So Update, the
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
//     wants others sends the whole new list at once, queued behind the first, without waiting
//     for it. Nothing stale is sent and nothing is sent twice.
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
func (r *Reconciler) Update(ctx context.Context, svc *v1.Service, nodes []*v1.Node, secrets Secrets) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	res, err := r.ensure(ctx, svc, nodes, secrets, true)
	return res, r.timedOut(ctx, "update", svc, err)
}

// FollowUp follows the work requests that Update returned before they finished, until ctx ends.
// For a load balancer whose changed backend sets do not end up with the backends sent, it calls
// requeue with the Service and a reason (e.g. "backend set TCP-80 not updated: ...") within
// Options.Timeout of the last change accepted; requeue should make the Service reconcile again
// and record why. Run it once per Reconciler, for as long as Update is called; it returns once
// every goroutine it started has stopped. Work requests accepted when it stops are no longer
// followed and no longer laid over observed load balancers.
func (r *Reconciler) FollowUp(ctx context.Context, requeue func(ctx context.Context, namespace, name, reason string) error) {
	e := r.engines[model.KindLoadBalancer]
	p := r.pending
	p.start()
	var wg sync.WaitGroup
	defer func() {
		p.stop()
		wg.Wait()
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
	if c.Action != model.ActionUpdateBackendSet || !ok || !ok2 {
		return false
	}
	before.Backends = after.Backends
	return equalBackendSet(before, after)
}

// accept sends p's changes (backend-set updates, see earlyOK) and records each accepted one for
// FollowUp. If FollowUp stopped meanwhile, it waits for them as Ensure would.
func (r *Reconciler) accept(ctx context.Context, svc *v1.Service, p *planned) error {
	plan, a := p.plan, p.engine.applier
	key := types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}
	var unfollowed []string
	for i, c := range plan.Changes {
		wr, err := a.changeWhenIdle(ctx, plan.LoadBalancerID, c)
		if err != nil {
			var sent []string
			for _, done := range plan.Changes[:i] {
				sent = append(sent, done.Name)
			}
			return fmt.Errorf("%s %s of load balancer %s (accepted before it, still running: %v): %w",
				c.Action, c.Name, plan.LoadBalancerID, sent, err)
		}
		after, _ := c.After.(model.BackendSet)
		if !r.pending.add(key, plan.LoadBalancerID, c.Name, after.Backends, wr) {
			unfollowed = append(unfollowed, wr)
		}
	}
	for _, wr := range unfollowed {
		if err := a.p.wait(ctx, wr); err != nil {
			return fmt.Errorf("update backend sets of load balancer %s: work request %s: %w", plan.LoadBalancerID, wr, err)
		}
	}
	klog.FromContext(ctx).V(2).Info("Load balancer backend changes accepted; following them up", "service", klog.KObj(svc),
		"loadBalancer", plan.LoadBalancerID, "changes", len(plan.Changes))
	return nil
}

// follow waits for the work requests Update left on load balancer id, one at a time in the
// order OCI accepted them (the order its queue runs them, so each wait is as long as that work
// request runs and is polled like any other), until none is left, or ctx ends. A set whose last
// work request FAILED, or one that did not finish within Options.Timeout, gets its Service
// requeued.
func (r *Reconciler) follow(ctx context.Context, e *engine, id string, requeue func(ctx context.Context, namespace, name, reason string) error) {
	logger := klog.FromContext(ctx).WithValues("loadBalancer", id)
	defer r.pending.release(id)
	for {
		wr, ok := r.pending.next(id)
		if !ok {
			return
		}
		wctx, cancel := context.WithTimeout(ctx, r.timeout)
		err := e.p.wait(wctx, wr)
		timedOut := errors.Is(wctx.Err(), context.DeadlineExceeded)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err != nil && timedOut {
			// Queued behind it, the others would not finish either.
			err = fmt.Errorf("not finished within %s: %w", r.timeout, err)
		}
		svc, reasons, last := r.pending.done(id, wr, err, timedOut)
		if !last {
			continue
		}
		if len(reasons) == 0 {
			logger.V(4).Info("Accepted backend changes done", "service", svc.String())
			return
		}
		reason := strings.Join(reasons, "; ")
		logger.Info("Accepted backend changes did not take effect; requeueing the Service", "service", svc.String(), "reason", reason)
		if err := requeue(ctx, svc.Namespace, svc.Name, reason); err != nil {
			// The drift check finds the same difference (nothing is laid over it any more).
			logger.Error(err, "Could not requeue the Service", "service", svc.String())
		}
		return
	}
}

// pendingUpdates are the backend changes Update returned before OCI finished them, by load
// balancer. Safe for concurrent use.
type pendingUpdates struct {
	mu        sync.Mutex
	following int // FollowUp calls running
	byLB      map[string]*pendingLB
	wake      chan struct{} // a load balancer to follow; capacity 1
}

// pendingLB is what is pending on one load balancer.
type pendingLB struct {
	svc types.NamespacedName
	// sets are the last accepted change of each backend set.
	sets map[string]pendingSet
	// queue are the work requests not yet seen finished, in acceptance order, with their sets.
	queue []queued
	// failed says why a set's last change did not take effect, by set.
	failed  map[string]string
	watched bool // a follow goroutine has it
}

// queued is one accepted work request of a pendingLB.
type queued struct{ wr, set string }

// pendingSet is the last accepted change of one backend set.
type pendingSet struct {
	backends []model.Backend
	wr       string
}

func newPendingUpdates() *pendingUpdates {
	return &pendingUpdates{byLB: map[string]*pendingLB{}, wake: make(chan struct{}, 1)}
}

func (p *pendingUpdates) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.following++
}

// stop ends one FollowUp: no new change is recorded unless another runs.
func (p *pendingUpdates) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.following--
}

// dropIfUnfollowed forgets every pending change once no FollowUp runs: nothing would confirm
// them, so no plan may count on them.
func (p *pendingUpdates) dropIfUnfollowed() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.following == 0 {
		clear(p.byLB)
	}
}

func (p *pendingUpdates) followed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.following > 0
}

// add records an accepted change of set on load balancer lbID; false when no FollowUp runs.
func (p *pendingUpdates) add(svc types.NamespacedName, lbID, set string, backends []model.Backend, wr string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.following == 0 {
		return false
	}
	l := p.byLB[lbID]
	if l == nil {
		l = &pendingLB{sets: map[string]pendingSet{}, failed: map[string]string{}}
		p.byLB[lbID] = l
	}
	l.svc = svc
	l.sets[set] = pendingSet{backends: slices.Clone(backends), wr: wr}
	l.queue = append(l.queue, queued{wr: wr, set: set})
	if !l.watched {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	return true
}

// unwatched returns the load balancers no follow goroutine has, and marks them taken.
func (p *pendingUpdates) unwatched() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for id, l := range p.byLB {
		if !l.watched {
			l.watched = true
			out = append(out, id)
		}
	}
	return out
}

// release gives up following lbID (its follow goroutine ends); a FollowUp still running takes
// it again if anything is left pending.
func (p *pendingUpdates) release(lbID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l := p.byLB[lbID]; l != nil && l.watched {
		l.watched = false
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// next is the first work request of lbID not yet seen finished; false when none is left.
func (p *pendingUpdates) next(lbID string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.byLB[lbID]
	if l == nil || len(l.queue) == 0 {
		return "", false
	}
	return l.queue[0].wr, true
}

// done records that wr, lbID's first queued work request, ended with err (nil: SUCCEEDED). A
// failure counts only for a set whose last change it is: a later change of the set replaces the
// whole list anyway. With giveUp (it did not finish in time) the rest of the queue is given up
// too. Once nothing is queued, lbID is forgotten and last is true, with its Service and why sets
// did not take effect (none when all did).
func (p *pendingUpdates) done(lbID, wr string, err error, giveUp bool) (svc types.NamespacedName, reasons []string, last bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.byLB[lbID]
	if l == nil || len(l.queue) == 0 || l.queue[0].wr != wr {
		return types.NamespacedName{}, nil, false
	}
	set := l.queue[0].set
	l.queue = l.queue[1:]
	latest := l.sets[set].wr == wr
	switch {
	case err != nil && (latest || giveUp):
		l.failed[set] = fmt.Sprintf("work request %s: %v", wr, err)
	case err == nil && latest:
		delete(l.failed, set)
	}
	if giveUp {
		for _, q := range l.queue {
			if _, ok := l.failed[q.set]; !ok {
				l.failed[q.set] = fmt.Sprintf("work request %s queued behind %s", q.wr, wr)
			}
		}
		l.queue = nil
	}
	if len(l.queue) > 0 {
		return types.NamespacedName{}, nil, false
	}
	delete(p.byLB, lbID)
	for _, name := range slices.Sorted(maps.Keys(l.failed)) {
		reasons = append(reasons, "backend set "+name+" not updated: "+l.failed[name])
	}
	return l.svc, reasons, true
}

// overlay lays the pending backends over an observed Spec of a load balancer: what its sets
// will hold once OCI's queue has run the accepted changes.
func (p *pendingUpdates) overlay(observed *model.Spec) {
	if p == nil || observed == nil || observed.ID == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.byLB[observed.ID]
	if l == nil {
		return
	}
	for name, s := range l.sets {
		if set, ok := observed.BackendSets[name]; ok {
			set.Backends = slices.Clone(s.backends)
			observed.BackendSets[name] = set
		}
	}
}

// settled forgets the pending changes a plan that waited for its work requests has superseded:
// its own backend-set changes ran after them (OCI's queue is in order) and replaced them.
func (p *pendingUpdates) settled(plan *model.Plan) {
	if plan == nil || plan.LoadBalancerID == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.byLB[plan.LoadBalancerID]
	if l == nil {
		return
	}
	for _, c := range plan.Changes {
		switch c.Action {
		case model.ActionDeleteLoadBalancer:
			delete(p.byLB, plan.LoadBalancerID)
			return
		case model.ActionCreateBackendSet, model.ActionUpdateBackendSet, model.ActionDeleteBackendSet:
			delete(l.sets, c.Name)
		}
	}
}
