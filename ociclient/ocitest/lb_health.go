// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

// Backend health, as both APIs report it (GetBackendHealth, GetBackendSetHealth,
// GetLoadBalancerHealth / GetNetworkLoadBalancerHealth). ocitest runs no health checks: nothing
// listens at a backend's address. A backend is UNKNOWN from the moment it is added, as OCI
// reports one whose health checks have not run yet, until the test says otherwise with
// SetBackendHealth or, with Options.BackendHealthDelay, until that long after it was added,
// when it reports OK on its own. A backend set's and a load balancer's health derive from their
// backends' by the rules the SDK's doc comments give (backendSetHealthStatus,
// balancerHealthStatus). This file holds what both APIs share and the Load Balancer API's
// handlers; nlb_health.go has the Network Load Balancer API's.

// BackendHealthStatus is the health a backend reports: the values of the SDK's
// BackendHealthStatusEnum, the same in both APIs.
type BackendHealthStatus string

// The health states of a backend, a backend set and a (network) load balancer.
const (
	// BackendHealthOK is a backend whose health checks all pass.
	BackendHealthOK BackendHealthStatus = "OK"
	// BackendHealthWarning is a backend for which some health checks pass and some do not.
	BackendHealthWarning BackendHealthStatus = "WARNING"
	// BackendHealthCritical is a backend for which no health check passes.
	BackendHealthCritical BackendHealthStatus = "CRITICAL"
	// BackendHealthUnknown is a backend whose health checks have not run yet or whose health
	// could not be read: every new backend, until SetBackendHealth or Options.BackendHealthDelay
	// says otherwise.
	BackendHealthUnknown BackendHealthStatus = "UNKNOWN"
)

func (h BackendHealthStatus) valid() bool {
	switch h {
	case BackendHealthOK, BackendHealthWarning, BackendHealthCritical, BackendHealthUnknown:
		return true
	}
	return false
}

// backendHealth is what the server knows of one backend's health. Guarded by Server.mu.
type backendHealth struct {
	added time.Time           // when the work request that added it succeeded
	set   BackendHealthStatus // what SetBackendHealth said; "" for nothing
}

// healthKey names a backend of a (network) load balancer as lbPartsOf names its parts.
func healthKey(resource, part string) string { return resource + " " + part }

// healthTrack records, after a change of the (network) load balancer resource from the parts
// before to the parts after (lbPartsOf, nlbPartsOf; before nil for a create), which backends
// are new, to report UNKNOWN from now, and forgets the health of those removed, so a backend
// added again starts over. Caller holds s.mu.
func (s *Server) healthTrack(resource string, before, after map[string]bool, now time.Time) {
	for p := range after {
		if before[p] || !strings.HasPrefix(p, "backend/") {
			continue
		}
		if h := s.lb.health[healthKey(resource, p)]; h != nil {
			h.added = now // a create's backends, again when it succeeds; SetBackendHealth stays
			continue
		}
		s.lb.health[healthKey(resource, p)] = &backendHealth{added: now}
	}
	for p := range before {
		if !after[p] && strings.HasPrefix(p, "backend/") {
			delete(s.lb.health, healthKey(resource, p))
		}
	}
}

// healthForget forgets the health of every backend of a deleted (network) load balancer.
// Caller holds s.mu.
func (s *Server) healthForget(resource string) {
	for key := range s.lb.health {
		if strings.HasPrefix(key, resource+" ") {
			delete(s.lb.health, key)
		}
	}
}

// backendStatus is the health of the backend name of set at now: what SetBackendHealth set,
// else OK once Options.BackendHealthDelay has passed since it was added, else UNKNOWN. A backend
// the server did not see added (seeded with AddLoadBalancer) has been there since before the
// test: with a delay it is OK at once. Caller holds s.mu.
func (s *Server) backendStatus(resource, set, name string, now time.Time) BackendHealthStatus {
	h := s.lb.health[healthKey(resource, "backend/"+set+"/"+name)]
	if h != nil && h.set != "" {
		return h.set
	}
	delay := s.opts.BackendHealthDelay
	if delay <= 0 || h != nil && now.Before(h.added.Add(delay)) {
		return BackendHealthUnknown
	}
	return BackendHealthOK
}

// healthSubject is a (network) load balancer as the health reads of both APIs see it. Each API
// makes one of its own (lbHealthSubject, nlbHealthSubject) under s.mu.
type healthSubject struct {
	active bool     // ACTIVE: its own health is UNKNOWN otherwise
	sets   []string // its backend sets' names, sorted
	// backends names the backends of set, in order; ok is false when it has no such set.
	backends func(set string) (names []string, ok bool)
	status   func(set, backend string) BackendHealthStatus
	// attached reports whether a listener uses set; always true where the API has no such rule.
	attached    func(set string) bool
	mostUnknown bool // the Load Balancer API's rule of backendSetHealthStatus
	probes      []healthProbe
	now         time.Time
}

