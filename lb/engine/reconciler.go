// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/lookup"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/lb/oci/loadbalancer"
	"github.com/oci-ccm/oci-ccm/lb/oci/nlb"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// Options configure a Reconciler.
type Options struct {
	// Config is the parsed cloud-provider.yaml (compartment, default subnets, naming, tags). Its
	// ClusterID is the cluster's identity (config.Config.ClusterIdentity resolves it from
	// clusterID or --cluster-name): it goes into the ownership tags of every load balancer, and a
	// load balancer tagged for another cluster is never touched. seclist's PolicyFromConfig reads
	// the same field. Required, with CompartmentID and ClusterID set.
	Config *config.Config
	// Client calls the OCI Load Balancer API (an *ociclient.LoadBalancerClient).
	Client loadbalancer.Client
	// PublicIPs resolves spec.loadBalancerIP; needed only by Services that set it. When it can
	// also read subnets (an *ociclient.VirtualNetworkClient can), a network load balancer Service
	// that prefers or requires dual stack is checked against its subnet's IPv6 prefix (see
	// dualstack.go); without, PreferDualStack is served single-stack.
	PublicIPs PublicIPs
	// NetworkLoadBalancers calls the OCI Network Load Balancer API (an
	// *ociclient.NetworkLoadBalancerClient), for Services with
	// oci.oraclecloud.com/load-balancer-type: nlb. Without it such a Service gets an error (and is
	// kept when deleted: nothing proves its network load balancer gone).
	NetworkLoadBalancers nlb.Client
	// Concurrency bounds how many independent changes of one plan run at once (default 1: OCI
	// runs one work request per load balancer at a time and queues the others).
	Concurrency int
	// Timeout bounds the work of each Ensure, Update, Plan, Delete and Get (default 5 minutes),
	// whether its caller waits for it or it goes on in the background (MaxWait): nothing waits on
	// OCI forever.
	Timeout time.Duration
	// MaxWait bounds how long Ensure, Update and Delete hold their caller (default 1 minute): a
	// service-controller worker (by default the only one) must not be held by one load balancer
	// while OCI works. Work still running then goes on in the background and the call returns a
	// *PendingError; a negative MaxWait waits until the work ends or the caller's context does.
	// It is judged by Now's clock. See background.go.
	MaxWait time.Duration
	// PendingDone, if set, is called when work that a call left to the background (a
	// *PendingError) ends: applied is what it did (Summary of its plan, "" when nothing), err how
	// it failed (nil when it succeeded). It should make the Service sync again, so that the next
	// sync reports the outcome without waiting for the caller's next retry.
	PendingDone func(ctx context.Context, namespace, name, applied string, err error) error
	// FrontendNSG, when set, is called with every desired Spec (where the Service's load
	// balancer goes, its mode, its owner) before it is compared with OCI: a non-empty OCID it
	// returns is the Service's frontend NSG (lb.Known.FrontendNSG), which the Spec is then built
	// with, so a new load balancer is created in that NSG and an existing one is attached to it,
	// recorded as attached by oci-ccm (and detached once it is no longer returned). Ensure calls
	// it with create true; Plan (the dry run) and the drift check with create false, and then it
	// must only look the group up and return "" when there is none, so that neither writes.
	// ccm/service passes seclist's Manager.FrontendNSG, which returns the group of a Service in
	// security-rule management mode NSG and "" for every other Service.
	FrontendNSG func(ctx context.Context, spec *model.Spec, create bool) (nsgID string, err error)
	// Now, if set, is the clock by which the Reconciler judges how old what it knows is (how
	// long a compartment listing stands in for reads); nil is time.Now. Give it the OCI client's
	// (ociclient.Client.Clock().Now), so that a benchmark on a fast clock judges ages as
	// production does.
	Now func() time.Time
	// Sleep, if set, waits on the clock Now reads (give it the OCI client's,
	// ociclient.Client.Clock().Sleep): the Reconciler waits with it for OCI's listings to catch
	// up (ListingLag), a wait it measures by Now. nil waits on the wall clock.
	Sleep func(ctx context.Context, d time.Duration) error
	// ListingLag is how long after a load balancer is created OCI's listings may still lack it
	// (zero means DefaultListingLag, negative none). A listing is taken as proof that a load
	// balancer is absent only once it began ListingLag after the Reconciler started and after the
	// Reconciler's own create of it; before, Delete and Get wait and list again (see lag.go).
	ListingLag time.Duration
	// Consistency, if set, counts each wait for the listing lag before a listing is made again
	// (component "lb", reason ociclient.ConsistencyListingLag). ccm passes its Metrics when it
	// implements ociclient.ConsistencyObserver.
	Consistency ociclient.ConsistencyObserver
	// WorkloadClients, when set, gives the clients for the Services annotated
	// oci.oraclecloud.com/workload-service-account (annotation.WorkloadServiceAccount): every Load
	// Balancer and Network Load Balancer call of such a Service is made with them, as that
	// ServiceAccount's workload identity; the Reconciler asks once per namespace and
	// ServiceAccount that succeeds and keeps them. An error fails the Service's reconcile before
	// any call to OCI. Without it such a Service gets an error. Services without the annotation
	// use Client and NetworkLoadBalancers as before. ccm builds them with OKE workload identity.
	WorkloadClients func(ctx context.Context, namespace, serviceAccount string) (*WorkloadClients, error)
	// EndpointNodes, when set, says which Nodes run an endpoint of a Service with
	// externalTrafficPolicy Local: only those become backends, so a big cluster's load balancer
	// holds the few Nodes that serve the Service rather than every Node failing its health
	// check. Without it, or for a Service whose endpoints it does not know, every eligible Node
	// is a backend and the health check on healthCheckNodePort decides. ccm answers it from the
	// EndpointSlices; see EndpointNodes.
	EndpointNodes EndpointNodes
}

