// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/internal/freeform"
	"github.com/oci-ccm/oci-ccm/lb/internal/ipaddr"
	"github.com/oci-ccm/oci-ccm/lb/internal/lookup"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// The service controller reconciles a Service only when the Service or the set of Nodes changes.
// A listener deleted in the OCI console, or a whole load balancer deleted, is therefore never
// repaired. Reconciler.Drift finds such load balancers cheaply: one paged ListLoadBalancers per
// compartment (a listing carries every load balancer whole: listeners, backend sets,
// certificates, tags), never a read per Service. What each Service's load balancer should be is
// what its next reconcile would aim for: Desired from the Service and Nodes, and Diff against the
// listed load balancer. A non-empty plan means the load balancer drifted; the caller requeues the
// Service so the service controller reconciles it.

// driftChecker compares the load balancers of a compartment listing with what their Services
// ask for: the Reconciler's configuration, identity and naming, its client's listing.
type driftChecker struct {
	// desired builds a desired Spec before the load balancer is found, as the Reconciler does
	// (Reconciler.desiredOf), with its frontend NSG, but never creates one: the check only reads.
	// It returns what it knew, for the Spec built again once the load balancer is found
	// (compare). A frontend NSG that cannot be looked up is an error wrapping errFrontendNSG.
	desired func(ctx context.Context, svc *v1.Service, nodes []*v1.Node, secrets lb.Secrets) (lb.Known, *model.Spec, error)
	cfg     *config.Config
	drivers map[model.Kind]*driver
	namer   lookup.Naming
	cluster string
	// pending are Update's accepted backend changes, laid over the listing: a load balancer
	// whose accepted update is still in OCI's queue has not drifted (see async.go).
	pending *pendingUpdates
	// lag and loadBalancerOf say whether a listing shows a Service's load balancer yet (lag.go):
	// a listing that began too soon after the Reconciler's start, or its create, proves no
	// deletion.
	lag            *listingLag
	loadBalancerOf func(types.UID) string
}

// Drift checks the load balancers of the Reconciler's cluster for changes made outside
// Kubernetes; see the driftChecker's check for what it lists and compares. Safe for concurrent
// use with reconciles.
func (r *Reconciler) Drift(ctx context.Context, services []*v1.Service, nodes []*v1.Node, secrets func(*v1.Service) lb.Secrets) (*DriftReport, error) {
	desired := func(ctx context.Context, svc *v1.Service, nodes []*v1.Node, secrets lb.Secrets) (lb.Known, *model.Spec, error) {
		return r.desiredOf(ctx, svc, nodes, secrets, false)
	}
	d := &driftChecker{cfg: r.cfg, drivers: r.drivers, namer: r.namer, cluster: r.cluster, desired: desired, pending: r.pending,
		lag: r.lag, loadBalancerOf: func(uid types.UID) string { return r.cached(uid).ID }}
	report, err := d.check(ctx, services, nodes, secrets)
	if report != nil {
		for _, drifted := range report.Drifted {
			r.forgetSynced(drifted.Service) // its next Update reads it again (unchanged.go)
		}
	}
	return report, err
}

// Drift is a Service whose load balancer differs from what the Service asks for.
type Drift struct {
	// Service is the Service's namespace and name; UID is its UID.
	Service types.NamespacedName
	UID     types.UID
	// LoadBalancerID is the load balancer's OCID; empty when it was deleted and its OCID is not
	// known.
	LoadBalancerID string
	// Deleted means the listing of the load balancer's compartment lacks it (or shows it deleted
	// or being deleted) although the Service has an address.
	Deleted bool
	// Reasons say what drifted, one per part, e.g. "listener TCP-80 missing".
	Reasons []string
}

// Reason is the reasons in one line, e.g. "listener TCP-80 missing; backend set TCP-80 changed".
func (d Drift) Reason() string { return strings.Join(d.Reasons, "; ") }

// DriftReport is what one check found.
type DriftReport struct {
	// Drifted are the Services to reconcile, sorted by namespace and name.
	Drifted []Drift
	// Checked counts the Services whose load balancer was compared (found, or proven deleted).
	Checked int
	// Skipped counts the managed Services not compared, with why (for logs): an invalid Service,
	// a load balancer not created yet, one being created or failed, one whose compartment could
	// not be listed, an adopted one outside the listed compartment.
	Skipped map[string]int
}

