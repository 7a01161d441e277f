// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"cmp"
	"net/http"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

// lbStore holds the emulated state of the Load Balancer API, and what the Network Load Balancer
// API shares with it (work requests, retry tokens, addresses, limits): Server has one field per
// API, and one engine for both means one set of fault rules covers both. Guarded by Server.mu.
type lbStore struct {
	lbs    map[string]*lbEntry
	seq    uint64 // creation order, for stable listing and paging
	work   workQueue
	wrSeq  uint64 // work requests accepted so far, for WorkRequestDurations
	tokens map[string]*lbRetryEntry
	// partCreators maps "<resource> <part>" to the work request that created the part, so
	// deleting the part invalidates that call's retry token (lb_parts.go).
	partCreators map[string]string
	ips          lbIPAllocator
	limits       LBLimits
	// health is what the server knows of each backend's health, by (network) load balancer and
	// backend (lb_health.go).
	health map[string]*backendHealth
}

func newLBStore() *lbStore {
	return &lbStore{
		lbs:          map[string]*lbEntry{},
		work:         newWorkQueue(),
		tokens:       map[string]*lbRetryEntry{},
		partCreators: map[string]string{},
		ips:          newLBIPAllocator(),
		limits:       LBLimits{}.withDefaults(),
		health:       map[string]*backendHealth{},
	}
}

// LBBusyMode is what the Load Balancer API does with a change of a load balancer on which a work
// request is running.
type LBBusyMode int

const (
	// LBBusyQueue accepts the change at once as a new work request, ACCEPTED, that runs after
	// the ones before it, one at a time in arrival order; its duration starts when the previous
	// one ends. OCI documents ACCEPTED as "in the work request queue to be processed" (Load
	// Balancer docs, "Monitoring Work Requests") and no user report shows a 409 for a busy
	// classic load balancer. The default.
	LBBusyQueue LBBusyMode = iota
	// LBBusyReject answers 409 IncorrectState while a work request runs, which ocitest did
	// before queueing; stricter than OCI is documented to be, for code that must cope with both.
	LBBusyReject
)

// String names the mode as the cmd/ocitest flag and test names spell it.
func (m LBBusyMode) String() string {
	if m == LBBusyReject {
		return "reject"
	}
	return "queue"
}

// lbEntry is one load balancer with the bookkeeping OCI keeps beside it.
type lbEntry struct {
	lb loadbalancer.LoadBalancer
	balancerBook
}

func (e *lbEntry) etag() string { return lbETag(*e.lb.Id, e.version) }

// LoadBalancer returns a copy of the load balancer with this OCID as OCI would report it now.
func (s *Server) LoadBalancer(id string) (loadbalancer.LoadBalancer, bool) {
	s.lockLB()
	defer s.mu.Unlock()
	e, ok := s.lb.lbs[id]
	if !ok {
		return loadbalancer.LoadBalancer{}, false
	}
	return deepCopy(e.lb), true
}

// LoadBalancers returns copies of every load balancer, in creation order.
func (s *Server) LoadBalancers() []loadbalancer.LoadBalancer {
	s.lockLB()
	defer s.mu.Unlock()
	out := make([]loadbalancer.LoadBalancer, 0, len(s.lb.lbs))
	for _, e := range inCreationOrder(s.lb.lbs) {
		out = append(out, deepCopy(e.lb))
	}
	return out
}

// EditLoadBalancer changes a load balancer the way a person in the OCI console (or another
// tool) would: at once, without a work request, and whether or not a work request is running.
// fn gets a copy; the id cannot be changed. It reports whether the load balancer exists.
func (s *Server) EditLoadBalancer(id string, fn func(*loadbalancer.LoadBalancer)) bool {
	s.lockLB()
	defer s.mu.Unlock()
	e, ok := s.lb.lbs[id]
	if !ok {
		return false
	}
	next := jsonClone(e.lb)
	fn(&next)
	next.Id = common.String(id)
	s.healthTrack(id, lbPartsOf(&e.lb), lbPartsOf(&next), s.now())
	e.lb = next
	e.version++
	return true
}

