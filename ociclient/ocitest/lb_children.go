// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"net/http"
	"slices"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

// This file serves the parts of a load balancer: backend sets, backends, listeners and
// certificates. Each mutation is checked twice, as OCI does: the request at once (bad input 400,
// missing part 404, duplicate or in-use 409, limits 400), and the resulting load balancer when
// the work request completes (checkLB), where a dangling reference fails the work request.

func (s *Server) registerLBChildren() {
	lb := lbPrefix + "/loadBalancers/{loadBalancerId}"
	bs := lb + "/backendSets/{backendSetName}"
	s.handle("ListBackendSets", ClassRead, "GET "+lb+"/backendSets", s.lbListBackendSets)
	s.handle("GetBackendSet", ClassRead, "GET "+bs, s.lbGetBackendSet)
	s.handle("CreateBackendSet", ClassWrite, "POST "+lb+"/backendSets", withBody(s.lbCreateBackendSet))
	s.handle("UpdateBackendSet", ClassWrite, "PUT "+bs, withBody(s.lbUpdateBackendSet))
	s.handle("DeleteBackendSet", ClassWrite, "DELETE "+bs, s.lbDeleteBackendSet)
	s.handle("ListBackends", ClassRead, "GET "+bs+"/backends", s.lbListBackends)
	s.handle("GetBackend", ClassRead, "GET "+bs+"/backends/{backendName}", s.lbGetBackend)
	s.handle("CreateBackend", ClassWrite, "POST "+bs+"/backends", withBody(s.lbCreateBackend))
	s.handle("UpdateBackend", ClassWrite, "PUT "+bs+"/backends/{backendName}", withBody(s.lbUpdateBackend))
	s.handle("DeleteBackend", ClassWrite, "DELETE "+bs+"/backends/{backendName}", s.lbDeleteBackend)
	s.handle("CreateListener", ClassWrite, "POST "+lb+"/listeners", withBody(s.lbCreateListener))
	s.handle("UpdateListener", ClassWrite, "PUT "+lb+"/listeners/{listenerName}", withBody(s.lbUpdateListener))
	s.handle("DeleteListener", ClassWrite, "DELETE "+lb+"/listeners/{listenerName}", s.lbDeleteListener)
	s.handle("ListCertificates", ClassRead, "GET "+lb+"/certificates", s.lbListCertificates)
	s.handle("CreateCertificate", ClassWrite, "POST "+lb+"/certificates", withBody(s.lbCreateCertificate))
	s.handle("DeleteCertificate", ClassWrite, "DELETE "+lb+"/certificates/{certificateName}", s.lbDeleteCertificate)
}

// lbRead answers a read of a load balancer or part of one (readPart): pick returns the body, or
// an error such as lbNotFound.
func (s *Server) lbRead(w http.ResponseWriter, r *http.Request, pick func(lb *loadbalancer.LoadBalancer) (any, error)) {
	readPart(s, w, r, s.lbFor, func(e *lbEntry) (any, error) { return pick(&e.lb) })
}

func lbBackendIndex(bs loadbalancer.BackendSet, name string) int {
	return slices.IndexFunc(bs.Backends, func(b loadbalancer.Backend) bool { return deref(b.Name) == name })
}

// Backend sets.

func (s *Server) lbListBackendSets(w http.ResponseWriter, r *http.Request) {
	s.lbRead(w, r, func(lb *loadbalancer.LoadBalancer) (any, error) {
		return lbSortedValues(lb.BackendSets), nil
	})
}

func (s *Server) lbGetBackendSet(w http.ResponseWriter, r *http.Request) {
	s.lbRead(w, r, func(lb *loadbalancer.LoadBalancer) (any, error) {
		return partOf(lb.BackendSets, partBackendSet, r.PathValue("backendSetName"))
	})
}

