package lb

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	"golang.org/x/sync/errgroup"

	"github.com/oci-ccm/oci-ccm/ociclient"
)

// DefaultConcurrency is how many independent changes of one plan run at once by default.
//
// OCI runs one work request per load balancer at a time and queues the others, so on one load
// balancer concurrency overlaps a change's wait with the next one's queueing, not the changes
// themselves. See the package README for measurements.
const DefaultConcurrency = 1

// Applier carries out Plans against OCI. It is safe for concurrent use by multiple goroutines
// (on different load balancers).
type Applier struct {
	Client    Client
	PublicIPs PublicIPs
	// Concurrency bounds how many independent changes of one plan run at once (default
	// DefaultConcurrency). Dependent changes always run in order.
	Concurrency int
}

// Apply carries out plan and returns the load balancer's OCID (the new one for a create).
//
// A create is one CreateLoadBalancer call carrying every listener, backend set and certificate,
// with CreateRetryToken(owner UID) so a repeated call never makes two load balancers. Other
// changes run as a dependency graph: each starts when the changes it requires have completed and
// waits for its own work request. If a change fails, the changes that depend on it are not
// attempted, independent ones still are, and an *ApplyError says what completed.
func (a *Applier) Apply(ctx context.Context, plan *Plan) (string, error) {
	lb, err := a.apply(ctx, plan)
	if err != nil {
		return "", err
	}
	if lb != nil {
		return deref(lb.Id), nil
	}
	return plan.LoadBalancerID, nil
}

// apply is Apply that also returns the load balancer read after a create (nil otherwise), so the
// caller can report its addresses without another read.
func (a *Applier) apply(ctx context.Context, plan *Plan) (*loadbalancer.LoadBalancer, error) {
	if plan.Empty() {
		return nil, nil
	}
	if plan.Changes[0].Action == ActionCreateLoadBalancer {
		return a.create(ctx, plan)
	}
	if plan.LoadBalancerID == "" {
		return nil, errors.New("lb: plan changes an existing load balancer but has no LoadBalancerID")
	}
	return nil, a.run(ctx, plan)
}

func (a *Applier) create(ctx context.Context, plan *Plan) (*loadbalancer.LoadBalancer, error) {
	spec, ok := plan.Changes[0].After.(*Spec)
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
	wr, err := a.Client.CreateLoadBalancer(ctx, createDetails(spec, reservedID), CreateRetryToken(spec.Owner.UID))
	if err != nil {
		return nil, fmt.Errorf("create load balancer %q: %w", spec.Name, err)
	}
	if err := a.Client.WaitForWorkRequest(ctx, wr); err != nil {
		return nil, fmt.Errorf("create load balancer %q: work request %s: %w", spec.Name, wr, err)
	}
	// The create response carries only a work request; find the new load balancer by name and
	// ownership tag (the list returns it complete, addresses included).
	lbs, err := a.Client.ListLoadBalancers(ctx, spec.CompartmentID, spec.Name)
	if err != nil {
		return nil, fmt.Errorf("find created load balancer %q: %w", spec.Name, err)
	}
	for i := range lbs {
		o, ok := ownerFromTags(lbs[i].FreeformTags)
		if ok && o.UID == spec.Owner.UID && lbs[i].LifecycleState == loadbalancer.LoadBalancerLifecycleStateActive {
			return &lbs[i], nil
		}
	}
	return nil, fmt.Errorf("create load balancer %q: work request %s succeeded but no ACTIVE load balancer with that name is tagged for Service UID %s",
		spec.Name, wr, spec.Owner.UID)
}

// reservedIPID resolves spec.loadBalancerIP to the OCID of a reserved public IP that is free.
func (a *Applier) reservedIPID(ctx context.Context, service, address string) (string, error) {
	bad := func(allowed string) error {
		return &ValidationError{Service: service, Problems: []*Problem{{Field: "spec.loadBalancerIP", Value: address, Allowed: allowed}}}
	}
	if a.PublicIPs == nil {
		return "", errors.New("lb: spec.loadBalancerIP is set but the Applier has no PublicIPs client")
	}
	ip, err := a.PublicIPs.GetPublicIPByIPAddress(ctx, address)
	switch {
	case ociclient.IsNotFound(err):
		return "", bad("the address of a reserved public IP in this tenancy (none has this address)")
	case err != nil:
		return "", fmt.Errorf("look up reserved public IP %s: %w", address, err)
	case ip.Lifetime != core.PublicIpLifetimeReserved:
		return "", bad(fmt.Sprintf("a reserved public IP (this one is %s)", ip.Lifetime))
	case ip.LifecycleState != core.PublicIpLifecycleStateAvailable:
		return "", bad(fmt.Sprintf("a reserved public IP that is AVAILABLE (this one is %s)", ip.LifecycleState))
	}
	return deref(ip.Id), nil
}

