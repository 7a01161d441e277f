// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/oracle/oci-go-sdk/v65/common"

	"github.com/oci-ccm/oci-ccm/internal/ctxtime"
)

// callClass says which rate-limit bucket an operation draws from and how it is counted.
type callClass int

const (
	classRead callClass = iota
	classWrite
	// classPoll is a read of a work request: it draws from the read bucket.
	classPoll
)

func (c callClass) String() string {
	switch c {
	case classWrite:
		return "write"
	case classPoll:
		return "poll"
	default:
		return "read"
	}
}

// The services, as they appear in metric labels and logs.
const (
	serviceLB       = "loadbalancer"
	serviceNLB      = "networkloadbalancer"
	serviceCompute  = "compute"
	serviceVCN      = "virtualnetwork"
	serviceIdentity = "identity"
)

// operation describes one OCI operation for the retry layer, metrics and logs.
type operation struct {
	service string
	name    string // the SDK's operation name, e.g. "GetInstance"
	class   callClass
	// resource is the OCID (or other key) the call is about, for logs and errors.
	resource string
}

// Reasons for a retry, as they appear in the retries metric and logs.
const (
	reasonThrottled      = "throttled"
	reasonServerError    = "server_error"
	reasonIncorrectState = "incorrect_state"
	reasonNLBBusy        = "nlb_busy"
	reasonTimeout        = "timeout"
	reasonConnection     = "connection"
)

// clock is time as the retry layer, rate limiter, caches and waiter see it. Tests replace it to
// observe and skip waits instead of measuring them.
type clock struct {
	now func() time.Time
	// sleep waits for d or until ctx ends, whichever is first, and returns ctx.Err() in the
	// second case.
	sleep func(ctx context.Context, d time.Duration) error
	// jitter returns a uniformly random duration in [0, n) (0 when n <= 0).
	jitter func(n time.Duration) time.Duration
}

// Now and Sleep make a clock an ociclient.Clock, for Client.Clock.
func (c clock) Now() time.Time { return c.now() }

// Sleep waits for d or until ctx ends; see Clock.
func (c clock) Sleep(ctx context.Context, d time.Duration) error { return c.sleep(ctx, d) }

func realClock() clock {
	return clock{now: time.Now, sleep: ctxtime.Sleep, jitter: func(n time.Duration) time.Duration {
		if n <= 0 {
			return 0
		}
		return rand.N(n)
	}}
}

// caller is what every service client shares: the retry loop, rate limiter, metrics, logger,
// clock and policies.
type caller struct {
	retry    RetryPolicy
	poll     PollPolicy
	cacheTTL time.Duration
	limiter  *limiter
	metrics  Metrics
	log      logr.Logger // used when a call's context carries no logger
	clock    clock
	// history is how long recent work requests took, by kind, for the polling schedule.
	history durationHistory
}

func newCaller(opts Options) *caller {
	l := newLimiter(opts.RateLimit)
	l.observeWith(opts.Metrics)
	return &caller{
		limiter:  l,
		retry:    opts.Retry,
		poll:     opts.Poll,
		cacheTTL: opts.CacheTTL,
		metrics:  opts.Metrics,
		log:      opts.Logger.WithName("ociclient"),
		clock:    clockOf(opts.Clock),
	}
}

// logger returns the logger for a call: the one in ctx (logr.NewContext, klog.NewContext) if
// there is one, so an embedder's controller sees OCI calls in its own logs with its own
// key-value pairs, else Options.Logger.
func (c *caller) logger(ctx context.Context) logr.Logger {
	if l, err := logr.FromContext(ctx); err == nil {
		return l.WithName("ociclient")
	}
	return c.log
}

// clockOf is the caller's clock: the wall clock, or Options.Clock with real jitter.
func clockOf(c Clock) clock {
	clk := realClock()
	if c != nil {
		clk.now, clk.sleep = c.Now, c.Sleep
	}
	return clk
}

// sdkResponse is what every SDK response type implements; on errors the SDK still returns the
// raw HTTP response (when there was one), which is where Retry-After lives.
type sdkResponse interface {
	HTTPResponse() *http.Response
}

