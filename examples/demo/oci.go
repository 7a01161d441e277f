// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"regexp"
	"slices"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// What the demo reads back from the in-memory OCI to show and check each step's effect. These
// are the server's own getters: what OCI holds, not what the provider believes.

// loadBalancer returns the load balancer with a display name, unless it is gone or going.
func loadBalancer(srv *ocitest.Server, name string) (loadbalancer.LoadBalancer, bool) {
	for _, lb := range srv.LoadBalancers() {
		if lb.DisplayName == nil || *lb.DisplayName != name {
			continue
		}
		switch lb.LifecycleState {
		case loadbalancer.LoadBalancerLifecycleStateDeleting, loadbalancer.LoadBalancerLifecycleStateDeleted:
			return loadbalancer.LoadBalancer{}, false
		}
		return lb, true
	}
	return loadbalancer.LoadBalancer{}, false
}

// lbName is the display name the provider gives a Service's load balancer under the name scheme.
func lbName(service string) string { return strings.ReplaceAll(service, "/", "-") }

// backendCounts returns the number of backends of each of the load balancer's backend sets.
func backendCounts(lb loadbalancer.LoadBalancer) map[string]int {
	out := map[string]int{}
	for name, bs := range lb.BackendSets {
		out[name] = len(bs.Backends)
	}
	return out
}

// listenerCertificate returns the certificate name a listener presents, or "".
func listenerCertificate(lb loadbalancer.LoadBalancer, listener string) string {
	l, ok := lb.Listeners[listener]
	if !ok || l.SslConfiguration == nil || l.SslConfiguration.CertificateName == nil {
		return ""
	}
	return *l.SslConfiguration.CertificateName
}

// workRequestsSince returns the load balancer work requests that were not in known, in the order
// OCI accepted them.
func workRequestsSince(srv *ocitest.Server, known map[string]bool) []ocitest.WorkRequestInfo {
	var out []ocitest.WorkRequestInfo
	for _, wr := range srv.WorkRequests() {
		if !known[wr.ID] {
			out = append(out, wr)
		}
	}
	slices.SortStableFunc(out, func(a, b ocitest.WorkRequestInfo) int { return a.TimeAccepted.Compare(b.TimeAccepted) })
	return out
}

// workRequestIDs returns the IDs of every work request so far.
func workRequestIDs(srv *ocitest.Server) map[string]bool {
	ids := map[string]bool{}
	for _, wr := range srv.WorkRequests() {
		ids[wr.ID] = true
	}
	return ids
}

// short abbreviates an OCID for a table: its type and the first characters of its unique part.
func short(ocid string) string {
	i := strings.LastIndex(ocid, ".")
	if i < 0 || len(ocid)-i <= 8 {
		return ocid
	}
	return ocid[:i+7] + "…"
}

// ocidPattern matches the OCIDs ocitest makes (and real ones).
var ocidPattern = regexp.MustCompile(`ocid1\.[a-z0-9]+\.[a-z0-9]+\.[a-z0-9-]*\.[a-z0-9]+`)

// shortenOCIDs abbreviates every OCID in a text, so plans fit a terminal.
func shortenOCIDs(text string) string { return ocidPattern.ReplaceAllStringFunc(text, short) }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