// backendNames lists the names of a set's backends, in either API's type.
func backendNames[B any](backends []B, name func(B) *string) []string {
	out := make([]string, 0, len(backends))
	for _, b := range backends {
		out = append(out, deref(name(b)))
	}
	return out
}

// setHealth is the health of one backend set, or 404 when there is none.
func (h healthSubject) setHealth(set string) (healthTally, BackendHealthStatus, error) {
	names, ok := h.backends(set)
	if !ok {
		return healthTally{}, "", lbNotFound("backend set", set)
	}
	t := newHealthTally()
	for _, name := range names {
		t.add(name, h.status(set, name))
	}
	return t, backendSetHealthStatus(t, h.attached(set), h.mostUnknown), nil
}

// backendSetHealth answers GetBackendSetHealth.
func (h healthSubject) backendSetHealth(set string) (any, error) {
	t, status, err := h.setHealth(set)
	if err != nil {
		return nil, err
	}
	return t.wire(status, "Backend"), nil
}

// balancerHealth answers GetLoadBalancerHealth and GetNetworkLoadBalancerHealth.
func (h healthSubject) balancerHealth() (any, error) {
	t := newHealthTally()
	for _, set := range h.sets {
		_, status, _ := h.setHealth(set)
		t.add(set, status)
	}
	return t.wire(balancerHealthStatus(t, h.active), "BackendSet"), nil
}

// backendHealth answers GetBackendHealth, or 404 when there is no such set or backend.
func (h healthSubject) backendHealth(set, backend string) (any, error) {
	names, ok := h.backends(set)
	if !ok {
		return nil, lbNotFound("backend set", set)
	}
	if !slices.Contains(names, backend) {
		return nil, lbNotFound("backend", backend)
	}
	return backendHealthOf(h.status(set, backend), h.probes, h.now), nil
}

// healthAs gives a health read's answer as the API's own SDK type T, which has its wire form.
func healthAs[T any](wire any, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return nlbConvert[T](wire), nil
}

// healthTally is the health of the members of a backend set (its backends) or of a (network)
// load balancer (its backend sets): the names of those not OK, by state, and how many there are.
type healthTally struct {
	warning, critical, unknown []string
	total                      int
}

func newHealthTally() healthTally {
	return healthTally{warning: []string{}, critical: []string{}, unknown: []string{}}
}

// add counts a member.
func (t *healthTally) add(name string, h BackendHealthStatus) {
	t.total++
	switch h {
	case BackendHealthWarning:
		t.warning = append(t.warning, name)
	case BackendHealthCritical:
		t.critical = append(t.critical, name)
	case BackendHealthUnknown:
		t.unknown = append(t.unknown, name)
	}
}

func (t healthTally) ok() int { return t.total - len(t.warning) - len(t.critical) - len(t.unknown) }

// backendSetHealthStatus is a backend set's health from its backends', by the rules of the
// SDK's doc comment of BackendSetHealth.Status (oci-go-sdk v65.130.0, loadbalancer and
// networkloadbalancer): OK when every backend is OK; WARNING when half or more are OK and one
// is not; CRITICAL when fewer than half are OK; UNKNOWN, for the Load Balancer API (mostUnknown),
// when more than half are UNKNOWN or no listener uses the set (attached false), for the Network
// Load Balancer API when no probe has answered yet (every backend UNKNOWN). A set without
// backends is UNKNOWN (assumed: the rules do not say; OK would tell a client that waits for
// health that an empty set serves).
func backendSetHealthStatus(t healthTally, attached, mostUnknown bool) BackendHealthStatus {
	switch {
	case t.total == 0 || !attached || len(t.unknown) == t.total:
		return BackendHealthUnknown
	case mostUnknown && 2*len(t.unknown) > t.total:
		return BackendHealthUnknown
	case t.ok() == t.total:
		return BackendHealthOK
	case 2*t.ok() >= t.total:
		return BackendHealthWarning
	default:
		return BackendHealthCritical
	}
}

// balancerHealthStatus is a (network) load balancer's health from its backend sets', by the
// rules of the SDK's doc comments of LoadBalancerHealth.Status and
// NetworkLoadBalancerHealth.Status: UNKNOWN when it is not ACTIVE or has no backend sets;
// CRITICAL when a set is; WARNING when a set is and none is CRITICAL; OK when every set is;
// UNKNOWN when more than half are UNKNOWN and none is WARNING or CRITICAL. The case the rules
// leave out, some sets OK and at most half UNKNOWN, is WARNING (assumed, the harder of OK and
// WARNING).
func balancerHealthStatus(t healthTally, active bool) BackendHealthStatus {
	switch {
	case !active || t.total == 0:
		return BackendHealthUnknown
	case len(t.critical) > 0:
		return BackendHealthCritical
	case len(t.warning) > 0:
		return BackendHealthWarning
	case len(t.unknown) == 0:
		return BackendHealthOK
	case 2*len(t.unknown) > t.total:
		return BackendHealthUnknown
	default:
		return BackendHealthWarning
	}
}