// defaultTimeout bounds a reconcile when Options.Timeout is zero. A create takes one to two
// minutes on OCI and a change 20 to 40 seconds, so five minutes is several times a slow plan.
const defaultTimeout = 5 * time.Minute

// Reconciler is the entry point a cloud provider or controller calls: it finds a Service's load
// balancer in OCI, plans the difference to what the Service asks for, applies it and reports
// the status. Safe for concurrent use; calls for the same Service must not overlap (the service
// controller never does that).
type Reconciler struct {
	cfg     *config.Config
	cluster string
	drivers map[model.Kind]*driver
	subnets subnetReader // nil when PublicIPs cannot read subnets
	nsgs    nsgReader    // nil when PublicIPs cannot read network security groups
	namer   lookup.Naming
	timeout time.Duration
	maxWait time.Duration
	now     func() time.Time                                                         // Options.Now
	lag     *listingLag                                                              // Options.ListingLag (lag.go)
	nsg     func(ctx context.Context, spec *model.Spec, create bool) (string, error) // Options.FrontendNSG
	pending *pendingUpdates                                                          // Update's accepted changes (async.go)
	// pendingDone is Options.PendingDone.
	pendingDone func(ctx context.Context, namespace, name, applied string, err error) error

	opts            Options // for the drivers of workload identities (workload.go)
	workloadClients func(ctx context.Context, namespace, serviceAccount string) (*WorkloadClients, error)
	endpoints       EndpointNodes // Options.EndpointNodes

	mu        sync.Mutex
	ids       map[types.UID]lbRef               // Service UID → load balancer, learned by this process
	jobs      map[types.UID]*job                // Service UID → its Ensure, Update or Delete (background.go)
	synced    map[types.NamespacedName]synced   // what each Service's last reconcile applied (unchanged.go)
	workloads map[string]map[model.Kind]*driver // "namespace/serviceaccount" → its drivers (workload.go)
}

