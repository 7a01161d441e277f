// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"sync/atomic"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
)

// A new install: the CCM is deployed together with its IAM policy, and its first calls come
// while the policy still propagates ("New policies take effect typically within 10 seconds",
// the doc comment of CreatePolicy in the SDK's identity/identity_client.go). Meanwhile OCI
// refuses what the policy grants, with the answers the SDK lists as affected by eventual
// consistency (common.IsErrorAffectedByEventualConsistency, common/eventual_consistency.go:
// 404 NotAuthorizedOrNotFound, 400 RelatedResourceNotAuthorizedOrNotFound, 409
// NotAuthorizedOrResourceAlreadyExists, 409 ResourceAlreadyExists, 400
// InsufficientServicePermissions, 400 ResourceDisabled).
//
// The SDK retries those answers for 240 seconds after each identity write it makes itself
// (common.EcContext.UpdateEndOfWindow(240 * time.Second) in identity/identity_client.go); the
// CCM makes none, but is started right after one. So the client retries them, with reason
// eventual_consistency, from its start until OCI first answers one of its calls successfully,
// for at most RetryPolicy.NewInstallWindow: a first success shows the policy in force, and from
// then on such an answer means what it says. Before it, a 404 about something truly missing is
// retried too, until the window ends (or the caller's deadline): later, never. Only the retry
// layer sees the window; what a 404 proves is still the caller's to decide (see DESIGN, absence).

// DefaultNewInstallWindow is RetryPolicy.NewInstallWindow's default: the window the SDK retries
// eventual-consistency errors in after an identity write (240 s, identity/identity_client.go).
const DefaultNewInstallWindow = 240 * time.Second

// newInstallMaxDelay caps the backoff of eventual-consistency retries: a policy takes some
// seconds to apply, so retrying more often than this only adds calls.
const newInstallMaxDelay = 5 * time.Second

// newInstall is the window of a client's start: open until a call succeeds or it ends.
type newInstall struct {
	end       time.Time // zero: no window
	succeeded atomic.Bool
}

func newNewInstall(now time.Time, window time.Duration) *newInstall {
	if window <= 0 {
		return &newInstall{}
	}
	return &newInstall{end: now.Add(window)}
}

// open reports whether the window is open at now.
func (w *newInstall) open(now time.Time) bool {
	return !w.end.IsZero() && !w.succeeded.Load() && now.Before(w.end)
}

// succeed closes the window: OCI answered a call successfully.
func (w *newInstall) succeed() {
	if !w.succeeded.Load() {
		w.succeeded.Store(true)
	}
}

// affectedByEventualConsistency reports whether err is one of the answers a policy that is
// still propagating gives.
func affectedByEventualConsistency(err error) bool {
	se, ok := asServiceError(err)
	if !ok {
		return false
	}
	e, ok := se.(error) // the SDK's service errors are errors; it asks the unwrapped one
	return ok && common.IsErrorAffectedByEventualConsistency(e)
}
