// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/common"
)

// OCI error codes the package decides on.
const (
	codeNotFound                = "NotFound"
	codeNotAuthorizedOrNotFound = "NotAuthorizedOrNotFound"
	codeRelatedNotFound         = "RelatedResourceNotAuthorizedOrNotFound"
	codeIncorrectState          = "IncorrectState"
	codeConflict                = "Conflict"
	codeInvalidatedRetryToken   = "InvalidatedRetryToken"
)

// ErrNoSubnetForIP is returned (wrapped) by SubnetForIP when no subnet contains the address.
var ErrNoSubnetForIP = errors.New("no subnet contains the IP address")

// OperationError is what every call returns on failure. It wraps the last error OCI (or the
// network) returned, so errors.As(err, &common.ServiceError) and the Is* functions see it, and
// says how many attempts were made. Interrupted is set when the caller's context, not OCI, ended
// the call; errors.Is(err, context.Canceled) then holds too.
type OperationError struct {
	// Operation is the OCI operation, e.g. "GetInstance".
	Operation string
	// Resource is the OCID or other key the call was about, if any.
	Resource string
	// Attempts is how many requests were sent (0 if none was).
	Attempts int
	// Err is the last request's error; nil if no request was sent.
	Err error
	// Interrupted is the reason retrying stopped early (the context's error), if it did.
	Interrupted error

	// service is the API called (serviceLB, ...), which decides what a 409 Conflict means.
	service string
}

// Error reports the operation, resource, OCI's status, code, message and request ID, and the
// number of attempts, on one line.
func (e *OperationError) Error() string {
	var b strings.Builder
	b.WriteString(e.Operation)
	if e.Resource != "" {
		b.WriteString(" ")
		b.WriteString(e.Resource)
	}
	b.WriteString(": ")
	b.WriteString(e.summary())
	return b.String()
}

// summary is Error without the operation and resource, for logs that carry those as keys.
func (e *OperationError) summary() string {
	var parts []string
	if e.Err != nil {
		parts = append(parts, summarise(e.Err))
	}
	if e.Interrupted != nil {
		parts = append(parts, "stopped: "+e.Interrupted.Error())
	}
	s := strings.Join(parts, "; ")
	switch e.Attempts {
	case 0:
		return s + " (no request sent)"
	case 1:
		return s + " (1 attempt)"
	default:
		return fmt.Sprintf("%s (%d attempts)", s, e.Attempts)
	}
}

// Unwrap returns the last OCI error and the interruption, whichever are set.
func (e *OperationError) Unwrap() []error {
	var errs []error
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	if e.Interrupted != nil {
		errs = append(errs, e.Interrupted)
	}
	return errs
}

// summarise renders an error compactly: for OCI service errors, status, code, message and
// request ID instead of the SDK's multi-line text.
func summarise(err error) string {
	if se, ok := asServiceError(err); ok {
		s := fmt.Sprintf("%d %s: %s", se.GetHTTPStatusCode(), se.GetCode(), se.GetMessage())
		if id := se.GetOpcRequestID(); id != "" {
			s += " (opc-request-id " + id + ")"
		}
		return s
	}
	return err.Error()
}

// WorkRequestError reports a work request that ended FAILED (or, for network load balancers,
// CANCELED), with the messages OCI gave for it.
type WorkRequestError struct {
	// ID is the work request's OCID.
	ID string
	// Operation is what the work request did, e.g. "CreateListener".
	Operation string
	// Messages are OCI's error messages for the work request, in order.
	Messages []string
	// Canceled is true when the work request ended CANCELED (someone canceled it; Network Load
	// Balancer API only) rather than FAILED. Its change was not applied either way.
	Canceled bool
}

// Error names the work request, how it ended and its messages.
func (e *WorkRequestError) Error() string {
	op := e.Operation
	if op == "" {
		op = "work request"
	}
	if e.Canceled {
		s := fmt.Sprintf("%s was canceled (work request %s)", op, e.ID)
		if len(e.Messages) > 0 {
			s += ": " + strings.Join(e.Messages, "; ")
		}
		return s
	}
	msg := "no error details"
	if len(e.Messages) > 0 {
		msg = strings.Join(e.Messages, "; ")
	}
	return fmt.Sprintf("%s failed (work request %s): %s", op, e.ID, msg)
}

// asServiceError finds an OCI service error in err's chain.
func asServiceError(err error) (common.ServiceError, bool) {
	var se common.ServiceError
	if err == nil || !errors.As(err, &se) {
		return nil, false
	}
	return se, true
}

