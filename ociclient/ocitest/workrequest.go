// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"
)

// The APIs whose work requests the server emulates, as reported in WorkRequestInfo.API.
const (
	APILoadBalancer        = "LoadBalancer"
	APINetworkLoadBalancer = "NetworkLoadBalancer"
)

// The states a work request passes through, as reported in WorkRequestInfo.State. Both APIs
// spell them the same way on the wire.
const (
	WorkRequestAccepted   = "ACCEPTED"
	WorkRequestInProgress = "IN_PROGRESS"
	WorkRequestSucceeded  = "SUCCEEDED"
	WorkRequestFailed     = "FAILED"
	// WorkRequestCanceling and WorkRequestCanceled exist only in the Network Load Balancer API
	// (its OperationStatus enum); the Load Balancer API has no cancellation.
	WorkRequestCanceling = "CANCELING"
	WorkRequestCanceled  = "CANCELED"
)

// WorkRequestInfo describes one work request of the Load Balancer or Network Load Balancer API,
// for tests that inspect or fail them.
type WorkRequestInfo struct {
	// ID is the work request's OCID.
	ID string
	// API is APILoadBalancer or APINetworkLoadBalancer.
	API string
	// Operation is the SDK operation that started it, e.g. "CreateListener".
	Operation string
	// ResourceID is the OCID of the (network) load balancer it changes.
	ResourceID string
	// CompartmentID is the load balancer's compartment.
	CompartmentID string
	// State is one of the WorkRequest* state constants.
	State string
	// Errors are the messages of a FAILED work request.
	Errors []string
	// TimeAccepted is when the server accepted it.
	TimeAccepted time.Time
	// TimeStarted is when it starts (or started) running: TimeAccepted, or for a work request
	// queued behind others on the same load balancer, when the one before it finishes.
	TimeStarted time.Time
	// TimeFinished is when it succeeded or failed; zero while it runs.
	TimeFinished time.Time
}

// Error codes a failed work request reports. OCI uses BAD_INPUT for a change it refuses and
// INTERNAL_ERROR for its own trouble, which is what an injected failure stands for.
const (
	wrCodeBadInput = "BAD_INPUT"
	wrCodeInternal = "INTERNAL_ERROR"
)

// wrFailure is why a work request failed, with the code OCI would report.
type wrFailure struct {
	code    string
	message string
}

func (f *wrFailure) Error() string { return f.message }

// wrBadInput is a change OCI refuses when its work request runs. Messages keep OCI's wording,
// capital letter included.
func wrBadInput(format string, args ...any) error {
	return &wrFailure{code: wrCodeBadInput, message: fmt.Sprintf(format, args...)}
}

// errWorkCanceled is what settle receives for a work request canceled with CancelWorkRequest.
var errWorkCanceled = errors.New("work request canceled")

// workRequest is one accepted asynchronous change. It stays pending until its deadline; the
// first server call after that resolves it (see workQueue.advance), so no timers or goroutines
// exist and every transition happens under Server.mu.
type workRequest struct {
	id            string
	api           string
	op            string // SDK operation name
	resourceID    string
	compartmentID string
	accepted      time.Time
	start         time.Time // when it starts running: accepted, or when the one queued before it ends
	deadline      time.Time
	finished      time.Time // zero while pending
	failure       *wrFailure
	// canceling is set by CancelWorkRequest; the work request then ends CANCELED at its
	// deadline without applying its change. canceled is set once it has.
	canceling, canceled bool

	// injected is the message of a fault rule that matched on acceptance; non-empty means the
	// work request fails without applying its change.
	injected string
	// apply makes the change take effect; an error fails the work request and must leave the
	// resource as it was. Not called when an injected fault fails or a cancellation ends the
	// work request.
	apply func() error
	// settle runs last whatever the outcome (err is nil on success, errWorkCanceled after
	// CancelWorkRequest): it takes the work request off its resource and sets its lifecycle state.
	settle func(err error)
}

func (wr *workRequest) done() bool { return !wr.finished.IsZero() }

// state is the wire state at now. A pending work request is ACCEPTED while it waits in its load
// balancer's queue and for the first third of its own duration, IN_PROGRESS after, so pollers
// see both, as they do with OCI.
func (wr *workRequest) state(now time.Time) string {
	switch {
	case wr.failure != nil:
		return WorkRequestFailed
	case wr.canceled:
		return WorkRequestCanceled
	case wr.done():
		return WorkRequestSucceeded
	case wr.canceling:
		return WorkRequestCanceling
	case now.Before(wr.inProgressAt()):
		return WorkRequestAccepted
	default:
		return WorkRequestInProgress
	}
}

// inProgressAt is when a pending work request turns from ACCEPTED to IN_PROGRESS.
func (wr *workRequest) inProgressAt() time.Time {
	return wr.start.Add(wr.deadline.Sub(wr.start) / 3)
}