// healthCheckResultWire is the wire form of both APIs' HealthCheckResult; the Network Load
// Balancer API's has no subnet or source address.
type healthCheckResultWire struct {
	SubnetID          string         `json:"subnetId,omitempty"`
	SourceIPAddress   string         `json:"sourceIpAddress,omitempty"`
	Timestamp         common.SDKTime `json:"timestamp"`
	HealthCheckStatus string         `json:"healthCheckStatus"`
}

// backendHealthWire is the wire form of both APIs' BackendHealth.
type backendHealthWire struct {
	Status             BackendHealthStatus     `json:"status"`
	HealthCheckResults []healthCheckResultWire `json:"healthCheckResults"`
}

// healthProbe is where a health check comes from: one of a load balancer's nodes, or "" for
// the Network Load Balancer API, whose results do not say.
type healthProbe struct{ subnet, source string }

// backendHealthOf is a backend's BackendHealth at now, with one result per probe: for a backend
// OK each passes, CRITICAL none, WARNING the first only; an UNKNOWN one has no results. A probe
// that fails reports CONNECT_FAILED (a value of both APIs' HealthCheckResultHealthCheckStatusEnum),
// as a check of an address nothing listens on would.
func backendHealthOf(h BackendHealthStatus, probes []healthProbe, now time.Time) backendHealthWire {
	out := backendHealthWire{Status: h, HealthCheckResults: []healthCheckResultWire{}}
	if h == BackendHealthUnknown {
		return out
	}
	for i, p := range probes {
		status := "CONNECT_FAILED"
		if h == BackendHealthOK || h == BackendHealthWarning && i == 0 {
			status = "OK"
		}
		out.HealthCheckResults = append(out.HealthCheckResults, healthCheckResultWire{
			SubnetID: p.subnet, SourceIPAddress: p.source, Timestamp: common.SDKTime{Time: now}, HealthCheckStatus: status,
		})
	}
	return out
}

// SetBackendHealth sets the health a backend reports from now on, as its health checks would
// once they run: id is a load balancer's or network load balancer's OCID, set its backend set,
// backend the backend's name ("10.0.10.2:30080"). It stays so until the next call, or until the
// backend is removed (a backend added again starts UNKNOWN). It reports an error when there is
// no such backend or status is not one of the BackendHealth constants.
func (s *Server) SetBackendHealth(id, set, backend string, status BackendHealthStatus) error {
	if !status.valid() {
		return fmt.Errorf("ocitest: backend health %q is not OK, WARNING, CRITICAL or UNKNOWN", status)
	}
	now := s.lockLB()
	defer s.mu.Unlock()
	var found bool
	if e, ok := s.lb.lbs[id]; ok {
		bs, err := partOf(e.lb.BackendSets, partBackendSet, set)
		found = err == nil && lbBackendIndex(bs, backend) >= 0
	} else if e, ok := s.nlb.nlbs[id]; ok && e.deletedAt.IsZero() {
		_, _, err := nlbBackendOf(&e.nlb, set, backend)
		found = err == nil
	} else {
		return fmt.Errorf("ocitest: no load balancer or network load balancer %s", id)
	}
	if !found {
		return fmt.Errorf("ocitest: %s has no backend %s in backend set %q", id, backend, set)
	}
	key := healthKey(id, "backend/"+set+"/"+backend)
	h := s.lb.health[key]
	if h == nil {
		h = &backendHealth{added: now}
		s.lb.health[key] = h
	}
	h.set = status
	return nil
}

// The Load Balancer API's health reads.

func (s *Server) registerLBHealth() {
	lb := lbPrefix + "/loadBalancers/{loadBalancerId}"
	bs := lb + "/backendSets/{backendSetName}"
	s.handle("GetLoadBalancerHealth", ClassRead, "GET "+lb+"/health", func(w http.ResponseWriter, r *http.Request) {
		s.lbRead(w, r, func(lb *loadbalancer.LoadBalancer) (any, error) {
			return healthAs[loadbalancer.LoadBalancerHealth](s.lbHealthSubject(lb).balancerHealth())
		})
	})
	s.handle("GetBackendSetHealth", ClassRead, "GET "+bs+"/health", func(w http.ResponseWriter, r *http.Request) {
		s.lbRead(w, r, func(lb *loadbalancer.LoadBalancer) (any, error) {
			return healthAs[loadbalancer.BackendSetHealth](s.lbHealthSubject(lb).backendSetHealth(r.PathValue("backendSetName")))
		})
	})
	s.handle("GetBackendHealth", ClassRead, "GET "+bs+"/backends/{backendName}/health", func(w http.ResponseWriter, r *http.Request) {
		s.lbRead(w, r, func(lb *loadbalancer.LoadBalancer) (any, error) {
			return healthAs[loadbalancer.BackendHealth](s.lbHealthSubject(lb).backendHealth(r.PathValue("backendSetName"), r.PathValue("backendName")))
		})
	})
}

