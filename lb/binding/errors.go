// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import "fmt"

// Reason says why a binding was refused.
type Reason string

// The reasons.
const (
	// ReasonInvalid: the Binding itself is wrong (an OCID of neither API, no backend set, a
	// setting out of range).
	ReasonInvalid Reason = "Invalid"
	// ReasonManagedByService: the load balancer carries oci-ccm's ownership tags; a Service owns
	// it, and its reconciles would replace the binding's backends.
	ReasonManagedByService Reason = "ManagedByService"
	// ReasonNoLoadBalancer: OCI answers 404 for the load balancer (or the bound set): it does not
	// exist, or the IAM policy does not let the CCM read it (OCI does not say which).
	ReasonNoLoadBalancer Reason = "NoLoadBalancer"
	// ReasonNoBackendSet: the load balancer has no backend set of that name.
	ReasonNoBackendSet Reason = "NoBackendSet"
	// ReasonTooManyBackends: the change would pass OCI's limit of backends per backend set or
	// per load balancer.
	ReasonTooManyBackends Reason = "TooManyBackends"
)

// RefusedError is a binding the Syncer refused before any write: nothing changed. Use errors.As
// to decide on Reason.
type RefusedError struct {
	Binding        string
	LoadBalancerID string
	BackendSet     string
	Reason         Reason
	// Detail says why, in words, naming what the caller can change.
	Detail string
}

// Error names the binding, the load balancer, the backend set, the reason and the detail.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("binding %s: load balancer %s, backend set %q: refused (%s): %s",
		e.Binding, e.LoadBalancerID, e.BackendSet, e.Reason, e.Detail)
}

// refuse builds the RefusedError for b.
func refuse(b Binding, reason Reason, format string, args ...any) error {
	return &RefusedError{Binding: b.Name, LoadBalancerID: b.LoadBalancerID, BackendSet: b.BackendSet,
		Reason: reason, Detail: fmt.Sprintf(format, args...)}
}
