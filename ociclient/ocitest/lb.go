// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"cmp"
	"errors"
	"net/http"
	"slices"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

// This file serves the load-balancer-level operations of the Load Balancer API (20170115) and
// its work requests; lb_children.go serves backend sets, backends, listeners and certificates.
//
// Every mutation is a work request: OCI accepts it (or refuses it at once with 400, 404, 409 or
// 412), and the change takes effect only when the work request succeeds. One work request at a
// time runs on a load balancer; another change meanwhile is queued behind it (Options.LBBusy,
// LBBusyQueue) or refused with 409 IncorrectState (LBBusyReject).

const lbPrefix = "/20170115"

func (s *Server) registerLB() {
	p := lbPrefix
	s.handle("ListLoadBalancers", ClassRead, "GET "+p+"/loadBalancers", s.lbList)
	s.handle("GetLoadBalancer", ClassRead, "GET "+p+"/loadBalancers/{loadBalancerId}", s.lbGet)
	s.handle("CreateLoadBalancer", ClassWrite, "POST "+p+"/loadBalancers", withBody(s.lbCreate))
	s.handle("UpdateLoadBalancer", ClassWrite, "PUT "+p+"/loadBalancers/{loadBalancerId}", withBody(s.lbUpdate))
	s.handle("UpdateLoadBalancerShape", ClassWrite, "PUT "+p+"/loadBalancers/{loadBalancerId}/updateShape", withBody(s.lbUpdateShape))
	s.handle("UpdateNetworkSecurityGroups", ClassWrite, "PUT "+p+"/loadBalancers/{loadBalancerId}/networkSecurityGroups", withBody(s.lbUpdateNSGs))
	s.handle("DeleteLoadBalancer", ClassWrite, "DELETE "+p+"/loadBalancers/{loadBalancerId}", s.lbDelete)
	s.handle("ListShapes", ClassRead, "GET "+p+"/loadBalancerShapes", s.lbListShapes)
	s.handle("ListPolicies", ClassRead, "GET "+p+"/loadBalancerPolicies", s.lbListPolicies)
	s.handle("GetWorkRequest", ClassPoll, "GET "+p+"/loadBalancerWorkRequests/{workRequestId}", s.lbGetWorkRequest)
	s.handle("ListWorkRequests", ClassPoll, "GET "+p+"/loadBalancers/{loadBalancerId}/workRequests", s.lbListWorkRequests)
	s.registerLBChildren()
	s.registerLBHealth()
	s.registerLBRuleSets()
}

func (s *Server) lbList(w http.ResponseWriter, r *http.Request) {
	if _, ok := lbRequireQuery(w, r, "compartmentId"); !ok {
		return
	}
	q := r.URL.Query()
	now := s.lockLB()
	defer s.mu.Unlock()
	var items []loadbalancer.LoadBalancer
	for _, e := range inCreationOrder(s.lb.lbs) {
		if lb := e.lb; s.lbListed(q, now, lb.CompartmentId, lb.Id, lb.DisplayName, string(lb.LifecycleState)) {
			items = append(items, lb)
		}
	}
	if err := lbSortList(items, q.Get("sortBy"), q.Get("sortOrder"), "TIMECREATED", "DISPLAYNAME",
		func(lb loadbalancer.LoadBalancer) string { return deref(lb.DisplayName) }); err != nil {
		writeLBError(w, r, err)
		return
	}
	page := pageOf(s, w, r, items, 100)
	writeJSON(w, r, http.StatusOK, append([]loadbalancer.LoadBalancer{}, page...)) // encoded under s.mu
}

