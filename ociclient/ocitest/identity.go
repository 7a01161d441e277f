// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"net/http"
	"slices"

	"github.com/oracle/oci-go-sdk/v65/identity"
)

// identityStore holds the emulated Identity state. Guarded by Server.mu.
type identityStore struct {
	ads []identity.AvailabilityDomain
}

func newIdentityStore() *identityStore { return &identityStore{} }

func (s *Server) registerIdentity() {
	s.handle("ListAvailabilityDomains", ClassRead, "GET /20160918/availabilityDomains", s.listAvailabilityDomains)
}

// AddAvailabilityDomain adds an availability domain by its tenancy-specific name, e.g.
// "Uocm:PHX-AD-1", and returns it. Adding a name twice returns the existing one.
func (s *Server) AddAvailabilityDomain(name string) identity.AvailabilityDomain {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addAvailabilityDomainLocked(name)
}

func (s *Server) addAvailabilityDomainLocked(name string) identity.AvailabilityDomain {
	if i := slices.IndexFunc(s.ident.ads, func(ad identity.AvailabilityDomain) bool { return *ad.Name == name }); i >= 0 {
		return s.ident.ads[i]
	}
	ad := identity.AvailabilityDomain{
		Name:          &name,
		Id:            new(s.NewID("availabilitydomain")),
		CompartmentId: new(s.opts.TenancyID),
	}
	s.ident.ads = append(s.ident.ads, ad)
	return ad
}

// availabilityDomainLocked returns the named AD, or the first one (creating "<prefix>-AD-1" in
// an empty tenancy) when name is "", for resources seeded without one.
func (s *Server) availabilityDomainLocked(name string) (string, bool) {
	if name == "" {
		if len(s.ident.ads) == 0 {
			s.addAvailabilityDomainLocked("Uocm:" + regionKey(s.opts.Region) + "-AD-1")
		}
		return *s.ident.ads[0].Name, true
	}
	ok := slices.ContainsFunc(s.ident.ads, func(ad identity.AvailabilityDomain) bool { return *ad.Name == name })
	return name, ok
}

// listAvailabilityDomains returns every AD of the tenancy. The compartment must be given but,
// as in OCI, any compartment of the tenancy sees the same ADs.
func (s *Server) listAvailabilityDomains(w http.ResponseWriter, r *http.Request) {
	if _, ok := requiredQuery(w, r, "compartmentId"); !ok {
		return
	}
	ads := underLock(s, func() []identity.AvailabilityDomain { return slices.Clone(s.ident.ads) })
	writeJSON(w, r, http.StatusOK, ads)
}

// requiredQuery returns a mandatory query parameter, answering 400 MissingParameter when absent,
// in the core services' words (lbRequireQuery has the load balancer APIs').
func requiredQuery(w http.ResponseWriter, r *http.Request, name string) (string, bool) {
	return queryOrMissing(w, r, name, "the query parameter "+name+" is required")
}

// queryOrMissing returns the named query parameter, answering 400 MissingParameter with message
// when it is missing.
func queryOrMissing(w http.ResponseWriter, r *http.Request, name, message string) (string, bool) {
	v := r.URL.Query().Get(name)
	if v == "" {
		writeError(w, r, http.StatusBadRequest, "MissingParameter", message)
		return "", false
	}
	return v, true
}
