// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"fmt"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// A retry token of a call that created a part of a (network) load balancer (a backend set,
// backend, listener, certificate or rule set) is invalidated once that part is deleted, as the token of
// the call that created a load balancer is once the load balancer is. OCI documents the rule for
// "the resource" a token's call acted on; applying it to parts is assumed, the harder choice: a
// retry after the part was deleted is refused (409 InvalidatedRetryToken) rather than answered
// with the old work request, whose part no longer exists.

// partKindCreatedBy is the kind of part each create operation makes, in both APIs.
var partKindCreatedBy = map[string]string{
	"CreateBackendSet":  "backendSet",
	"CreateBackend":     "backend",
	"CreateListener":    "listener",
	"CreateCertificate": "certificate",
	"CreateRuleSet":     "ruleSet",
}

// lbPartsOf names the parts of a load balancer: "<kind>/<name>", backends "backend/<set>/<name>".
func lbPartsOf(lb *loadbalancer.LoadBalancer) map[string]bool {
	parts := map[string]bool{}
	for set, bs := range lb.BackendSets {
		for _, b := range bs.Backends {
			parts[backendPart(set, b.Name, b.IpAddress, b.Port)] = true
		}
	}
	addParts(parts, "backendSet", lb.BackendSets)
	addParts(parts, "listener", lb.Listeners)
	addParts(parts, "certificate", lb.Certificates)
	addParts(parts, "ruleSet", lb.RuleSets)
	return parts
}

// nlbPartsOf names the parts of a network load balancer as lbPartsOf does.
func nlbPartsOf(n *nlbapi.NetworkLoadBalancer) map[string]bool {
	parts := map[string]bool{}
	for set, bs := range n.BackendSets {
		for _, b := range bs.Backends {
			parts[backendPart(set, b.Name, b.IpAddress, b.Port)] = true
		}
	}
	addParts(parts, "backendSet", n.BackendSets)
	addParts(parts, "listener", n.Listeners)
	return parts
}

// addParts names every part in m as "<kind>/<name>".
func addParts[V any](parts map[string]bool, kind string, m map[string]V) {
	for name := range m {
		parts[kind+"/"+name] = true
	}
}

// backendPart names a backend of set: by its name, or ip:port when it has none.
func backendPart(set string, name, ip *string, port *int) string {
	if name != nil && *name != "" {
		return "backend/" + set + "/" + *name
	}
	p := 0
	if port != nil {
		p = *port
	}
	return fmt.Sprintf("backend/%s/%s:%d", set, deref(ip), p)
}

// lbPartsChanged records, after work request wrID of op on resource succeeded, the parts it
// created (of the kind op creates) and invalidates the retry tokens of the calls that created
// parts it removed. Caller holds s.mu.
func (s *Server) lbPartsChanged(resource, op, wrID string, before, after map[string]bool) {
	if kind, ok := partKindCreatedBy[op]; ok {
		for p := range after {
			if !before[p] && strings.HasPrefix(p, kind+"/") {
				s.lb.partCreators[resource+" "+p] = wrID
			}
		}
	}
	for p := range before {
		if after[p] {
			continue
		}
		key := resource + " " + p
		creator, ok := s.lb.partCreators[key]
		if !ok {
			continue
		}
		delete(s.lb.partCreators, key)
		for _, t := range s.lb.tokens {
			if t.res.wrID == creator && !t.invalidated {
				t.invalidated = true
				t.deleted = p + " of " + resource
			}
		}
	}
}

// lbForgetParts drops what lbPartsChanged recorded of a deleted (network) load balancer.
// Caller holds s.mu.
func (s *Server) lbForgetParts(resource string) {
	for key := range s.lb.partCreators {
		if strings.HasPrefix(key, resource+" ") {
			delete(s.lb.partCreators, key)
		}
	}
}

// The kinds of named part of a (network) load balancer, as OCI's messages begin with them.
const (
	partBackendSet  = "Backend set"
	partListener    = "Listener"
	partCertificate = "Certificate"
	partRuleSet     = "Rule set"
)

// Both APIs check a change of a named part twice, as OCI does: at the call against the part as
// it is (partOf's 404, partNew's 409), and when the work request runs, against the part as the
// changes queued before it left it (addPart, setPart), where a mismatch fails the work request.

// partOf finds the part name of the given kind, or answers 404 as OCI does for a missing one.
func partOf[V any](parts map[string]V, kind, name string) (V, error) {
	v, ok := parts[name]
	if !ok {
		return v, lbNotFound(strings.ToLower(kind), name)
	}
	return v, nil
}

// partNew refuses with 409 Conflict a create of a part the (network) load balancer has already.
func partNew[V any](parts map[string]V, kind, name string) error {
	if _, ok := parts[name]; ok {
		return lbConflict("%s '%s' already exists", kind, name)
	}
	return nil
}

// addPart is a create's work: a part of that name made since the call fails the work request.
func addPart[V any](parts map[string]V, kind, name string, v V) error {
	if _, ok := parts[name]; ok {
		return wrBadInput("%s '%s' already exists", kind, name)
	}
	parts[name] = v
	return nil
}

// partStill finds a part when a work request runs: one deleted since the call fails it.
func partStill[V any](parts map[string]V, kind, name string) (V, error) {
	v, ok := parts[name]
	if !ok {
		return v, wrBadInput("%s '%s' does not exist", kind, name)
	}
	return v, nil
}

// setPart is an update's work: a part deleted since the call fails the work request.
func setPart[V any](parts map[string]V, kind, name string, v V) error {
	if _, err := partStill(parts, kind, name); err != nil {
		return err
	}
	parts[name] = v
	return nil
}
