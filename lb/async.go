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
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/ociclient"
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
//     wants others records the whole new list to be sent once the queue is through, without
//     waiting for it. Nothing stale is sent and nothing is sent twice.
//   - A node sync sends only its first backend set's change when nothing else is pending on the
//     load balancer, and defers the others (all of them when something is pending): OCI would
//     queue them behind that change anyway, so sending them once it ran costs the load balancer
//     nothing, and leaves the write tokens to other load balancers' first changes. FollowUp
//     sends the deferred changes once the load balancer's queue is empty, the first as a
//     yielding write (ociclient.YieldWrites: it takes only tokens no other write waits for),
//     the others of that load balancer right behind it, so in a storm
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
func (r *Reconciler) Update(ctx context.Context, svc *v1.Service, nodes []*v1.Node, secrets Secrets) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	res, err := r.ensure(ctx, svc, nodes, secrets, true)
	return res, r.timedOut(ctx, "update", svc, err)
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
	e := r.engines[KindLoadBalancer]
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
	if p.found == nil || p.found.Kind != KindLoadBalancer || p.found.State != lifecycleActive ||
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
func nodeOnly(c Change) bool {
	before, ok := c.Before.(BackendSet)
	after, ok2 := c.After.(BackendSet)
	if c.Action != ActionUpdateBackendSet || !ok || !ok2 {
		return false
	}
	before.Backends = after.Backends
	return equalBackendSet(before, after)
}