// outcome of one change while a plan runs.
type outcome struct {
	index int
	err   error
}

// run executes the plan's changes as a dependency graph with at most Concurrency in flight. A
// change starts once everything it requires has completed; the dependents of a failed change
// are never started.
func (a *Applier) run(ctx context.Context, plan *Plan) error {
	n := len(plan.Changes)
	limit := a.Concurrency
	if limit <= 0 {
		limit = DefaultConcurrency
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
				results <- outcome{index: i, err: a.do(ctx, plan.LoadBalancerID, plan.Changes[i])}
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

	aerr := &ApplyError{LoadBalancerID: plan.LoadBalancerID}
	for i, c := range plan.Changes {
		switch {
		case !finished[i]:
			aerr.Skipped = append(aerr.Skipped, c)
		case errs[i] != nil:
			aerr.Failed = append(aerr.Failed, FailedChange{Change: c, Err: errs[i]})
		default:
			aerr.Completed = append(aerr.Completed, c)
		}
	}
	if len(aerr.Failed) == 0 && len(aerr.Skipped) == 0 {
		return nil
	}
	if len(aerr.Failed) == 0 {
		aerr.Failed = append(aerr.Failed, FailedChange{Change: aerr.Skipped[0], Err: ctx.Err()})
		aerr.Skipped = aerr.Skipped[1:]
	}
	return aerr
}

// do carries out one change and waits for its work request. Deleting something already gone
// counts as done, so a re-run after a lost response converges.
func (a *Applier) do(ctx context.Context, lbID string, c Change) error {
	var wr string
	var err error
	switch c.Action {
	case ActionUpdateLoadBalancer:
		s, ok := c.After.(Settings)
		if !ok {
			return badChange(c)
		}
		wr, err = a.Client.UpdateLoadBalancer(ctx, lbID, settingsDetails(s))
	case ActionUpdateShape:
		s, ok := c.After.(Shape)
		if !ok {
			return badChange(c)
		}
		wr, err = a.Client.UpdateLoadBalancerShape(ctx, lbID, shapeUpdateDetails(s))
	case ActionUpdateNetworkSecurityGroups:
		nsgs, ok := c.After.([]string)
		if !ok && c.After != nil {
			return badChange(c)
		}
		wr, err = a.Client.UpdateNetworkSecurityGroups(ctx, lbID, nonNilStrings(nsgs))
	case ActionCreateCertificate:
		cert, ok := c.After.(Certificate)
		if !ok {
			return badChange(c)
		}
		wr, err = a.Client.CreateCertificate(ctx, lbID, certificateDetails(cert), "")
	case ActionDeleteCertificate:
		wr, err = a.Client.DeleteCertificate(ctx, lbID, c.Name)
	case ActionCreateBackendSet:
		bs, ok := c.After.(BackendSet)
		if !ok {
			return badChange(c)
		}
		wr, err = a.Client.CreateBackendSet(ctx, lbID, createBackendSetDetails(bs), "")
	case ActionUpdateBackendSet:
		bs, ok := c.After.(BackendSet)
		if !ok {
			return badChange(c)
		}
		wr, err = a.Client.UpdateBackendSet(ctx, lbID, c.Name, updateBackendSetDetails(bs))
	case ActionDeleteBackendSet:
		wr, err = a.Client.DeleteBackendSet(ctx, lbID, c.Name)
	case ActionCreateListener:
		l, ok := c.After.(Listener)
		if !ok {
			return badChange(c)
		}
		wr, err = a.Client.CreateListener(ctx, lbID, createListenerDetails(l), "")
	case ActionUpdateListener:
		l, ok := c.After.(Listener)
		if !ok {
			return badChange(c)
		}
		wr, err = a.Client.UpdateListener(ctx, lbID, c.Name, updateListenerDetails(l))
	case ActionDeleteListener:
		wr, err = a.Client.DeleteListener(ctx, lbID, c.Name)
	case ActionDeleteLoadBalancer:
		wr, err = a.Client.DeleteLoadBalancer(ctx, lbID)
	default:
		return badChange(c)
	}
	if err != nil {
		if isDelete(c.Action) && ociclient.IsNotFound(err) {
			return nil
		}
		return err
	}
	if err := a.Client.WaitForWorkRequest(ctx, wr); err != nil {
		return fmt.Errorf("work request %s: %w", wr, err)
	}
	return nil
}

func isDelete(a Action) bool { return a.Symbol() == "-" }

func badChange(c Change) error {
	return fmt.Errorf("lb: change %s carries %T, not what %q needs", c, c.After, c.Action)
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