// NewReconciler returns a Reconciler, or an error naming the missing option.
func NewReconciler(opts Options) (*Reconciler, error) {
	if opts.Client == nil {
		return nil, errors.New("lb: Options.Client is required")
	}
	cfg := opts.Config
	if cfg == nil || cfg.CompartmentID == "" {
		return nil, errors.New("lb: Options.Config with a CompartmentID is required")
	}
	if cfg.ClusterID == "" {
		return nil, errors.New("lb: Options.Config.ClusterID (the cluster identity: see config.Config.ClusterIdentity) is required")
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	maxWait := opts.MaxWait
	if maxWait == 0 {
		maxWait = defaultMaxWait
	}
	r := &Reconciler{
		subnets:     also[subnetReader](opts.PublicIPs),
		nsgs:        also[nsgReader](opts.PublicIPs),
		cfg:         cfg,
		cluster:     cfg.ClusterID,
		drivers:     map[model.Kind]*driver{},
		namer:       lookup.For(cfg),
		timeout:     timeout,
		maxWait:     maxWait,
		now:         opts.Now,
		nsg:         opts.FrontendNSG,
		ids:         map[types.UID]lbRef{},
		jobs:        map[types.UID]*job{},
		synced:      map[types.NamespacedName]synced{},
		pending:     newPendingUpdates(),
		pendingDone: opts.PendingDone,
		opts:        opts,
		workloads:   map[string]map[model.Kind]*driver{},

		workloadClients: opts.WorkloadClients,
		endpoints:       opts.EndpointNodes,
	}
	if r.now == nil {
		r.now = time.Now
	}
	lag := opts.ListingLag
	if lag == 0 {
		lag = DefaultListingLag
	}
	r.lag = newListingLag(r.now, opts.Sleep, lag)
	r.lag.observer = opts.Consistency
	r.drivers[model.KindLoadBalancer] = newDriver(loadbalancer.New(opts.Client), opts, r.lag)
	if opts.NetworkLoadBalancers != nil {
		r.drivers[model.KindNetworkLoadBalancer] = newDriver(nlb.New(opts.NetworkLoadBalancers), opts, r.lag)
	}
	return r, nil
}

// driver is the machinery for one product: its API, its name index and its applier.
type driver struct {
	p       product
	index   *nameIndex
	applier *applier
}

func newDriver(p product, opts Options, lag *listingLag) *driver {
	return &driver{p: p, index: newNameIndex(p, lag.now), applier: &applier{p: p, PublicIPs: opts.PublicIPs, Concurrency: opts.Concurrency, lag: lag}}
}

// Result is what Ensure did, or what Get found.
type Result struct {
	// LoadBalancerID is the load balancer's OCID.
	LoadBalancerID string
	// Status is the Service's load balancer status (its ingress addresses), ready for
	// Service.Status.LoadBalancer.
	Status *v1.LoadBalancerStatus
	// Plan is what Ensure applied (empty when nothing changed); nil from Get.
	Plan *model.Plan
	// Spec is the load balancer as it now is. From Ensure it is Plan.Target with the OCID: the
	// real subnets of an existing load balancer, the ports and backends of the Service, so
	// security rules are computed from it (see ccm/service's ClaimFor). From Get it is what OCI
	// reports, without the desired-only fields.
	Spec *model.Spec
	// Accepted says Update returned once OCI accepted Plan's work requests, before they finished,
	// or left some to FollowUp to send once the load balancer's queue ran (async.go): FollowUp
	// confirms them, and requeues the Service if they fail.
	Accepted bool
}

// Ensure creates or updates the load balancer for svc and reports what it did. It is
// EnsureLoadBalancer and UpdateLoadBalancer of cloudprovider.LoadBalancer in one. secrets
// supplies the TLS Secrets the Service names (nil if none).
//
// An invalid Service (*ValidationError), a load balancer another cluster or Service owns
// (ErrNotOwned), one OCI cannot change now (ErrUnavailable) or a change OCI cannot make in place
// (*ImmutableError) changes nothing in OCI. A plan that fails part way returns an error lookup.Naming
// what completed, what failed and what was not attempted, which unwraps to OCI's errors (see
// ociclient's error kinds); the next Ensure re-plans from what is there. A 404 that a fresh read
// contradicts (a missing IAM policy, most likely) is an *AccessError.
//
// Ensure waits at most Options.MaxWait: work still running then goes on in the background and
// Ensure returns a *PendingError (see background.go).
func (r *Reconciler) Ensure(ctx context.Context, svc *v1.Service, nodes []*v1.Node, secrets lb.Secrets) (*Result, error) {
	return r.inBackground(ctx, "ensure", svc, func(ctx context.Context) (*Result, error) {
		return r.ensure(ctx, svc, nodes, secrets, false)
	})
}

// Plan is a dry run of Ensure: it finds svc's load balancer and returns the plan Ensure would
// apply now, making no change in OCI (only reads). An empty plan means the load balancer is as
// the Service asks; Plan.LoadBalancerID is empty when it would be created. The errors are
// Ensure's, except that nothing is applied.
func (r *Reconciler) Plan(ctx context.Context, svc *v1.Service, nodes []*v1.Node, secrets lb.Secrets) (*model.Plan, error) {
	caller := ctx
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	p, err := r.plan(ctx, svc, nodes, secrets, false)
	if err != nil {
		return nil, r.timedOut(caller, ctx, "plan", svc, err)
	}
	if !p.plan.Empty() {
		klog.FromContext(ctx).V(2).Info("Load balancer plan (dry run)", "service", klog.KObj(svc),
			"loadBalancer", p.plan.LoadBalancerID, "plan", p.plan.String())
	}
	return p.plan, nil
}

// timedOut says, for an error of a reconcile whose deadline passed, that it gave up and whose
// deadline it was: the caller's (ctx was made from caller, whose deadline came first) or the
// reconcile timeout (Options.Timeout).
func (r *Reconciler) timedOut(caller, ctx context.Context, what string, svc *v1.Service, err error) error {
	if err == nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w (%w)", err, context.DeadlineExceeded)
	}
	whose := fmt.Sprintf("the reconcile timeout (%s)", r.timeout)
	if callerDeadline, ok := caller.Deadline(); ok {
		if own, _ := ctx.Deadline(); !callerDeadline.After(own) && caller != ctx {
			whose = "the caller's deadline"
		}
	}
	return fmt.Errorf("%s load balancer of %s/%s gave up at %s: %w", what, svc.Namespace, svc.Name, whose, err)
}