// percent is the NLB API's percentComplete at now: 0 while queued, then growing with time.
func (wr *workRequest) percent(now time.Time) float32 {
	if wr.done() {
		return 100
	}
	total := wr.deadline.Sub(wr.start)
	if total <= 0 || now.Before(wr.start) {
		return 0
	}
	return float32(100 * float64(now.Sub(wr.start)) / float64(total))
}

func (wr *workRequest) info(now time.Time) WorkRequestInfo {
	in := WorkRequestInfo{
		ID: wr.id, API: wr.api, Operation: wr.op, ResourceID: wr.resourceID,
		CompartmentID: wr.compartmentID, State: wr.state(now),
		TimeAccepted: wr.accepted, TimeStarted: wr.start, TimeFinished: wr.finished,
	}
	if wr.failure != nil {
		in.Errors = []string{wr.failure.message}
	}
	return in
}

// finish resolves the work request at the given time.
func (wr *workRequest) finish(at time.Time) {
	var err error
	switch {
	case wr.canceling:
		wr.canceled = true
		wr.finished = at
		if wr.settle != nil {
			wr.settle(errWorkCanceled)
		}
		return
	case wr.injected != "":
		err = &wrFailure{code: wrCodeInternal, message: wr.injected}
	case wr.apply != nil:
		err = wr.apply()
	}
	wr.finished = at
	if err != nil {
		var f *wrFailure
		if !errors.As(err, &f) {
			f = &wrFailure{code: wrCodeBadInput, message: err.Error()}
		}
		wr.failure = f
	}
	if wr.settle != nil {
		wr.settle(err)
	}
}

// wrFaultRule makes matching work requests fail with message.
type wrFaultRule struct {
	match   func(WorkRequestInfo) bool
	message string
	// hold makes a matching work request run until CompleteWorkRequests instead of failing it.
	hold bool
}

// heldFor is how long a held work request runs: for ever, as far as any test can tell.
const heldFor = 100 * 365 * 24 * time.Hour

// workQueue holds every work request of both load-balancing APIs. Guarded by Server.mu.
type workQueue struct {
	byID     map[string]*workRequest
	all      []*workRequest // in acceptance order
	pending  []*workRequest // unfinished, in deadline order (acceptance order among equals)
	rules    map[int]wrFaultRule
	nextRule int
}

func newWorkQueue() workQueue {
	return workQueue{byID: map[string]*workRequest{}, rules: map[int]wrFaultRule{}}
}