// lbSortList applies sortBy/sortOrder to items already in creation order. Without sortBy the
// creation order stays, so paging is stable while load balancers are being created.
func lbSortList[T any](items []T, sortBy, order, byTime, byName string, name func(T) string) error {
	switch sortBy {
	case "", byTime:
	case byName:
		slices.SortStableFunc(items, func(a, b T) int { return cmp.Compare(name(a), name(b)) })
	default:
		return lbInvalid("sortBy '%s' is not one of [%s %s]", sortBy, byTime, byName)
	}
	switch order {
	case "", "ASC":
		if sortBy == byTime && order == "" {
			slices.Reverse(items) // OCI's default order for the creation time is newest first
		}
	case "DESC":
		slices.Reverse(items)
	default:
		return lbInvalid("sortOrder '%s' is not one of [ASC DESC]", order)
	}
	return nil
}

func (s *Server) lbGet(w http.ResponseWriter, r *http.Request) {
	s.lbRead(w, r, func(lb *loadbalancer.LoadBalancer) (any, error) { return *lb, nil })
}

// lbCheckCreate validates a whole CreateLoadBalancer request.
func lbCheckCreate(d loadbalancer.CreateLoadBalancerDetails, caps lbCaps) error {
	if err := lbCheckCreateOwner(d.CompartmentId, d.DisplayName); err != nil {
		return err
	}
	if err := lbCheckShape(d.ShapeName, d.ShapeDetails); err != nil {
		return err
	}
	if len(d.SubnetIds) < 1 || len(d.SubnetIds) > 2 {
		return lbInvalid("a load balancer needs one or two subnetIds, got %d", len(d.SubnetIds))
	}
	if slices.Contains(d.SubnetIds, "") || len(d.SubnetIds) == 2 && d.SubnetIds[0] == d.SubnetIds[1] {
		return lbInvalid("subnetIds must be distinct subnet OCIDs")
	}
	if err := lbCheckNSGs(d.NetworkSecurityGroupIds); err != nil {
		return err
	}
	if len(d.ReservedIps) > 1 {
		return lbInvalid("a load balancer takes at most one reserved IP")
	}
	if len(d.ReservedIps) == 1 && (deref(d.ReservedIps[0].Id) == "" || deref(d.IsPrivate)) {
		return lbInvalid("a reserved IP needs an id and a public load balancer")
	}
	if len(d.Hostnames)+len(d.PathRouteSets)+len(d.SslCipherSuites) > 0 {
		return lbInvalid("hostnames, path route sets and SSL cipher suites are not emulated by ocitest")
	}
	if err := lbCheckCreateRuleSets(d.RuleSets); err != nil {
		return err
	}
	if d.IpMode == loadbalancer.CreateLoadBalancerDetailsIpModeIpv6 {
		return lbInvalid("ipMode IPV6 is not emulated by ocitest")
	}
	backends := lbBackendCount(d.BackendSets, "", func(bs loadbalancer.BackendSetDetails) int { return len(bs.Backends) })
	if err := caps.checkCreate(len(d.Listeners), len(d.BackendSets), backends); err != nil {
		return err
	}
	for _, name := range lbSortedKeys(d.Listeners) {
		if err := lbCheckListener(&name, d.Listeners[name]); err != nil {
			return err
		}
	}
	for _, name := range lbSortedKeys(d.BackendSets) {
		if err := lbCheckBackendSet(&name, d.BackendSets[name], caps); err != nil {
			return err
		}
	}
	for _, name := range lbSortedKeys(d.Certificates) {
		c := d.Certificates[name]
		if err := lbCheckCertificate(c); err != nil {
			return err
		}
		if *c.CertificateName != name {
			return lbInvalid("certificate key '%s' differs from its certificateName '%s'", name, *c.CertificateName)
		}
	}
	return nil
}

