package lb

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// Options configure a Reconciler.
type Options struct {
	// Config is the parsed cloud-provider.yaml (compartment, default subnets, naming, tags).
	Config *config.Config
	// Client calls the OCI Load Balancer API.
	Client Client
	// PublicIPs resolves spec.loadBalancerIP; needed only by Services that set it.
	PublicIPs PublicIPs
	// Concurrency bounds how many independent changes of one plan run at once (default
	// DefaultConcurrency).
	Concurrency int
	// Index is the shared name→OCID index; nil makes a new one over Client.
	Index *Index
	// Timeout bounds each Reconcile, Delete and Get (default DefaultTimeout): a work request
	// that never finishes must not hold a service-controller worker (by default the only one)
	// forever.
	Timeout time.Duration
}

// DefaultTimeout bounds a reconcile when Options.Timeout is zero. A create takes one to two
// minutes on OCI and a change 20 to 40 seconds, so five minutes is several times a slow plan.
const DefaultTimeout = 5 * time.Minute

// Reconciler is the entry point a cloud provider forwards to: it finds a Service's load balancer,
// plans and applies the difference, and reports the status. Safe for concurrent use; calls for
// the same Service must not overlap (the service controller never does that).
type Reconciler struct {
	cfg     *config.Config
	client  Client
	applier *Applier
	index   *Index
	namer   Namer
	timeout time.Duration

	mu  sync.Mutex
	ids map[types.UID]lbRef // Service UID → load balancer, learned by this process
}

// NewReconciler returns a Reconciler.
func NewReconciler(opts Options) (*Reconciler, error) {
	if opts.Client == nil {
		return nil, errors.New("lb: Options.Client is required")
	}
	cfg := opts.Config
	if cfg == nil || cfg.CompartmentID == "" {
		return nil, errors.New("lb: Options.Config with a CompartmentID is required")
	}
	idx := opts.Index
	if idx == nil {
		idx = NewIndex(opts.Client)
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Reconciler{
		cfg:     cfg,
		client:  opts.Client,
		applier: &Applier{Client: opts.Client, PublicIPs: opts.PublicIPs, Concurrency: opts.Concurrency},
		index:   idx,
		namer:   NamerFor(cfg),
		timeout: timeout,
		ids:     map[types.UID]lbRef{},
	}, nil
}

// Result is what one reconcile did.
type Result struct {
	// Status is the Service's load balancer status.
	Status *v1.LoadBalancerStatus
	// Plan is what was applied (empty when nothing changed).
	Plan *Plan
	// Spec is the load balancer as it now is (Plan.Target): security rules are computed from it,
	// including the real subnets of an existing load balancer.
	Spec *Spec
}

// Ensure creates or updates the load balancer for svc and returns its status. It is
// EnsureLoadBalancer and UpdateLoadBalancer of cloudprovider.LoadBalancer in one.
func (r *Reconciler) Ensure(ctx context.Context, clusterName string, svc *v1.Service, nodes []*v1.Node, secrets Secrets) (*v1.LoadBalancerStatus, error) {
	res, err := r.Reconcile(ctx, clusterName, svc, nodes, secrets)
	if err != nil {
		return nil, err
	}
	return res.Status, nil
}

// Reconcile is Ensure returning the plan and resulting Spec too.
func (r *Reconciler) Reconcile(ctx context.Context, clusterName string, svc *v1.Service, nodes []*v1.Node, secrets Secrets) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	res, err := r.reconcile(ctx, clusterName, svc, nodes, secrets)
	return res, r.timedOut(ctx, "ensure", svc, err)
}

// timedOut says, for an error of a reconcile whose own deadline passed, that it gave up and why.
func (r *Reconciler) timedOut(ctx context.Context, what string, svc *v1.Service, err error) error {
	if err == nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w (%w)", err, context.DeadlineExceeded)
	}
	return fmt.Errorf("%s load balancer of %s/%s gave up at the reconcile timeout (%s): %w", what, svc.Namespace, svc.Name, r.timeout, err)
}

