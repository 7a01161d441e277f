// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"fmt"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// OCI answers 404 NotAuthorizedOrNotFound both for what does not exist and for what the caller's
// IAM policy does not let it see or change. Taking that answer for "gone" releases a Service's
// finalizer while its load balancer still runs (and bills). So a 404 is only believed once a fresh
// read confirms it: a listing of the load balancer's compartment for the load balancer itself, a
// read of the load balancer for a listener, backend set or certificate.

// AccessError reports that OCI answered 404 NotAuthorizedOrNotFound for a load balancer, or a
// part of one, that a fresh read shows still exists: most likely the IAM policy of the CCM does
// not allow the operation. Delete returns it, so the Service keeps its finalizer.
type AccessError struct {
	// LoadBalancerID is the load balancer's OCID.
	LoadBalancerID string
	// CompartmentID is the compartment the load balancer was listed in.
	CompartmentID string
	// Operation is the OCI operation that answered 404, e.g. "DeleteLoadBalancer".
	Operation string
	// Part is the listener, backend set or certificate, e.g. `listener "TCP-80"`; empty for
	// the load balancer itself.
	Part string
	// Permission is the policy verb and resource type the operation needs, e.g. "manage
	// load-balancers".
	Permission string
	// Err is OCI's answer.
	Err error
}

func (e *AccessError) Error() string {
	what := "load balancer " + e.LoadBalancerID
	if e.Part != "" {
		what = e.Part + " of " + what
	}
	return fmt.Sprintf("%s answered 404 NotAuthorizedOrNotFound for %s, which still exists: the CCM's IAM policy most likely lacks "+
		"\"Allow dynamic-group <the CCM's group> to %s in compartment id %s\": %v",
		e.Operation, what, e.Permission, e.CompartmentID, e.Err)
}

// Unwrap returns OCI's answer.
func (e *AccessError) Unwrap() error { return e.Err }

// lbRef is what is known of a load balancer to confirm a 404 by listing: its compartment and,
// when known, its display name (the listing is then filtered to one page).
type lbRef struct {
	// Kind is the product; empty means KindLoadBalancer.
	Kind          model.Kind
	ID            string
	Name          string
	CompartmentID string
	// Adopted is set for a load balancer named by the adoption annotation whose compartment is
	// only a guess (the configured one) and which the Service's address shows was adopted: a
	// listing of the guessed compartment cannot prove it gone, since it may live in any other.
	Adopted bool
}

func refOf(lb *found) lbRef {
	return lbRef{Kind: lb.Kind, ID: lb.ID, Name: lb.Name, CompartmentID: lb.CompartmentID}
}

// listed returns the load balancer as a fresh listing of its compartment shows it; nil when the
// listing lacks it or shows it deleted or being deleted. The listing is filtered by display name
// first (one page); when that lacks it, the whole compartment is listed, since the load balancer
// may have been renamed since its name was learned.
func listed(ctx context.Context, l product, ref lbRef) (*found, error) {
	filters := []string{""}
	if ref.Name != "" {
		filters = []string{ref.Name, ""}
	}
	for _, name := range filters {
		lbs, err := l.List(ctx, ref.CompartmentID, name)
		if err != nil {
			return nil, fmt.Errorf("list compartment %s to confirm %s %s is gone: %w", ref.CompartmentID, l.Words().Noun, ref.ID, err)
		}
		for i := range lbs {
			if lbs[i].ID == ref.ID {
				if lbs[i].Gone() {
					return nil, nil
				}
				return &lbs[i], nil
			}
		}
	}
	return nil, nil
}

// confirmLoadBalancerGone decides what a 404 from op on the load balancer ref meant: nil if a
// listing confirms it is gone, an *AccessError if it is still listed. The listing begins once
// lag says it would show the load balancer (lag.go): one made earlier may lack it although it
// exists.
func confirmLoadBalancerGone(ctx context.Context, l product, lag *listingLag, ref lbRef, op, permission string, notFound error) error {
	if err := lag.await(ctx, ref.ID); err != nil {
		return fmt.Errorf("confirm %s %s is gone after %s answered 404: %w", l.Words().Noun, ref.ID, op, err)
	}
	still, err := listed(ctx, l, ref)
	if err != nil {
		return err
	}
	if still != nil {
		return &AccessError{LoadBalancerID: ref.ID, CompartmentID: ref.CompartmentID, Operation: op, Permission: permission, Err: notFound}
	}
	if ref.Adopted {
		return fmt.Errorf("%s answered 404 NotAuthorizedOrNotFound for load balancer %s, named by annotation %s, and a listing "+
			"of compartment %s lacks it; its own compartment is unknown, so its absence is not proven (the CCM's IAM policy may "+
			"lack \"%s\" there); if it was deleted, remove the annotation: %w",
			op, ref.ID, annotation.AdoptLoadBalancerID, ref.CompartmentID, permission, notFound)
	}
	return nil
}

// confirmPartGone decides what a 404 from deleting a listener, backend set, certificate or rule set
// meant: nil if the load balancer (read afresh, or listed) lacks the part or is gone, an
// *AccessError if the part is still there.
func (a *applier) confirmPartGone(ctx context.Context, ref lbRef, c model.Change, notFound error) error {
	lb, err := a.p.Get(ctx, ref.ID)
	var current *found
	switch {
	case ociclient.IsNotFound(err):
		if err := a.lag.await(ctx, ref.ID); err != nil {
			return fmt.Errorf("confirm %s %s is gone: %w", a.p.Words().Noun, ref.ID, err)
		}
		if current, err = listed(ctx, a.p, ref); err != nil {
			return err
		}
	case err != nil:
		return fmt.Errorf("read %s %s to confirm %s is gone: %w", a.p.Words().Noun, ref.ID, c, err)
	case !lb.Gone():
		current = lb
	}
	if current == nil {
		return nil // the whole load balancer is gone
	}
	spec := current.Spec()
	var present bool
	var operation string
	switch c.Before.(type) {
	case model.Listener:
		_, present = spec.Listeners[c.Name]
		operation = "DeleteListener"
	case model.BackendSet:
		_, present = spec.BackendSets[c.Name]
		operation = "DeleteBackendSet"
	case model.Certificate:
		_, present = spec.Certificates[c.Name]
		operation = "DeleteCertificate"
	case model.RuleSet:
		_, present = spec.RuleSets[c.Name]
		operation = "DeleteRuleSet"
	}
	if !present {
		return nil
	}
	return &AccessError{LoadBalancerID: ref.ID, CompartmentID: current.CompartmentID, Operation: operation,
		Part: fmt.Sprintf("%s %q", c.Noun(), c.Name), Permission: "use " + a.p.Words().Resource, Err: notFound}
}

// kind is the ref's product (KindLoadBalancer when not recorded).
func (ref lbRef) kind() model.Kind {
	if ref.Kind == "" {
		return model.KindLoadBalancer
	}
	return ref.Kind
}