// AddLoadBalancer stores a load balancer as if it had been created earlier, for tests that start
// from an existing tenancy. A missing id, compartment, display name, shape, lifecycle state,
// creation time or address is filled in; maps and lists are made non-nil as OCI returns them. It
// returns the stored load balancer.
func (s *Server) AddLoadBalancer(lb loadbalancer.LoadBalancer) loadbalancer.LoadBalancer {
	now := s.lockLB()
	defer s.mu.Unlock()
	lb = jsonClone(lb)
	if lb.Id == nil {
		lb.Id = common.String(s.NewID("loadbalancer"))
	}
	s.defaultCompartment(&lb.CompartmentId)
	orDefault(&lb.DisplayName, common.String(*lb.Id))
	orDefault(&lb.ShapeName, common.String("100Mbps"))
	lb.LifecycleState = cmp.Or(lb.LifecycleState, loadbalancer.LoadBalancerLifecycleStateActive)
	orDefault(&lb.TimeCreated, &common.SDKTime{Time: now})
	orDefault(&lb.IsPrivate, common.Bool(false))
	if len(lb.IpAddresses) == 0 {
		subnet := ""
		if len(lb.SubnetIds) > 0 {
			subnet = lb.SubnetIds[0]
		}
		lb.IpAddresses = []loadbalancer.IpAddress{s.lbAddress(*lb.IsPrivate, subnet)}
	}
	lbNormalize(&lb)
	s.lb.seq++
	s.lb.lbs[*lb.Id] = &lbEntry{lb: lb, balancerBook: balancerBook{seq: s.lb.seq}}
	return jsonClone(lb)
}

// lbAddress allocates the address of a new load balancer in subnet. Caller holds s.mu.
func (s *Server) lbAddress(private bool, subnetID string) loadbalancer.IpAddress {
	if private {
		return loadbalancer.IpAddress{IpAddress: common.String(s.lbPrivateAddress(subnetID)), IsPublic: common.Bool(false)}
	}
	return loadbalancer.IpAddress{IpAddress: common.String(s.lbPublicAddress()), IsPublic: common.Bool(true)}
}

// lbNormalize makes every map and list non-nil, as OCI returns them.
func lbNormalize(lb *loadbalancer.LoadBalancer) {
	orEmpty(&lb.SubnetIds)
	orEmpty(&lb.NetworkSecurityGroupIds)
	orEmptyMap(&lb.Listeners)
	orEmptyMap(&lb.Hostnames)
	orEmptyMap(&lb.SslCipherSuites)
	orEmptyMap(&lb.Certificates)
	orEmptyMap(&lb.BackendSets)
	orEmptyMap(&lb.PathRouteSets)
	orEmptyMap(&lb.RuleSets)
	orEmptyMap(&lb.RoutingPolicies)
	orEmptyMap(&lb.FreeformTags)
	orEmptyMap(&lb.DefinedTags)
	orEmptyMap(&lb.SystemTags)
}

// lbFor finds the load balancer named in the request path, answering 404 when there is none.
// Caller holds s.mu.
func (s *Server) lbFor(w http.ResponseWriter, r *http.Request) (*lbEntry, bool) {
	id := r.PathValue("loadBalancerId")
	e, ok := s.lb.lbs[id]
	if !ok {
		notFound(w, r, "load balancer", id)
		return nil, false
	}
	return e, true
}