// check lists each compartment the Services' load balancers live in once, all pages, and
// returns the Services whose load balancers drifted. services are every Service of the cluster
// (those lb does not manage, or being deleted, are left out); nodes and secrets are what the
// service controller would pass to a reconcile now.
//
// Absence is proven only by a fresh, successful listing: a compartment whose listing fails
// (a 404 NotAuthorizedOrNotFound from a missing policy, an outage) proves nothing, its Services
// are skipped, and the error is returned beside the report of the other compartments.
func (d *driftChecker) check(ctx context.Context, services []*v1.Service, nodes []*v1.Node, secrets func(*v1.Service) lb.Secrets) (*DriftReport, error) {
	report := &DriftReport{Skipped: map[string]int{}}
	type item struct {
		svc   *v1.Service
		known lb.Known
		// sought is the Service's Spec before its load balancer is found: what finding it needs.
		sought *model.Spec
	}
	type where struct {
		kind        model.Kind
		compartment string
	}
	// A Service's load balancer is looked for where the Reconciler looks (serviceCompartments):
	// the compartment it names, the one its load balancer was recorded in, the configured one.
	// The items are grouped by that list, joined; each compartment is listed once.
	type places struct {
		kind         model.Kind
		compartments string // serviceCompartments, joined by "\x00"
	}
	byPlaces := map[places][]item{}
	toList := map[where]bool{}
	for _, svc := range services {
		if !lb.Manages(svc) || svc.DeletionTimestamp != nil {
			continue
		}
		if _, ok := workloadServiceAccount(svc); ok {
			// Its load balancer is read as its workload identity, which the CCM's listing may
			// not see: a listing would prove nothing.
			report.Skipped["calls made as a workload identity"]++
			continue
		}
		var found lb.Secrets
		if secrets != nil {
			found = secrets(svc)
		}
		known, sought, err := d.desired(ctx, svc, nodes, found)
		switch {
		case errors.Is(err, errFrontendNSG):
			report.Skipped["frontend NSG unknown"]++ // the Service's reconcile reports it
			continue
		case err != nil:
			// The service controller reports an invalid Service on every change; a requeue
			// would only repeat that.
			report.Skipped["invalid Service"]++
			continue
		case d.drivers[sought.Kind] == nil:
			report.Skipped["no client for its kind"]++
			continue
		}
		comps := lookup.Compartments(svc, d.cfg.CompartmentID)
		for _, c := range comps {
			toList[where{sought.Kind, c}] = true
		}
		p := places{sought.Kind, strings.Join(comps, "\x00")}
		byPlaces[p] = append(byPlaces[p], item{svc, known, sought})
	}
	var errs []error
	listings := map[where]*driftListing{}
	for _, comp := range slices.SortedFunc(maps.Keys(toList), func(a, b where) int {
		return cmp.Or(strings.Compare(string(a.kind), string(b.kind)), strings.Compare(a.compartment, b.compartment))
	}) {
		p := d.drivers[comp.kind].p
		began := d.drivers[comp.kind].index.now()
		lbs, err := p.List(ctx, comp.compartment, "")
		if err != nil {
			errs = append(errs, fmt.Errorf("list %ss of compartment %s: %w", p.Words().Noun, comp.compartment, err))
			continue
		}
		listings[comp] = newDriftListing(lbs, began)
	}
	for _, at := range slices.SortedFunc(maps.Keys(byPlaces), func(a, b places) int {
		return cmp.Or(strings.Compare(string(a.kind), string(b.kind)), strings.Compare(a.compartments, b.compartments))
	}) {
		var listing *driftListing
		for _, c := range strings.Split(at.compartments, "\x00") {
			l := listings[where{at.kind, c}]
			if l == nil {
				listing = nil // absence is proven only by every listing
				break
			}
			if listing == nil {
				listing = l
			} else {
				listing = listing.with(l)
			}
		}
		if listing == nil {
			report.Skipped["compartment not listed"] += len(byPlaces[at])
			continue
		}
		for _, it := range byPlaces[at] {
			drift, skip := d.compare(listing, it.svc, nodes, it.known, it.sought)
			if skip != "" {
				report.Skipped[skip]++
				continue
			}
			report.Checked++
			if drift != nil {
				report.Drifted = append(report.Drifted, *drift)
			}
		}
	}
	slices.SortFunc(report.Drifted, func(a, b Drift) int { return strings.Compare(a.Service.String(), b.Service.String()) })
	return report, errors.Join(errs...)
}

