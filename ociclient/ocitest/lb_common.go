// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
)

// This file holds what the Load Balancer and Network Load Balancer APIs share: error answers,
// retry tokens, ETags, the bookkeeping beside each (network) load balancer, and the paths every
// read and change takes (limits are in lb_limits.go, addresses in lb_address.go). Each API
// passes in what differs: its wire types, how it finds a load balancer, when one takes a change.

// balancerBook is the bookkeeping OCI keeps beside a load balancer or network load balancer.
type balancerBook struct {
	seq     uint64 // creation order, for stable listing and paging
	version uint64 // bumped on every change; the ETag derives from it
	// queue is the unfinished work requests on it in arrival order; the first is running, the
	// others wait for it (LBBusyQueue). The Network Load Balancer API refuses a change while one
	// runs, so its queue holds one at most.
	queue []*workRequest
}

func (b *balancerBook) creationSeq() uint64 { return b.seq }

// inCreationOrder lists one API's (network) load balancers in creation order. Caller holds s.mu.
func inCreationOrder[E interface{ creationSeq() uint64 }](store map[string]E) []E {
	out := slices.Collect(maps.Values(store))
	slices.SortFunc(out, func(a, b E) int { return cmp.Compare(a.creationSeq(), b.creationSeq()) })
	return out
}

// submitQueued queues wr on the (network) load balancer b, to start when the work request before
// it ends (at once if none runs), and takes it off the queue when it ends, before wr's own settle
// runs. Caller holds s.mu.
func (s *Server) submitQueued(b *balancerBook, wr *workRequest, now time.Time) {
	var after time.Time
	if n := len(b.queue); n > 0 {
		after = b.queue[n-1].deadline
	}
	settle := wr.settle
	wr.settle = func(err error) {
		b.queue = slices.DeleteFunc(b.queue, func(q *workRequest) bool { return q == wr })
		if settle != nil {
			settle(err)
		}
	}
	b.queue = append(b.queue, wr)
	s.submitWork(wr, now, after)
}

// lbListed reports whether a (network) load balancer belongs in a List answer to q: in the
// compartment asked for, past its listing lag, and of the displayName and lifecycleState asked
// for, if any. Caller holds s.mu.
func (s *Server) lbListed(q url.Values, now time.Time, compartment, id, name *string, state string) bool {
	return deref(compartment) == q.Get("compartmentId") && s.lag.listedLocked(deref(id), now) &&
		(!q.Has("displayName") || deref(name) == q.Get("displayName")) &&
		(!q.Has("lifecycleState") || state == q.Get("lifecycleState"))
}

// readPart answers a read of a (network) load balancer or of a part of one: find locates it
// (answering 404 itself), pick returns the body or an error such as lbNotFound. Its ETag goes
// along, as OCI sends it.
func readPart[E interface{ etag() string }](s *Server, w http.ResponseWriter, r *http.Request,
	find func(http.ResponseWriter, *http.Request) (E, bool), pick func(E) (any, error)) {
	s.lockLB()
	defer s.mu.Unlock()
	e, ok := find(w, r)
	if !ok {
		return
	}
	body, err := pick(e)
	if err != nil {
		writeLBError(w, r, err)
		return
	}
	w.Header().Set("etag", e.etag())
	writeJSON(w, r, http.StatusOK, body) // encoded under s.mu: no copy needed
}

// balancer is a stored (network) load balancer as the change and delete paths both APIs share
// see it. The busy and lifecycle rules it answers by are each API's own.
type balancer interface {
	etag() string
	// readyForChange says why it takes no change now, or nil.
	readyForChange(mode LBBusyMode) error
	// readyForDelete says why it takes no delete now, or nil.
	readyForDelete(mode LBBusyMode) error
}

// balancerFor finds the (network) load balancer the request's path names and checks that it
// takes the call now, answering the caller when not: 404 when there is none (find answers), 412
// for a stale if-match ETag, 409 when it takes no change (or, for a delete, no delete) now.
// Caller holds s.mu.
func balancerFor[E balancer](s *Server, w http.ResponseWriter, r *http.Request,
	find func(http.ResponseWriter, *http.Request) (E, bool), isDelete bool) (e E, ok bool) {
	if e, ok = find(w, r); !ok || lbIfMatchFails(w, r, e.etag()) {
		return e, false
	}
	ready := e.readyForChange
	if isDelete {
		ready = e.readyForDelete
	}
	if err := ready(s.opts.LBBusy); err != nil {
		writeLBError(w, r, err)
		return e, false
	}
	return e, true
}