// invoke runs one logical call: it waits for the rate limiter, sends the request through send,
// and retries transient failures with backoff until the policy's bounds. send receives the
// context to hand to the SDK and must build the SDK request the same way on every attempt
// (with the same opc-retry-token for writes). Errors are returned as *OperationError.
func invoke[R sdkResponse](ctx context.Context, c *caller, op operation, send func(context.Context) (R, error)) (R, error) {
	var zero R
	start := c.clock.now()
	log := c.logger(ctx).WithValues("service", op.service, "operation", op.name)
	if op.resource != "" {
		log = log.WithValues("resource", op.resource)
	}
	var lastErr error
	for attempt := 1; ; attempt++ {
		g, err := c.limiter.wait(ctx, op.class, c.clock, c.metrics)
		if err != nil {
			return zero, &OperationError{Operation: op.name, Resource: op.resource, Attempts: attempt - 1, Err: lastErr, Interrupted: err}
		}
		sent := time.Now()
		resp, err := send(detachForSDK(ctx))
		elapsed := time.Since(sent)
		requestID := opcRequestID(resp.HTTPResponse(), err)
		c.metrics.ObserveRequest(ctx, op.service, op.name, outcome(err), elapsed)
		c.adapt(log, g, resp.HTTPResponse(), err)
		if err == nil {
			log.V(4).Info("OCI call succeeded", "opcRequestID", requestID, "attempt", attempt, "duration", elapsed)
			return resp, nil
		}
		lastErr = err
		fail := func(interrupted error) (R, error) {
			opErr := &OperationError{Operation: op.name, Resource: op.resource, Attempts: attempt, Err: err, Interrupted: interrupted, service: op.service}
			log.V(3).Info("OCI call failed", "opcRequestID", requestID, "attempts", attempt, "err", opErr.summary())
			return zero, opErr
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fail(ctxErr)
		}
		reason := retryReason(op.service, err)
		if reason == "" || attempt >= c.retry.MaxAttempts {
			return fail(nil)
		}
		delay, fromServer := c.retryDelay(attempt, resp.HTTPResponse())
		if c.clock.now().Add(delay).Sub(start) > c.retry.MaxElapsed {
			return fail(nil)
		}
		if deadline, ok := ctx.Deadline(); ok && delay > time.Until(deadline) {
			// Waiting would only end in the deadline: give up now and keep OCI's error.
			return fail(nil)
		}
		c.metrics.CountRetry(ctx, op.service, op.name, reason)
		log.V(2).Info("Retrying OCI call", "opcRequestID", requestID, "attempt", attempt, "reason", reason,
			"delay", delay, "retryAfter", fromServer, "err", summarise(err))
		if err := c.clock.sleep(ctx, delay); err != nil {
			return fail(err)
		}
	}
}

// call is invoke for the usual call: the SDK client's method do, sent req on every attempt.
func call[Q any, R sdkResponse](ctx context.Context, c *caller, op operation, do func(context.Context, Q) (R, error), req Q) (R, error) {
	return invoke(ctx, c, op, func(ctx context.Context) (R, error) { return do(ctx, req) })
}

// retryDelay is the wait before retry number attempt: what the response's Retry-After asks,
// or else full jitter over an exponentially growing ceiling.
func (c *caller) retryDelay(attempt int, resp *http.Response) (d time.Duration, fromServer bool) {
	if d, ok := retryAfter(resp, c.clock.now()); ok {
		return d, true
	}
	ceiling := c.retry.BaseDelay
	for i := 1; i < attempt && ceiling < c.retry.MaxDelay; i++ {
		ceiling *= 2
	}
	return c.clock.jitter(min(ceiling, c.retry.MaxDelay)), false
}

// retryAfter reads a Retry-After header in either of its forms, delay-seconds or HTTP-date.
func retryAfter(resp *http.Response, now time.Time) (time.Duration, bool) {
	if resp == nil {
		return 0, false
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// retryReason says why err, an answer of service ("" when unknown), is worth another attempt,
// or "" if it is not. 429, 5xx other than 501, timeouts and broken connections are transient.
// So are two 409s: IncorrectState (a resource in a state that forbids the change for now; no
// report shows OCI sending it for a busy classic load balancer, whose changes queue, but it is
// harmless to retry) and, from the Network Load Balancer API only, Conflict, which is how that
// API refuses a change while another work request runs ("Invalid State Transition of NLB
// lifeCycle state from Updating to Updating"; terraform-provider-oci #1456). A duplicate backend
// there is a different code, 409 NotAuthorizedOrResourceAlreadyExists ("Duplicate backend IP/id
// + port combinations not allowed"; terraform-provider-oci #1593), and is not retried. Whether a
// duplicate listener or backend set name answers Conflict is not known; if it does, a retry turns
// it into the same error a few attempts later, as messages are not matched. Every other answer
// (400, 401, 404, 412, 409 InvalidatedRetryToken, 409 NotAuthorizedOrResourceAlreadyExists, ...)
// would fail again.
func retryReason(service string, err error) string {
	if se, ok := asServiceError(err); ok {
		switch status := se.GetHTTPStatusCode(); {
		case status == http.StatusTooManyRequests:
			return reasonThrottled
		case status == http.StatusNotImplemented:
			return ""
		case status >= 500:
			return reasonServerError
		case status == http.StatusConflict && se.GetCode() == codeIncorrectState:
			return reasonIncorrectState
		case status == http.StatusConflict && se.GetCode() == codeConflict && service == serviceNLB:
			return reasonNLBBusy
		}
		return ""
	}
	if errors.Is(err, context.Canceled) {
		return ""
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) {
		return reasonConnection
	}
	// Includes http.Client timeouts and context.DeadlineExceeded; invoke checks the caller's
	// own context before asking, so only deadlines other than the caller's get here.
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return reasonTimeout
	}
	return ""
}

// opcRequestID finds OCI's request ID for logs, in the response or the service error.
func opcRequestID(resp *http.Response, err error) string {
	if resp != nil {
		if id := resp.Header.Get("opc-request-id"); id != "" {
			return id
		}
	}
	if se, ok := asServiceError(err); ok {
		return se.GetOpcRequestID()
	}
	return ""
}

// newRetryToken returns a fresh opc-retry-token: 48 hex characters, within OCI's 64.
func newRetryToken() string {
	var b [24]byte
	_, _ = crand.Read(b[:]) // crypto/rand.Read never fails (it crashes the program instead).
	return hex.EncodeToString(b[:])
}

// retryTokenOr returns token, or a fresh one when it is empty.
func retryTokenOr(token string) *string {
	if token == "" {
		token = newRetryToken()
	}
	return common.String(token)
}