// planned is a plan with what was found on the way to it.
type planned struct {
	plan     *model.Plan
	desired  *model.Spec
	known    lb.Known // what desired was built on
	driver   *driver
	found    *found // nil when the plan creates the load balancer
	observed *model.Spec
	// nsgCompartments are the compartments of the NSGs checkNamedNSGs read (those the plan
	// attaches), by OCID.
	nsgCompartments map[string]string
}

// desiredOf is Desired on what the Reconciler knows of svc before its load balancer is found
// (knownOf) and its frontend network security group (Options.FrontendNSG; with create it may make
// one), with that Known, whose FrontendNSG is the group's OCID ("" for none). The group depends on
// where the load balancer goes, which Desired works out: so a Service with a frontend NSG is built
// once to ask for it, then again knowing it. The Spec is what a find needs (the kind, the adopted
// OCID, the owner) and holds every refusal of the Service; what depends on the load balancer found
// (Known.Existing, Known.SubnetRegional) is known only once it is, and the Spec is built again then
// (plan). A failure to find or make the group wraps errFrontendNSG.
func (r *Reconciler) desiredOf(ctx context.Context, svc *v1.Service, nodes []*v1.Node, secrets lb.Secrets, create bool) (lb.Known, *model.Spec, error) {
	known := r.knownOf(ctx, svc, secrets)
	spec, err := lb.Desired(svc, nodes, r.cfg, known)
	if err != nil || r.nsg == nil {
		return known, spec, err
	}
	if known.FrontendNSG, err = r.nsg(ctx, spec, create); err != nil {
		return known, nil, fmt.Errorf("%w of %s: %w", errFrontendNSG, spec.Owner.Service, err)
	}
	if known.FrontendNSG == "" {
		return known, spec, nil
	}
	spec, err = lb.Desired(svc, nodes, r.cfg, known)
	return known, spec, err
}

// errFrontendNSG is the error of a frontend network security group that could not be found or
// made (desiredOf).
var errFrontendNSG = errors.New("frontend network security group")

