// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// This file serves the network-load-balancer-level operations of the Network Load Balancer API
// (20200501) and its work requests; nlb_children.go serves backend sets, backends and
// listeners. The rules are the Load Balancer API's (see lb.go), with the differences OCI has:
// create answers with the new network load balancer as well as its work request; a network load
// balancer is UPDATING while a change runs, and another change meanwhile is refused with 409
// Conflict "Invalid State Transition of NLB lifeCycle state from Updating to Updating" (never
// queued); a failed work request leaves it FAILED, and a FAILED one still takes updates (a
// successful one makes it ACTIVE again: how users repair one); work requests can be canceled;
// a deleted one stays visible, DELETED, for a while. It is private unless asked to be public.
// nlb_ipv6.go adds IP versions, nlb_targets.go backends by targetId.

const nlbPrefix = "/20200501"

// nlbStore holds the emulated state of the Network Load Balancer API. Work requests, retry
// tokens, addresses and limits live in lbStore, shared with the Load Balancer API. Guarded by
// Server.mu.
type nlbStore struct {
	nlbs map[string]*nlbEntry
	seq  uint64
}

func newNLBStore() *nlbStore { return &nlbStore{nlbs: map[string]*nlbEntry{}} }

// nlbEntry is one network load balancer with its bookkeeping.
type nlbEntry struct {
	nlb nlbapi.NetworkLoadBalancer
	balancerBook
	deletedAt time.Time // when its delete succeeded: DELETED and visible until nlbDeletedRetention
}

// nlbDefaultDeletedRetention is how long a DELETED network load balancer stays visible by
// default. OCI lists DELETED among the states Get and List report and filters by it, but does not
// say for how long; an hour of the server's clock is assumed.
const nlbDefaultDeletedRetention = time.Hour

func (s *Server) nlbDeletedRetention() time.Duration {
	if s.opts.NLBDeletedRetention == 0 {
		return nlbDefaultDeletedRetention
	}
	return s.opts.NLBDeletedRetention
}

// nlbGone reports whether e is a deleted network load balancer whose retention is over, and then
// forgets it. Caller holds s.mu.
func (s *Server) nlbGone(e *nlbEntry) bool {
	if e.deletedAt.IsZero() || s.now().Before(e.deletedAt.Add(s.nlbDeletedRetention())) {
		return false
	}
	delete(s.nlb.nlbs, *e.nlb.Id)
	return true
}

func (e *nlbEntry) etag() string { return lbETag(*e.nlb.Id, e.version) }

func (s *Server) registerNLB() {
	p := nlbPrefix + "/networkLoadBalancers"
	s.handle(NLB("ListNetworkLoadBalancers"), ClassRead, "GET "+p, s.nlbList)
	s.handle(NLB("GetNetworkLoadBalancer"), ClassRead, "GET "+p+"/{networkLoadBalancerId}", s.nlbGet)
	s.handle(NLB("CreateNetworkLoadBalancer"), ClassWrite, "POST "+p, withBody(s.nlbCreate))
	s.handle(NLB("UpdateNetworkLoadBalancer"), ClassWrite, "PUT "+p+"/{networkLoadBalancerId}", withBody(s.nlbUpdate))
	s.handle(NLB("UpdateNetworkSecurityGroups"), ClassWrite, "PUT "+p+"/{networkLoadBalancerId}/networkSecurityGroups", withBody(s.nlbUpdateNSGs))
	s.handle(NLB("DeleteNetworkLoadBalancer"), ClassWrite, "DELETE "+p+"/{networkLoadBalancerId}", s.nlbDelete)
	wr := nlbPrefix + "/workRequests"
	s.handle(NLB("GetWorkRequest"), ClassPoll, "GET "+wr+"/{workRequestId}", s.nlbGetWorkRequest)
	s.handle(NLB("ListWorkRequests"), ClassPoll, "GET "+wr, s.nlbListWorkRequests)
	s.handle(NLB("ListWorkRequestErrors"), ClassPoll, "GET "+wr+"/{workRequestId}/errors", s.nlbListWorkRequestErrors)
	s.registerNLBChildren()
	s.registerNLBHealth()
}