// compare finds svc's load balancer in the listing and diffs it with what svc asks for: Desired
// on nodes and known, knowing the load balancer found. sought is svc's Spec before it was found
// (d.desired). It returns the drift (nil for none) or why the Service was not compared.
func (d *driftChecker) compare(l *driftListing, svc *v1.Service, nodes []*v1.Node, known lb.Known, sought *model.Spec) (_ *Drift, skipped string) {
	drift := &Drift{Service: nameOf(svc), UID: svc.UID}
	found, listedGone := d.find(l, svc, sought)
	if found == nil {
		switch {
		case len(svc.Status.LoadBalancer.Ingress) == 0:
			// Never created, or its create is still failing: the service controller retries
			// that on its own.
			return nil, "no load balancer yet"
		case sought.AdoptID != "" && !listedGone:
			// An adopted load balancer may live in any compartment: this listing cannot prove
			// it gone.
			return nil, "adopted load balancer not in the listing"
		case !listedGone && d.loadBalancerOf != nil && (!d.lag.complete(d.loadBalancerOf(svc.UID), l.began) ||
			!d.lag.complete(serviceKey(string(svc.UID)), l.began)):
			// Made a moment ago, by this process or the one before it: the listing may not show
			// it yet. The next check decides.
			return nil, "listing too early to show its load balancer"
		}
		drift.LoadBalancerID = sought.AdoptID
		drift.Deleted = true
		drift.Reasons = []string{"load balancer deleted"}
		return drift, ""
	}
	drift.LoadBalancerID = found.ID
	if found.State != lifecycleActive {
		return nil, "load balancer " + strings.ToLower(found.StateName)
	}
	observed := found.Spec()
	d.pending.overlay(observed)
	// Whether its subnets are regional is not read: a load balancer in one subnet where the
	// Service names two then differs in subnets, which Diff refuses below.
	known.Existing = observed
	desired, err := lb.Desired(svc, nodes, d.cfg, known)
	if err != nil {
		return nil, "invalid Service" // it was valid before it was found; kept as a guard
	}
	plan, err := lb.Diff(observed, desired)
	if err != nil {
		// An immutable change is the Service's (reported by its reconcile), not drift.
		return nil, "load balancer cannot be changed in place"
	}
	if plan.Empty() {
		return nil, ""
	}
	for _, c := range plan.Changes {
		drift.Reasons = append(drift.Reasons, driftReason(c))
	}
	return drift, ""
}

// find returns svc's load balancer from the listing the way the Reconciler finds it: by the
// adoption annotation; else by the candidate names, accepting one tagged for this cluster and
// Service or an untagged one under an upstream name (naming.upstreamNames); else by the ownership tags under any name (a
// load balancer renamed in the console). listedGone reports that the only trace of it is
// a listing entry DELETED or DELETING.
func (d *driftChecker) find(l *driftListing, svc *v1.Service, desired *model.Spec) (_ *found, listedGone bool) {
	if desired.AdoptID != "" {
		lb := l.byID[desired.AdoptID]
		if lb == nil || lb.Gone() {
			return nil, lb != nil
		}
		return lb, false
	}
	want := desired.Owner
	owned := func(lb *found) bool {
		got, tagged := freeform.Owner(lb.FreeformTags)
		return tagged && got.Cluster == want.Cluster && (got.Service == want.Service || got.UID == want.UID)
	}
	upstream := d.namer.UpstreamNames(svc, desired.Kind)
	for _, name := range d.namer.Candidates(svc, desired.Kind) {
		for _, lb := range l.byName[name] {
			_, tagged := freeform.Owner(lb.FreeformTags)
			if owned(lb) || (!tagged && slices.Contains(upstream, name)) {
				return lb, false
			}
		}
	}
	for _, lb := range l.live {
		if owned(lb) {
			return lb, false
		}
	}
	return nil, false
}

// driftListing indexes one compartment's load balancers, or two (with).
type driftListing struct {
	began  time.Time // when the listing began, by the Reconciler's clock
	byID   map[string]*found
	byName map[string][]*found // live ones only
	live   []*found
}

func newDriftListing(lbs []found, began time.Time) *driftListing {
	l := &driftListing{began: began, byID: make(map[string]*found, len(lbs)), byName: make(map[string][]*found, len(lbs))}
	for i := range lbs {
		lb := &lbs[i]
		l.byID[lb.ID] = lb
		if !lb.Gone() {
			l.byName[lb.Name] = append(l.byName[lb.Name], lb)
			l.live = append(l.live, lb)
		}
	}
	return l
}

// with returns l and then other, as one listing that began when l did: a Service's load
// balancer is looked for in l first. l and other are not changed.
func (l *driftListing) with(other *driftListing) *driftListing {
	out := &driftListing{began: l.began, byID: maps.Clone(l.byID), byName: map[string][]*found{}, live: slices.Concat(l.live, other.live)}
	for id, lb := range other.byID {
		if _, ok := out.byID[id]; !ok {
			out.byID[id] = lb
		}
	}
	for _, m := range []map[string][]*found{l.byName, other.byName} {
		for name, lbs := range m {
			out.byName[name] = append(out.byName[name], lbs...)
		}
	}
	return out
}

// driftReason says what a change of a drift plan repairs, e.g. "listener TCP-80 missing".
func driftReason(c model.Change) string {
	switch after := c.Object().(type) {
	case model.Listener, model.BackendSet, model.Certificate:
		switch c.Op {
		case model.OpCreate:
			return c.Noun() + " " + c.Name + " missing"
		case model.OpDelete:
			return c.Noun() + " " + c.Name + " not asked for"
		}
		return c.Noun() + " " + c.Name + " changed"
	case model.Shape:
		return "shape changed"
	case model.NSGs:
		return "network security groups changed"
	case model.Settings:
		before, _ := c.Before.(model.Settings)
		if before.Name != after.Name {
			return "load balancer renamed to " + before.Name
		}
		if after.IPFamilies != nil {
			return "IP families " + ipaddr.Families(before.IPFamilies) + ", not " + ipaddr.Families(after.IPFamilies)
		}
		return "load balancer tags changed"
	}
	return c.String()
}
