// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"errors"
	"fmt"
	"strings"

	"github.com/oci-ccm/oci-ccm/lb/internal/text"
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
	return fmt.Sprintf("%s: invalid value %s: %s", p.Field, text.Quote(p.Value), text.Cut(p.Allowed, maxAllowedEcho))
}

// maxAllowedEcho is how much of a Problem's allowed text an error echoes (it may quote a part of
// the value: a list item, a parse error); text.MaxValue is how much of the value.
const maxAllowedEcho = 256

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
		fmt.Fprintf(&b, "; %s: is %s, Service asks for %s", c.Field, text.Quote(c.Observed), text.Quote(c.Desired))
		if c.Hint != "" {
			fmt.Fprintf(&b, " (%s)", c.Hint)
		}
	}
	return b.String()
}

// ErrNotManaged is returned for a Service this package does not handle: not of type
// LoadBalancer, or with a spec.loadBalancerClass (another controller's). See Manages.
var ErrNotManaged = errors.New("service is not managed by oci-ccm")