// changeTarget finds the (network) load balancer a change is for and answers the caller itself
// when the change goes no further: a retried call gets its first answer again (lbReplay); then
// balancerFor's 404, 412 and 409; and last the request's own fault (invalid, nil when fine) or
// check's verdict on the current target (check may be nil), answered synchronously, as OCI does
// for duplicates, missing parts and limits. Caller holds s.mu.
func changeTarget[E balancer](s *Server, w http.ResponseWriter, r *http.Request, op string, now time.Time,
	find func(http.ResponseWriter, *http.Request) (E, bool), invalid error, check func(E) error) (e E, ok bool) {
	if s.lbReplay(w, r, op, now) {
		return e, false
	}
	if e, ok = balancerFor(s, w, r, find, false); !ok {
		return e, false
	}
	if invalid == nil && check != nil {
		invalid = check(e)
	}
	if invalid != nil {
		writeLBError(w, r, invalid)
		return e, false
	}
	return e, true
}

// createChecks runs the synchronous checks of a create in the order both APIs share, the first
// that fails deciding the answer: the request on its own (own), then what it names that other
// APIs own (subnets, NSGs and reserved IPs must exist and be the caller's to use, related.go),
// its defined tags, and last what only this API checks against the tenancy (tenancy). Caller
// holds s.mu.
func (s *Server) createChecks(own error, subnets, nsgs, reserved []string, tags map[string]map[string]any,
	tenancy func() error) error {
	if own != nil {
		return own
	}
	if err := s.checkRelatedLocked(subnets, nsgs, reserved); err != nil {
		return err
	}
	if err := s.checkDefinedTagsLocked(tags); err != nil {
		return err
	}
	return tenancy()
}

// reservedIDs lists the OCIDs a create's reservedIps name, as createChecks takes them; id reads
// one from the API's own type.
func reservedIDs[T any](ips []T, id func(T) *string) []string {
	var out []string
	for _, ip := range ips {
		out = append(out, deref(id(ip)))
	}
	return out
}

// acceptWork queues wr on the (network) load balancer b and answers the caller 204 with the
// work request's OCID, remembering the answer under the request's retry token. Caller holds s.mu.
func (s *Server) acceptWork(w http.ResponseWriter, r *http.Request, op string, now time.Time, b *balancerBook, wr *workRequest) {
	s.submitQueued(b, wr, now)
	s.lbAccept(w, r, op, now, lbRetryResult{status: http.StatusNoContent, wrID: wr.id, resourceID: wr.resourceID})
}

// applyOnCopy is what a change's work request does when it runs: mutate next, a copy of *cur;
// check the whole result as OCI does then (whole); record the parts the change created and
// removed (lb_parts.go); and only then keep it, so a failed work request changes nothing.
// Caller holds s.mu.
func applyOnCopy[R any](s *Server, cur *R, next R, id, op, wrID string,
	mutate, whole func(*R) error, parts func(*R) map[string]bool) error {
	if err := mutate(&next); err != nil {
		return err
	}
	if err := whole(&next); err != nil {
		return err
	}
	before, after := parts(cur), parts(&next)
	s.lbPartsChanged(id, op, wrID, before, after)
	s.healthTrack(id, before, after, s.now())
	*cur = next
	return nil
}

// patch sets *dst to a copy of *src when the request gives src: how both APIs take the fields
// of an update, and the fields of a create over OCI's defaults, one by one.
func patch[T any](dst **T, src *T) {
	if src != nil {
		v := *src
		*dst = &v
	}
}

// patchMap replaces *dst with src when the request gives it, as both APIs update tags.
func patchMap[M ~map[K]V, K comparable, V any](dst *M, src M) {
	if src != nil {
		*dst = src
	}
}

// lbForget is what deleting a (network) load balancer does to the state both APIs share: its
// addresses are free again and the retry tokens of calls on it invalidated, as OCI's delete
// does. Caller holds s.mu.
func (s *Server) lbForget(id string) {
	s.lbReleaseReserved(id)
	s.lbInvalidateTokens(id)
	s.healthForget(id)
}

