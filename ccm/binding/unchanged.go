// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	api "github.com/oci-ccm/oci-ccm/ccm/binding/v1alpha1"
	lbbinding "github.com/oci-ccm/oci-ccm/lb/binding"
)

// Syncs with nothing to change.
//
// A binding is synced on every change of what it may depend on: its Service, the Service's
// EndpointSlices (for a node binding too), the Nodes, its gated Pods. Most of those change
// nothing in the backend set: a busy Service's EndpointSlices change with every Pod's readiness,
// and while a gated Pod of an ip binding waits for OCI to call its backend healthy, the binding
// is synced every HealthPoll (2 s) for as long as a rolling update lasts. A full sync reads the
// load balancer (and a network load balancer's set, for its ETag) each time to find nothing to
// do. So a sync whose inputs are those of the last full sync that succeeded, less than Resync
// ago, reads nothing but the health its gated Pods wait for (none when there are none). A change
// of any input makes the next sync a full one, and so does the resync, which puts back a
// backend changed by hand in OCI meanwhile: what this trusts is that nothing but this
// controller changed the bound backends since, as the resync did before. Such a sync writes the
// status the full sync made, not the informer's copy, which may not show that sync's write yet,
// or ever, when the write failed. A refusal is remembered alike: what lifts it is a change of
// the inputs (Nodes past OCI's limits) or of OCI (found at the resync), not a busy Service's
// EndpointSlices, each of which read the load balancer again to be refused again.

// inputs are what a sync of a binding is given; for the last full sync, when it ended and the
// status it made.
type inputs struct {
	generation int64
	protocol   corev1.Protocol // the Service port's, which the security rules depend on
	want       []lbbinding.Target
	owned      []string // the owned backends the sync was given; for the last full sync, those it left
	at         time.Time
	status     *api.BackendSetBindingStatus
	refused    bool // the sync ended with a *lbbinding.RefusedError
}

// remember records the full sync of the binding uid that was given in and ended now with status,
// refused or not. The owned backends the next sync is given are the status's.
func (c *Controller) remember(uid types.UID, in inputs, status *api.BackendSetBindingStatus, refused bool) {
	in.at, in.status, in.refused = time.Now(), new(api.BackendSetBindingStatus), refused
	status.DeepCopyInto(in.status)
	in.owned = in.status.OwnedBackends
	c.lastSync.Store(uid, in)
}

// unchanged returns the last full sync of the binding uid that succeeded or was refused, if it was
// given in, less than Resync ago.
func (c *Controller) unchanged(uid types.UID, in inputs) (inputs, bool) {
	v, ok := c.lastSync.Load(uid)
	if !ok {
		return inputs{}, false
	}
	last := v.(inputs)
	return last, last.generation == in.generation && last.protocol == in.protocol && slices.Equal(last.want, in.want) &&
		slices.Equal(last.owned, in.owned) && time.Since(last.at) < c.opts.Resync
}

// resyncBy is after, the wait before a sync that skipped OCI asks to be synced again, cut to when
// last, the full sync it relied on, is Resync old: the sync then is a full one, so a backend
// changed by hand in OCI is put back within Resync of the last full sync, however many syncs
// came between.
func (c *Controller) resyncBy(last inputs, after time.Duration) time.Duration {
	if after <= 0 {
		return after
	}
	return max(min(after, time.Until(last.at.Add(c.opts.Resync))), time.Millisecond)
}