// NetworkLoadBalancer returns a copy of the network load balancer with this OCID as OCI would
// report it now.
func (s *Server) NetworkLoadBalancer(id string) (nlbapi.NetworkLoadBalancer, bool) {
	s.lockLB()
	defer s.mu.Unlock()
	e, ok := s.nlb.nlbs[id]
	if !ok || s.nlbGone(e) {
		return nlbapi.NetworkLoadBalancer{}, false
	}
	return jsonClone(e.nlb), true
}

// NetworkLoadBalancers returns copies of every network load balancer that exists, in creation
// order: DELETED ones, which Get and List still show for a while, are left out.
func (s *Server) NetworkLoadBalancers() []nlbapi.NetworkLoadBalancer {
	s.lockLB()
	defer s.mu.Unlock()
	out := make([]nlbapi.NetworkLoadBalancer, 0, len(s.nlb.nlbs))
	for _, e := range inCreationOrder(s.nlb.nlbs) {
		if e.deletedAt.IsZero() {
			out = append(out, jsonClone(e.nlb))
		}
	}
	return out
}

// EditNetworkLoadBalancer changes a network load balancer as someone outside the code under test
// would: at once, without a work request. fn gets a copy; the id cannot be changed. It reports
// whether the network load balancer exists.
func (s *Server) EditNetworkLoadBalancer(id string, fn func(*nlbapi.NetworkLoadBalancer)) bool {
	s.lockLB()
	defer s.mu.Unlock()
	e, ok := s.nlb.nlbs[id]
	if !ok {
		return false
	}
	next := jsonClone(e.nlb)
	fn(&next)
	next.Id = common.String(id)
	s.healthTrack(id, nlbPartsOf(&e.nlb), nlbPartsOf(&next), s.now())
	e.nlb = next
	e.version++
	return true
}

// nlbFor finds the network load balancer of the request's path. A DELETED one is still read
// (GET) until its retention ends, but takes no change or delete: 404, as for one that is gone
// (assumed; a 409 would be retried by callers as a busy NLB).
func (s *Server) nlbFor(w http.ResponseWriter, r *http.Request) (*nlbEntry, bool) {
	id := r.PathValue("networkLoadBalancerId")
	e, ok := s.nlb.nlbs[id]
	if ok && (s.nlbGone(e) || !e.deletedAt.IsZero() && r.Method != http.MethodGet) {
		ok = false
	}
	if !ok {
		notFound(w, r, "network load balancer", id)
		return nil, false
	}
	return e, true
}

// readyFor says why the network load balancer refuses to move to state now, or nil. OCI takes
// a change (or a delete) only when no work request runs and the state is ACTIVE or FAILED, and
// answers anything else with 409 Conflict naming the transition (terraform-provider-oci #1456).
func (e *nlbEntry) readyFor(to nlbapi.LifecycleStateEnum) error {
	from, busy := e.nlb.LifecycleState, len(e.queue) > 0
	if !busy && (from == nlbapi.LifecycleStateActive || from == nlbapi.LifecycleStateFailed) {
		return nil
	}
	if busy && from == nlbapi.LifecycleStateActive {
		from = nlbapi.LifecycleStateUpdating // a seeded or edited state; busy means Updating
	}
	return lbConflict("Invalid State Transition of NLB lifeCycle state from %s to %s", nlbStateWord(from), nlbStateWord(to))
}

// readyForChange is readyFor an update. The Network Load Balancer API refuses a change while a
// work request runs whatever the mode, which is the Load Balancer API's (Options.LBBusy).
func (e *nlbEntry) readyForChange(LBBusyMode) error {
	return e.readyFor(nlbapi.LifecycleStateUpdating)
}