// removeBalancer deletes the (network) load balancer id from its API's store at once, without a
// work request, as someone in the console would, and reports whether it was there. Caller holds
// s.mu.
func removeBalancer[E any](s *Server, store map[string]E, id string) bool {
	if _, ok := store[id]; !ok {
		return false
	}
	delete(store, id)
	s.lbForget(id)
	return true
}

// lbError is a synchronous refusal: the HTTP status and OCI error code to answer with.
type lbError struct {
	status int
	code   string
	msg    string
}

func (e *lbError) Error() string { return e.msg }

func lbInvalid(format string, args ...any) error {
	return &lbError{http.StatusBadRequest, "InvalidParameter", fmt.Sprintf(format, args...)}
}

// lbNotFound is OCI's answer for a missing resource (or one the caller may not see).
func lbNotFound(what, id string) error {
	return &lbError{http.StatusNotFound, "NotAuthorizedOrNotFound",
		fmt.Sprintf("Authorization failed or requested resource not found: %s %s", what, id)}
}

func lbConflict(format string, args ...any) error {
	return &lbError{http.StatusConflict, "Conflict", fmt.Sprintf(format, args...)}
}

// nlbDuplicateBackend is how the Network Load Balancer API refuses a backend the backend set
// already has: 409 NotAuthorizedOrResourceAlreadyExists, "Conflict. For <NLB OCID> Duplicate
// backend IP/id + port combinations not allowed: Backend(...)" (terraform-provider-oci #1593,
// a CreateBackend). Not Conflict, the code of a busy NLB, so a client that retries Conflict does
// not retry it.
// nlbID may be empty (a create names no NLB yet).
func nlbDuplicateBackend(nlbID, set, backend string) error {
	for_ := ""
	if nlbID != "" {
		for_ = " For " + nlbID
	}
	return &lbError{http.StatusConflict, "NotAuthorizedOrResourceAlreadyExists",
		fmt.Sprintf("Conflict.%s Duplicate backend IP/id + port combinations not allowed: backend %s in backend set '%s'", for_, backend, set)}
}

func lbLimitExceeded(format string, args ...any) error {
	return &lbError{http.StatusBadRequest, "LimitExceeded", fmt.Sprintf(format, args...)}
}

func lbIncorrectState(format string, args ...any) error {
	return &lbError{http.StatusConflict, "IncorrectState", fmt.Sprintf(format, args...)}
}

// writeLBError answers with err's status and code; an error that is not an *lbError is a
// 400 InvalidParameter.
func writeLBError(w http.ResponseWriter, r *http.Request, err error) {
	var e *lbError
	if !errors.As(err, &e) {
		e = &lbError{http.StatusBadRequest, "InvalidParameter", err.Error()}
	}
	writeError(w, r, e.status, e.code, e.msg)
}

// lbRetryResult is the answer a create (or update) gave for an opc-retry-token, replayed when
// the same token comes again.
type lbRetryResult struct {
	status int
	wrID   string
	etag   string
	body   any
	// resourceID is the (network) load balancer the call created or changed: deleting it
	// invalidates the token.
	resourceID string
}

// retryTokenLifetime is how long OCI honours an opc-retry-token ("Retry tokens expire after 24
// hours", OCI API reference, every operation's opc-retry-token parameter).
const retryTokenLifetime = 24 * time.Hour

// lbRetryEntry is what the server remembers of one opc-retry-token.
type lbRetryEntry struct {
	res         lbRetryResult
	body        [sha256.Size]byte // of the request that first used the token
	first       time.Time         // when it was first used, by the server's clock
	invalidated bool              // the resource it acted on was deleted since
	deleted     string            // when a part the call created was deleted: which (lb_parts.go)
}

// lbRetryKey scopes a token to the operation and its target, so one token reused for another call
// does not return a stranger's result.
func lbRetryKey(op string, r *http.Request) (string, bool) {
	token := r.Header.Get("opc-retry-token")
	if token == "" {
		return "", false
	}
	return op + " " + r.URL.Path + " " + token, true
}

