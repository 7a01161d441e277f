// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package ocitest is an in-memory OCI API server that speaks OCI's REST wire format, so the real
// oci-go-sdk clients talk to it. Tests and benchmarks seed it with a small tenancy, inject faults,
// and read back per-operation call counts.
//
// Point an SDK client at it with client.Host = srv.URL() and sign with srv.ConfigurationProvider().
//
// Every request passes a control layer before its handler: the request signature is verified
// against the registered keys (401 NotAuthenticated otherwise), a per-class token bucket may
// answer 429 (SetRateLimit), injected faults may answer, delay or drop it (InjectFault), and the
// call is counted (Calls). Then the call is checked against the IAM policy (the tenancy's,
// DefaultPolicy for the default one; SetPolicy) and answers 404 NotAuthorizedOrNotFound, or 400
// RelatedResourceNotAuthorizedOrNotFound for a resource its body names, if not allowed, as OCI
// does; Options.AllowAll turns the check off. A server starts with a tenancy (DefaultTenancy
// unless Options.Tenancy gives another), so a subnet nobody seeded is unknown, as in OCI. Paths under
// /ocitest/ are an unsigned admin API for tests that drive
// a server in another process (cmd/ocitest). README.md lists what is emulated and what is not.
package ocitest

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Class is the kind of call an operation is, for accounting and the server-side rate limit.
type Class string

// The call classes.
const (
	// ClassRead is a Get or List of a resource.
	ClassRead Class = "read"
	// ClassWrite is a call that changes state.
	ClassWrite Class = "write"
	// ClassPoll is a read of a work request.
	ClassPoll Class = "poll"
)

// Server is an in-memory OCI. All methods are safe for concurrent use.
type Server struct {
	opts Options
	now  func() time.Time // Options.Now: the emulated services' clock
	hs   *httptest.Server
	mux  *http.ServeMux
	seq  atomic.Uint64

	// mu guards every piece of emulated state below and in the per-API stores.
	mu      sync.Mutex
	lb      *lbStore
	nlb     *nlbStore
	compute *computeStore
	vcn     *vcnStore
	ident   *identityStore
	meta    *metadataStore
	tags    tagStore       // the tenancy's tag namespaces and keys (tags.go)
	iam     *policy        // nil: no policy, everything allowed (iam.go)
	comps   compartmentSet // named compartments, for policies and the seed
	ops     []string       // every registered operation, for the IAM table's completeness test
	denials []Denial       // calls the policy refused since it was set
	seeded  Seeded         // what New seeded (Options.Tenancy, DefaultTenancy, or nothing)
	lag     *consistency   // policy and listing lags (consistency.go)

	ctl      *control       // faults, rate limit, call accounting, keys; has its own lock
	sessions *sessionIssuer // session tokens (sessiontokens.go); has its own lock
	apps     tokenApps      // identity-domain applications (tokenexchange.go); has its own lock

	caPEM []byte // the TLS certificate (its own CA), nil without Options.TLS

	defaultCredsOnce sync.Once
	defaultCreds     Credentials
}

// Options configure a Server. The zero value is usable: plain HTTP, OCI's page sizes, work
// requests that finish after WorkRequestDuration's default.
type Options struct {
	// TLS serves HTTPS with a self-signed certificate for 127.0.0.1 and localhost.
	TLS bool
	// PageSize caps list responses (0: each operation's own default, like OCI).
	PageSize int
	// WorkRequestDuration is how long a work request stays ACCEPTED/IN_PROGRESS (default 30ms).
	WorkRequestDuration time.Duration
	// Region is the region the server pretends to be (default "us-phoenix-1").
	Region string
	// TenancyID is the tenancy OCID (default a generated one).
	TenancyID string
	// LBLimits are the Load Balancer and Network Load Balancer service limits (zero fields: OCI's
	// defaults, which for fixed shapes is none at all). SetLBLimits changes them later.
	LBLimits LBLimits
	// Addr is the address to listen on, e.g. "127.0.0.1:8443" (default "127.0.0.1:0", a free
	// loopback port). The cmd/ocitest binary sets it; tests rarely need to.
	Addr string
	// Now is the clock of the emulated services: work requests and retry tokens (default
	// time.Now). A *Clock's Now lets a test jump ahead. Request signatures are still checked
	// against the wall clock, since the SDK signs with the caller's real time.
	Now func() time.Time
	// WorkRequestDurations, when set, replaces WorkRequestDuration with a duration per work
	// request, e.g. RealisticDurations(0.01) for OCI's own durations divided by 100.
	WorkRequestDurations WorkRequestDurations
	// LBBusy is what the Load Balancer API does with a change sent while a work request runs
	// on the load balancer: LBBusyQueue (the default) or LBBusyReject. The Network Load Balancer
	// API always refuses (409 Conflict), as OCI does.
	LBBusy LBBusyMode
	// NLBDeletedRetention is how long a deleted network load balancer stays visible, DELETED, to
	// Get and List (default an hour of the server's clock; negative: gone at once, 404).
	NLBDeletedRetention time.Duration
	// Tenancy is the tenancy the server starts with; nil means DefaultTenancy(). Seeded returns
	// its OCIDs. A server always starts with a tenancy, so code under test meets subnets,
	// security lists and instances as OCI has them, and a subnet nobody seeded is as unknown
	// to the server as it would be to OCI.
	Tenancy *Tenancy
	// EmptyTenancy starts the server with nothing seeded (Tenancy is then ignored): no VCN,
	// subnets, instances or compartments, only what the test adds itself. A test that sets it
	// says why in a comment; most want the default tenancy and build on it.
	EmptyTenancy bool
	// AllowAll turns IAM off: every signed call is allowed, whatever the tenancy's policy says.
	// Without it a server checks every call against the policy (the tenancy's, DefaultPolicy for
	// the default tenancy; none allows nothing), as OCI does. A test that sets it says why in a
	// comment. Server.AllowAll does the same later.
	AllowAll bool
	// PolicyDelay is how long a policy set with SetPolicy takes to apply (default
	// DefaultPolicyDelay; NoLag: at once). ListingLag is how long a resource created through the
	// API is missing from its List… (default DefaultListingLag; NoLag: never). Both run on Now's
	// clock; see consistency.go.
	PolicyDelay, ListingLag time.Duration
	// BackendHealthDelay is how long, by Now's clock, a backend added through the API reports
	// UNKNOWN before it reports OK on its own, as OCI's health checks would once they pass (a
	// backend seeded with AddLoadBalancer is OK at once). Zero, the default: never; every backend
	// stays UNKNOWN until SetBackendHealth says otherwise, since ocitest cannot know whether
	// anything serves at its address. See lb_health.go.
	BackendHealthDelay time.Duration
	// SessionTokenLifetime is how long the session tokens of the token exchange and of OKE
	// workload identity last, by Now's clock (default DefaultSessionTokenLifetime);
	// SetSessionTokenLifetime changes it later. See sessiontokens.go.
	SessionTokenLifetime time.Duration
}

