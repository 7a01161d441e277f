// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"fmt"
	"net/http"
	"slices"

	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// This file serves the parts of a network load balancer: backend sets, backends and listeners,
// with the same two-step checking as lb_children.go. Updates here are partial: a field left out
// keeps its value.

func (s *Server) registerNLBChildren() {
	n := nlbPrefix + "/networkLoadBalancers/{networkLoadBalancerId}"
	bs := n + "/backendSets/{backendSetName}"
	s.handle(NLB("ListBackendSets"), ClassRead, "GET "+n+"/backendSets", s.nlbListBackendSets)
	s.handle(NLB("GetBackendSet"), ClassRead, "GET "+bs, s.nlbGetBackendSet)
	s.handle(NLB("CreateBackendSet"), ClassWrite, "POST "+n+"/backendSets", withBody(s.nlbCreateBackendSet))
	s.handle(NLB("UpdateBackendSet"), ClassWrite, "PUT "+bs, withBody(s.nlbUpdateBackendSet))
	s.handle(NLB("DeleteBackendSet"), ClassWrite, "DELETE "+bs, s.nlbDeleteBackendSet)
	s.handle(NLB("ListBackends"), ClassRead, "GET "+bs+"/backends", s.nlbListBackends)
	s.handle(NLB("GetBackend"), ClassRead, "GET "+bs+"/backends/{backendName}", s.nlbGetBackend)
	s.handle(NLB("CreateBackend"), ClassWrite, "POST "+bs+"/backends", withBody(s.nlbCreateBackend))
	s.handle(NLB("UpdateBackend"), ClassWrite, "PUT "+bs+"/backends/{backendName}", withBody(s.nlbUpdateBackend))
	s.handle(NLB("DeleteBackend"), ClassWrite, "DELETE "+bs+"/backends/{backendName}", s.nlbDeleteBackend)
	s.handle(NLB("ListListeners"), ClassRead, "GET "+n+"/listeners", s.nlbListListeners)
	s.handle(NLB("GetListener"), ClassRead, "GET "+n+"/listeners/{listenerName}", s.nlbGetListener)
	s.handle(NLB("CreateListener"), ClassWrite, "POST "+n+"/listeners", withBody(s.nlbCreateListener))
	s.handle(NLB("UpdateListener"), ClassWrite, "PUT "+n+"/listeners/{listenerName}", withBody(s.nlbUpdateListener))
	s.handle(NLB("DeleteListener"), ClassWrite, "DELETE "+n+"/listeners/{listenerName}", s.nlbDeleteListener)
}

// nlbRead answers a read of a network load balancer or part of one (readPart).
func (s *Server) nlbRead(w http.ResponseWriter, r *http.Request, pick func(n *nlbapi.NetworkLoadBalancer) (any, error)) {
	readPart(s, w, r, s.nlbFor, func(e *nlbEntry) (any, error) { return pick(&e.nlb) })
}

// nlbSetSize is the number of backends in a network load balancer's backend set.
func nlbSetSize(bs nlbapi.BackendSet) int { return len(bs.Backends) }

func nlbBackendIndex(bs nlbapi.BackendSet, name string) int {
	return slices.IndexFunc(bs.Backends, func(b nlbapi.Backend) bool { return deref(b.Name) == name })
}

// nlbBackendOf finds a backend and its index in its set.
func nlbBackendOf(n *nlbapi.NetworkLoadBalancer, set, name string) (nlbapi.BackendSet, int, error) {
	bs, err := partOf(n.BackendSets, partBackendSet, set)
	if err != nil {
		return bs, -1, err
	}
	i := nlbBackendIndex(bs, name)
	if i < 0 {
		return bs, -1, lbNotFound("backend", name)
	}
	return bs, i, nil
}

// Backend sets.

func (s *Server) nlbListBackendSets(w http.ResponseWriter, r *http.Request) {
	s.nlbRead(w, r, func(n *nlbapi.NetworkLoadBalancer) (any, error) {
		return nlbapi.BackendSetCollection{Items: nlbConvert[[]nlbapi.BackendSetSummary](lbSortedValues(n.BackendSets))}, nil
	})
}

func (s *Server) nlbGetBackendSet(w http.ResponseWriter, r *http.Request) {
	s.nlbRead(w, r, func(n *nlbapi.NetworkLoadBalancer) (any, error) {
		return partOf(n.BackendSets, partBackendSet, r.PathValue("backendSetName"))
	})
}

