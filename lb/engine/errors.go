// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/common"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/text"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// ErrNotOwned is matched (errors.Is) by every ownershipError.
var ErrNotOwned = errors.New("load balancer is not owned by this Service")

// ownershipError says a load balancer was found for a Service but oci-ccm may not manage it:
// its ownership tags name another cluster or Service, or it carries none and nothing proves it
// belongs to this Service.
type ownershipError struct {
	LoadBalancerID string
	DisplayName    string
	// Reason explains which tag or rule refused it.
	Reason string
}

// Error names the load balancer and why it is refused.
func (e *ownershipError) Error() string {
	return fmt.Sprintf("load balancer %s (%s) is not owned by this Service: %s", e.LoadBalancerID, text.Quote(e.DisplayName), e.Reason)
}

// Is makes errors.Is(err, ErrNotOwned) true.
func (e *ownershipError) Is(target error) bool { return target == ErrNotOwned }

// ErrUnavailable is matched (errors.Is) when a load balancer exists but is in a state that
// cannot be reconciled now (CREATING by a call whose response was lost, FAILED, …).
var ErrUnavailable = errors.New("load balancer is not available")

// stateError reports a load balancer in a lifecycle state that cannot be reconciled.
type stateError struct {
	LoadBalancerID string
	State          string
	Hint           string
}

// Error names the load balancer, its state and what to do.
func (e *stateError) Error() string {
	return fmt.Sprintf("load balancer %s is %s: %s", e.LoadBalancerID, e.State, e.Hint)
}

// Is makes errors.Is(err, ErrUnavailable) true.
func (e *stateError) Is(target error) bool { return target == ErrUnavailable }

// applyError reports a plan that did not complete: what was done, what failed and what was not
// attempted because something it depends on failed. OCI is left in a consistent state (the plan's
// order guarantees no listener points at a missing backend set or certificate); the next
// reconcile re-plans from what is there and converges.
type applyError struct {
	LoadBalancerID string
	Completed      []model.Change
	Failed         []failedChange
	Skipped        []model.Change
}

// failedChange is a change and the error that stopped it.
type failedChange struct {
	Change model.Change
	Err    error
}

// Error names what failed, what completed and what was not attempted.
func (e *applyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "load balancer %s: %d of %d change(s) failed", e.LoadBalancerID, len(e.Failed),
		len(e.Completed)+len(e.Failed)+len(e.Skipped))
	for _, f := range e.Failed {
		fmt.Fprintf(&b, "; %s: %v", f.Change, f.Err)
	}
	if len(e.Completed) > 0 {
		b.WriteString("; completed: ")
		b.WriteString(joinChanges(e.Completed))
	}
	if len(e.Skipped) > 0 {
		b.WriteString("; not attempted: ")
		b.WriteString(joinChanges(e.Skipped))
	}
	return b.String()
}

// Unwrap exposes the underlying OCI errors to errors.Is/As (e.g. ociclient.IsConflict).
func (e *applyError) Unwrap() []error {
	errs := make([]error, len(e.Failed))
	for i, f := range e.Failed {
		errs[i] = f.Err
	}
	return errs
}

func joinChanges(cs []model.Change) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.String()
	}
	return strings.Join(parts, ", ")
}

// DefinedTagsError is a create OCI refused because its defined tags name a tag namespace or key
// the tenancy does not define (OCI: 400 "The following tag namespaces / keys are not authorized
// or not found", or "Failed to validate tags"). Field says where the tags came from: the
// Service's annotation, or cloud-provider.yaml's loadBalancer.tags.definedTags. Retrying cannot
// help until the namespace and key exist in the tenancy or the field changes.
type DefinedTagsError struct {
	Field string
	Err   error // OCI's answer
}

func (e *DefinedTagsError) Error() string {
	return fmt.Sprintf("%s: OCI refused the defined tags (create the tag namespace and key in the tenancy, or change the field): %v", e.Field, e.Err)
}

func (e *DefinedTagsError) Unwrap() error { return e.Err }

// definedTagsError turns OCI's refusal of a create's defined tags into a *DefinedTagsError naming
// the field they came from; other errors pass unchanged.
func definedTagsError(err error, svc *v1.Service, desired *model.Spec, creating bool) error {
	if err == nil || !creating || desired == nil || len(desired.DefinedTags) == 0 || !isTagRefusal(err) {
		return err
	}
	field := "cloud-provider.yaml loadBalancer.tags.definedTags"
	names := []annotation.Name{annotation.InitialDefinedTags}
	if desired.Kind == model.KindNetworkLoadBalancer {
		names = []annotation.Name{annotation.NLBInitialDefinedTags, annotation.NLBDefinedTags}
	}
	for _, a := range names {
		if _, ok := svc.Annotations[string(a)]; ok {
			field = "annotation " + string(a)
			break
		}
	}
	return &DefinedTagsError{Field: field, Err: err}
}

// isTagRefusal reports whether OCI answered 400 to defined tags it does not know.
func isTagRefusal(err error) bool {
	var se common.ServiceError
	if !errors.As(err, &se) || se.GetHTTPStatusCode() != http.StatusBadRequest {
		return false
	}
	msg := se.GetMessage()
	return strings.Contains(msg, "tag namespaces / keys are not authorized or not found") ||
		strings.Contains(msg, "Failed to validate tags")
}

// problemf builds the Problem for a bad annotation value, as lb's Desired does.
func problemf(a annotation.Name, value, allowedFormat string, args ...any) *lb.Problem {
	return &lb.Problem{Field: a.String(), Value: value, Allowed: fmt.Sprintf(allowedFormat, args...)}
}