// New starts a server and panics if it cannot listen, like httptest.NewServer: it is meant for
// tests, where there is nothing better to do. Use Listen to get the error instead. Close the
// server when done.
func New(opts Options) *Server {
	s, err := Listen(opts)
	if err != nil {
		panic(fmt.Sprintf("ocitest: %v", err))
	}
	return s
}

// Listen starts a server like New and returns an error when it cannot listen on Options.Addr
// or cannot create its TLS certificate.
func Listen(opts Options) (*Server, error) {
	if opts.WorkRequestDuration == 0 {
		opts.WorkRequestDuration = 30 * time.Millisecond
	}
	if opts.Region == "" {
		opts.Region = "us-phoenix-1"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{opts: opts, now: opts.Now, mux: http.NewServeMux()}
	if s.opts.TenancyID == "" {
		s.opts.TenancyID = s.NewID("tenancy")
	}
	// Signatures carry the caller's wall-clock date, not Options.Now; session tokens expire by
	// the emulated clock, so a test can jump past their lifetime.
	s.sessions = newSessionIssuer(s.now, opts.SessionTokenLifetime, s.opts.TenancyID)
	s.ctl = newControl(time.Now, s.sessions)
	s.lb = newLBStore()
	s.lb.limits = opts.LBLimits.withDefaults()
	s.nlb = newNLBStore()
	s.compute = newComputeStore()
	s.vcn = newVCNStore()
	s.ident = newIdentityStore()
	s.tags = tagStore{}
	s.meta = newMetadataStore()
	s.lag = newConsistency(opts)
	s.registerLB()
	s.registerNLB()
	s.registerCompute()
	s.registerVCN()
	s.registerIdentity()
	s.registerMetadata()
	s.registerAdmin()
	s.registerTokenExchange()
	s.iam = &policy{} // IAM is on: nothing is allowed until a policy says so
	if !opts.EmptyTenancy {
		t := DefaultTenancy()
		if opts.Tenancy != nil {
			t = *opts.Tenancy
		}
		seeded, err := s.Seed(t)
		if err != nil {
			return nil, fmt.Errorf("seed Options.Tenancy: %w", err)
		}
		s.seeded = seeded
	}
	if opts.AllowAll {
		s.AllowAll()
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// Counted, so a client calling an operation ocitest lacks shows up in Calls.
		s.ctl.serve(route{auth: authNone}, w, r, func(w http.ResponseWriter, r *http.Request) {
			writeError(w, r, http.StatusNotFound, "NotAuthorizedOrNotFound",
				fmt.Sprintf("ocitest does not emulate %s %s", r.Method, r.URL.Path))
		})
	})

	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	s.hs = httptest.NewUnstartedServer(s.mux)
	s.hs.Listener.Close() // the default loopback listener, replaced by the one on addr
	s.hs.Listener = ln
	if !opts.TLS {
		s.hs.Start()
		return s, nil
	}
	cert, caPEM, err := newServerCertificate()
	if err != nil {
		ln.Close()
		return nil, err
	}
	s.caPEM = caPEM
	s.hs.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	s.hs.StartTLS()
	return s, nil
}

// URL is the server's base URL (scheme, host and port, no trailing slash): set it as client.Host.
func (s *Server) URL() string { return s.hs.URL }