func (s *Server) nlbCreateBackendSet(w http.ResponseWriter, r *http.Request, c nlbapi.CreateBackendSetDetails) {
	d := nlbConvert[nlbapi.BackendSetDetails](c)
	var invalid error
	if c.Policy == "" {
		invalid = lbInvalid("policy is required")
	}
	s.nlbChange(w, r, "CreateBackendSet", invalid, func(n *nlbapi.NetworkLoadBalancer, caps lbCaps) error {
		if err := nlbCheckBackendSet(c.Name, d, caps); err != nil {
			return err
		}
		if err := nlbCheckFamily(fmt.Sprintf("Backend set '%s'", *c.Name), d.IpVersion, n.NlbIpVersion); err != nil {
			return err
		}
		if err := partNew(n.BackendSets, partBackendSet, *c.Name); err != nil {
			return err
		}
		resolved, err := s.nlbResolveSet(*c.Name, d)
		if err != nil {
			return err
		}
		d = resolved
		if err := caps.checkTotal(len(d.Backends) + lbBackendCount(n.BackendSets, *c.Name, nlbSetSize)); err != nil {
			return err
		}
		return caps.checkBackendSets(len(n.BackendSets) + 1)
	}, func(n *nlbapi.NetworkLoadBalancer) error {
		return addPart(n.BackendSets, partBackendSet, *c.Name, nlbBackendSetFrom(*c.Name, d))
	})
}

// nlbMergeBackendSet applies a partial update to a stored backend set, giving the details the
// result would have been created with.
func nlbMergeBackendSet(bs nlbapi.BackendSet, u nlbapi.UpdateBackendSetDetails) nlbapi.BackendSetDetails {
	d := nlbConvert[nlbapi.BackendSetDetails](bs)
	if u.Policy != nil {
		d.Policy = nlbapi.NetworkLoadBalancingPolicyEnum(*u.Policy)
	}
	patch(&d.IsPreserveSource, u.IsPreserveSource)
	patch(&d.IsFailOpen, u.IsFailOpen)
	patch(&d.IsInstantFailoverEnabled, u.IsInstantFailoverEnabled)
	patch(&d.IsInstantFailoverTcpResetEnabled, u.IsInstantFailoverTcpResetEnabled)
	patch(&d.AreOperationallyActiveBackendsPreferred, u.AreOperationallyActiveBackendsPreferred)
	if u.IpVersion != "" {
		d.IpVersion = u.IpVersion
	}
	if u.Backends != nil {
		d.Backends = nlbConvert[[]nlbapi.Backend](u.Backends)
	}
	if u.HealthChecker != nil {
		d.HealthChecker = new(nlbConvert[nlbapi.HealthChecker](u.HealthChecker))
	}
	return d
}

func (s *Server) nlbUpdateBackendSet(w http.ResponseWriter, r *http.Request, u nlbapi.UpdateBackendSetDetails) {
	name := r.PathValue("backendSetName")
	var resolved nlbapi.BackendSetDetails
	s.nlbChange(w, r, "UpdateBackendSet", nil, func(n *nlbapi.NetworkLoadBalancer, caps lbCaps) error {
		bs, err := partOf(n.BackendSets, partBackendSet, name)
		if err != nil {
			return err
		}
		merged := nlbMergeBackendSet(bs, u)
		if err := nlbCheckFamily(fmt.Sprintf("Backend set '%s'", name), merged.IpVersion, n.NlbIpVersion); err != nil {
			return err
		}
		if err := nlbCheckBackendSet(&name, merged, caps); err != nil {
			return err
		}
		if err := caps.checkTotal(len(merged.Backends) + lbBackendCount(n.BackendSets, name, nlbSetSize)); err != nil {
			return err
		}
		resolved, err = s.nlbResolveSet(name, merged)
		return err
	}, func(n *nlbapi.NetworkLoadBalancer) error {
		// The set as merged at acceptance: no change ran since.
		return setPart(n.BackendSets, partBackendSet, name, nlbBackendSetFrom(name, resolved))
	})
}