func (r *Reconciler) reconcile(ctx context.Context, clusterName string, svc *v1.Service, nodes []*v1.Node, secrets Secrets) (*Result, error) {
	logger := klog.FromContext(ctx).WithValues("service", klog.KObj(svc))
	desired, err := Desired(svc, nodes, r.cfg, secrets)
	if err != nil {
		return nil, err
	}
	desired.Owner.Cluster = clusterName
	if len(desired.ExcludedNodes) > 0 {
		logger.V(4).Info("Nodes left out of the load balancer", "excluded", desired.ExcludedNodes)
	}

	found, claim, err := r.find(ctx, clusterName, svc, desired.AdoptID, true)
	if err != nil {
		return nil, err
	}
	if found == nil && claim == ClaimByAdoption {
		return nil, &ValidationError{Service: desired.Owner.Service, Problems: []*Problem{
			AnnotationAdoptLoadBalancerID.problemf(desired.AdoptID, "the OCID of an existing load balancer (none was found)")}}
	}
	var observed *Spec
	if found != nil {
		observed = Observe(*found)
		if err := CheckOwnership(observed, desired, claim); err != nil {
			return nil, err
		}
		if err := usable(found); err != nil {
			return nil, err
		}
		// Remember it before applying, so a reconcile after a partial failure needs one read.
		r.remember(svc.UID, refOf(*found))
	}
	plan, err := Diff(observed, desired)
	if err != nil {
		return nil, err
	}
	if plan.Empty() {
		logger.V(4).Info("Load balancer is up to date", "loadBalancer", plan.LoadBalancerID)
	} else {
		logger.Info("Applying load balancer plan", "plan", plan.String())
	}
	created, err := r.applier.apply(ctx, plan)
	if err != nil {
		return nil, err
	}
	current := found
	if created != nil {
		current = created
	}
	if current == nil {
		return nil, fmt.Errorf("lb: no load balancer after applying %s", plan.Changes[0])
	}
	id := deref(current.Id)
	r.remember(svc.UID, lbRef{ID: id, Name: plan.Target.Name, CompartmentID: deref(current.CompartmentId)})
	if created != nil || observed.Name != plan.Target.Name {
		r.index.Add(desired.CompartmentID, plan.Target.Name, id)
	}
	plan.Target.ID = id
	return &Result{Status: statusOf(*current, desired.IPMode), Plan: plan, Spec: plan.Target}, nil
}

// Delete deletes the load balancer svc owns. A missing load balancer is success, and so is one
// that is not this Service's: it is left alone (and logged), never deleted. Missing means OCI
// says so unambiguously: a 404 NotAuthorizedOrNotFound that a listing contradicts is an
// *AccessError (most likely a missing IAM policy), so the Service keeps its finalizer.
func (r *Reconciler) Delete(ctx context.Context, clusterName string, svc *v1.Service) error {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	return r.timedOut(ctx, "delete", svc, r.delete(ctx, clusterName, svc))
}

func (r *Reconciler) delete(ctx context.Context, clusterName string, svc *v1.Service) error {
	logger := klog.FromContext(ctx).WithValues("service", klog.KObj(svc))
	adopt, _ := AnnotationAdoptLoadBalancerID.Value(svc.Annotations)
	found, claim, err := r.find(ctx, clusterName, svc, adopt, false)
	if err != nil || found == nil {
		if errors.Is(err, ErrNotOwned) {
			logger.Info("Not deleting a load balancer this Service does not own", "reason", err)
			return nil
		}
		return err
	}
	observed := Observe(*found)
	if err := CheckOwnership(observed, r.owner(clusterName, svc), claim); err != nil {
		logger.Info("Not deleting a load balancer this Service does not own", "reason", err)
		return nil
	}
	plan := DeletePlan(observed)
	logger.Info("Deleting load balancer", "plan", plan.String())
	if _, err := r.applier.apply(ctx, plan); err != nil {
		return err
	}
	r.forget(svc.UID)
	r.index.Remove(observed.CompartmentID, observed.ID)
	return nil
}

// Get returns the status of svc's load balancer and whether it exists.
func (r *Reconciler) Get(ctx context.Context, clusterName string, svc *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	adopt, _ := AnnotationAdoptLoadBalancerID.Value(svc.Annotations)
	found, claim, err := r.find(ctx, clusterName, svc, adopt, false)
	if err != nil || found == nil {
		return nil, false, r.timedOut(ctx, "get", svc, err)
	}
	if err := CheckOwnership(Observe(*found), r.owner(clusterName, svc), claim); err != nil {
		return nil, false, nil
	}
	// An invalid ipMode annotation is reported by Ensure; Get only reports what exists.
	ipMode := (&desiredBuilder{p: &parser{ann: svc.Annotations}}).ipMode()
	return statusOf(*found, ipMode), true, nil
}

// Name returns the display name svc's load balancer gets (cloudprovider's GetLoadBalancerName).
func (r *Reconciler) Name(svc *v1.Service) string { return r.namer.Name(svc) }

func (r *Reconciler) owner(clusterName string, svc *v1.Service) *Spec {
	return &Spec{Owner: Owner{Cluster: clusterName, Service: svc.Namespace + "/" + svc.Name, UID: string(svc.UID)}}
}