// accept sends p's first change (a backend-set update, see earlyOK) when its load balancer has
// nothing pending, defers the others for FollowUp, and records the one sent. If FollowUp stopped
// meanwhile, it sends and waits for them as Ensure would.
func (r *Reconciler) accept(ctx context.Context, svc *v1.Service, p *planned) error {
	plan, a := p.plan, p.engine.applier
	key := types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}
	send, ok := r.pending.begin(key, plan.LoadBalancerID, plan.Changes)
	if !ok {
		return r.sendAndWait(ctx, a, plan.LoadBalancerID, plan.Changes)
	}
	for _, c := range send {
		wr, err := a.changeWhenIdle(ctx, plan.LoadBalancerID, c)
		if err != nil {
			r.pending.abandon(plan.LoadBalancerID, c, plan.Changes)
			return fmt.Errorf("%s %s of load balancer %s: %w", c.Action, c.Name, plan.LoadBalancerID, err)
		}
		if !r.pending.sent(plan.LoadBalancerID, c, wr, nil) {
			// FollowUp stopped; it requeues the Service for the changes deferred.
			if err := a.p.wait(ctx, wr); err != nil {
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
func (r *Reconciler) applyWaiting(ctx context.Context, e *engine, plan *Plan) (*found, error) {
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
func (r *Reconciler) sendAndWait(ctx context.Context, a *applier, id string, changes []Change) error {
	var wrs []string
	for i, c := range changes {
		wr, err := a.changeWhenIdle(ctx, id, c)
		if err != nil {
			var sent []string
			for _, done := range changes[:i] {
				sent = append(sent, done.Name)
			}
			return fmt.Errorf("%s %s of load balancer %s (accepted before it, still running: %v): %w", c.Action, c.Name, id, sent, err)
		}
		wrs = append(wrs, wr)
	}
	for _, wr := range wrs {
		if err := a.p.wait(ctx, wr); err != nil {
			return fmt.Errorf("update backend sets of load balancer %s: work request %s: %w", id, wr, err)
		}
	}
	return nil
}

// follow works through what Update left on load balancer id: it waits for the accepted work
// requests one at a time in the order OCI accepted them (the order its queue runs them, so each
// wait is as long as that work request runs and is polled like any other), and once none is
// left, sends the deferred changes, the first with a yielding write (ociclient.YieldWrites: node
// syncs' writes go first), and follows them, until nothing is left, or ctx ends. A set whose last change
// FAILED or could not be sent, or one that did not finish within Options.Timeout, gets its
// Service requeued.
func (r *Reconciler) follow(ctx context.Context, e *engine, id string, requeue func(ctx context.Context, namespace, name, reason string) error) {
	logger := klog.FromContext(ctx).WithValues("loadBalancer", id)
	defer r.pending.release(id)
	for {
		s := r.pending.step(id)
		switch {
		case s.wait != "":
			wctx, cancel := context.WithTimeout(ctx, r.timeout)
			err := e.p.wait(wctx, s.wait)
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
			// The first yields to other writes; the others of the load balancer follow it at
			// once, queued behind it in OCI: a load balancer with several changes left (a Service
			// synced again with other Nodes) would otherwise end the storm several work requests
			// after its first yielding write.
			for i, c := range s.send {
				wctx := ctx
				if i == 0 {
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

// pendingUpdates are the backend changes Update returned before OCI finished them (or before
// they were sent), by load balancer. Safe for concurrent use.
type pendingUpdates struct {
	mu        sync.Mutex
	following int // FollowUp calls running
	byLB      map[string]*pendingLB
	wake      chan struct{} // a load balancer to follow; capacity 1
}

// pendingLB is what is pending on one load balancer.
type pendingLB struct {
	svc types.NamespacedName
	// sets are the last accepted change of each backend set, or the one being sent (no wr).
	sets map[string]pendingSet
	// queue are the work requests not yet seen finished, in acceptance order, with their sets.
	queue []queued
	// deferred are changes not sent yet, at most one per set, in the order to send them. They
	// replace sets' backends in the overlay.
	deferred []Change
	// sending counts changes being sent; idle is closed when it drops back to 0.
	sending int
	idle    chan struct{}
	// failed says why a set's last change did not take effect, by set.
	failed  map[string]string
	watched bool // a follow goroutine has it
}

// queued is one accepted work request of a pendingLB.
type queued struct{ wr, set string }

// pendingSet is the last accepted change of one backend set.
type pendingSet struct {
	backends []Backend
	wr       string
}

func newPendingUpdates() *pendingUpdates {
	return &pendingUpdates{byLB: map[string]*pendingLB{}, wake: make(chan struct{}, 1)}
}

// todo reports whether a follow goroutine has something to do on l now.
func (l *pendingLB) todo() bool {
	return len(l.queue) > 0 || (len(l.deferred) > 0 && l.sending == 0)
}

// finished reports whether nothing is pending on l any more.
func (l *pendingLB) finished() bool {
	return len(l.queue) == 0 && len(l.deferred) == 0 && l.sending == 0
}

// deferredIndex is the index of set's deferred change, or -1.
func (l *pendingLB) deferredIndex(set string) int {
	return slices.IndexFunc(l.deferred, func(c Change) bool { return c.Name == set })
}

func (l *pendingLB) startSending(c Change) {
	after, _ := c.After.(BackendSet)
	l.sets[c.Name] = pendingSet{backends: slices.Clone(after.Backends)}
	if l.sending == 0 {
		l.idle = make(chan struct{})
	}
	l.sending++
}

func (l *pendingLB) stopSending() {
	l.sending--
	if l.sending == 0 {
		close(l.idle)
	}
}

// wakeFor wakes FollowUp if l has something to do that no goroutine does.
func (p *pendingUpdates) wakeFor(l *pendingLB) {
	if !l.watched && l.todo() {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
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

// begin records a node sync's changes of load balancer lbID for svc and returns those to send
// now: the first, if nothing is pending on lbID; none otherwise (OCI would queue them behind
// what is). The others are deferred, each replacing a deferred change of its set. ok is false
// when no FollowUp runs (nothing recorded).
func (p *pendingUpdates) begin(svc types.NamespacedName, lbID string, changes []Change) (send []Change, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.following == 0 {
		return nil, false
	}
	l := p.byLB[lbID]
	if l == nil {
		l = &pendingLB{sets: map[string]pendingSet{}, failed: map[string]string{}}
		p.byLB[lbID] = l
	}
	l.svc = svc
	rest := changes
	if l.finished() && !l.watched && len(changes) > 0 {
		send, rest = changes[:1], changes[1:]
		l.startSending(changes[0])
	}
	for _, c := range rest {
		if i := l.deferredIndex(c.Name); i >= 0 {
			l.deferred[i] = c
		} else {
			l.deferred = append(l.deferred, c)
		}
		delete(l.failed, c.Name)
	}
	p.wakeFor(l)
	return send, true
}

// sent records the outcome of sending c, which begin or step handed out: accepted as wr, or
// err (then the set is reported failed unless a newer change of it is deferred). It reports
// whether a FollowUp still follows lbID.
func (p *pendingUpdates) sent(lbID string, c Change, wr string, err error) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.byLB[lbID]
	if l == nil {
		return false
	}
	l.stopSending()
	switch {
	case err != nil:
		if s, ok := l.sets[c.Name]; ok && s.wr == "" {
			delete(l.sets, c.Name)
		}
		if l.deferredIndex(c.Name) < 0 {
			l.failed[c.Name] = fmt.Sprintf("not sent: %v", err)
		}
	default:
		after, _ := c.After.(BackendSet)
		l.sets[c.Name] = pendingSet{backends: slices.Clone(after.Backends), wr: wr}
		l.queue = append(l.queue, queued{wr: wr, set: c.Name})
	}
	p.wakeFor(l)
	return p.following > 0
}

// abandon forgets a node sync's changes after sending c, the first, failed: the caller returns
// the error, and the service controller retries the whole sync.
func (p *pendingUpdates) abandon(lbID string, c Change, changes []Change) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.byLB[lbID]
	if l == nil {
		return
	}
	l.stopSending()
	if s, ok := l.sets[c.Name]; ok && s.wr == "" {
		delete(l.sets, c.Name)
	}
	for _, other := range changes {
		if i := l.deferredIndex(other.Name); i >= 0 {
			l.deferred = slices.Delete(l.deferred, i, i+1)
		}
	}
	if l.finished() && !l.watched {
		delete(p.byLB, lbID)
		return
	}
	p.wakeFor(l)
}

// unwatched returns the load balancers with something to do that no follow goroutine has, and
// marks them taken.
func (p *pendingUpdates) unwatched() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for id, l := range p.byLB {
		if !l.watched && l.todo() {
			l.watched = true
			out = append(out, id)
		}
	}
	return out
}

// release gives up following lbID (its follow goroutine ends); a FollowUp still running takes
// it again if anything is left to do.
func (p *pendingUpdates) release(lbID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l := p.byLB[lbID]; l != nil && l.watched {
		l.watched = false
		p.wakeFor(l)
	}
}

// followStep is what a follow goroutine does next on a load balancer: wait for a work request,
// send the deferred changes, or (last) nothing is pending any more: the Service and why sets did
// not take effect (none when all did). All empty: nothing to do until a send Update made
// returns.
type followStep struct {
	wait    string
	send    []Change
	last    bool
	svc     types.NamespacedName
	reasons []string
}

// step picks the next thing to do on lbID. Once nothing is pending it forgets lbID.
func (p *pendingUpdates) step(lbID string) followStep {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.byLB[lbID]
	switch {
	case l == nil:
		return followStep{last: true}
	case len(l.queue) > 0:
		return followStep{wait: l.queue[0].wr}
	case l.sending > 0:
		return followStep{}
	case len(l.deferred) > 0:
		send := l.deferred
		l.deferred = nil
		for _, c := range send {
			l.startSending(c)
		}
		return followStep{send: send}
	}
	delete(p.byLB, lbID)
	s := followStep{last: true, svc: l.svc}
	for _, name := range slices.Sorted(maps.Keys(l.failed)) {
		s.reasons = append(s.reasons, "backend set "+name+" not updated: "+l.failed[name])
	}
	return s
}

// done records that wr, lbID's first queued work request, ended with err (nil: SUCCEEDED). A
// failure counts only for a set whose last change it is: a later change of the set (accepted
// or deferred) replaces the whole list anyway. With giveUp (it did not finish in time) the rest
// of the queue and the deferred changes are given up too.
func (p *pendingUpdates) done(lbID, wr string, err error, giveUp bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.byLB[lbID]
	if l == nil || len(l.queue) == 0 || l.queue[0].wr != wr {
		return
	}
	set := l.queue[0].set
	l.queue = l.queue[1:]
	latest := l.sets[set].wr == wr && l.deferredIndex(set) < 0
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
		for _, c := range l.deferred {
			if _, ok := l.failed[c.Name]; !ok {
				l.failed[c.Name] = fmt.Sprintf("not sent: it would have queued behind work request %s", wr)
			}
		}
		l.queue, l.deferred = nil, nil
	}
}

// unsentChange is a Service with changes FollowUp did not send, and why.
type unsentChange struct {
	svc    types.NamespacedName
	reason string
}

// unsent lists the Services with deferred changes, changes being sent, or changes that could
// not be sent, by load balancer ID.
func (p *pendingUpdates) unsent() []unsentChange {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []unsentChange
	for _, id := range slices.Sorted(maps.Keys(p.byLB)) {
		l := p.byLB[id]
		var why []string
		for _, c := range l.deferred {
			why = append(why, "backend set "+c.Name+" not sent: follow-up stopped")
		}
		for _, name := range slices.Sorted(maps.Keys(l.failed)) {
			why = append(why, "backend set "+name+" not updated: "+l.failed[name])
		}
		if l.sending > 0 {
			why = append(why, "a backend set change was being sent when follow-up stopped")
		}
		if len(why) > 0 {
			out = append(out, unsentChange{svc: l.svc, reason: strings.Join(why, "; ")})
		}
	}
	return out
}

// overlay lays the pending backends over an observed Spec of a load balancer: what its sets
// will hold once OCI's queue has run the accepted changes and the deferred ones are sent.
func (p *pendingUpdates) overlay(observed *Spec) {
	if p == nil || observed == nil || observed.ID == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.byLB[observed.ID]
	if l == nil {
		return
	}
	lay := func(name string, backends []Backend) {
		if set, ok := observed.BackendSets[name]; ok {
			set.Backends = slices.Clone(backends)
			observed.BackendSets[name] = set
		}
	}
	for name, s := range l.sets {
		lay(name, s.backends)
	}
	for _, c := range l.deferred {
		after, _ := c.After.(BackendSet)
		lay(c.Name, after.Backends)
	}
}

// takeOver hands svc's deferred changes to a reconcile that waits for OCI (Ensure): it waits
// until no change of its load balancer is being sent (so whatever the reconcile sends queues
// behind it in OCI) and forgets the deferred ones, so the reconcile's plan, made after, sends
// them itself.
func (p *pendingUpdates) takeOver(ctx context.Context, svc types.NamespacedName) error {
	for {
		p.mu.Lock()
		var id string
		var l *pendingLB
		for lbID, cand := range p.byLB {
			if cand.svc == svc {
				id, l = lbID, cand
				break
			}
		}
		if l == nil {
			p.mu.Unlock()
			return nil
		}
		if l.sending == 0 {
			l.deferred = nil
			if l.finished() && !l.watched {
				delete(p.byLB, id)
			}
			p.mu.Unlock()
			return nil
		}
		idle := l.idle
		p.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			return fmt.Errorf("wait for a backend change of load balancer %s being sent: %w", id, ctx.Err())
		}
	}
}

// quiesce readies plan, about to be applied by a reconcile that waits, against what is pending on
// its load balancer: it waits until no change is being sent (so plan's changes queue behind it
// in OCI), and forgets the deferred changes of the sets plan changes (plan replaces them).
func (p *pendingUpdates) quiesce(ctx context.Context, plan *Plan) error {
	if plan == nil || plan.LoadBalancerID == "" {
		return nil
	}
	for {
		p.mu.Lock()
		l := p.byLB[plan.LoadBalancerID]
		if l == nil {
			p.mu.Unlock()
			return nil
		}
		if l.sending == 0 {
			for _, c := range plan.Changes {
				if i := l.deferredIndex(c.Name); i >= 0 {
					l.deferred = slices.Delete(l.deferred, i, i+1)
				}
			}
			p.mu.Unlock()
			return nil
		}
		idle := l.idle
		p.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			return fmt.Errorf("wait for a backend change of load balancer %s being sent: %w", plan.LoadBalancerID, ctx.Err())
		}
	}
}

// settled forgets the pending changes a plan that waited for its work requests has superseded:
// its own backend-set changes ran after them (OCI's queue is in order) and replaced them.
func (p *pendingUpdates) settled(plan *Plan) {
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
		case ActionDeleteLoadBalancer:
			delete(p.byLB, plan.LoadBalancerID)
			return
		case ActionCreateBackendSet, ActionUpdateBackendSet, ActionDeleteBackendSet:
			delete(l.sets, c.Name)
			if i := l.deferredIndex(c.Name); i >= 0 {
				l.deferred = slices.Delete(l.deferred, i, i+1)
			}
		}
	}
}

// backendOnlyDiffs prints a change of backends alone as Plan.String does (fieldDiffs), by set
// arithmetic: cmp's reflection over 500 backends took 30 ms a plan, more than the rest of a node
// sync. ok is false for any other change.
func backendOnlyDiffs(c Change) (lines []string, ok bool) {
	if !nodeOnly(c) {
		return nil, false
	}
	before, _ := c.Before.(BackendSet)
	after, _ := c.After.(BackendSet)
	type line struct {
		b    Backend
		sign string
	}
	had := make(map[string]bool, len(before.Backends))
	for _, b := range before.Backends {
		had[b.String()] = true
	}
	has := make(map[string]bool, len(after.Backends))
	var out []line
	for _, b := range after.Backends {
		has[b.String()] = true
		if !had[b.String()] {
			out = append(out, line{b, "+"})
		}
	}
	for _, b := range before.Backends {
		if !has[b.String()] {
			out = append(out, line{b, "-"})
		}
	}
	slices.SortFunc(out, func(x, y line) int {
		if c := compareIPs(x.b.IP, y.b.IP); c != 0 {
			return c
		}
		if x.b.Port != y.b.Port {
			return x.b.Port - y.b.Port
		}
		return strings.Compare(x.sign, y.sign) // "+" sorts before "-"
	})
	for _, l := range out {
		lines = append(lines, "Backends: "+l.sign+" "+l.b.String())
	}
	return lines, true
}
