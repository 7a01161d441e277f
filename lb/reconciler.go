package lb

import (
	"context"
	"errors"
	"fmt"
	"sync"

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
}

// Reconciler is the entry point a cloud provider forwards to: it finds a Service's load balancer,
// plans and applies the difference, and reports the status. Safe for concurrent use; calls for
// the same Service must not overlap (the service controller never does that).
type Reconciler struct {
	cfg     *config.Config
	client  Client
	applier *Applier
	index   *Index
	namer   Namer

	mu  sync.Mutex
	ids map[types.UID]string // Service UID → load balancer OCID, learned by this process
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
	return &Reconciler{
		cfg:     cfg,
		client:  opts.Client,
		applier: &Applier{Client: opts.Client, PublicIPs: opts.PublicIPs, Concurrency: opts.Concurrency},
		index:   idx,
		namer:   NamerFor(cfg),
		ids:     map[types.UID]string{},
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
	logger := klog.FromContext(ctx).WithValues("service", klog.KObj(svc))
	desired, err := Desired(svc, nodes, r.cfg, secrets)
	if err != nil {
		return nil, err
	}
	desired.Owner.Cluster = clusterName
	if len(desired.ExcludedNodes) > 0 {
		logger.V(4).Info("Nodes left out of the load balancer", "excluded", desired.ExcludedNodes)
	}

	found, claim, err := r.find(ctx, clusterName, svc, desired.AdoptID)
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
		r.remember(svc.UID, observed.ID)
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
	r.remember(svc.UID, id)
	if created != nil || observed.Name != plan.Target.Name {
		r.index.Add(desired.CompartmentID, plan.Target.Name, id)
	}
	plan.Target.ID = id
	return &Result{Status: statusOf(*current, desired.IPMode), Plan: plan, Spec: plan.Target}, nil
}

// Delete deletes the load balancer svc owns. A missing load balancer is success, and so is one
// that is not this Service's: it is left alone (and logged), never deleted.
func (r *Reconciler) Delete(ctx context.Context, clusterName string, svc *v1.Service) error {
	logger := klog.FromContext(ctx).WithValues("service", klog.KObj(svc))
	adopt, _ := AnnotationAdoptLoadBalancerID.Value(svc.Annotations)
	found, claim, err := r.find(ctx, clusterName, svc, adopt)
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
	adopt, _ := AnnotationAdoptLoadBalancerID.Value(svc.Annotations)
	found, claim, err := r.find(ctx, clusterName, svc, adopt)
	if err != nil || found == nil {
		return nil, false, err
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
func (r *Reconciler) find(ctx context.Context, clusterName string, svc *v1.Service, adoptID string) (*loadbalancer.LoadBalancer, Claim, error) {
	if adoptID != "" {
		lb, err := r.get(ctx, adoptID)
		return lb, ClaimByAdoption, err
	}
	if id := r.cached(svc.UID); id != "" {
		lb, err := r.get(ctx, id)
		if err != nil || lb != nil {
			return lb, ClaimByCachedID, err
		}
		r.forget(svc.UID)
	}
	matches, err := r.index.Lookup(ctx, r.cfg.CompartmentID, r.namer.Candidates(svc)...)
	if err != nil {
		return nil, ClaimByName, fmt.Errorf("look up load balancer for %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	want := r.owner(clusterName, svc).Owner
	var refused error
	for _, m := range matches {
		lb, err := r.get(ctx, m.ID)
		if err != nil {
			return nil, ClaimByName, err
		}
		if lb == nil {
			r.index.Remove(r.cfg.CompartmentID, m.ID)
			continue
		}
		claim := ClaimByName
		if m.Name == UIDName(svc) {
			claim = ClaimByUIDName
		}
		got, tagged := ownerFromTags(lb.FreeformTags)
		switch {
		case tagged && got.Cluster == want.Cluster && (got.Service == want.Service || got.UID == want.UID):
			return lb, claim, nil
		case tagged:
			continue // another cluster's or Service's load balancer with a colliding name
		case claim == ClaimByUIDName:
			return lb, claim, nil
		default:
			refused = &OwnershipError{LoadBalancerID: m.ID, DisplayName: m.Name,
				Reason: "it has no " + TagManagedBy + " tag; set " + string(AnnotationAdoptLoadBalancerID) + " to take it over, or delete it"}
		}
	}
	return nil, ClaimByName, refused
}

// get reads a load balancer; nil when it does not exist or is being deleted.
func (r *Reconciler) get(ctx context.Context, id string) (*loadbalancer.LoadBalancer, error) {
	lb, err := r.client.GetLoadBalancer(ctx, id)
	switch {
	case ociclient.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("get load balancer %s: %w", id, err)
	}
	switch lb.LifecycleState {
	case loadbalancer.LoadBalancerLifecycleStateDeleted, loadbalancer.LoadBalancerLifecycleStateDeleting:
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

func (r *Reconciler) cached(uid types.UID) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[uid]
}

func (r *Reconciler) remember(uid types.UID, id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids[uid] = id
}

func (r *Reconciler) forget(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.ids, uid)
}