// submit accepts wr at now, to start at after (or now, whichever is later: a work request
// queued behind another on the same load balancer starts when that one ends) and to run for
// duration. Fault rules are consulted here, on acceptance, so a test that installs a rule, makes
// a call and removes the rule fails exactly the work requests that call started.
func (q *workQueue) submit(wr *workRequest, now, after time.Time, duration time.Duration) {
	wr.accepted = now
	wr.start = now
	if after.After(now) {
		wr.start = after
	}
	wr.deadline = wr.start.Add(max(duration, 0))
	info := wr.info(now)
	ids := make([]int, 0, len(q.rules))
	for id := range q.rules {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	failed := false
	for _, id := range ids {
		switch rule := q.rules[id]; {
		case !rule.match(info):
		case rule.hold:
			wr.deadline = wr.start.Add(heldFor)
		case !failed:
			wr.injected, failed = rule.message, true
		}
	}
	q.byID[wr.id] = wr
	q.all = append(q.all, wr)
	// Durations differ per operation and queued work starts late, so deadlines do not grow with
	// acceptance: insert after every work request due no later than this one.
	i, _ := slices.BinarySearchFunc(q.pending, wr.deadline, func(p *workRequest, d time.Time) int {
		if p.deadline.After(d) {
			return 1
		}
		return -1
	})
	q.pending = slices.Insert(q.pending, i, wr)
}

// advance resolves, in order, every pending work request whose deadline has passed. Each takes
// effect at its deadline, however late the call that notices it.
func (q *workQueue) advance(now time.Time) {
	for len(q.pending) > 0 && !q.pending[0].deadline.After(now) {
		wr := q.pending[0]
		q.pending = q.pending[1:]
		wr.finish(wr.deadline)
	}
}

// finishAll resolves every pending work request at once, in deadline order (which is acceptance
// order on any one load balancer).
func (q *workQueue) finishAll(now time.Time) int {
	n := len(q.pending)
	for len(q.pending) > 0 {
		wr := q.pending[0]
		q.pending = q.pending[1:]
		if wr.start.After(now) {
			wr.start = now // a queued one runs now, not at its planned start
		}
		wr.finish(now)
	}
	return n
}

// lockLB takes Server.mu and brings every work request up to date, returning the time the caller
// should treat as now. The caller unlocks s.mu.
func (s *Server) lockLB() time.Time {
	s.mu.Lock()
	now := s.now() // read under the lock so acceptance order and time order agree
	s.lb.work.advance(now)
	return now
}

// workRequestOCIDTypes are the resource types in the OCIDs of each API's work requests.
var workRequestOCIDTypes = map[string]string{
	APILoadBalancer:        "loadbalancerworkrequest",
	APINetworkLoadBalancer: "nlbworkrequest",
}

// newWorkRequest makes a work request of api's operation op on a (network) load balancer, for
// the caller to give its apply and settle and queue (submitQueued).
func (s *Server) newWorkRequest(api, op, resourceID, compartmentID string) *workRequest {
	return &workRequest{id: s.NewID(workRequestOCIDTypes[api]), api: api, op: op,
		resourceID: resourceID, compartmentID: compartmentID}
}

// workRequestFor finds the work request the request's path names among api's, answering 404 as
// OCI does when there is none (a work request of the other API included). Caller holds s.mu.
func (s *Server) workRequestFor(w http.ResponseWriter, r *http.Request, api string) (*workRequest, bool) {
	id := r.PathValue("workRequestId")
	wr, ok := s.lb.work.byID[id]
	if !ok || wr.api != api {
		notFound(w, r, "work request", id)
		return nil, false
	}
	return wr, true
}

// workRequestsOf lists api's work requests that match, in the order the server accepted them.
// Caller holds s.mu.
func (s *Server) workRequestsOf(api string, match func(*workRequest) bool) []*workRequest {
	var out []*workRequest
	for _, wr := range s.lb.work.all {
		if wr.api == api && match(wr) {
			out = append(out, wr)
		}
	}
	return out
}

// submitWork accepts a work request at now that starts no earlier than after (zero: at once),
// running as long as the server's duration profile says.
func (s *Server) submitWork(wr *workRequest, now, after time.Time) {
	s.lb.wrSeq++
	d := s.opts.WorkRequestDuration
	if s.opts.WorkRequestDurations != nil {
		d = s.opts.WorkRequestDurations(wr.api, wr.op, s.lb.wrSeq)
	}
	s.lb.work.submit(wr, now, after, d)
}

// WorkRequests returns a snapshot of every load balancer and network load balancer work request,
// in the order the server accepted them.
func (s *Server) WorkRequests() []WorkRequestInfo {
	now := s.lockLB()
	defer s.mu.Unlock()
	out := make([]WorkRequestInfo, 0, len(s.lb.work.all))
	for _, wr := range s.lb.work.all {
		out = append(out, wr.info(now))
	}
	return out
}

// CompleteWorkRequests finishes every running work request now, as if its time were up, and
// returns how many it finished. Tests that set a long Options.WorkRequestDuration use it to
// observe the in-between states first and then move on without waiting.
func (s *Server) CompleteWorkRequests() int {
	now := s.lockLB()
	defer s.mu.Unlock()
	return s.lb.work.finishAll(now)
}

// FailWorkRequests makes every work request accepted from now on for which match returns true
// FAIL with message instead of applying its change, like OCI failing a change on its side. match
// sees the work request as accepted (State ACCEPTED) and runs under the server's lock: it must
// not call the Server. Call remove to uninstall the rule; work requests already matched still
// fail.
func (s *Server) FailWorkRequests(match func(WorkRequestInfo) bool, message string) (remove func()) {
	id := s.addWorkRule(wrFaultRule{match: match, message: message})
	return func() { s.removeWorkRule(id) }
}

// HoldWorkRequests makes every work request accepted from now on for which match returns true run
// until CompleteWorkRequests, however long its duration would be: a work request that never
// finishes on its own, as OCI has been seen to leave one. Work queued behind it on the same load
// balancer waits for it, as in OCI. match runs under the server's lock and must not call the
// Server. Call remove to stop matching new work requests; those already held stay held.
func (s *Server) HoldWorkRequests(match func(WorkRequestInfo) bool) (remove func()) {
	id := s.addWorkRule(wrFaultRule{match: match, hold: true})
	return func() { s.removeWorkRule(id) }
}

// addWorkRule installs a work-request rule and returns its id for removeWorkRule.
func (s *Server) addWorkRule(rule wrFaultRule) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.lb.work.nextRule
	s.lb.work.nextRule++
	s.lb.work.rules[id] = rule
	return id
}

// removeWorkRule uninstalls a work-request rule, and reports whether there was one.
func (s *Server) removeWorkRule(id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.lb.work.rules[id]
	delete(s.lb.work.rules, id)
	return ok
}

// CancelWorkRequest cancels a running Network Load Balancer work request, as someone in the
// console would: it is CANCELING until its time is up (or CompleteWorkRequests), then CANCELED,
// and its change is never applied. The Load Balancer API has no cancellation (its work request
// states are ACCEPTED, IN_PROGRESS, SUCCEEDED and FAILED), so its work requests are refused, as
// are unknown and finished ones.
func (s *Server) CancelWorkRequest(id string) error {
	s.lockLB()
	defer s.mu.Unlock()
	wr, ok := s.lb.work.byID[id]
	switch {
	case !ok:
		return fmt.Errorf("ocitest: no work request %s", id)
	case wr.api != APINetworkLoadBalancer:
		return fmt.Errorf("ocitest: work request %s belongs to the Load Balancer API, which has no cancellation", id)
	case wr.done():
		return fmt.Errorf("ocitest: work request %s already ended %s", id, wr.state(wr.finished))
	}
	wr.canceling = true
	return nil
}
