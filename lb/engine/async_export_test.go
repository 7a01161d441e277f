// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

// What the external tests of async.go need of the unexported API.

// Following reports whether a FollowUp of r runs (Update may return early).
func Following(r *Reconciler) bool { return r.pending.followed() }

// PendingLoadBalancers counts the load balancers with accepted Update changes not yet confirmed.
func PendingLoadBalancers(r *Reconciler) int {
	r.pending.mu.Lock()
	defer r.pending.mu.Unlock()
	return len(r.pending.byLB)
}