func (s *Server) nlbDeleteBackendSet(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("backendSetName")
	// A set a listener still uses cannot be deleted (OCI API reference, Network Load Balancer
	// DeleteBackendSet: "Before you can delete a backend set, you must remove it from any active
	// listeners"). The call is accepted and its work request fails in checkNLB, as the Load
	// Balancer API's does (lbDeleteBackendSet): at which stage OCI refuses is not documented.
	s.nlbChange(w, r, "DeleteBackendSet", nil, func(n *nlbapi.NetworkLoadBalancer, _ lbCaps) error {
		_, err := partOf(n.BackendSets, partBackendSet, name)
		return err
	}, func(n *nlbapi.NetworkLoadBalancer) error {
		delete(n.BackendSets, name)
		return nil
	})
}

// Backends.

func (s *Server) nlbListBackends(w http.ResponseWriter, r *http.Request) {
	s.nlbRead(w, r, func(n *nlbapi.NetworkLoadBalancer) (any, error) {
		bs, err := partOf(n.BackendSets, partBackendSet, r.PathValue("backendSetName"))
		if err != nil {
			return nil, err
		}
		return nlbapi.BackendCollection{Items: nlbConvert[[]nlbapi.BackendSummary](bs.Backends)}, nil
	})
}

func (s *Server) nlbGetBackend(w http.ResponseWriter, r *http.Request) {
	s.nlbRead(w, r, func(n *nlbapi.NetworkLoadBalancer) (any, error) {
		bs, i, err := nlbBackendOf(n, r.PathValue("backendSetName"), r.PathValue("backendName"))
		if err != nil {
			return nil, err
		}
		return bs.Backends[i], nil
	})
}

func (s *Server) nlbCreateBackend(w http.ResponseWriter, r *http.Request, c nlbapi.CreateBackendDetails) {
	set := r.PathValue("backendSetName")
	b := nlbConvert[nlbapi.Backend](c)
	s.nlbChange(w, r, "CreateBackend", nlbCheckBackend(b), func(n *nlbapi.NetworkLoadBalancer, caps lbCaps) error {
		bs, err := partOf(n.BackendSets, partBackendSet, set)
		if err != nil {
			return err
		}
		if err := nlbCheckBackendFamily(set, nlbPartVersion(bs.IpVersion), b); err != nil {
			return err
		}
		if name := nlbBackendName(b); nlbBackendIndex(bs, name) >= 0 {
			return nlbDuplicateBackend(deref(n.Id), set, name)
		}
		if err := caps.checkBackends(set, len(bs.Backends)+1, lbBackendCount(n.BackendSets, set, nlbSetSize)); err != nil {
			return err
		}
		got, err := s.nlbResolveBackends(set, bs.IpVersion, []nlbapi.Backend{b})
		if err == nil {
			b = got[0]
		}
		return err
	}, func(n *nlbapi.NetworkLoadBalancer) error {
		bs, err := partStill(n.BackendSets, partBackendSet, set)
		if err != nil {
			return err
		}
		if name := nlbBackendName(b); nlbBackendIndex(bs, name) >= 0 {
			return wrBadInput("Backend %s already exists in backend set '%s'", name, set)
		}
		bs.Backends = append(bs.Backends, nlbBackendFrom(b))
		n.BackendSets[set] = bs
		return nil
	})
}

func (s *Server) nlbUpdateBackend(w http.ResponseWriter, r *http.Request, u nlbapi.UpdateBackendDetails) {
	s.nlbChangeBackend(w, r, "UpdateBackend", lbCheckWeight(u.Weight), func(bs *nlbapi.BackendSet, i int) {
		b := &bs.Backends[i]
		patch(&b.Weight, u.Weight)
		patch(&b.IsBackup, u.IsBackup)
		patch(&b.IsDrain, u.IsDrain)
		patch(&b.IsOffline, u.IsOffline)
	})
}

func (s *Server) nlbDeleteBackend(w http.ResponseWriter, r *http.Request) {
	s.nlbChangeBackend(w, r, "DeleteBackend", nil, func(bs *nlbapi.BackendSet, i int) {
		bs.Backends = slices.Delete(bs.Backends, i, i+1)
	})
}