// readyForDelete is readyFor a delete, whatever the mode.
func (e *nlbEntry) readyForDelete(LBBusyMode) error {
	return e.readyFor(nlbapi.LifecycleStateDeleting)
}

// nlbStateWord spells a lifecycle state as OCI's state-transition message does: "Updating".
func nlbStateWord(st nlbapi.LifecycleStateEnum) string {
	w := strings.ToLower(string(st))
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// RemoveNetworkLoadBalancer deletes a network load balancer at once, without a work request, as
// someone in the console would, and invalidates the retry tokens of calls on it as OCI's delete
// does. It reports whether the network load balancer existed.
func (s *Server) RemoveNetworkLoadBalancer(id string) bool {
	s.lockLB()
	defer s.mu.Unlock()
	return removeBalancer(s, s.nlb.nlbs, id)
}

// nlbChange runs a mutation: changeTarget's checks against the network load balancer as it is
// (check, which may be nil, gets the API's caps), then a work request that applies mutate to a
// copy and keeps the copy only if checkNLB accepts it (applyOnCopy). A failed work request
// leaves the network load balancer FAILED; a canceled one leaves it as it was.
func (s *Server) nlbChange(w http.ResponseWriter, r *http.Request, op string, invalid error,
	check func(n *nlbapi.NetworkLoadBalancer, caps lbCaps) error, mutate func(n *nlbapi.NetworkLoadBalancer) error) {
	now := s.lockLB()
	defer s.mu.Unlock()
	e, ok := changeTarget(s, w, r, op, now, s.nlbFor, invalid, func(e *nlbEntry) error {
		if check == nil {
			return nil
		}
		return check(&e.nlb, s.lb.limits.network())
	})
	if !ok {
		return
	}
	prev, prevDetails := e.nlb.LifecycleState, e.nlb.LifecycleDetails
	e.nlb.LifecycleState = nlbapi.LifecycleStateUpdating
	e.version++
	wr := s.newWorkRequest(APINetworkLoadBalancer, op, *e.nlb.Id, deref(e.nlb.CompartmentId))
	wr.apply = func() error {
		if err := applyOnCopy(s, &e.nlb, jsonClone(e.nlb), *e.nlb.Id, op, wr.id, mutate, checkNLB, nlbPartsOf); err != nil {
			return err
		}
		e.nlb.TimeUpdated = &common.SDKTime{Time: now}
		e.nlb.LifecycleDetails = nil
		return nil
	}
	wr.settle = func(err error) {
		e.version++
		switch {
		case err == nil:
			e.nlb.LifecycleState = nlbapi.LifecycleStateActive
		case errors.Is(err, errWorkCanceled):
			e.nlb.LifecycleState, e.nlb.LifecycleDetails = prev, prevDetails
		default:
			e.nlb.LifecycleState = nlbapi.LifecycleStateFailed
			e.nlb.LifecycleDetails = common.String(err.Error())
		}
	}
	s.acceptWork(w, r, op, now, &e.balancerBook, wr)
}

func (s *Server) nlbList(w http.ResponseWriter, r *http.Request) {
	if _, ok := lbRequireQuery(w, r, "compartmentId"); !ok {
		return
	}
	q := r.URL.Query()
	now := s.lockLB()
	defer s.mu.Unlock()
	var items []nlbapi.NetworkLoadBalancerSummary
	for _, e := range inCreationOrder(s.nlb.nlbs) {
		if n := e.nlb; !s.nlbGone(e) && s.lbListed(q, now, n.CompartmentId, n.Id, n.DisplayName, string(n.LifecycleState)) {
			items = append(items, nlbConvert[nlbapi.NetworkLoadBalancerSummary](n))
		}
	}
	if err := lbSortList(items, q.Get("sortBy"), q.Get("sortOrder"), "timeCreated", "displayName",
		func(n nlbapi.NetworkLoadBalancerSummary) string { return deref(n.DisplayName) }); err != nil {
		writeLBError(w, r, err)
		return
	}
	page := pageOf(s, w, r, items, 100)
	writeJSON(w, r, http.StatusOK, nlbapi.NetworkLoadBalancerCollection{Items: append([]nlbapi.NetworkLoadBalancerSummary{}, page...)})
}

func (s *Server) nlbGet(w http.ResponseWriter, r *http.Request) {
	s.nlbRead(w, r, func(n *nlbapi.NetworkLoadBalancer) (any, error) { return *n, nil })
}

func nlbCheckCreate(d nlbapi.CreateNetworkLoadBalancerDetails, caps lbCaps) error {
	if err := lbCheckCreateOwner(d.CompartmentId, d.DisplayName); err != nil {
		return err
	}
	if deref(d.SubnetId) == "" {
		return lbInvalid("subnetId is required")
	}
	if err := lbCheckNSGs(d.NetworkSecurityGroupIds); err != nil {
		return err
	}
	if err := nlbCheckIPVersionRequest(d.NlbIpVersion, d.SubnetIpv6Cidr, d.AssignedIpv6, d.AssignedPrivateIpv4); err != nil {
		return err
	}
	if _, err := nlbCheckReservedIPs(d.ReservedIps, deref(d.IsPrivate), d.NlbIpVersion); err != nil {
		return err
	}
	if deref(d.IsPreserveSourceDestination) && !deref(d.IsPrivate) {
		return lbInvalid(nlbTransparentPublic)
	}
	if a := d.AssignedPrivateIpv4; a != nil && (net.ParseIP(*a) == nil || !strings.Contains(*a, ".")) {
		return lbInvalid("assignedPrivateIpv4 %s is not an IPv4 address", *a)
	}
	backends := lbBackendCount(d.BackendSets, "", func(bs nlbapi.BackendSetDetails) int { return len(bs.Backends) })
	if err := caps.checkCreate(len(d.Listeners), len(d.BackendSets), backends); err != nil {
		return err
	}
	for _, name := range lbSortedKeys(d.Listeners) {
		l := d.Listeners[name]
		if err := nlbCheckListener(&name, l); err != nil {
			return err
		}
		if l.Name != nil && *l.Name != name {
			return lbInvalid("listener key '%s' differs from its name '%s'", name, *l.Name)
		}
		if err := nlbCheckFamily(fmt.Sprintf("Listener '%s'", name), l.IpVersion, d.NlbIpVersion); err != nil {
			return err
		}
	}
	for _, name := range lbSortedKeys(d.BackendSets) {
		if err := nlbCheckBackendSet(&name, d.BackendSets[name], caps); err != nil {
			return err
		}
		if err := nlbCheckFamily(fmt.Sprintf("Backend set '%s'", name), d.BackendSets[name].IpVersion, d.NlbIpVersion); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) nlbCreate(w http.ResponseWriter, r *http.Request, d nlbapi.CreateNetworkLoadBalancerDetails) {
	const op = "CreateNetworkLoadBalancer"
	orDefault(&d.IsPrivate, common.Bool(true)) // "This value is true by default" (the SDK's doc comment)
	now := s.lockLB()
	defer s.mu.Unlock()
	if s.lbReplay(w, r, op, now) {
		return
	}
	reserved := reservedIDs(d.ReservedIps, func(ip nlbapi.ReservedIp) *string { return ip.Id })
	// deref, not *: the arguments are evaluated before nlbCheckCreate has refused a missing subnet.
	err := s.createChecks(nlbCheckCreate(d, s.lb.limits.network()), []string{deref(d.SubnetId)}, d.NetworkSecurityGroupIds,
		reserved, d.DefinedTags, func() error { return s.nlbResolveCreate(&d) })
	if err != nil {
		writeLBError(w, r, err)
		return
	}
	id := s.NewID("networkloadbalancer")
	private := deref(d.IsPrivate)
	addrs, full, err := s.nlbAddresses(id, d)
	if err != nil {
		writeLBError(w, r, err)
		return
	}
	n := nlbapi.NetworkLoadBalancer{
		Id:                          common.String(id),
		CompartmentId:               common.String(*d.CompartmentId),
		DisplayName:                 common.String(*d.DisplayName),
		LifecycleState:              nlbapi.LifecycleStateCreating,
		TimeCreated:                 &common.SDKTime{Time: now},
		TimeUpdated:                 &common.SDKTime{Time: now},
		IpAddresses:                 addrs,
		SubnetId:                    common.String(*d.SubnetId),
		NlbIpVersion:                nlbVersionOf(d.NlbIpVersion),
		IsPrivate:                   common.Bool(private),
		IsPreserveSourceDestination: common.Bool(deref(d.IsPreserveSourceDestination)),
		IsSymmetricHashEnabled:      common.Bool(deref(d.IsSymmetricHashEnabled)),
		NetworkSecurityGroupIds:     append([]string{}, d.NetworkSecurityGroupIds...),
		Listeners:                   map[string]nlbapi.Listener{},
		BackendSets:                 map[string]nlbapi.BackendSet{},
		FreeformTags:                d.FreeformTags,
		DefinedTags:                 d.DefinedTags,
		SecurityAttributes:          d.SecurityAttributes,
		SystemTags:                  map[string]map[string]any{},
	}
	for name, l := range d.Listeners {
		n.Listeners[name] = nlbListenerFrom(name, l)
	}
	for name, b := range d.BackendSets {
		n.BackendSets[name] = nlbBackendSetFrom(name, b)
	}
	orEmptyMap(&n.FreeformTags)
	orEmptyMap(&n.DefinedTags)
	s.nlb.seq++
	e := &nlbEntry{nlb: n, balancerBook: balancerBook{seq: s.nlb.seq}}
	s.nlb.nlbs[id] = e
	s.lag.createdLocked(id, now)
	s.healthTrack(id, nil, nlbPartsOf(&e.nlb), now) // UNKNOWN while CREATING; again from when it is ACTIVE
	wr := s.newWorkRequest(APINetworkLoadBalancer, op, id, *d.CompartmentId)
	wr.apply = func() error {
		if full != nil {
			return full // a full subnet fails the work request, not the request
		}
		return checkNLB(&e.nlb)
	}
	wr.settle = func(err error) {
		e.version++
		e.nlb.LifecycleState = nlbapi.LifecycleStateActive
		if err != nil {
			e.nlb.LifecycleState = nlbapi.LifecycleStateFailed
			e.nlb.LifecycleDetails = common.String(err.Error())
			return
		}
		s.healthTrack(id, nil, nlbPartsOf(&e.nlb), s.now())
	}
	s.submitQueued(&e.balancerBook, wr, now)
	s.lbAccept(w, r, op, now, lbRetryResult{status: http.StatusOK, wrID: wr.id, etag: e.etag(), body: jsonClone(e.nlb), resourceID: id})
}

func (s *Server) nlbUpdate(w http.ResponseWriter, r *http.Request, d nlbapi.UpdateNetworkLoadBalancerDetails) {
	var invalid error
	if d.DisplayName != nil {
		invalid = lbCheckDisplayName(d.DisplayName)
	}
	if d.NlbIpVersion != "" && invalid == nil {
		v := string(d.NlbIpVersion)
		invalid = lbCheckOneOf("nlbIpVersion", &v, nlbIPVersions)
	}
	s.nlbChange(w, r, "UpdateNetworkLoadBalancer", invalid, func(n *nlbapi.NetworkLoadBalancer, _ lbCaps) error {
		if err := s.checkDefinedTagsLocked(d.DefinedTags); err != nil {
			return err
		}
		if deref(d.IsPreserveSourceDestination) && !deref(n.IsPrivate) {
			return lbInvalid(nlbTransparentPublic)
		}
		return s.nlbCheckVersionChange(n, d)
	}, func(n *nlbapi.NetworkLoadBalancer) error {
		if err := s.nlbApplyVersionChange(n, d); err != nil {
			return err
		}
		patch(&n.DisplayName, d.DisplayName)
		patch(&n.IsPreserveSourceDestination, d.IsPreserveSourceDestination)
		patch(&n.IsSymmetricHashEnabled, d.IsSymmetricHashEnabled)
		patchMap(&n.FreeformTags, d.FreeformTags)
		patchMap(&n.DefinedTags, d.DefinedTags)
		patchMap(&n.SecurityAttributes, d.SecurityAttributes)
		return nil
	})
}

func (s *Server) nlbUpdateNSGs(w http.ResponseWriter, r *http.Request, d nlbapi.UpdateNetworkSecurityGroupsDetails) {
	related := func(*nlbapi.NetworkLoadBalancer, lbCaps) error {
		return s.checkRelatedLocked(nil, d.NetworkSecurityGroupIds, nil)
	}
	s.nlbChange(w, r, "UpdateNetworkSecurityGroups", lbCheckNSGs(d.NetworkSecurityGroupIds), related, func(n *nlbapi.NetworkLoadBalancer) error {
		n.NetworkSecurityGroupIds = append([]string{}, d.NetworkSecurityGroupIds...)
		return nil
	})
}

func (s *Server) nlbDelete(w http.ResponseWriter, r *http.Request) {
	const op = "DeleteNetworkLoadBalancer"
	now := s.lockLB()
	defer s.mu.Unlock()
	e, ok := balancerFor(s, w, r, s.nlbFor, true)
	if !ok {
		return
	}
	prev := e.nlb.LifecycleState
	id := *e.nlb.Id
	e.nlb.LifecycleState = nlbapi.LifecycleStateDeleting
	e.version++
	wr := s.newWorkRequest(APINetworkLoadBalancer, op, id, deref(e.nlb.CompartmentId))
	wr.apply = func() error {
		s.lbForget(id)
		e.deletedAt = s.now()
		if s.nlbDeletedRetention() < 0 {
			delete(s.nlb.nlbs, id)
		}
		return nil
	}
	wr.settle = func(err error) {
		e.version++
		e.nlb.LifecycleState = nlbapi.LifecycleStateDeleted
		if err != nil {
			e.nlb.LifecycleState = prev
		}
	}
	s.acceptWork(w, r, op, now, &e.balancerBook, wr)
}

// nlbOperationTypes maps SDK operations to the NLB API's work request operation types.
var nlbOperationTypes = map[string]nlbapi.OperationTypeEnum{
	"CreateNetworkLoadBalancer":   nlbapi.OperationTypeCreateNetworkLoadBalancer,
	"UpdateNetworkLoadBalancer":   nlbapi.OperationTypeUpdateNetworkLoadBalancer,
	"DeleteNetworkLoadBalancer":   nlbapi.OperationTypeDeleteNetworkLoadBalancer,
	"UpdateNetworkSecurityGroups": nlbapi.OperationTypeUpdateNsgs,
	"CreateBackendSet":            nlbapi.OperationTypeCreateBackendset,
	"UpdateBackendSet":            nlbapi.OperationTypeUpdateBackendset,
	"DeleteBackendSet":            nlbapi.OperationTypeDeleteBackendset,
	"CreateBackend":               nlbapi.OperationTypeCreateBackend,
	"UpdateBackend":               nlbapi.OperationTypeUpdateBackend,
	"DeleteBackend":               nlbapi.OperationTypeDeleteBackend,
	"CreateListener":              nlbapi.OperationTypeCreateListener,
	"UpdateListener":              nlbapi.OperationTypeUpdateListener,
	"DeleteListener":              nlbapi.OperationTypeDeleteListener,
}

// nlbWorkRequestJSON is the wire form of a network load balancer work request at now.
func nlbWorkRequestJSON(wr *workRequest, now time.Time) nlbapi.WorkRequest {
	state := wr.state(now)
	action := nlbapi.ActionTypeInProgress
	switch {
	case wr.failure != nil:
		action = nlbapi.ActionTypeRelated
	case wr.done() && strings.HasPrefix(wr.op, "Create"):
		action = nlbapi.ActionTypeCreated
	case wr.done() && wr.op == "DeleteNetworkLoadBalancer":
		action = nlbapi.ActionTypeDeleted
	case wr.done():
		action = nlbapi.ActionTypeUpdated
	}
	out := nlbapi.WorkRequest{
		OperationType: nlbOperationTypes[wr.op],
		Status:        nlbapi.OperationStatusEnum(state),
		Id:            common.String(wr.id),
		CompartmentId: common.String(wr.compartmentID),
		Resources: []nlbapi.WorkRequestResource{{
			EntityType: common.String("NetworkLoadBalancer"),
			ActionType: action,
			Identifier: common.String(wr.resourceID),
			EntityUri:  common.String(nlbPrefix + "/networkLoadBalancers/" + wr.resourceID),
		}},
		PercentComplete: common.Float32(wr.percent(now)),
		TimeAccepted:    &common.SDKTime{Time: wr.accepted},
	}
	if state != WorkRequestAccepted {
		out.TimeStarted = &common.SDKTime{Time: wr.inProgressAt()}
	}
	if wr.done() {
		out.TimeFinished = &common.SDKTime{Time: wr.finished}
	}
	return out
}

func (s *Server) nlbGetWorkRequest(w http.ResponseWriter, r *http.Request) {
	now := s.lockLB()
	defer s.mu.Unlock()
	if wr, ok := s.workRequestFor(w, r, APINetworkLoadBalancer); ok {
		writeJSON(w, r, http.StatusOK, nlbWorkRequestJSON(wr, now))
	}
}

func (s *Server) nlbListWorkRequests(w http.ResponseWriter, r *http.Request) {
	compartment, ok := lbRequireQuery(w, r, "compartmentId")
	if !ok {
		return
	}
	now := s.lockLB()
	defer s.mu.Unlock()
	items := s.workRequestsOf(APINetworkLoadBalancer, func(wr *workRequest) bool { return wr.compartmentID == compartment })
	page := pageOf(s, w, r, items, 100)
	out := nlbapi.WorkRequestCollection{Items: make([]nlbapi.WorkRequestSummary, 0, len(page))}
	for _, wr := range page {
		out.Items = append(out.Items, nlbConvert[nlbapi.WorkRequestSummary](nlbWorkRequestJSON(wr, now)))
	}
	writeJSON(w, r, http.StatusOK, out)
}

func (s *Server) nlbListWorkRequestErrors(w http.ResponseWriter, r *http.Request) {
	if _, ok := lbRequireQuery(w, r, "compartmentId"); !ok {
		return
	}
	s.lockLB()
	defer s.mu.Unlock()
	wr, ok := s.workRequestFor(w, r, APINetworkLoadBalancer)
	if !ok {
		return
	}
	var items []nlbapi.WorkRequestError
	if f := wr.failure; f != nil {
		items = append(items, nlbapi.WorkRequestError{
			Code: common.String(f.code), Message: common.String(f.message),
			Timestamp: &common.SDKTime{Time: wr.finished},
		})
	}
	page := pageOf(s, w, r, items, 100)
	writeJSON(w, r, http.StatusOK, nlbapi.WorkRequestErrorCollection{Items: append([]nlbapi.WorkRequestError{}, page...)})
}

// NLB names a Network Load Balancer API operation for Calls.Op and Fault.Operation. Its
// operations are counted as "nlb." plus the SDK name, because several SDK names
// (CreateBackendSet, GetWorkRequest, UpdateNetworkSecurityGroups, ...) exist in the Load
// Balancer API too and must not be counted or faulted together.
func NLB(op string) string { return "nlb." + op }
