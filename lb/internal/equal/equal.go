// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package equal says when two parts of a load balancer are the same as OCI sees them, after
// normalising what OCI fills in or spells its own way. lb's Diff plans an update only when they
// differ, and lb/engine tells a change of backends alone from one of anything else, by the same
// rules.
package equal

import (
	"slices"
	"strings"

	"github.com/oci-ccm/oci-ccm/lb/internal/listener"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// BackendSet compares after normalising what OCI fills in.
func BackendSet(observed, desired model.BackendSet) bool {
	o := observed
	o.Policy = strings.ToUpper(o.Policy)
	o.TLS = NormaliseTLS(o.TLS, desired.TLS)
	if o.HealthCheck.Protocol == listener.ProtocolTCP && desired.HealthCheck.Protocol == listener.ProtocolTCP {
		o.HealthCheck.Path, o.HealthCheck.ReturnCode = desired.HealthCheck.Path, desired.HealthCheck.ReturnCode
	}
	// Backends are compared as sorted values, not through cmp's reflection: with 1,000 nodes
	// that was 90% of a reconcile's CPU (BenchmarkDesiredAndDiff in internal/bench).
	if !Backends(o.Backends, desired.Backends) {
		return false
	}
	o.Backends, desired.Backends = nil, nil
	return model.Equal(o, desired)
}

// Backends says whether two backend lists hold the same backends, in any order.
func Backends(a, b []model.Backend) bool {
	if len(a) != len(b) {
		return false
	}
	byAddress := func(x, y model.Backend) int {
		if c := strings.Compare(x.TargetID, y.TargetID); c != 0 {
			return c
		}
		if c := strings.Compare(x.IP, y.IP); c != 0 {
			return c
		}
		return x.Port - y.Port
	}
	a, b = byTarget(a), byTarget(b)
	slices.SortFunc(a, byAddress)
	slices.SortFunc(b, byAddress)
	return slices.Equal(a, b)
}

// byTarget copies backends, leaving out the address of those named by instance: OCI resolves it.
func byTarget(bs []model.Backend) []model.Backend {
	out := slices.Clone(bs)
	for i := range out {
		if out[i].TargetID != "" {
			out[i].IP = ""
		}
	}
	return out
}

// NormaliseTLS drops observed cipher suite and versions when the desired side leaves them to OCI.
func NormaliseTLS(observed, desired *model.TLS) *model.TLS {
	if observed == nil || desired == nil {
		return observed
	}
	o := observed.Clone()
	if desired.CipherSuite == "" {
		o.CipherSuite = ""
	}
	if len(desired.Protocols) == 0 {
		o.Protocols = nil
	}
	return o
}