// find returns svc's load balancer, or nil if there is none, and how it was found: by the
// adoption annotation (explicit, so it wins), by the OCID cached for the Service, else through the name index (scheme name,
// then UID name). An untagged load balancer found only by a non-UID name is an OwnershipError;
// load balancers tagged for another cluster or Service are skipped.
//
// With listedOK, a load balancer of the index's last whole listing stands in for a read (see
// index_listed.go); Delete and Get read afresh.
func (r *Reconciler) find(ctx context.Context, clusterName string, svc *v1.Service, adoptID string, listedOK bool) (*loadbalancer.LoadBalancer, Claim, error) {
	cached := r.cached(svc.UID)
	if adoptID != "" {
		// The Service's address shows its load balancer was adopted once: without it, a
		// missing adoption target never carried the Service and may be taken for gone.
		ref := lbRef{ID: adoptID, CompartmentID: r.cfg.CompartmentID, Adopted: len(svc.Status.LoadBalancer.Ingress) > 0}
		if cached.ID == adoptID {
			ref = cached
		}
		lb, err := r.get(ctx, ref)
		return lb, ClaimByAdoption, err
	}
	if cached.ID != "" {
		lb, err := r.get(ctx, cached)
		if err != nil || lb != nil {
			return lb, ClaimByCachedID, err
		}
		r.forget(svc.UID)
	}
	// Twice at most: when every indexed match turns out gone, the index has forgotten them and
	// the second lookup asks OCI (a load balancer made by another process, e.g. before a restart).
	for range 2 {
		lb, claim, stale, err := r.findByName(ctx, clusterName, svc, listedOK)
		if lb != nil || err != nil || !stale {
			return lb, claim, err
		}
	}
	return nil, ClaimByName, nil
}

// findByName is find through the name index; stale reports that nothing was found and every
// indexed match was gone (and has been removed from the index).
func (r *Reconciler) findByName(ctx context.Context, clusterName string, svc *v1.Service, listedOK bool) (_ *loadbalancer.LoadBalancer, _ Claim, stale bool, _ error) {
	matches, err := r.index.Lookup(ctx, r.cfg.CompartmentID, r.namer.Candidates(svc)...)
	if err != nil {
		return nil, ClaimByName, false, fmt.Errorf("look up load balancer for %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	want := r.owner(clusterName, svc).Owner
	var refused error
	removed := 0
	for _, m := range matches {
		lb, err := r.getListed(ctx, lbRef{ID: m.ID, Name: m.Name, CompartmentID: r.cfg.CompartmentID}, listedOK)
		if err != nil {
			return nil, ClaimByName, false, err
		}
		if lb == nil {
			r.index.Remove(r.cfg.CompartmentID, m.ID)
			removed++
			continue
		}
		claim := ClaimByName
		if m.Name == UIDName(svc) {
			claim = ClaimByUIDName
		}
		got, tagged := ownerFromTags(lb.FreeformTags)
		switch {
		case tagged && got.Cluster == want.Cluster && (got.Service == want.Service || got.UID == want.UID):
			return lb, claim, false, nil
		case tagged:
			continue // another cluster's or Service's load balancer with a colliding name
		case claim == ClaimByUIDName:
			return lb, claim, false, nil
		default:
			refused = &OwnershipError{LoadBalancerID: m.ID, DisplayName: m.Name,
				Reason: "it has no " + TagManagedBy + " tag; set " + string(AnnotationAdoptLoadBalancerID) + " to take it over, or delete it"}
		}
	}
	return nil, ClaimByName, removed > 0 && removed == len(matches), refused
}

// get reads a load balancer; nil when it is being deleted, or when it does not exist as a fresh
// listing of its compartment confirms (a 404 alone may be a missing policy: *AccessError).
func (r *Reconciler) get(ctx context.Context, ref lbRef) (*loadbalancer.LoadBalancer, error) {
	lb, err := r.client.GetLoadBalancer(ctx, ref.ID)
	switch {
	case ociclient.IsNotFound(err):
		return nil, confirmLoadBalancerGone(ctx, r.client, ref, "GetLoadBalancer", "read load-balancers", err)
	case err != nil:
		return nil, fmt.Errorf("get load balancer %s: %w", ref.ID, err)
	case gone(lb.LifecycleState):
		return nil, nil
	}
	return &lb, nil
}

// usable refuses load balancers that cannot be changed now.
func usable(lb *loadbalancer.LoadBalancer) error {
	switch lb.LifecycleState {
	case loadbalancer.LoadBalancerLifecycleStateCreating:
		return &StateError{LoadBalancerID: deref(lb.Id), State: string(lb.LifecycleState), Hint: "its creation is still in progress; retry later"}
	case loadbalancer.LoadBalancerLifecycleStateFailed:
		return &StateError{LoadBalancerID: deref(lb.Id), State: string(lb.LifecycleState),
			Hint: "OCI could not create it; delete the Service (or the load balancer) and recreate it"}
	}
	return nil
}

func (r *Reconciler) cached(uid types.UID) lbRef {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[uid]
}

func (r *Reconciler) remember(uid types.UID, ref lbRef) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids[uid] = ref
}

func (r *Reconciler) forget(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.ids, uid)
}