func (s *Server) lbCreate(w http.ResponseWriter, r *http.Request, d loadbalancer.CreateLoadBalancerDetails) {
	const op = "CreateLoadBalancer"
	now := s.lockLB()
	defer s.mu.Unlock()
	if s.lbReplay(w, r, op, now) {
		return
	}
	reserved := reservedIDs(d.ReservedIps, func(ip loadbalancer.ReservedIp) *string { return ip.Id })
	err := s.createChecks(lbCheckCreate(d, s.lb.limits.classic()), d.SubnetIds, d.NetworkSecurityGroupIds, reserved,
		d.DefinedTags, func() error { return s.lbCheckTenancy(deref(d.IsPrivate), d.SubnetIds, *d.ShapeName) })
	if err != nil {
		writeLBError(w, r, err)
		return
	}
	id := s.NewID("loadbalancer")
	private := deref(d.IsPrivate)
	var addr loadbalancer.IpAddress
	var taken error // the reserved IP is another resource's: the work request fails
	if len(d.ReservedIps) == 1 {
		rid := *d.ReservedIps[0].Id
		ip, err := s.lbClaimReserved(rid, id)
		var wf *wrFailure
		switch {
		case errors.As(err, &wf):
			taken = err
		case err != nil:
			writeLBError(w, r, err)
			return
		default:
			addr = loadbalancer.IpAddress{IpAddress: common.String(ip), IsPublic: common.Bool(true),
				ReservedIp: &loadbalancer.ReservedIp{Id: common.String(rid)}}
		}
	}
	// A full subnet fails the work request, not the request; the load balancer gets no address.
	held, full := []string{""}, taken
	if taken == nil {
		held, full = s.lbHoldSubnetAddresses(id, d.SubnetIds)
	}
	switch {
	case addr.IpAddress != nil || full != nil:
	case private && held[0] != "":
		addr = loadbalancer.IpAddress{IpAddress: common.String(held[0]), IsPublic: common.Bool(false)}
	default:
		addr = s.lbAddress(private, d.SubnetIds[0])
	}
	addrs := []loadbalancer.IpAddress{addr}
	if addr.IpAddress == nil {
		addrs = []loadbalancer.IpAddress{}
	}
	lb := loadbalancer.LoadBalancer{
		Id:                        common.String(id),
		CompartmentId:             common.String(*d.CompartmentId),
		DisplayName:               common.String(*d.DisplayName),
		LifecycleState:            loadbalancer.LoadBalancerLifecycleStateCreating,
		TimeCreated:               &common.SDKTime{Time: now},
		ShapeName:                 common.String(*d.ShapeName),
		ShapeDetails:              d.ShapeDetails,
		IsPrivate:                 common.Bool(private),
		IsDeleteProtectionEnabled: common.Bool(deref(d.IsDeleteProtectionEnabled)),
		IsRequestIdEnabled:        d.IsRequestIdEnabled,
		RequestIdHeader:           d.RequestIdHeader,
		IpAddresses:               addrs,
		SubnetIds:                 slices.Clone(d.SubnetIds),
		NetworkSecurityGroupIds:   slices.Clone(d.NetworkSecurityGroupIds),
		Listeners:                 map[string]loadbalancer.Listener{},
		BackendSets:               map[string]loadbalancer.BackendSet{},
		Certificates:              map[string]loadbalancer.Certificate{},
		FreeformTags:              d.FreeformTags,
		DefinedTags:               d.DefinedTags,
		SecurityAttributes:        d.SecurityAttributes,
		IpMode:                    loadbalancer.LoadBalancerIpModeIpv4,
	}
	for name, l := range d.Listeners {
		lb.Listeners[name] = lbListenerFrom(name, l)
	}
	for name, b := range d.BackendSets {
		lb.BackendSets[name] = lbBackendSetFrom(name, b)
	}
	for name, c := range d.Certificates {
		lb.Certificates[name] = lbCertificateFrom(c)
	}
	if len(d.RuleSets) > 0 {
		lb.RuleSets = make(map[string]loadbalancer.RuleSet, len(d.RuleSets))
		for name, rs := range d.RuleSets {
			lb.RuleSets[name] = lbRuleSetFrom(name, rs.Items)
		}
	}
	lbNormalize(&lb)
	s.lb.seq++
	e := &lbEntry{lb: jsonClone(lb), balancerBook: balancerBook{seq: s.lb.seq}}
	s.lb.lbs[id] = e
	s.lag.createdLocked(id, now)
	s.healthTrack(id, nil, lbPartsOf(&e.lb), now) // UNKNOWN while CREATING; again from when it is ACTIVE

	// OCI shows the new load balancer with its configuration at once, CREATING, and checks the
	// configuration as the work request runs: an inconsistent one leaves the load balancer FAILED.
	wr := s.newWorkRequest(APILoadBalancer, op, id, *d.CompartmentId)
	wr.apply = func() error {
		if full != nil {
			return full
		}
		return checkLB(&e.lb)
	}
	wr.settle = func(err error) {
		e.version++
		e.lb.LifecycleState = loadbalancer.LoadBalancerLifecycleStateActive
		if err != nil {
			e.lb.LifecycleState = loadbalancer.LoadBalancerLifecycleStateFailed
			return
		}
		s.healthTrack(id, nil, lbPartsOf(&e.lb), s.now())
	}
	s.acceptWork(w, r, op, now, &e.balancerBook, wr)
}