// HTTPClient returns an http.Client that trusts the server (needed with Options.TLS).
func (s *Server) HTTPClient() *http.Client { return s.hs.Client() }

// Close stops the server. Calls held up by an injected latency end at once, unanswered.
func (s *Server) Close() {
	s.ctl.close()
	s.hs.Close()
}

// CACertPEM returns the PEM certificate a client must trust to reach the server over TLS (the
// server's own self-signed certificate, valid for 127.0.0.1, ::1 and localhost), or nil when
// the server speaks plain HTTP.
func (s *Server) CACertPEM() []byte { return append([]byte(nil), s.caPEM...) }

// Region is the region the server serves.
func (s *Server) Region() string { return s.opts.Region }

// TenancyID is the tenancy OCID the server serves.
func (s *Server) TenancyID() string { return s.opts.TenancyID }

// Seeded returns the OCIDs of the tenancy the server started with (Options.Tenancy, else
// DefaultTenancy()); with Options.EmptyTenancy, the zero Seeded.
func (s *Server) Seeded() Seeded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seeded.clone()
}

// NewID returns a fresh, well-formed OCID of the given resource type, e.g. "loadbalancer".
func (s *Server) NewID(resourceType string) string {
	n := s.seq.Add(1)
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d/%p", resourceType, n, s)))
	return fmt.Sprintf("ocid1.%s.oc1.phx.%s%06d", resourceType, hex.EncodeToString(sum[:])[:40], n)
}

// handle registers an operation. pattern is a Go ServeMux pattern with method, e.g.
// "GET /20170115/loadBalancers/{loadBalancerId}". Every request first passes the control layer
// (signature check, server-side rate limit, injected faults, call accounting), then the IAM
// policy check (iam_ops.go); h runs only if both let it through.
func (s *Server) handle(op string, class Class, pattern string, h http.HandlerFunc) {
	s.handleAuth(op, class, authSignature, pattern, h)
}

// handleAuth is handle with a choice of how requests authenticate; the instance metadata
// service, for one, takes a fixed bearer token instead of a signature.
func (s *Server) handleAuth(op string, class Class, auth authScheme, pattern string, h http.HandlerFunc) {
	rt := route{op: op, class: class, auth: auth}
	s.ops = append(s.ops, op)
	h = s.authorize(op, h) // IAM runs after the control layer, before the handler
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		s.ctl.serve(rt, w, r, h)
	})
}

// writeJSON writes v as a JSON body with the headers OCI always sends.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	setCommonHeaders(w, r)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if v != nil {
		_ = json.NewEncoder(w).Encode(v)
	}
}

// writeError writes an OCI error body: {"code": ..., "message": ...}.
func writeError(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	writeJSON(w, r, status, map[string]string{"code": code, "message": message})
}

// notFound answers as OCI does for a missing resource (or one the caller may not see).
func notFound(w http.ResponseWriter, r *http.Request, what, id string) {
	writeError(w, r, http.StatusNotFound, "NotAuthorizedOrNotFound",
		fmt.Sprintf("Authorization failed or requested resource not found: %s %s", what, id))
}

func setCommonHeaders(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("opc-request-id")
	if id == "" {
		id = "ocitest-" + fmt.Sprint(time.Now().UnixNano())
	}
	w.Header().Set("opc-request-id", id)
}

// readJSON decodes the request body into v, answering 400 InvalidParameter on failure.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(r.Body)
	if err == nil {
		r.Body = io.NopCloser(bytes.NewReader(body)) // read again for a retry token's body check
		err = json.Unmarshal(body, v)
	}
	if err != nil {
		writeError(w, r, http.StatusBadRequest, "InvalidParameter", "malformed request body: "+err.Error())
		return false
	}
	return true
}

// withBody adapts handle, an API handler that takes the request's JSON body as a T, to a
// handler: it decodes the body first (readJSON) and answers a malformed one itself, 400
// InvalidParameter, without calling handle.
func withBody[T any](handle func(w http.ResponseWriter, r *http.Request, body T)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body T
		if readJSON(w, r, &body) {
			handle(w, r, body)
		}
	}
}

// pageOf returns the slice of items for the request's "page" and "limit" query parameters and
// sets opc-next-page when more remain. Pages are opaque offsets, as far as callers know.
func pageOf[T any](s *Server, w http.ResponseWriter, r *http.Request, items []T, defaultLimit int) []T {
	limit := defaultLimit
	if s.opts.PageSize > 0 {
		limit = s.opts.PageSize
	}
	if v := r.URL.Query().Get("limit"); v != "" {
		var n int
		if _, err := fmt.Sscan(v, &n); err == nil && n > 0 && n < limit {
			limit = n
		}
	}
	start := 0
	if p := r.URL.Query().Get("page"); p != "" {
		if _, err := fmt.Sscanf(strings.TrimPrefix(p, "page-"), "%d", &start); err != nil || start < 0 || start > len(items) {
			start = len(items)
		}
	}
	end := min(start+limit, len(items))
	if end < len(items) {
		w.Header().Set("opc-next-page", fmt.Sprintf("page-%d", end))
	}
	return items[start:end]
}