// lbHealthSubject is a load balancer as the health reads see it now. Caller holds s.mu.
func (s *Server) lbHealthSubject(lb *loadbalancer.LoadBalancer) healthSubject {
	now, id := s.now(), deref(lb.Id)
	return healthSubject{
		active: lb.LifecycleState == loadbalancer.LoadBalancerLifecycleStateActive,
		sets:   lbSortedKeys(lb.BackendSets),
		backends: func(set string) ([]string, bool) {
			bs, ok := lb.BackendSets[set]
			return backendNames(bs.Backends, func(b loadbalancer.Backend) *string { return b.Name }), ok
		},
		status:      func(set, name string) BackendHealthStatus { return s.backendStatus(id, set, name, now) },
		attached:    func(set string) bool { return lbSetAttached(lb, set) },
		mostUnknown: true,
		probes:      s.lbHealthProbes(lb),
		now:         now,
	}
}

// lbSetAttached reports whether a listener of lb sends traffic to the backend set: as its
// default, through its path route set or through a rule of its routing policy. OCI reports a set
// no listener uses as UNKNOWN (the SDK's doc comment of BackendSetHealth.Status: "the backend set
// does not have a listener attached").
func lbSetAttached(lb *loadbalancer.LoadBalancer, set string) bool {
	for _, l := range lb.Listeners {
		if deref(l.DefaultBackendSetName) == set {
			return true
		}
		if l.PathRouteSetName != nil {
			for _, route := range lb.PathRouteSets[*l.PathRouteSetName].PathRoutes {
				if deref(route.BackendSetName) == set {
					return true
				}
			}
		}
		if l.RoutingPolicyName != nil {
			for _, rule := range lb.RoutingPolicies[*l.RoutingPolicyName].Rules {
				for _, a := range rule.Actions {
					if fwd, ok := a.(loadbalancer.ForwardToBackendSet); ok && deref(fwd.BackendSetName) == set {
						return true
					}
				}
			}
		}
	}
	return false
}

// lbHealthProbes are the primary and standby nodes of a load balancer, which health-check its
// backends: the private addresses it holds in its subnets beyond the one it shows
// (lb_address.go), the highest of each subnet. A load balancer without two such addresses (one
// seeded in a subnet the VCN API does not know) reports no results. Caller holds s.mu.
func (s *Server) lbHealthProbes(lb *loadbalancer.LoadBalancer) []healthProbe {
	var probes []healthProbe
	for _, subnet := range lb.SubnetIds {
		var held []netip.Addr
		for addr, holder := range s.lb.ips.held[subnet] {
			if a, err := netip.ParseAddr(addr); err == nil && holder == deref(lb.Id) {
				held = append(held, a)
			}
		}
		slices.SortFunc(held, func(a, b netip.Addr) int { return b.Compare(a) })
		for _, a := range held[min(1, len(held)):] {
			probes = append(probes, healthProbe{subnet: subnet, source: a.String()})
		}
	}
	if len(probes) < 2 {
		return nil
	}
	return probes[:2]
}

// wire is the tally as the wire form of a health in state h: of a backend set (BackendSetHealth
// in both APIs) when its members are "Backend"s, of a (network) load balancer
// (LoadBalancerHealth, NetworkLoadBalancerHealth) when they are "BackendSet"s. The SDK's field
// names differ only by that word.
func (t healthTally) wire(h BackendHealthStatus, member string) map[string]any {
	return map[string]any{
		"status":                           h,
		"warningState" + member + "Names":  t.warning,
		"criticalState" + member + "Names": t.critical,
		"unknownState" + member + "Names":  t.unknown,
		"total" + member + "Count":         t.total,
	}
}

// adminSetBackendHealth is the admin API's SetBackendHealth (see registerAdmin).
func (s *Server) adminSetBackendHealth(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ID         string              `json:"id"`
		BackendSet string              `json:"backendSet"`
		Backend    string              `json:"backend"`
		Status     BackendHealthStatus `json:"status"`
	}
	if !readJSON(w, r, &body) {
		return
	}
	if !body.Status.valid() {
		writeError(w, r, http.StatusBadRequest, "InvalidParameter", "status must be OK, WARNING, CRITICAL or UNKNOWN")
		return
	}
	if err := s.SetBackendHealth(body.ID, body.BackendSet, body.Backend, body.Status); err != nil {
		writeError(w, r, http.StatusNotFound, "NotFound", err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