// plan finds svc's load balancer, checks it may be changed, and diffs it against the Service.
// It only reads from OCI, except that with forEnsure it lets Options.FrontendNSG create the
// Service's frontend NSG (desiredOf).
func (r *Reconciler) plan(ctx context.Context, svc *v1.Service, nodes []*v1.Node, secrets lb.Secrets, forEnsure bool) (*planned, error) {
	logger := klog.FromContext(ctx).WithValues("service", klog.KObj(svc))
	known, sought, err := r.desiredOf(ctx, svc, nodes, secrets, forEnsure)
	if err != nil {
		return nil, err
	}
	named := slices.DeleteFunc(slices.Clone(sought.NetworkSecurityGroups), func(id string) bool { return id == known.FrontendNSG }) // the annotation's
	if len(sought.ExcludedNodes) > 0 {
		logger.V(4).Info("Nodes left out of the load balancer", "excluded", sought.ExcludedNodes)
	}
	if sub := sought.Subset; sub.Nodes > 0 {
		logger.V(2).Info("Backends are a subset of the eligible Nodes", "nodes", sub.Nodes, "eligible", sub.Eligible)
	}

	e, err := r.driverFor(ctx, svc, sought.Kind)
	if err != nil {
		return nil, err
	}
	found, how, err := r.find(ctx, e, svc, sought.AdoptID, true)
	if err != nil {
		return nil, err
	}
	if found == nil && how == foundByAdoption {
		return nil, &lb.ValidationError{Service: sought.Owner.Service, Problems: []*lb.Problem{
			problemf(annotation.AdoptLoadBalancerID, sought.AdoptID, "the OCID of an existing load balancer (none was found)")}}
	}
	var observed *model.Spec
	if found != nil {
		observed = found.Spec()
		r.pending.overlay(observed) // accepted changes still in OCI's queue (async.go)
		if err := checkOwnership(observed, sought, how); err != nil {
			return nil, err
		}
		if forEnsure && r.failedCreateOfOurs(found, observed, svc, how) {
			// OCI could not create it and never will: a FAILED load balancer takes no change.
			// It is this Service's own (tagged with its UID), so it goes, and a new one is made
			// (the create's retry token moves on to its next generation).
			logger.Info("Deleting the Service's load balancer that OCI failed to create, to create it again", "loadBalancer", found.ID)
			if _, err := r.deleteIn(ctx, e, svc, ""); err != nil {
				return nil, fmt.Errorf("delete load balancer %s, which OCI failed to create: %w", found.ID, err)
			}
			r.forget(svc.UID)
			found, observed = nil, nil
		}
	}
	if found != nil {
		if err := usable(found); err != nil {
			return nil, err
		}
		// Remember it before applying, so a reconcile after a partial failure needs one read.
		r.remember(svc.UID, refOf(found))
	}
	// What exists decides the name (an upstream one is kept) and may decide the subnets.
	known.Existing = observed
	if known.SubnetRegional, err = r.regionalSubnets(ctx, svc, sought, observed); err != nil {
		return nil, err
	}
	desired, err := lb.Desired(svc, nodes, r.cfg, known)
	if err != nil {
		return nil, err
	}
	plan, err := lb.Diff(observed, desired)
	if err != nil {
		return nil, err
	}
	if err := canChangeRuleSets(e.p, plan); err != nil {
		return nil, err
	}
	if found != nil && found.State == lifecycleFailed {
		repair(plan, observed)
	}
	// Before anything is applied: NSGs the plan attaches that OCI would refuse (nsg.go).
	nsgCompartments, err := r.checkNamedNSGs(ctx, svc, named, observed, plan.Target)
	if err != nil {
		return nil, err
	}
	if plan.Empty() {
		logger.V(4).Info("Load balancer is up to date", "loadBalancer", plan.LoadBalancerID)
	}
	return &planned{plan: plan, desired: desired, known: known, driver: e, found: found, observed: observed, nsgCompartments: nsgCompartments}, nil
}

