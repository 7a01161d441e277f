// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/oracle/oci-go-sdk/v65/core"
	"golang.org/x/sync/errgroup"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/internal/freeform"
	"github.com/oci-ccm/oci-ccm/lb/internal/sdkval"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// defaultConcurrency is how many independent changes of one plan run at once by default.
//
// OCI runs one work request per load balancer at a time and queues the others, so on one load
// balancer concurrency overlaps a change's wait with the next one's queueing, not the changes
// themselves. See the package README for measurements.
const defaultConcurrency = 1

// applier carries out Plans against OCI. It is safe for concurrent use by multiple goroutines
// (on different load balancers).
type applier struct {
	p         product
	PublicIPs PublicIPs
	// Concurrency bounds how many independent changes of one plan run at once (default
	// defaultConcurrency). Dependent changes always run in order.
	Concurrency int
	// lag says when a listing may prove a load balancer absent (lag.go); nil: at once.
	lag *listingLag
}

// apply carries out plan. It returns the load balancer read after a create (nil otherwise), so
// the caller can report its addresses without another read.
//
// A create is one CreateLoadBalancer call carrying every listener, backend set and certificate,
// with createRetryToken(owner UID) so a repeated call never makes two load balancers. Other
// changes run as a dependency graph: each starts when the changes it requires have completed and
// waits for its own work request. If a change fails, the changes that depend on it are not
// attempted, independent ones still are, and an error names what completed, failed and was not attempted.
func (a *applier) apply(ctx context.Context, plan *model.Plan) (*found, error) {
	if plan.Empty() {
		return nil, nil
	}
	if createsLoadBalancer(plan) {
		return a.create(ctx, plan)
	}
	if plan.LoadBalancerID == "" {
		return nil, errors.New("lb: plan changes an existing load balancer but has no LoadBalancerID")
	}
	return nil, a.run(ctx, plan)
}

func (a *applier) create(ctx context.Context, plan *model.Plan) (*found, error) {
	spec, ok := plan.Changes[0].After.(*model.Spec)
	if !ok || spec == nil {
		return nil, errors.New("lb: create change carries no Spec")
	}
	reservedID := ""
	if spec.ReservedIP != "" {
		id, err := a.reservedIPID(ctx, spec.Owner.Service, spec.ReservedIP)
		if err != nil {
			return nil, err
		}
		reservedID = id
	}
	failedFresh := false
	for generation := range maxCreateGenerations {
		lb, err := a.createOnce(ctx, spec, reservedID, createRetryToken(spec.Owner.UID, generation))
		var stale *staleTokenError
		if !errors.As(err, &stale) {
			return lb, err
		}
		// A create whose work request failed and left no load balancer looks like a replay of an
		// old failed create. Give a new token one chance; a second such failure is this create's.
		if stale.failed != nil {
			if failedFresh {
				return nil, stale.failed
			}
			failedFresh = true
		}
	}
	return nil, fmt.Errorf("create %s %q: the retry tokens of %d earlier creates for Service UID %s are all used up by load balancers since deleted; retry after OCI forgets them (24 h)",
		a.p.Words().Noun, spec.Name, maxCreateGenerations, spec.Owner.UID)
}

// maxCreateGenerations bounds the retry tokens one create tries: each load balancer created for
// a Service and deleted (or failed) within the 24 hours OCI keeps a token uses one up.
const maxCreateGenerations = 16

// staleTokenError means a create's retry token belongs to an earlier create whose load balancer
// is gone: OCI answered 409 InvalidatedRetryToken, or replayed a work request that left no load
// balancer. The next generation's token makes a new one.
type staleTokenError struct {
	token  string
	failed error // the replayed work request's failure, if it failed
}

func (e *staleTokenError) Error() string {
	return "retry token " + e.token + " belongs to a load balancer since deleted"
}