// nlbChangeBackend runs a change of the backend the path names: refused with 404 when there is
// none, and made by change (to its set, the backend at index i) when the work request runs.
func (s *Server) nlbChangeBackend(w http.ResponseWriter, r *http.Request, op string, invalid error,
	change func(bs *nlbapi.BackendSet, i int)) {
	set, name := r.PathValue("backendSetName"), r.PathValue("backendName")
	s.nlbChange(w, r, op, invalid, func(n *nlbapi.NetworkLoadBalancer, _ lbCaps) error {
		_, _, err := nlbBackendOf(n, set, name)
		return err
	}, func(n *nlbapi.NetworkLoadBalancer) error {
		bs, i, err := nlbBackendOf(n, set, name)
		if err != nil {
			return err
		}
		change(&bs, i)
		n.BackendSets[set] = bs
		return nil
	})
}

// Listeners.

func (s *Server) nlbListListeners(w http.ResponseWriter, r *http.Request) {
	s.nlbRead(w, r, func(n *nlbapi.NetworkLoadBalancer) (any, error) {
		return nlbapi.ListenerCollection{Items: nlbConvert[[]nlbapi.ListenerSummary](lbSortedValues(n.Listeners))}, nil
	})
}

func (s *Server) nlbGetListener(w http.ResponseWriter, r *http.Request) {
	s.nlbRead(w, r, func(n *nlbapi.NetworkLoadBalancer) (any, error) {
		return partOf(n.Listeners, partListener, r.PathValue("listenerName"))
	})
}

func (s *Server) nlbCreateListener(w http.ResponseWriter, r *http.Request, c nlbapi.CreateListenerDetails) {
	d := nlbConvert[nlbapi.ListenerDetails](c)
	s.nlbChange(w, r, "CreateListener", nlbCheckListener(c.Name, d), func(n *nlbapi.NetworkLoadBalancer, caps lbCaps) error {
		if err := nlbCheckFamily(fmt.Sprintf("Listener '%s'", *c.Name), d.IpVersion, n.NlbIpVersion); err != nil {
			return err
		}
		if err := partNew(n.Listeners, partListener, *c.Name); err != nil {
			return err
		}
		return caps.checkListeners(len(n.Listeners) + 1)
	}, func(n *nlbapi.NetworkLoadBalancer) error {
		return addPart(n.Listeners, partListener, *c.Name, nlbListenerFrom(*c.Name, d))
	})
}

// nlbMergeListener applies a partial update to a stored listener.
func nlbMergeListener(l nlbapi.Listener, u nlbapi.UpdateListenerDetails) nlbapi.ListenerDetails {
	d := nlbConvert[nlbapi.ListenerDetails](l)
	patch(&d.DefaultBackendSetName, u.DefaultBackendSetName)
	patch(&d.Port, u.Port)
	if u.Protocol != "" {
		d.Protocol = u.Protocol
	}
	if u.IpVersion != "" {
		d.IpVersion = u.IpVersion
	}
	patch(&d.IsPpv2Enabled, u.IsPpv2Enabled)
	patch(&d.TcpIdleTimeout, u.TcpIdleTimeout)
	patch(&d.UdpIdleTimeout, u.UdpIdleTimeout)
	patch(&d.L3IpIdleTimeout, u.L3IpIdleTimeout)
	return d
}

func (s *Server) nlbUpdateListener(w http.ResponseWriter, r *http.Request, u nlbapi.UpdateListenerDetails) {
	name := r.PathValue("listenerName")
	s.nlbChange(w, r, "UpdateListener", nil, func(n *nlbapi.NetworkLoadBalancer, _ lbCaps) error {
		l, err := partOf(n.Listeners, partListener, name)
		if err != nil {
			return err
		}
		merged := nlbMergeListener(l, u)
		if err := nlbCheckFamily(fmt.Sprintf("Listener '%s'", name), merged.IpVersion, n.NlbIpVersion); err != nil {
			return err
		}
		return nlbCheckListener(&name, merged)
	}, func(n *nlbapi.NetworkLoadBalancer) error {
		l, err := partStill(n.Listeners, partListener, name)
		if err != nil {
			return err
		}
		n.Listeners[name] = nlbListenerFrom(name, nlbMergeListener(l, u))
		return nil
	})
}

func (s *Server) nlbDeleteListener(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("listenerName")
	s.nlbChange(w, r, "DeleteListener", nil, func(n *nlbapi.NetworkLoadBalancer, _ lbCaps) error {
		_, err := partOf(n.Listeners, partListener, name)
		return err
	}, func(n *nlbapi.NetworkLoadBalancer) error {
		delete(n.Listeners, name)
		return nil
	})
}