// ensure is Ensure, and Update with early (see async.go).
func (r *Reconciler) ensure(ctx context.Context, svc *v1.Service, nodes []*v1.Node, secrets lb.Secrets, early bool) (*Result, error) {
	if early {
		if res, ok := r.unchanged(ctx, svc, nodes, secrets); ok {
			return res, nil
		}
	}
	r.forgetSynced(nameOf(svc))
	if !early {
		// Ensure sends Update's deferred changes itself, and waits for them (async.go).
		if err := r.pending.takeOver(ctx, nameOf(svc)); err != nil {
			return nil, err
		}
	}
	p, err := r.plan(ctx, svc, nodes, secrets, true)
	if err != nil {
		return nil, err
	}
	plan, e := p.plan, p.driver
	noteProgress(ctx, plan)
	if !plan.Empty() {
		e.index.dropListed(plan.LoadBalancerID) // it changes: the next reconcile reads it
		klog.FromContext(ctx).Info("Applying load balancer plan", "service", klog.KObj(svc),
			"loadBalancer", plan.LoadBalancerID, "plan", plan.String())
	}
	var created *found
	// A workload identity's work requests are waited for here: FollowUp reads as the CCM.
	accepted := early && r.ownDriver(e) && r.earlyOK(p)
	if accepted {
		err = r.accept(ctx, svc, p)
	} else {
		created, err = r.applyWaiting(ctx, e, plan)
	}
	if err != nil {
		// A refusal's message tells a tag namespace OCI does not know from an NSG it may not
		// attach; the tag one is checked first as the more specific.
		creating := createsLoadBalancer(plan)
		if tagErr := definedTagsError(err, svc, p.desired, creating); tagErr != err {
			return nil, tagErr
		}
		return nil, explainNSGRefusal(svc, p, err)
	}
	current := p.found
	if created != nil {
		r.lag.recordCreate(created.ID)
		current = created
	}
	if current == nil {
		return nil, fmt.Errorf("lb: no load balancer after applying %s", plan.Changes[0])
	}
	id := current.ID
	r.remember(svc.UID, lbRef{Kind: current.Kind, ID: id, Name: plan.Target.Name, CompartmentID: current.CompartmentID})
	if created != nil || p.observed.Name != plan.Target.Name {
		e.index.Add(current.CompartmentID, plan.Target.Name, id)
	}
	plan.Target.ID = id
	if err := r.retireOtherKind(ctx, svc, current.Kind, current); err != nil {
		return nil, fmt.Errorf("delete the load balancer %s/%s had before switching to %s: %w", svc.Namespace, svc.Name, current.Kind, err)
	}
	_, publicOnly := lookup.Status(svc)
	res := &Result{LoadBalancerID: id, Status: statusOf(current, p.desired.IPMode, publicOnly), Plan: plan, Spec: plan.Target,
		Accepted: accepted}
	r.rememberSynced(svc, p.known, p.desired, res)
	return res, nil
}

// Delete deletes the load balancer svc owns. A missing load balancer is success, and so is one
// that is not this Service's: it is left alone (and logged), never deleted. Missing means OCI
// says so unambiguously: a 404 NotAuthorizedOrNotFound that a listing contradicts is an
// *AccessError (most likely a missing IAM policy), so the Service keeps its finalizer.
//
// Delete waits at most Options.MaxWait: a deletion still running then goes on in the background
// and Delete returns a *PendingError (see background.go); the Service keeps its finalizer.
func (r *Reconciler) Delete(ctx context.Context, svc *v1.Service) error {
	_, err := r.inBackground(ctx, "delete", svc, func(ctx context.Context) (*Result, error) {
		return nil, r.delete(ctx, svc)
	})
	return err
}

func (r *Reconciler) delete(ctx context.Context, svc *v1.Service) error {
	r.forgetSynced(nameOf(svc))
	kind := lookup.Kind(svc)
	e, err := r.driverFor(ctx, svc, kind)
	if err != nil {
		// Without the client, nothing proves the Service's load balancer gone: keep the Service.
		return fmt.Errorf("service %s/%s asks for a %s load balancer, whose deletion cannot be confirmed: %w", svc.Namespace, svc.Name, kind, err)
	}
	adopt, _ := annotation.AdoptLoadBalancerID.Value(svc.Annotations)
	deleted, err := r.deleteIn(ctx, e, svc, adopt)
	if err != nil {
		return err
	}
	// A Service switched between kinds may still have the other kind's (see switch.go).
	if err := r.retireOtherKind(ctx, svc, kind, deleted); err != nil {
		return err
	}
	r.forget(svc.UID)
	return nil
}