// createOnce makes one create call with token, waits for its work request and reads the new
// load balancer back by the OCID the work request names, else by name and ownership tag (the
// list returns it complete, addresses included).
func (a *applier) createOnce(ctx context.Context, spec *model.Spec, reservedID, token string) (*found, error) {
	noun := a.p.Words().Noun
	wr, id, err := a.p.Create(ctx, spec, reservedID, token)
	// Whatever the answer, OCI may have made it by now (a lost answer): lag.go.
	var accepted time.Time
	if a.lag != nil {
		accepted = a.lag.now()
		a.lag.recordCreate(serviceKey(spec.Owner.UID))
	}
	switch {
	case ociclient.IsInvalidatedRetryToken(err):
		return nil, &staleTokenError{token: token}
	case err != nil:
		return nil, fmt.Errorf("create %s %q: %w", noun, spec.Name, err)
	}
	start := time.Now()
	createdID, werr := a.p.AwaitCreate(ctx, wr, id)
	if werr != nil {
		werr = waitError(ctx, "create "+noun+" "+strconv.Quote(spec.Name), wr, start, werr)
		if ctx.Err() != nil {
			return nil, werr
		}
	}
	// By the OCID the work request names (one read, no listing); else by name (one page);
	// before concluding the token is stale, the whole compartment, since a replayed token's load
	// balancer may have been renamed: a new token would then make a second one.
	var mine *found
	if werr == nil {
		if mine, err = a.createdByID(ctx, spec, createdID); err != nil {
			return nil, fmt.Errorf("read created %s %q: %w", noun, spec.Name, err)
		}
	}
	if mine == nil {
		// Not found by its OCID: look in a listing that shows what was created a moment ago
		// (lag.go), or a new token would make a second one.
		if err := a.lag.awaitCreate(ctx, accepted); err != nil {
			return nil, fmt.Errorf("find created %s %q: %w", noun, spec.Name, err)
		}
	}
	for _, name := range []string{spec.Name, ""} {
		if mine != nil {
			break
		}
		lbs, err := a.p.List(ctx, spec.CompartmentID, name)
		if err != nil {
			return nil, fmt.Errorf("find created %s %q: %w", noun, spec.Name, err)
		}
		for i := range lbs {
			o, ok := freeform.Owner(lbs[i].FreeformTags)
			if ok && o.UID == spec.Owner.UID && !lbs[i].Gone() {
				mine = &lbs[i]
				break
			}
		}
		if mine != nil {
			break
		}
	}
	var failed *ociclient.WorkRequestError
	switch {
	case mine == nil && (werr == nil || errors.As(werr, &failed)):
		return nil, &staleTokenError{token: token, failed: werr}
	case werr != nil:
		return nil, werr
	case mine.State != lifecycleActive:
		return nil, usableOrState(mine)
	}
	return mine, nil
}

// usableOrState is usable's refusal, or a stateError for any other state than ACTIVE.
func usableOrState(lb *found) error {
	if err := usable(lb); err != nil {
		return err
	}
	return &stateError{LoadBalancerID: lb.ID, State: lb.StateName, Hint: "its create work request succeeded; retry later"}
}

// waitError says what a failed or abandoned wait was for: the change, the work request, and, if
// the context ended first, how long it waited.
// An empty what leaves the change to the caller's error (applyError names it).
func waitError(ctx context.Context, what, wr string, start time.Time, err error) error {
	if what != "" {
		what += ": "
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%sgave up waiting for work request %s after %s: %w", what, wr, time.Since(start).Round(time.Millisecond), err)
	}
	return fmt.Errorf("%swork request %s: %w", what, wr, err)
}

// reservedIPID resolves spec.loadBalancerIP to the OCID of a reserved public IP that is free.
func (a *applier) reservedIPID(ctx context.Context, service, address string) (string, error) {
	bad := func(allowed string) error {
		return &lb.ValidationError{Service: service, Problems: []*lb.Problem{{Field: "spec.loadBalancerIP", Value: address, Allowed: allowed}}}
	}
	if a.PublicIPs == nil {
		return "", errors.New("lb: spec.loadBalancerIP is set but the applier has no PublicIPs client")
	}
	ip, err := a.PublicIPs.GetPublicIPByIPAddress(ctx, address)
	switch {
	case ociclient.IsNotFound(err):
		return "", bad("the address of a reserved public IP in this tenancy (none has this address)")
	case err != nil:
		return "", fmt.Errorf("look up reserved public IP %s: %w", address, err)
	case ip.Lifetime != core.PublicIpLifetimeReserved:
		return "", bad(fmt.Sprintf("a reserved public IP (this one is %s)", ip.Lifetime))
	case ip.AssignedEntityId != nil:
		// OCI would accept the create and fail its work request, leaving a FAILED load balancer
		// behind; the Service that holds the address is another one (or no Service at all), as
		// a create is only planned when this Service has no load balancer.
		return "", bad(fmt.Sprintf("a reserved public IP that is not in use (this one is %s, assigned to another resource: %s %s); free it or choose another",
			ip.LifecycleState, ip.AssignedEntityType, *ip.AssignedEntityId))
	case ip.LifecycleState != core.PublicIpLifecycleStateAvailable:
		return "", bad(fmt.Sprintf("a reserved public IP that is AVAILABLE (this one is %s)", ip.LifecycleState))
	}
	return sdkval.Deref(ip.Id), nil
}

// outcome of one change while a plan runs.
type outcome struct {
	index int
	err   error
}