func (s *Server) lbCreateBackendSet(w http.ResponseWriter, r *http.Request, c loadbalancer.CreateBackendSetDetails) {
	d := loadbalancer.BackendSetDetails{
		Policy: c.Policy, HealthChecker: c.HealthChecker, Backends: c.Backends,
		BackendMaxConnections: c.BackendMaxConnections, SslConfiguration: c.SslConfiguration,
		SessionPersistenceConfiguration:         c.SessionPersistenceConfiguration,
		LbCookieSessionPersistenceConfiguration: c.LbCookieSessionPersistenceConfiguration,
	}
	s.lbChangeLimited(w, r, "CreateBackendSet", func(e *lbEntry, caps lbCaps) error {
		if err := lbCheckBackendSet(c.Name, d, caps); err != nil {
			return err
		}
		if err := partNew(e.lb.BackendSets, partBackendSet, *c.Name); err != nil {
			return err
		}
		if err := caps.checkTotal(len(d.Backends) + lbBackendCount(e.lb.BackendSets, *c.Name, lbSetSize)); err != nil {
			return err
		}
		return caps.checkBackendSets(len(e.lb.BackendSets) + 1)
	}, func(lb *loadbalancer.LoadBalancer) error {
		return addPart(lb.BackendSets, partBackendSet, *c.Name, lbBackendSetFrom(*c.Name, d))
	})
}

func (s *Server) lbUpdateBackendSet(w http.ResponseWriter, r *http.Request, u loadbalancer.UpdateBackendSetDetails) {
	name := r.PathValue("backendSetName")
	d := loadbalancer.BackendSetDetails{
		Policy: u.Policy, HealthChecker: u.HealthChecker, Backends: u.Backends,
		BackendMaxConnections: u.BackendMaxConnections, SslConfiguration: u.SslConfiguration,
		SessionPersistenceConfiguration:         u.SessionPersistenceConfiguration,
		LbCookieSessionPersistenceConfiguration: u.LbCookieSessionPersistenceConfiguration,
	}
	s.lbChangeLimited(w, r, "UpdateBackendSet", func(e *lbEntry, caps lbCaps) error {
		if _, err := partOf(e.lb.BackendSets, partBackendSet, name); err != nil {
			return err
		}
		if err := caps.checkTotal(len(d.Backends) + lbBackendCount(e.lb.BackendSets, name, lbSetSize)); err != nil {
			return err
		}
		return lbCheckBackendSet(&name, d, caps)
	}, func(lb *loadbalancer.LoadBalancer) error {
		return setPart(lb.BackendSets, partBackendSet, name, lbBackendSetFrom(name, d))
	})
}

func (s *Server) lbDeleteBackendSet(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("backendSetName")
	// A listener still using the set is not refused here: OCI accepts the call and fails the work
	// request ("Listener 'X' has unknown default backend set 'Y'"), which is what a reconciler
	// that deletes before it moves listeners runs into.
	s.lbChangeChecked(w, r, "DeleteBackendSet", nil, func(e *lbEntry) error {
		_, err := partOf(e.lb.BackendSets, partBackendSet, name)
		return err
	}, func(lb *loadbalancer.LoadBalancer) error {
		delete(lb.BackendSets, name)
		return nil
	})
}

// Backends.

func (s *Server) lbListBackends(w http.ResponseWriter, r *http.Request) {
	s.lbRead(w, r, func(lb *loadbalancer.LoadBalancer) (any, error) {
		bs, err := partOf(lb.BackendSets, partBackendSet, r.PathValue("backendSetName"))
		if err != nil {
			return nil, err
		}
		return append([]loadbalancer.Backend{}, bs.Backends...), nil
	})
}

func (s *Server) lbGetBackend(w http.ResponseWriter, r *http.Request) {
	s.lbRead(w, r, func(lb *loadbalancer.LoadBalancer) (any, error) {
		bs, err := partOf(lb.BackendSets, partBackendSet, r.PathValue("backendSetName"))
		if err != nil {
			return nil, err
		}
		name := r.PathValue("backendName")
		i := lbBackendIndex(bs, name)
		if i < 0 {
			return nil, lbNotFound("backend", name)
		}
		return bs.Backends[i], nil
	})
}

