package ocitest

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
)

// This file holds what the Load Balancer and Network Load Balancer APIs share: error answers,
// retry tokens, ETags and address allocation (limits are in lb_limits.go).

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

// lbReplay answers a request whose opc-retry-token the server has seen for this operation
// with the first answer and reports whether it did. Caller holds s.mu.
func (s *Server) lbReplay(w http.ResponseWriter, r *http.Request, op string) bool {
	key, ok := lbRetryKey(op, r)
	if !ok {
		return false
	}
	res, ok := s.lb.tokens[key]
	if !ok {
		return false
	}
	lbWriteAccepted(w, r, res)
	return true
}

// lbAccept answers a mutation whose work request was accepted and remembers the answer under
// the request's retry token. Caller holds s.mu.
func (s *Server) lbAccept(w http.ResponseWriter, r *http.Request, op string, res lbRetryResult) {
	if key, ok := lbRetryKey(op, r); ok {
		s.lb.tokens[key] = res
	}
	lbWriteAccepted(w, r, res)
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
	v := r.URL.Query().Get(name)
	if v == "" {
		writeError(w, r, http.StatusBadRequest, "MissingParameter", "query parameter "+name+" is required")
		return "", false
	}
	return v, true
}

// lbSortBySeq orders items by their creation sequence number.
func lbSortBySeq[T any](items []T, seq func(T) uint64) {
	slices.SortFunc(items, func(a, b T) int { return cmp.Compare(seq(a), seq(b)) })
}