func hasStatus(err error, status int) bool {
	se, ok := asServiceError(err)
	return ok && se.GetHTTPStatusCode() == status
}

// IsNotFound reports whether OCI answered 404 NotFound or 404 NotAuthorizedOrNotFound. The
// second also means "not authorized": see IsAmbiguousNotFound before treating it as absence.
func IsNotFound(err error) bool {
	se, ok := asServiceError(err)
	if !ok || se.GetHTTPStatusCode() != http.StatusNotFound {
		return false
	}
	code := se.GetCode()
	return code == codeNotFound || code == codeNotAuthorizedOrNotFound
}

// IsRelatedNotFound reports whether OCI answered 400 RelatedResourceNotAuthorizedOrNotFound: a
// resource the request's body names (a subnet, network security group or reserved IP of a load
// balancer) does not exist or the caller's policy does not allow its use. OCI's API errors
// reference (docs.oracle.com, Content/API/References/apierrors.htm) gives both meanings to the
// one code.
func IsRelatedNotFound(err error) bool {
	se, ok := asServiceError(err)
	return ok && se.GetHTTPStatusCode() == http.StatusBadRequest && se.GetCode() == codeRelatedNotFound
}

// IsAmbiguousNotFound reports whether OCI answered 404 NotAuthorizedOrNotFound: the resource
// may exist but an IAM policy keeps the caller from seeing it. Deciding that something is gone
// (e.g. deleting a Node) on this error alone is how a missing policy deletes a cluster's nodes.
func IsAmbiguousNotFound(err error) bool {
	se, ok := asServiceError(err)
	return ok && se.GetHTTPStatusCode() == http.StatusNotFound && se.GetCode() == codeNotAuthorizedOrNotFound
}

// IsConflict reports whether OCI answered 409 (e.g. a name is taken, a certificate is in use, a
// network load balancer is busy with another work request, or InvalidatedRetryToken).
func IsConflict(err error) bool { return hasStatus(err, http.StatusConflict) }

// IsInvalidatedRetryToken reports whether OCI answered 409 InvalidatedRetryToken: the retry
// token was used by a request whose resource has since been deleted (or, as ocitest assumes, by a
// request with another body), so OCI neither replays nor repeats it. Retrying with the same token
// can never succeed; the caller needs a new token (a create's token is not a per-attempt nonce).
func IsInvalidatedRetryToken(err error) bool {
	se, ok := asServiceError(err)
	return ok && se.GetHTTPStatusCode() == http.StatusConflict && se.GetCode() == codeInvalidatedRetryToken
}

// IsPreconditionFailed reports whether OCI answered 412 (e.g. NoEtagMatch: an If-Match ETag is
// stale; re-read and try again).
func IsPreconditionFailed(err error) bool { return hasStatus(err, http.StatusPreconditionFailed) }

// IsRateLimited reports whether OCI answered 429 TooManyRequests.
func IsRateLimited(err error) bool { return hasStatus(err, http.StatusTooManyRequests) }

// IsRetryable reports whether err is transient, so that the same call may succeed later: 429,
// 5xx except 501, 409 IncorrectState, a Network Load Balancer API 409 Conflict (busy), timeouts
// and broken connections. For an error returned by this package it looks at OCI's last answer,
// which the retry layer already retried as far as its policy allowed; a caller that requeues on
// true is doing the right thing.
func IsRetryable(err error) bool {
	service := ""
	if oe, ok := errors.AsType[*OperationError](err); ok {
		service = oe.service
	}
	return retryReason(service, err) != ""
}

// outcome labels a request's result for metrics: "ok" or a bounded error kind.
func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	if se, ok := asServiceError(err); ok {
		switch status := se.GetHTTPStatusCode(); {
		case status == http.StatusNotFound:
			return "not_found"
		case status == http.StatusConflict:
			return "conflict"
		case status == http.StatusPreconditionFailed:
			return "precondition_failed"
		case status == http.StatusTooManyRequests:
			return "throttled"
		case status == http.StatusUnauthorized || status == http.StatusForbidden:
			return "unauthorized"
		case status >= 500:
			return "server_error"
		default:
			return "client_error"
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case retryReason("", err) == reasonTimeout:
		return "timeout"
	case retryReason("", err) == reasonConnection:
		return "connection"
	}
	return "error"
}