func (s *Server) lbCreateBackend(w http.ResponseWriter, r *http.Request, c loadbalancer.CreateBackendDetails) {
	set := r.PathValue("backendSetName")
	d := loadbalancer.BackendDetails(c)
	s.lbChangeLimited(w, r, "CreateBackend", func(e *lbEntry, caps lbCaps) error {
		bs, err := partOf(e.lb.BackendSets, partBackendSet, set)
		if err != nil {
			return err
		}
		if err := lbCheckBackend(d); err != nil {
			return err
		}
		if name := lbBackendName(*d.IpAddress, *d.Port); lbBackendIndex(bs, name) >= 0 {
			return lbConflict("Backend %s already exists in backend set '%s'", name, set)
		}
		return caps.checkBackends(set, len(bs.Backends)+1, lbBackendCount(e.lb.BackendSets, set, lbSetSize))
	}, func(lb *loadbalancer.LoadBalancer) error {
		bs, err := partStill(lb.BackendSets, partBackendSet, set)
		if err != nil {
			return err
		}
		b := lbBackendFrom(d)
		if lbBackendIndex(bs, *b.Name) >= 0 {
			return wrBadInput("Backend %s already exists in backend set '%s'", *b.Name, set)
		}
		bs.Backends = append(bs.Backends, b)
		lb.BackendSets[set] = bs
		return nil
	})
}

func (s *Server) lbUpdateBackend(w http.ResponseWriter, r *http.Request, u loadbalancer.UpdateBackendDetails) {
	var invalid error
	if u.Weight == nil || u.Backup == nil || u.Drain == nil || u.Offline == nil {
		invalid = lbInvalid("weight, backup, drain and offline are required")
	} else if invalid = lbCheckWeight(u.Weight); invalid == nil {
		invalid = lbCheckMaxConnections("backend maxConnections", u.MaxConnections)
	}
	s.lbChangeBackend(w, r, "UpdateBackend", invalid, func(bs *loadbalancer.BackendSet, i int) {
		b := &bs.Backends[i]
		b.Weight, b.Backup, b.Drain, b.Offline = common.Int(*u.Weight), common.Bool(*u.Backup), common.Bool(*u.Drain), common.Bool(*u.Offline)
		b.MaxConnections = u.MaxConnections
	})
}

func (s *Server) lbDeleteBackend(w http.ResponseWriter, r *http.Request) {
	s.lbChangeBackend(w, r, "DeleteBackend", nil, func(bs *loadbalancer.BackendSet, i int) {
		bs.Backends = slices.Delete(bs.Backends, i, i+1)
	})
}

// lbChangeBackend runs a change of the backend the path names: refused with 404 when there is
// none, and made by change (to its set, the backend at index i) when the work request runs.
func (s *Server) lbChangeBackend(w http.ResponseWriter, r *http.Request, op string, invalid error,
	change func(bs *loadbalancer.BackendSet, i int)) {
	set, name := r.PathValue("backendSetName"), r.PathValue("backendName")
	s.lbChangeChecked(w, r, op, invalid, func(e *lbEntry) error {
		return lbBackendExists(&e.lb, set, name)
	}, func(lb *loadbalancer.LoadBalancer) error {
		if err := lbBackendExists(lb, set, name); err != nil {
			return err
		}
		bs := lb.BackendSets[set]
		change(&bs, lbBackendIndex(bs, name))
		lb.BackendSets[set] = bs
		return nil
	})
}

func lbBackendExists(lb *loadbalancer.LoadBalancer, set, name string) error {
	bs, err := partOf(lb.BackendSets, partBackendSet, set)
	if err != nil {
		return err
	}
	if lbBackendIndex(bs, name) < 0 {
		return lbNotFound("backend", name)
	}
	return nil
}

// Listeners.

func (s *Server) lbCreateListener(w http.ResponseWriter, r *http.Request, c loadbalancer.CreateListenerDetails) {
	d := loadbalancer.ListenerDetails{
		DefaultBackendSetName: c.DefaultBackendSetName, Port: c.Port, Protocol: c.Protocol,
		HostnameNames: c.HostnameNames, PathRouteSetName: c.PathRouteSetName,
		SslConfiguration: c.SslConfiguration, ConnectionConfiguration: c.ConnectionConfiguration,
		RoutingPolicyName: c.RoutingPolicyName, RuleSetNames: c.RuleSetNames,
	}
	s.lbChangeLimited(w, r, "CreateListener", func(e *lbEntry, caps lbCaps) error {
		if err := lbCheckListener(c.Name, d); err != nil {
			return err
		}
		if err := partNew(e.lb.Listeners, partListener, *c.Name); err != nil {
			return err
		}
		return caps.checkListeners(len(e.lb.Listeners) + 1)
	}, func(lb *loadbalancer.LoadBalancer) error {
		return addPart(lb.Listeners, partListener, *c.Name, lbListenerFrom(*c.Name, d))
	})
}

