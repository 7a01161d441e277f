// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"slices"

	"github.com/oci-ccm/oci-ccm/lb/internal/freeform"
)

// Network security groups are shared: a user may attach NSGs of their own to a load balancer
// beside those the Service's annotation lists. oci-ccm manages only the NSGs it attached: it
// records them in freeform tags (freeform.NSGPrefix + "1", "2", ...: one OCID each,
// as five OCIDs do not fit the 256 characters of one tag value) and detaches an NSG only when it
// is recorded there and no longer in the annotation. Without the annotation, no NSG is listed,
// so the ones oci-ccm attached are detached and every other one stays.

// managedNSGs returns the NSGs the tags record as attached by oci-ccm, sorted.
func managedNSGs(tags map[string]string) []string { return freeform.Recorded(tags, freeform.NSGPrefix) }

// targetNSGs is what the load balancer's NSGs become: those desired, and those attached now
// that oci-ccm did not attach (a user's), sorted.
func targetNSGs(observed, managed, desired []string) []string {
	out := slices.Clone(desired)
	for _, id := range observed {
		if !slices.Contains(managed, id) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}
