// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/oracle/oci-go-sdk/v65/common"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Problem is one bad value in a Service: which annotation or spec field, the value found, and
// what is allowed instead.
type Problem struct {
	// Field is the annotation key (e.g. "service.beta.kubernetes.io/oci-load-balancer-shape") or
	// the spec path (e.g. "spec.sessionAffinity").
	Field string
	// Value is the offending value as written. Secret material never appears here.
	Value string
	// Allowed says what would be accepted.
	Allowed string
}

// Error reads like `annotation X: invalid value "v": allowed …`. Long values are cut (see
// quoteValue), so a 10 KB annotation does not make a 20 KB error, event or log line.
func (p *Problem) Error() string {
	return fmt.Sprintf("%s: invalid value %s: %s", p.Field, quoteValue(p.Value), cutText(p.Allowed, maxAllowedEcho))
}

// How much of a value an error echoes. Values beyond are cut with an ellipsis and their length,
// enough to recognise the value without flooding events and logs.
const (
	maxValueEcho   = 128
	maxAllowedEcho = 256 // the allowed text may quote a part of the value (a list item, a parse error)
)

// quoteValue quotes v, cut to maxValueEcho bytes: `"abc…" (10240 bytes)`.
func quoteValue(v string) string {
	if len(v) <= maxValueEcho {
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprintf("%q… (%d bytes)", cutUTF8(v, maxValueEcho), len(v))
}

// cutText cuts free text to max bytes: "abc… (10240 bytes)".
func cutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", cutUTF8(s, max), len(s))
}

// cutUTF8 is the longest prefix of s of at most max bytes that does not split a character.
func cutUTF8(s string, max int) string {
	for max > 0 && max < len(s) && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}

// ValidationError is every problem Desired found in a Service, so a user can fix them all in one
// edit. Nothing in OCI is changed for a Service that fails validation.
//
//	var verr *lb.ValidationError
//	if errors.As(err, &verr) { for _, p := range verr.Problems { … } }
type ValidationError struct {
	// Service is "namespace/name".
	Service  string
	Problems []*Problem
}

// Error lists every problem on one line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "service %s: %d invalid setting(s)", e.Service, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("; ")
		b.WriteString(p.Error())
	}
	return b.String()
}

// Unwrap exposes the individual problems to errors.As.
func (e *ValidationError) Unwrap() []error {
	errs := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		errs[i] = p
	}
	return errs
}

// ImmutableChange is one difference between an existing load balancer and its Service that OCI
// cannot apply in place.
type ImmutableChange struct {
	// Field is what the user changed, as they wrote it: an annotation key (e.g.
	// "service.beta.kubernetes.io/oci-load-balancer-internal"; several keys joined by ", ") or a
	// Service field ("spec.loadBalancerIP").
	Field string
	// Observed is the load balancer's current value; Desired is what the Service asks for.
	Observed, Desired string
	// Hint tells the user how to recover: the value to set back, or to delete and recreate the
	// Service for a new load balancer.
	Hint string
}

// ImmutableError reports changes that would need a new load balancer. Diff returns it instead of
// a plan, so nothing is changed: a half-applied change is worse than none.
type ImmutableError struct {
	LoadBalancerID string
	Changes        []ImmutableChange
}

// Error lists every change that cannot be applied, with a hint.
func (e *ImmutableError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "load balancer %s: %d change(s) cannot be applied to an existing load balancer", e.LoadBalancerID, len(e.Changes))
	for _, c := range e.Changes {
		fmt.Fprintf(&b, "; %s: is %s, Service asks for %s", c.Field, quoteValue(c.Observed), quoteValue(c.Desired))
		if c.Hint != "" {
			fmt.Fprintf(&b, " (%s)", c.Hint)
		}
	}
	return b.String()
}

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
	return fmt.Sprintf("load balancer %s (%s) is not owned by this Service: %s", e.LoadBalancerID, quoteValue(e.DisplayName), e.Reason)
}

// Is makes errors.Is(err, ErrNotOwned) true.
func (e *ownershipError) Is(target error) bool { return target == ErrNotOwned }

// ErrNotManaged is returned for a Service this package does not handle: not of type
// LoadBalancer, or with a spec.loadBalancerClass (another controller's). See Manages.
var ErrNotManaged = errors.New("service is not managed by oci-ccm")

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