func (s *Server) lbUpdateListener(w http.ResponseWriter, r *http.Request, u loadbalancer.UpdateListenerDetails) {
	name := r.PathValue("listenerName")
	d := loadbalancer.ListenerDetails{
		DefaultBackendSetName: u.DefaultBackendSetName, Port: u.Port, Protocol: u.Protocol,
		HostnameNames: u.HostnameNames, PathRouteSetName: u.PathRouteSetName,
		SslConfiguration: u.SslConfiguration, ConnectionConfiguration: u.ConnectionConfiguration,
		RoutingPolicyName: u.RoutingPolicyName, RuleSetNames: u.RuleSetNames,
	}
	s.lbChangeChecked(w, r, "UpdateListener", lbCheckListener(&name, d), func(e *lbEntry) error {
		_, err := partOf(e.lb.Listeners, partListener, name)
		return err
	}, func(lb *loadbalancer.LoadBalancer) error {
		return setPart(lb.Listeners, partListener, name, lbListenerFrom(name, d))
	})
}

func (s *Server) lbDeleteListener(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("listenerName")
	s.lbChangeChecked(w, r, "DeleteListener", nil, func(e *lbEntry) error {
		_, err := partOf(e.lb.Listeners, partListener, name)
		return err
	}, func(lb *loadbalancer.LoadBalancer) error {
		delete(lb.Listeners, name)
		return nil
	})
}

// Certificates.

func (s *Server) lbListCertificates(w http.ResponseWriter, r *http.Request) {
	s.lbRead(w, r, func(lb *loadbalancer.LoadBalancer) (any, error) {
		out := make([]loadbalancer.Certificate, 0, len(lb.Certificates))
		now := s.now()
		for _, name := range lbSortedKeys(lb.Certificates) {
			if s.lag.listedLocked(lagKeyCertificate(deref(lb.Id), name), now) {
				out = append(out, lb.Certificates[name])
			}
		}
		return out, nil
	})
}

func (s *Server) lbCreateCertificate(w http.ResponseWriter, r *http.Request, c loadbalancer.CreateCertificateDetails) {
	d := loadbalancer.CertificateDetails(c)
	s.lbChangeChecked(w, r, "CreateCertificate", lbCheckCertificate(d), func(e *lbEntry) error {
		return partNew(e.lb.Certificates, partCertificate, *d.CertificateName)
	}, func(lb *loadbalancer.LoadBalancer) error {
		if err := addPart(lb.Certificates, partCertificate, *d.CertificateName, lbCertificateFrom(d)); err != nil {
			return err
		}
		s.lag.createdLocked(lagKeyCertificate(deref(lb.Id), *d.CertificateName), s.now())
		return nil
	})
}

func (s *Server) lbDeleteCertificate(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("certificateName")
	s.lbChangeChecked(w, r, "DeleteCertificate", nil, func(e *lbEntry) error {
		if _, err := partOf(e.lb.Certificates, partCertificate, name); err != nil {
			return err
		}
		if users := lbCertificateUsers(&e.lb, name); len(users) > 0 {
			return lbConflict("Certificate '%s' is in use by %v", name, users)
		}
		return nil
	}, func(lb *loadbalancer.LoadBalancer) error {
		delete(lb.Certificates, name)
		return nil
	})
}

// lbChangeLimited is lbChangeChecked for checks that need the Load Balancer API's current caps.
func (s *Server) lbChangeLimited(w http.ResponseWriter, r *http.Request, op string,
	check func(e *lbEntry, caps lbCaps) error, mutate func(lb *loadbalancer.LoadBalancer) error) {
	s.lbChangeChecked(w, r, op, nil, func(e *lbEntry) error { return check(e, s.lb.limits.classic()) }, mutate)
}