// readyForChange says why the load balancer takes no change now, or nil: OCI takes a change when
// it is ACTIVE and, under LBBusyReject, no work request runs on it. A load balancer that is not
// ACTIVE (CREATING, DELETING, FAILED) takes none in either mode.
func (e *lbEntry) readyForChange(mode LBBusyMode) error {
	if mode == LBBusyReject && len(e.queue) > 0 {
		wr := e.queue[0]
		return lbIncorrectState("Load balancer %s is busy with work request %s (%s)", *e.lb.Id, wr.id, wr.op)
	}
	if e.lb.LifecycleState != loadbalancer.LoadBalancerLifecycleStateActive {
		return lbIncorrectState("Load balancer %s is %s, not ACTIVE", *e.lb.Id, e.lb.LifecycleState)
	}
	return nil
}

// readyForDelete says why the load balancer takes no delete now, or nil: as for a change, but a
// FAILED one may be deleted too, and one with delete protection may not.
func (e *lbEntry) readyForDelete(mode LBBusyMode) error {
	st := e.lb.LifecycleState
	if mode == LBBusyReject && len(e.queue) > 0 ||
		st != loadbalancer.LoadBalancerLifecycleStateActive && st != loadbalancer.LoadBalancerLifecycleStateFailed {
		return e.readyForChange(mode)
	}
	if deref(e.lb.IsDeleteProtectionEnabled) {
		return lbIncorrectState("Load balancer %s has delete protection enabled", *e.lb.Id)
	}
	return nil
}

// RemoveLoadBalancer deletes a load balancer at once, without a work request, as someone in the
// console (or another tool) would, and invalidates the retry tokens of calls on it as OCI's
// delete does. Work requests still queued on it end without effect. It reports whether the
// load balancer existed.
func (s *Server) RemoveLoadBalancer(id string) bool {
	s.lockLB()
	defer s.mu.Unlock()
	return removeBalancer(s, s.lb.lbs, id)
}

// startLBChange accepts a change of a load balancer as a work request and answers the caller.
// mutate runs on a copy when the work request completes; the copy replaces the load balancer
// only if mutate and checkLB accept it (applyOnCopy), so a failed work request changes nothing.
// The ETag changes when the change is accepted and again when it is applied, so an if-match
// read before a queued change is stale (README.md, ETags). Caller holds s.mu.
func (s *Server) startLBChange(w http.ResponseWriter, r *http.Request, now time.Time, e *lbEntry, op string,
	mutate func(lb *loadbalancer.LoadBalancer) error) {
	e.version++
	wr := s.newWorkRequest(APILoadBalancer, op, *e.lb.Id, deref(e.lb.CompartmentId))
	wr.apply = func() error {
		// State in wire form: deepCopy equals jsonClone here, cheaper.
		if err := applyOnCopy(s, &e.lb, deepCopy(e.lb), *e.lb.Id, op, wr.id, mutate, checkLB, lbPartsOf); err != nil {
			return err
		}
		e.version++
		return nil
	}
	s.acceptWork(w, r, op, now, &e.balancerBook, wr)
}

// lbWorkRequestJSON is the wire form of a load balancer work request at now.
func lbWorkRequestJSON(wr *workRequest, now time.Time) loadbalancer.WorkRequest {
	state := wr.state(now)
	out := loadbalancer.WorkRequest{
		Id:             common.String(wr.id),
		LoadBalancerId: common.String(wr.resourceID),
		Type:           common.String(wr.op),
		LifecycleState: loadbalancer.WorkRequestLifecycleStateEnum(state),
		Message:        common.String(wr.op + " " + state),
		TimeAccepted:   &common.SDKTime{Time: wr.accepted},
		ErrorDetails:   []loadbalancer.WorkRequestError{},
		CompartmentId:  common.String(wr.compartmentID),
	}
	if wr.done() {
		out.TimeFinished = &common.SDKTime{Time: wr.finished}
	}
	if wr.failure != nil {
		out.Message = common.String(wr.failure.message)
		out.ErrorDetails = []loadbalancer.WorkRequestError{{
			ErrorCode: loadbalancer.WorkRequestErrorErrorCodeEnum(wr.failure.code),
			Message:   common.String(wr.failure.message),
		}}
	}
	return out
}