// deleteIn deletes svc's load balancer of e's kind, if it has one, and returns it (nil when
// there was none or it is not the Service's).
func (r *Reconciler) deleteIn(ctx context.Context, e *driver, svc *v1.Service, adopt string) (*found, error) {
	logger := klog.FromContext(ctx).WithValues("service", klog.KObj(svc))
	found, how, err := r.find(ctx, e, svc, adopt, false)
	if err != nil || found == nil {
		if errors.Is(err, ErrNotOwned) {
			logger.Info("Not deleting a load balancer this Service does not own", "reason", err)
			return nil, nil
		}
		return nil, err
	}
	observed := found.Spec()
	if err := checkOwnership(observed, r.owner(svc), how); err != nil {
		logger.Info("Not deleting a load balancer this Service does not own", "reason", err)
		return nil, nil
	}
	plan := deletePlan(observed)
	noteProgress(ctx, plan)
	logger.Info("Deleting load balancer", "plan", plan.String())
	if _, err := e.applier.apply(ctx, plan); err != nil {
		return nil, err
	}
	r.pending.settled(plan)
	e.index.Remove(observed.CompartmentID, observed.ID)
	r.lag.deleted(observed.ID, serviceKey(string(svc.UID)))
	return found, nil
}

// Get reports svc's load balancer as OCI has it, and whether it exists (false, with a nil
// Result, when there is none or it is not this Service's). It only reads from OCI.
func (r *Reconciler) Get(ctx context.Context, svc *v1.Service) (*Result, bool, error) {
	caller := ctx
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	e, err := r.driverFor(ctx, svc, lookup.Kind(svc))
	if err != nil {
		return nil, false, err
	}
	adopt, _ := annotation.AdoptLoadBalancerID.Value(svc.Annotations)
	found, how, err := r.find(ctx, e, svc, adopt, false)
	if err != nil || found == nil {
		return nil, false, r.timedOut(caller, ctx, "get", svc, err)
	}
	observed := found.Spec()
	if err := checkOwnership(observed, r.owner(svc), how); err != nil {
		return nil, false, nil
	}
	// An invalid ipMode annotation is reported by Ensure; Get only reports what exists.
	ipMode, publicOnly := lookup.Status(svc)
	return &Result{LoadBalancerID: observed.ID, Status: statusOf(found, ipMode, publicOnly), Spec: observed}, true, nil
}

// Subnets returns the subnets svc's load balancer is in, or would be created in: from its
// annotations, else the configured defaults. It reads nothing from OCI. Use it to clean up the
// security rules of a deleted Service whose load balancer is already gone.
func (r *Reconciler) Subnets(svc *v1.Service, secrets lb.Secrets) []string {
	if spec, err := lb.Desired(svc, nil, r.cfg, lb.Known{Secrets: secrets}); err == nil {
		return spec.Subnets
	}
	var ids []string
	for _, id := range []string{r.cfg.LoadBalancer.Subnet1, r.cfg.LoadBalancer.Subnet2} {
		if id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// Name returns the display name svc's load balancer gets (cloudprovider's GetLoadBalancerName).
func (r *Reconciler) Name(svc *v1.Service) string { return r.namer.Name(svc) }

func (r *Reconciler) owner(svc *v1.Service) *model.Spec {
	return &model.Spec{Owner: model.Owner{Cluster: r.cluster, Service: svc.Namespace + "/" + svc.Name, UID: string(svc.UID)}}
}

// deletePlan is the plan that deletes the observed load balancer.
func deletePlan(observed *model.Spec) *model.Plan {
	return &model.Plan{
		LoadBalancerID: observed.ID,
		Name:           observed.Name,
		Changes:        []model.Change{{Op: model.OpDelete, Name: observed.Name, Before: observed}},
	}
}

// EndpointNodes returns the names of the Nodes that run an endpoint of svc that may take
// traffic (ready, or serving while it terminates, as kube-proxy counts them), and known false
// when the endpoints of svc are not known (no EndpointSlice of it seen yet). Known with no Nodes
// means no endpoint: the load balancer keeps its listeners with empty backend sets. It is called
// before each reconcile of a Service with externalTrafficPolicy Local and must not block.
type EndpointNodes func(svc *v1.Service) (nodes map[string]bool, known bool)