// run executes the plan's changes as a dependency graph with at most Concurrency in flight. A
// change starts once everything it requires has completed; the dependents of a failed change
// are never started.
func (a *applier) run(ctx context.Context, plan *model.Plan) error {
	n := len(plan.Changes)
	ref := planRef(plan)
	limit := a.Concurrency
	if limit <= 0 {
		limit = defaultConcurrency
	}
	waiting := make([]int, n)
	dependents := make([][]int, n)
	var ready []int
	for i, c := range plan.Changes {
		waiting[i] = len(c.Requires)
		for _, r := range c.Requires {
			dependents[r] = append(dependents[r], i)
		}
		if waiting[i] == 0 {
			ready = append(ready, i)
		}
	}

	results := make(chan outcome, n)
	var g errgroup.Group
	errs := make([]error, n)
	finished := make([]bool, n)
	running := 0
	for running > 0 || (len(ready) > 0 && ctx.Err() == nil) {
		for running < limit && len(ready) > 0 && ctx.Err() == nil {
			i := ready[0]
			ready = ready[1:]
			running++
			g.Go(func() error {
				results <- outcome{index: i, err: a.do(ctx, ref, plan.Changes[i])}
				return nil
			})
		}
		if running == 0 {
			break
		}
		r := <-results
		running--
		finished[r.index] = true
		errs[r.index] = r.err
		if r.err != nil {
			continue
		}
		for _, d := range dependents[r.index] {
			if waiting[d]--; waiting[d] == 0 {
				ready = append(ready, d)
				slices.Sort(ready)
			}
		}
	}
	_ = g.Wait()

	aerr := &applyError{LoadBalancerID: plan.LoadBalancerID}
	for i, c := range plan.Changes {
		switch {
		case !finished[i]:
			aerr.Skipped = append(aerr.Skipped, c)
		case errs[i] != nil:
			aerr.Failed = append(aerr.Failed, failedChange{Change: c, Err: errs[i]})
		default:
			aerr.Completed = append(aerr.Completed, c)
		}
	}
	if len(aerr.Failed) == 0 && len(aerr.Skipped) == 0 {
		return nil
	}
	if len(aerr.Failed) == 0 {
		aerr.Failed = append(aerr.Failed, failedChange{Change: aerr.Skipped[0], Err: ctx.Err()})
		aerr.Skipped = aerr.Skipped[1:]
	}
	return aerr
}

// planRef is what a plan knows of its load balancer, to confirm a 404 by listing.
func planRef(plan *model.Plan) lbRef {
	ref := lbRef{ID: plan.LoadBalancerID, Name: plan.Name}
	if s, ok := plan.Changes[0].Before.(*model.Spec); ok && s != nil {
		ref.CompartmentID = s.CompartmentID
	} else if plan.Target != nil {
		ref.CompartmentID = plan.Target.CompartmentID
	}
	return ref
}

// do carries out one change and waits for its work request. Deleting something already gone
// counts as done, so a re-run after a lost response converges; but a 404 on a delete is only
// believed when a fresh read confirms it (see absence.go).
func (a *applier) do(ctx context.Context, ref lbRef, c model.Change) error {
	wr, err := a.changeWhenIdle(ctx, ref.ID, c)
	switch {
	case err != nil && c.Op == model.OpDelete && ociclient.IsNotFound(err):
		if _, whole := c.Before.(*model.Spec); whole {
			w := a.p.Words()
			return confirmLoadBalancerGone(ctx, a.p, a.lag, ref, w.Delete, "manage "+w.Resource, err)
		}
		return a.confirmPartGone(ctx, ref, c, err)
	case err != nil:
		return err
	}
	start := time.Now()
	if err := a.p.Wait(ctx, wr); err != nil {
		return waitError(ctx, "", wr, start, err)
	}
	return nil
}

// createsLoadBalancer reports whether plan creates its load balancer (a create plan holds that
// one change).
func createsLoadBalancer(plan *model.Plan) bool {
	if plan.Empty() {
		return false
	}
	_, whole := plan.Changes[0].After.(*model.Spec)
	return whole && plan.Changes[0].Op == model.OpCreate
}

// createRetryToken is the opc-retry-token of a Service's CreateLoadBalancer call. It depends only
// on the Service UID and a generation, so a create repeated after a lost response returns the
// first call's work request instead of making a second load balancer.
//
// The generation counts the Service's creates whose load balancer is gone (deleted out of band,
// or failed and deleted): OCI invalidates the token of a deleted resource (409
// InvalidatedRetryToken), so a new create needs a new token. Nothing of it is stored: Apply tries
// generation 0, 1, ... until a token makes or finds a live load balancer, so it survives a
// restart. Generation 0 is the token of earlier releases.
func createRetryToken(uid string, generation int) string {
	if generation == 0 {
		return "oci-ccm-create-" + uid
	}
	return "oci-ccm-create-" + uid + "-" + strconv.Itoa(generation)
}