func (s *Server) lbUpdate(w http.ResponseWriter, r *http.Request, d loadbalancer.UpdateLoadBalancerDetails) {
	var err error
	if d.DisplayName != nil {
		err = lbCheckDisplayName(d.DisplayName)
	}
	if len(d.ReservedIps) > 0 || d.IpMode != "" || d.Ipv6SubnetCidr != nil {
		err = lbInvalid("changing reserved IPs or the IP mode is not emulated by ocitest")
	}
	tags := func(*lbEntry) error { return s.checkDefinedTagsLocked(d.DefinedTags) }
	s.lbChangeChecked(w, r, "UpdateLoadBalancer", err, tags, func(lb *loadbalancer.LoadBalancer) error {
		patch(&lb.DisplayName, d.DisplayName)
		patch(&lb.IsDeleteProtectionEnabled, d.IsDeleteProtectionEnabled)
		patch(&lb.IsRequestIdEnabled, d.IsRequestIdEnabled)
		patch(&lb.RequestIdHeader, d.RequestIdHeader)
		patchMap(&lb.FreeformTags, d.FreeformTags)
		patchMap(&lb.DefinedTags, d.DefinedTags)
		patchMap(&lb.SecurityAttributes, d.SecurityAttributes)
		return nil
	})
}

func (s *Server) lbUpdateShape(w http.ResponseWriter, r *http.Request, d loadbalancer.UpdateLoadBalancerShapeDetails) {
	err := lbCheckShape(d.ShapeName, d.ShapeDetails)
	s.lbChangeChecked(w, r, "UpdateLoadBalancerShape", err, func(e *lbEntry) error {
		if deref(e.lb.ShapeName) == "flexible" && *d.ShapeName != "flexible" {
			return lbInvalid("a flexible load balancer cannot go back to the fixed shape '%s'", *d.ShapeName)
		}
		if deref(e.lb.ShapeName) != *d.ShapeName {
			return s.lbCheckShapeLimit(*d.ShapeName)
		}
		return nil
	}, func(lb *loadbalancer.LoadBalancer) error {
		lb.ShapeName = common.String(*d.ShapeName)
		lb.ShapeDetails = d.ShapeDetails
		return nil
	})
}

func (s *Server) lbUpdateNSGs(w http.ResponseWriter, r *http.Request, d loadbalancer.UpdateNetworkSecurityGroupsDetails) {
	related := func(*lbEntry) error { return s.checkRelatedLocked(nil, d.NetworkSecurityGroupIds, nil) }
	s.lbChangeChecked(w, r, "UpdateNetworkSecurityGroups", lbCheckNSGs(d.NetworkSecurityGroupIds), related, func(lb *loadbalancer.LoadBalancer) error {
		lb.NetworkSecurityGroupIds = append([]string{}, d.NetworkSecurityGroupIds...)
		return nil
	})
}

