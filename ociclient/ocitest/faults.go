// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"math/rand/v2"
	"net/http"
	"slices"
	"time"
)

// Fault describes a failure the server injects into matching calls, after authentication and
// the rate limit. A fault with neither Status nor DropConnection only adds Latency.
type Fault struct {
	// Operation is the SDK operation name to match, e.g. "GetLoadBalancer"; "" matches any.
	Operation string `json:"operation,omitempty"`
	// Class is the call class to match; "" matches any. Classes match exactly: ClassRead does
	// not match polls.
	Class Class `json:"class,omitempty"`
	// Status is the HTTP status to answer with, 400–599 (others are answered as 500); 0 lets
	// the handler answer.
	Status int `json:"status,omitempty"`
	// Code is the OCI error code in the body; "" picks the usual one for Status (429
	// TooManyRequests, 500 InternalServerError, 503 ServiceUnavailable, 409 Conflict,
	// 412 NoEtagMatch, ...).
	Code string `json:"code,omitempty"`
	// Message is the error message in the body; "" means a generic one.
	Message string `json:"message,omitempty"`
	// RetryAfter is the value of the retry-after header; "" sends none.
	RetryAfter string `json:"retryAfter,omitempty"`
	// Times is how many calls the fault applies to before it retires itself; 0 means until
	// removed.
	Times int `json:"times,omitempty"`
	// Probability is the chance the fault applies to a matching call; 0 or 1 mean always. Calls
	// it skips do not count against Times.
	Probability float64 `json:"probability,omitempty"`
	// Latency delays the answer (or the handler) by this long, or until the client gives up.
	Latency time.Duration `json:"latency,omitempty"`
	// DropConnection closes the connection without an answer.
	DropConnection bool `json:"dropConnection,omitempty"`
	// AfterHandler lets the handler run, so its state change happens, and then answers with the
	// fault (or drops the connection) instead of the handler's response: a lost response.
	AfterHandler bool `json:"afterHandler,omitempty"`
}

// answers reports whether the fault replaces the handler's response.
func (f Fault) answers() bool { return f.Status != 0 || f.DropConnection }

func (f Fault) matches(rt route) bool {
	return (f.Operation == "" || f.Operation == rt.op) && (f.Class == "" || f.Class == rt.class)
}

// faultSet is the injected faults in the order they were added. Guarded by control.mu.
type faultSet struct {
	lastID  int
	entries []*faultEntry
}

type faultEntry struct {
	id    int
	fault Fault
	left  int // applications left; meaningful only when fault.Times > 0
}

// InjectFault adds a fault; calls matching several faults get the oldest one that applies.
// Call the returned function to remove it (removing twice is harmless).
func (s *Server) InjectFault(f Fault) (remove func()) {
	id := s.ctl.addFault(f)
	return func() { s.ctl.removeFault(id) }
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.ctl.mu.Lock()
	defer s.ctl.mu.Unlock()
	s.ctl.faults.entries = nil
}

func (c *control) addFault(f Fault) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults.lastID++
	c.faults.entries = append(c.faults.entries, &faultEntry{id: c.faults.lastID, fault: f, left: f.Times})
	return c.faults.lastID
}

// removeFault removes a fault by id and reports whether it was still there.
func (c *control) removeFault(id int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.faults.entries)
	c.faults.entries = slices.DeleteFunc(c.faults.entries, func(e *faultEntry) bool { return e.id == id })
	return len(c.faults.entries) != n
}

// pickFault returns the fault that applies to this call, if any, and uses up one of its Times.
func (c *control) pickFault(rt route) (Fault, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.faults.entries {
		if !e.fault.matches(rt) {
			continue
		}
		if p := e.fault.Probability; p > 0 && p < 1 && rand.Float64() >= p {
			continue
		}
		if e.fault.Times > 0 {
			e.left--
			if e.left == 0 {
				c.faults.entries = slices.Delete(c.faults.entries, i, i+1)
			}
		}
		return e.fault, true
	}
	return Fault{}, false
}

// writeFault answers with the fault's status, error body and retry-after header.
func writeFault(w http.ResponseWriter, r *http.Request, f Fault) {
	status := f.Status
	if status < 400 || status > 599 {
		status = http.StatusInternalServerError
	}
	code := f.Code
	if code == "" {
		code = defaultErrorCode(status)
	}
	msg := f.Message
	if msg == "" {
		msg = "ocitest: injected fault"
	}
	if f.RetryAfter != "" {
		w.Header().Set("retry-after", f.RetryAfter)
	}
	writeError(w, r, status, code, msg)
}

// defaultErrorCode is the error code OCI usually pairs with a status.
func defaultErrorCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "InvalidParameter"
	case http.StatusUnauthorized:
		return "NotAuthenticated"
	case http.StatusNotFound:
		return "NotAuthorizedOrNotFound"
	case http.StatusConflict:
		return "Conflict"
	case http.StatusPreconditionFailed:
		return "NoEtagMatch"
	case http.StatusTooManyRequests:
		return "TooManyRequests"
	case http.StatusServiceUnavailable:
		return "ServiceUnavailable"
	default:
		return "InternalServerError"
	}
}