// lbBodyHash hashes the request body; readJSON leaves it readable again.
func lbBodyHash(r *http.Request) [sha256.Size]byte {
	if r.Body == nil {
		return sha256.Sum256(nil)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return sha256.Sum256(body)
}

// lbReplay answers a request whose opc-retry-token the server has seen for this operation and
// reports whether it did. Within 24 hours of its first use the token gets the first answer
// again, unless the resource it acted on was deleted since (409 InvalidatedRetryToken, as OCI
// documents) or the body differs from the first request's (409 InvalidatedRetryToken too: OCI
// does not document this case; ocitest assumes it is refused rather than replayed). After 24
// hours the token is forgotten and the request runs as a new one. Caller holds s.mu.
func (s *Server) lbReplay(w http.ResponseWriter, r *http.Request, op string, now time.Time) bool {
	key, ok := lbRetryKey(op, r)
	if !ok {
		return false
	}
	t, ok := s.lb.tokens[key]
	if !ok {
		return false
	}
	if !now.Before(t.first.Add(retryTokenLifetime)) {
		delete(s.lb.tokens, key)
		return false
	}
	switch {
	case t.invalidated && t.deleted != "":
		writeError(w, r, http.StatusConflict, codeInvalidatedRetryToken, fmt.Sprintf(
			"The retry token was invalidated: %s, which the request it was first used for created, has been deleted", t.deleted))
	case t.invalidated:
		writeError(w, r, http.StatusConflict, codeInvalidatedRetryToken, fmt.Sprintf(
			"The retry token was invalidated: resource %s, which the request it was first used for acted on, has been deleted", t.res.resourceID))
	case lbBodyHash(r) != t.body:
		writeError(w, r, http.StatusConflict, codeInvalidatedRetryToken,
			"The retry token was first used for a request with a different body; a retry must repeat the request exactly")
	default:
		lbWriteAccepted(w, r, t.res)
	}
	return true
}

// codeInvalidatedRetryToken is OCI's error code for a retry token it no longer honours.
const codeInvalidatedRetryToken = "InvalidatedRetryToken"

// lbAccept answers a mutation whose work request was accepted at now and remembers the answer
// under the request's retry token. Caller holds s.mu.
func (s *Server) lbAccept(w http.ResponseWriter, r *http.Request, op string, now time.Time, res lbRetryResult) {
	if key, ok := lbRetryKey(op, r); ok {
		if len(s.lb.tokens)%1024 == 1023 {
			s.lbSweepTokens(now)
		}
		s.lb.tokens[key] = &lbRetryEntry{res: res, body: lbBodyHash(r), first: now}
	}
	lbWriteAccepted(w, r, res)
}

// lbSweepTokens forgets the tokens older than 24 hours, so a long run does not keep them all.
// Caller holds s.mu.
func (s *Server) lbSweepTokens(now time.Time) {
	for key, t := range s.lb.tokens {
		if !now.Before(t.first.Add(retryTokenLifetime)) {
			delete(s.lb.tokens, key)
		}
	}
}

// lbInvalidateTokens marks every retry token of a call on the (network) load balancer id as
// invalidated, because it was deleted. Caller holds s.mu.
func (s *Server) lbInvalidateTokens(id string) {
	s.lbForgetParts(id)
	for _, t := range s.lb.tokens {
		if t.res.resourceID == id {
			t.invalidated = true
		}
	}
}

func lbWriteAccepted(w http.ResponseWriter, r *http.Request, res lbRetryResult) {
	w.Header().Set("opc-work-request-id", res.wrID)
	if res.etag != "" {
		w.Header().Set("etag", res.etag)
	}
	writeJSON(w, r, res.status, res.body)
}

// lbETag is the opaque ETag of a resource at a version; any change bumps the version.
func lbETag(id string, version uint64) string {
	sum := sha256.Sum256([]byte(id + "/" + strconv.FormatUint(version, 10)))
	return hex.EncodeToString(sum[:12])
}

// lbIfMatchFails answers 412 NoEtagMatch and returns true when the request carries an if-match
// header that differs from etag.
func lbIfMatchFails(w http.ResponseWriter, r *http.Request, etag string) bool {
	m := r.Header.Get("if-match")
	if m == "" || m == "*" || m == etag {
		return false
	}
	writeError(w, r, http.StatusPreconditionFailed, "NoEtagMatch",
		"The resource's etag does not match the value of the if-match header")
	return true
}

// lbRequireQuery returns the named query parameter, answering 400 when it is missing.
func lbRequireQuery(w http.ResponseWriter, r *http.Request, name string) (string, bool) {
	return queryOrMissing(w, r, name, "query parameter "+name+" is required")
}