// lbChangeChecked runs the common path of a mutation whose request was checked to give invalid
// (nil when fine): changeTarget's checks against the load balancer as it is (check, nil for
// none), then start (or queue) the work request.
func (s *Server) lbChangeChecked(w http.ResponseWriter, r *http.Request, op string, invalid error,
	check func(e *lbEntry) error, mutate func(lb *loadbalancer.LoadBalancer) error) {
	now := s.lockLB()
	defer s.mu.Unlock()
	if e, ok := changeTarget(s, w, r, op, now, s.lbFor, invalid, check); ok {
		s.startLBChange(w, r, now, e, op, mutate)
	}
}

func (s *Server) lbDelete(w http.ResponseWriter, r *http.Request) {
	const op = "DeleteLoadBalancer"
	now := s.lockLB()
	defer s.mu.Unlock()
	e, ok := balancerFor(s, w, r, s.lbFor, true)
	if !ok {
		return
	}
	prev := e.lb.LifecycleState
	id := *e.lb.Id
	e.lb.LifecycleState = loadbalancer.LoadBalancerLifecycleStateDeleting
	e.version++
	wr := s.newWorkRequest(APILoadBalancer, op, id, deref(e.lb.CompartmentId))
	wr.apply = func() error {
		delete(s.lb.lbs, id)
		s.lbForget(id)
		return nil
	}
	wr.settle = func(err error) {
		if err != nil {
			e.lb.LifecycleState = prev
			e.version++
		}
	}
	s.acceptWork(w, r, op, now, &e.balancerBook, wr)
}

func (s *Server) lbListShapes(w http.ResponseWriter, r *http.Request) {
	lbListNamed(s, w, r, lbShapes, func(name *string) loadbalancer.LoadBalancerShape {
		return loadbalancer.LoadBalancerShape{Name: name}
	})
}

func (s *Server) lbListPolicies(w http.ResponseWriter, r *http.Request) {
	lbListNamed(s, w, r, lbPolicies, func(name *string) loadbalancer.LoadBalancerPolicy {
		return loadbalancer.LoadBalancerPolicy{Name: name}
	})
}

// lbListNamed answers a List of the Load Balancer API's fixed catalogues (shapes, policies),
// which needs compartmentId: one page of an item per name, made by item.
func lbListNamed[T any](s *Server, w http.ResponseWriter, r *http.Request, names []string, item func(name *string) T) {
	if _, ok := lbRequireQuery(w, r, "compartmentId"); !ok {
		return
	}
	items := make([]T, 0, len(names))
	for _, name := range names {
		items = append(items, item(common.String(name)))
	}
	writeJSON(w, r, http.StatusOK, pageOf(s, w, r, items, 100))
}

func (s *Server) lbGetWorkRequest(w http.ResponseWriter, r *http.Request) {
	now := s.lockLB()
	defer s.mu.Unlock()
	if wr, ok := s.workRequestFor(w, r, APILoadBalancer); ok {
		writeJSON(w, r, http.StatusOK, lbWorkRequestJSON(wr, now))
	}
}

func (s *Server) lbListWorkRequests(w http.ResponseWriter, r *http.Request) {
	now := s.lockLB()
	defer s.mu.Unlock()
	id := r.PathValue("loadBalancerId")
	items := s.workRequestsOf(APILoadBalancer, func(wr *workRequest) bool { return wr.resourceID == id })
	if _, ok := s.lb.lbs[id]; !ok && len(items) == 0 {
		notFound(w, r, "load balancer", id)
		return
	}
	page := pageOf(s, w, r, items, 100)
	out := make([]loadbalancer.WorkRequest, 0, len(page))
	for _, wr := range page {
		out = append(out, lbWorkRequestJSON(wr, now))
	}
	writeJSON(w, r, http.StatusOK, out)
}
