// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	lbbinding "github.com/oci-ccm/oci-ccm/lb/binding"
)

// Health polls.
//
// While a gated Pod of an ip binding waits for OCI to call its backend healthy, the binding is
// synced again every HealthPoll (2 s by default), for as long as a rolling update lasts. What
// such a poll needs is the health: the backends were written by the sync before, from the same
// Service, EndpointSlices and Pods. So a poll whose inputs are those of the last full sync reads
// the backend set's health alone (one read), not the load balancer as well (one more read, two
// for a network load balancer's set and its ETag). A change of any input makes the next sync a
// full one, and so does Resync's time since the last full one, which puts back a backend changed
// by hand in OCI meanwhile.

// polled is what a full sync of a binding that left gated Pods waiting was given.
type polled struct {
	generation int64
	protocol   corev1.Protocol // the Service port's, which the security rules depend on
	want       []lbbinding.Target
	owned      []string // the sync's Result.Owned, which the next sync is given
	at         time.Time
}

// unchangedSincePoll reports whether the binding uid waits for its Pods' health since a full sync
// given the same in, less than Resync ago.
func (c *Controller) unchangedSincePoll(uid types.UID, in polled) bool {
	v, ok := c.waiting.Load(uid)
	if !ok {
		return false
	}
	last := v.(polled)
	return last.generation == in.generation && last.protocol == in.protocol && slices.Equal(last.want, in.want) &&
		slices.Equal(last.owned, in.owned) && time.Since(last.at) < c.opts.Resync
}
