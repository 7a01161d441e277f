// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"cmp"
	"maps"
	"slices"
)

// PrincipalKind says how a caller authenticated.
type PrincipalKind string

// The kinds of principal ocitest tells apart.
const (
	// PrincipalUser signed with a registered API key (NewCredentials, ConfigurationProvider).
	PrincipalUser PrincipalKind = "user"
	// PrincipalTokenExchange signed with a session token the identity-domain token exchange
	// issued (tokenexchange.go); its Name is the exchanged token's subject.
	PrincipalTokenExchange PrincipalKind = "token-exchange"
	// PrincipalWorkload signed with a session token the OKE workload identity endpoint issued
	// of OKE workload identity; its Name is "namespace/serviceaccount".
	PrincipalWorkload PrincipalKind = "workload"
)

// Principal is who made a call, as far as ocitest knows it. IAM does not look at it (see
// iam.go): it is recorded so a test can assert which identity each call was made as.
type Principal struct {
	Kind PrincipalKind
	// Name is the user OCID, the exchanged token's subject, or "namespace/serviceaccount".
	Name string
}

// String renders the principal as "kind:name".
func (p Principal) String() string { return string(p.Kind) + ":" + p.Name }

// Principal is the principal of calls signed with c's key.
func (c Credentials) Principal() Principal { return Principal{Kind: PrincipalUser, Name: c.UserID} }

// WorkloadPrincipal is the principal of calls made with the OKE workload identity of the service
// account sa in namespace ns.
func WorkloadPrincipal(ns, sa string) Principal {
	return Principal{Kind: PrincipalWorkload, Name: ns + "/" + sa}
}

// CallsBy returns the calls that authenticated as p since the server started or since
// ResetCalls (calls refused by the signature check have no principal and are in none).
func (s *Server) CallsBy(p Principal) Calls {
	s.ctl.mu.Lock()
	defer s.ctl.mu.Unlock()
	if cc := s.ctl.byPrincipal[p]; cc != nil {
		return cc.snapshot()
	}
	var empty callCounter
	empty.reset()
	return empty.snapshot()
}

// Principals returns every principal that made an authenticated call since the server started
// or since ResetCalls, sorted by String.
func (s *Server) Principals() []Principal {
	s.ctl.mu.Lock()
	defer s.ctl.mu.Unlock()
	return slices.SortedFunc(maps.Keys(s.ctl.byPrincipal), func(a, b Principal) int {
		return cmp.Compare(a.String(), b.String())
	})
}

// countPrincipal counts an authenticated call under its principal; the caller holds c.mu.
func (c *control) countPrincipal(p Principal, rt route) *callCounter {
	if p == (Principal{}) {
		return nil
	}
	if c.byPrincipal == nil {
		c.byPrincipal = map[Principal]*callCounter{}
	}
	cc := c.byPrincipal[p]
	if cc == nil {
		cc = &callCounter{}
		cc.reset()
		c.byPrincipal[p] = cc
	}
	cc.start(rt)
	return cc
}
