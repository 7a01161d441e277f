// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/lb/model"
)

// The bookkeeping of async.go: what Update left pending on each load balancer.

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
	deferred []model.Change
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
	backends []model.Backend
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
	return slices.IndexFunc(l.deferred, func(c model.Change) bool { return c.Name == set })
}

func (l *pendingLB) startSending(c model.Change) {
	after, _ := c.After.(model.BackendSet)
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
func (p *pendingUpdates) begin(svc types.NamespacedName, lbID string, changes []model.Change) (send []model.Change, ok bool) {
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
func (p *pendingUpdates) sent(lbID string, c model.Change, wr string, err error) bool {
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
		after, _ := c.After.(model.BackendSet)
		l.sets[c.Name] = pendingSet{backends: slices.Clone(after.Backends), wr: wr}
		l.queue = append(l.queue, queued{wr: wr, set: c.Name})
	}
	p.wakeFor(l)
	return p.following > 0
}

// abandon forgets a node sync's changes after sending c, the first, failed: the caller returns
// the error, and the service controller retries the whole sync.
func (p *pendingUpdates) abandon(lbID string, c model.Change, changes []model.Change) {
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
	send    []model.Change
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
	lay := func(name string, backends []model.Backend) {
		if set, ok := observed.BackendSets[name]; ok {
			set.Backends = slices.Clone(backends)
			observed.BackendSets[name] = set
		}
	}
	for name, s := range l.sets {
		lay(name, s.backends)
	}
	for _, c := range l.deferred {
		after, _ := c.After.(model.BackendSet)
		lay(c.Name, after.Backends)
	}
}

// takeOver hands svc's deferred changes to a reconcile that waits for OCI (Ensure): it waits
// until no change of its load balancer is being sent (so whatever the reconcile sends queues
// behind it in OCI) and forgets the deferred ones, so the reconcile's plan, made after, sends
// them itself.
func (p *pendingUpdates) takeOver(ctx context.Context, svc types.NamespacedName) error {
	find := func() (string, *pendingLB) {
		for id, l := range p.byLB {
			if l.svc == svc {
				return id, l
			}
		}
		return "", nil
	}
	return p.whenIdle(ctx, find, func(id string, l *pendingLB) {
		l.deferred = nil
		if l.finished() && !l.watched {
			delete(p.byLB, id)
		}
	})
}

// quiesce readies plan, about to be applied by a reconcile that waits, against what is pending on
// its load balancer: it waits until no change is being sent (so plan's changes queue behind it
// in OCI), and forgets the deferred changes of the sets plan changes (plan replaces them).
func (p *pendingUpdates) quiesce(ctx context.Context, plan *model.Plan) error {
	if plan == nil || plan.LoadBalancerID == "" {
		return nil
	}
	find := func() (string, *pendingLB) { return plan.LoadBalancerID, p.byLB[plan.LoadBalancerID] }
	return p.whenIdle(ctx, find, func(_ string, l *pendingLB) {
		for _, c := range plan.Changes {
			if i := l.deferredIndex(c.Name); i >= 0 {
				l.deferred = slices.Delete(l.deferred, i, i+1)
			}
		}
	})
}

// whenIdle waits until the load balancer find returns (under p.mu) has no change being sent,
// then runs do on it, still under p.mu. Nothing pending on it (find returns nil) is done at once.
func (p *pendingUpdates) whenIdle(ctx context.Context, find func() (string, *pendingLB), do func(id string, l *pendingLB)) error {
	for {
		p.mu.Lock()
		id, l := find()
		if l == nil {
			p.mu.Unlock()
			return nil
		}
		if l.sending == 0 {
			do(id, l)
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
		switch c.Object().(type) {
		case *model.Spec:
			if c.Op == model.OpDelete {
				delete(p.byLB, plan.LoadBalancerID)
				return
			}
		case model.BackendSet:
			delete(l.sets, c.Name)
			if i := l.deferredIndex(c.Name); i >= 0 {
				l.deferred = slices.Delete(l.deferred, i, i+1)
			}
		}
	}
}
