// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

// compartmentSet names compartments, for policy statements ("in compartment <name>") and the
// tenancy seed. Guarded by Server.mu. OCI's compartments form a tree; here they are flat
// children of the tenancy, which is all the policy model needs.
type compartmentSet struct {
	byName map[string]string // name → OCID
}

// AddCompartment declares a compartment by name and returns its OCID; declaring a name again
// returns the existing OCID. Policy statements name compartments this way.
func (s *Server) AddCompartment(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addCompartmentLocked(name)
}

// addCompartmentLocked declares name with a new OCID, or returns the OCID it already has.
func (s *Server) addCompartmentLocked(name string) string {
	if existing, ok := s.comps.byName[name]; ok {
		return existing
	}
	return s.bindCompartmentLocked(name, "")
}

// bindCompartmentLocked gives name the OCID id ("" generates one), replacing what it named
// before: a second Seed makes a fresh compartment, as it did before compartments had names, and
// its names are the ones policies then mean.
func (s *Server) bindCompartmentLocked(name, id string) string {
	if s.comps.byName == nil {
		s.comps.byName = map[string]string{}
	}
	if id == "" {
		id = s.NewID("compartment")
	}
	s.comps.byName[name] = id
	return id
}

// Compartments returns the declared compartments' OCIDs by name.
func (s *Server) Compartments() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.comps.byName))
	for k, v := range s.comps.byName {
		out[k] = v
	}
	return out
}
