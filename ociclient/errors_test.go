// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// serviceError is a common.ServiceError for classification tests.
type serviceError struct {
	status int
	code   string
}

func (e serviceError) Error() string           { return fmt.Sprintf("%d %s", e.status, e.code) }
func (e serviceError) GetHTTPStatusCode() int  { return e.status }
func (e serviceError) GetMessage() string      { return "message" }
func (e serviceError) GetCode() string         { return e.code }
func (e serviceError) GetOpcRequestID() string { return "request-id" }

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

var _ net.Error = timeoutError{}

func TestErrorKinds(t *testing.T) {
	type kinds struct {
		NotFound, Ambiguous, Conflict, Precondition, RateLimited, Retryable, InvalidatedToken bool
		Outcome                                                                               string
	}
	tests := []struct {
		name string
		err  error
		want kinds
	}{
		{"404 NotFound", serviceError{404, "NotFound"}, kinds{NotFound: true, Outcome: "not_found"}},
		{"404 NotAuthorizedOrNotFound", serviceError{404, "NotAuthorizedOrNotFound"}, kinds{NotFound: true, Ambiguous: true, Outcome: "not_found"}},
		{"404 with another code", serviceError{404, "NamespaceNotFound"}, kinds{Outcome: "not_found"}},
		{"409 IncorrectState", serviceError{409, "IncorrectState"}, kinds{Conflict: true, Retryable: true, Outcome: "conflict"}},
		{"409 Conflict", serviceError{409, "Conflict"}, kinds{Conflict: true, Outcome: "conflict"}},
		{"409 Conflict from the Load Balancer API", &OperationError{Operation: "CreateBackendSet", Attempts: 1, Err: serviceError{409, "Conflict"}, service: serviceLB},
			kinds{Conflict: true, Outcome: "conflict"}},
		{"409 Conflict from the Network Load Balancer API (busy)", &OperationError{Operation: "UpdateBackendSet", Attempts: 5, Err: serviceError{409, "Conflict"}, service: serviceNLB},
			kinds{Conflict: true, Retryable: true, Outcome: "conflict"}},
		{"409 InvalidatedRetryToken", &OperationError{Operation: "CreateNetworkLoadBalancer", Attempts: 1, Err: serviceError{409, "InvalidatedRetryToken"}, service: serviceNLB},
			kinds{Conflict: true, InvalidatedToken: true, Outcome: "conflict"}},
		{"412 NoEtagMatch", serviceError{412, "NoEtagMatch"}, kinds{Precondition: true, Outcome: "precondition_failed"}},
		{"429", serviceError{429, "TooManyRequests"}, kinds{RateLimited: true, Retryable: true, Outcome: "throttled"}},
		{"500", serviceError{500, "InternalServerError"}, kinds{Retryable: true, Outcome: "server_error"}},
		{"501", serviceError{501, "NotImplemented"}, kinds{Outcome: "server_error"}},
		{"503", serviceError{503, "ServiceUnavailable"}, kinds{Retryable: true, Outcome: "server_error"}},
		{"400", serviceError{400, "InvalidParameter"}, kinds{Outcome: "client_error"}},
		{"401", serviceError{401, "NotAuthenticated"}, kinds{Outcome: "unauthorized"}},
		{"wrapped twice", fmt.Errorf("outer: %w", &OperationError{Operation: "Op", Attempts: 1, Err: serviceError{429, "TooManyRequests"}}),
			kinds{RateLimited: true, Retryable: true, Outcome: "throttled"}},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), kinds{Retryable: true, Outcome: "connection"}},
		{"unexpected EOF", io.ErrUnexpectedEOF, kinds{Retryable: true, Outcome: "connection"}},
		{"network timeout", fmt.Errorf("dial: %w", timeoutError{}), kinds{Retryable: true, Outcome: "timeout"}},
		{"cancelled", context.Canceled, kinds{Outcome: "canceled"}},
		{"other", errors.New("boom"), kinds{Outcome: "error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := kinds{
				NotFound: IsNotFound(tt.err), Ambiguous: IsAmbiguousNotFound(tt.err), Conflict: IsConflict(tt.err),
				Precondition: IsPreconditionFailed(tt.err), RateLimited: IsRateLimited(tt.err),
				Retryable: IsRetryable(tt.err), InvalidatedToken: IsInvalidatedRetryToken(tt.err), Outcome: outcome(tt.err),
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOperationErrorIsOneReadableLine(t *testing.T) {
	err := &OperationError{Operation: "GetInstance", Resource: "ocid1.instance.oc1..a", Attempts: 3,
		Err: serviceError{503, "ServiceUnavailable"}, Interrupted: context.Canceled}
	want := "GetInstance ocid1.instance.oc1..a: 503 ServiceUnavailable: message (opc-request-id request-id); stopped: context canceled (3 attempts)"
	if got := err.Error(); got != want {
		t.Errorf("Error() = %q\nwant      %q", got, want)
	}
	if !errors.Is(err, context.Canceled) || !IsRetryable(err) {
		t.Errorf("errors.Is(Canceled) = %v, IsRetryable = %v; want both true", errors.Is(err, context.Canceled), IsRetryable(err))
	}
}

func TestWorkRequestErrorNamesTheOperationAndMessages(t *testing.T) {
	err := &WorkRequestError{ID: "ocid1.wr", Operation: "CreateListener", Messages: []string{"a", "b"}}
	if got, want := err.Error(), "CreateListener failed (work request ocid1.wr): a; b"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestErrorsFromOCIAreClassifiedThroughTheSDK(t *testing.T) {
	env, id := retryEnv(t, RetryPolicy{})
	env.srv.InjectFault(ocitest.Fault{Operation: "GetLoadBalancer", Status: 404, Message: "no such load balancer"})
	_, err := env.client.LoadBalancers.GetLoadBalancer(context.Background(), id)
	if !IsNotFound(err) || !IsAmbiguousNotFound(err) || IsRetryable(err) {
		t.Fatalf("error %v: want an ambiguous, non-retryable not-found", err)
	}
	// One line, with what a person needs, and none of the SDK's multi-line boilerplate.
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "no such load balancer") || !strings.Contains(msg, id) {
		t.Errorf("Error() = %q; want one line naming the load balancer and OCI's message", msg)
	}
}
