// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"crypto/rsa"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"
)

// route is what the control layer knows about an operation.
type route struct {
	op    string // SDK operation name; "" for paths ocitest does not emulate
	class Class  // "" for paths ocitest does not emulate
	auth  authScheme
}

// outcome is how the control layer disposed of a call, for accounting.
type outcome struct {
	rejected bool // the control layer wrote the response (or dropped it), not the handler
	dropped  bool // the connection was closed without an answer
	faulted  bool // an injected fault applied
}

// control is the layer every request passes before its handler: signature verification,
// server-side rate limiting, injected faults and call accounting. It has its own lock, separate
// from the emulated state's, so a handler never holds both.
type control struct {
	now func() time.Time
	// closing is closed when the server shuts down, ending injected delays so Close does not
	// wait out an hour-long latency fault.
	closing   chan struct{}
	closeOnce sync.Once

	mu    sync.Mutex
	keys  map[string]registeredKey // by keyId
	calls callCounter
	// byPrincipal counts the authenticated calls per principal (principals.go).
	byPrincipal map[Principal]*callCounter
	// sessions verifies the session tokens of keyIds "ST$<token>" (sessiontokens.go).
	sessions *sessionIssuer
	faults   faultSet
	limits   rateLimits
}

// registeredKey is an API key's public half and whose it is.
type registeredKey struct {
	pub       *rsa.PublicKey
	principal Principal
}

func newControl(now func() time.Time, sessions *sessionIssuer) *control {
	c := &control{now: now, closing: make(chan struct{}), keys: map[string]registeredKey{}, sessions: sessions}
	c.calls.reset()
	return c
}

func (c *control) registerKey(keyID string, pub *rsa.PublicKey, p Principal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keys[keyID] = registeredKey{pub: pub, principal: p}
}

// publicKey returns the key a request signed with keyID must verify with, and its principal:
// a registered API key, or the session key inside a session token this server issued
// (keyId "ST$<token>"). An expired session token is an error, as OCI answers 401 for it.
func (c *control) publicKey(keyID string) (*rsa.PublicKey, Principal, error) {
	if token, ok := strings.CutPrefix(keyID, "ST$"); ok {
		return c.sessions.verify(token)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.keys[keyID]
	if !ok {
		return nil, Principal{}, errors.New("unknown keyId")
	}
	return k.pub, k.principal, nil
}

// serve runs one request through the control layer and, if it lets the request through, the
// handler, and accounts for the result.
func (c *control) serve(rt route, w http.ResponseWriter, r *http.Request, h http.HandlerFunc) {
	c.mu.Lock()
	c.calls.start(rt)
	c.mu.Unlock()

	sw := &statusWriter{ResponseWriter: w}
	var byPrincipal *callCounter
	o := c.run(rt, sw, w, r, h, func(p Principal) {
		c.mu.Lock()
		byPrincipal = c.countPrincipal(p, rt)
		c.mu.Unlock()
	})

	c.mu.Lock()
	c.calls.finish(sw.status, o)
	if byPrincipal != nil {
		byPrincipal.finish(sw.status, o)
	}
	c.mu.Unlock()
}

// run applies, in order, authentication, the rate limit and injected faults, the order a real
// service front end applies them: a request that fails authentication never uses up a token or
// a fault.
// authenticated is told the principal of a request that passed authentication.
func (c *control) run(rt route, sw *statusWriter, raw http.ResponseWriter, r *http.Request, h http.HandlerFunc, authenticated func(Principal)) outcome {
	p, err := c.authenticate(rt.auth, r)
	if err != nil {
		writeError(sw, r, http.StatusUnauthorized, "NotAuthenticated", err.Error())
		return outcome{rejected: true}
	}
	authenticated(p)
	if retryAfter, limited := c.limit(rt.class); limited {
		if retryAfter != "" {
			sw.Header().Set("retry-after", retryAfter)
		}
		writeError(sw, r, http.StatusTooManyRequests, "TooManyRequests", "ocitest: server-side rate limit for "+string(rt.class)+" calls exceeded")
		return outcome{rejected: true}
	}
	f, ok := c.pickFault(rt)
	if !ok {
		h(sw, r)
		return outcome{}
	}
	if f.Latency > 0 {
		t := time.NewTimer(f.Latency)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return outcome{faulted: true} // the client gave up; nobody reads an answer
		case <-c.closing:
			dropConnection(raw) // an empty 200 would pass for an answer
			return outcome{rejected: true, dropped: true, faulted: true}
		}
	}
	if !f.answers() {
		h(sw, r)
		return outcome{faulted: true}
	}
	if f.AfterHandler {
		h(&discardWriter{header: http.Header{}}, r) // state changes; the response is lost
	}
	if f.DropConnection {
		dropConnection(raw)
		return outcome{rejected: true, dropped: true, faulted: true}
	}
	writeFault(sw, r, f)
	return outcome{rejected: true, faulted: true}
}

// close ends every injected delay in progress.
func (c *control) close() { c.closeOnce.Do(func() { close(c.closing) }) }

// Calls returns a snapshot of the call counters.
func (s *Server) Calls() Calls {
	s.ctl.mu.Lock()
	defer s.ctl.mu.Unlock()
	return s.ctl.calls.snapshot()
}

// ResetCalls sets every call counter to zero.
func (s *Server) ResetCalls() {
	s.ctl.mu.Lock()
	defer s.ctl.mu.Unlock()
	s.ctl.calls.reset()
}

// dropConnection closes the client's connection without writing a response, as a crashed front
// end or a network partition would.
func dropConnection(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = conn.Close()
		return
	}
	// Not hijackable (HTTP/2): net/http's documented way to abort a response mid-flight.
	panic(http.ErrAbortHandler)
}

// statusWriter remembers the status code written through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// discardWriter swallows a handler's response, for faults that lose it after the handler ran.
type discardWriter struct{ header http.Header }

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}
