// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Network security groups are shared: a user may attach NSGs of their own to a load balancer
// beside those the Service's annotation lists. oci-ccm manages only the NSGs it attached: it
// records them in freeform tags (tagNSGPrefix + "1", "2", ...: one OCID each,
// as five OCIDs do not fit the 256 characters of one tag value) and detaches an NSG only when it
// is recorded there and no longer in the annotation. Without the annotation, no NSG is listed,
// so the ones oci-ccm attached are detached and every other one stays.

// tagNSGPrefix starts the freeform tags that record the NSGs oci-ccm attached.
const tagNSGPrefix = "oci-ccm-nsg-"

// managedNSGs returns the NSGs the tags record as attached by oci-ccm, sorted.
func managedNSGs(tags map[string]string) []string {
	var out []string
	for k, v := range tags {
		if strings.HasPrefix(k, tagNSGPrefix) && v != "" {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// nsgTagsAfter returns tags recording nsgs as the NSGs oci-ccm attached, and whether that differs
// from what tags recorded.
func nsgTagsAfter(tags map[string]string, nsgs []string) (map[string]string, bool) {
	out := maps.Clone(tags)
	if out == nil {
		out = map[string]string{}
	}
	maps.DeleteFunc(out, func(k, _ string) bool { return strings.HasPrefix(k, tagNSGPrefix) })
	for i, id := range sortedCopy(nsgs) {
		out[tagNSGPrefix+strconv.Itoa(i+1)] = id
	}
	return out, !maps.Equal(out, tags) && !(len(out) == 0 && len(tags) == 0)
}

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

// addFrontendNSG adds the NSG Options.FrontendNSG returns for desired, if any, to its NSGs; only
// with create may it make one. The load balancer takes at most maxNetworkSecurityGroups, so with
// it the annotation may name one fewer.
func (r *Reconciler) addFrontendNSG(ctx context.Context, desired *model.Spec, create bool) error {
	if r.nsg == nil {
		return nil
	}
	id, err := r.nsg(ctx, desired, create)
	if err != nil {
		return fmt.Errorf("frontend network security group of %s: %w", desired.Owner.Service, err)
	}
	if id == "" || slices.Contains(desired.NetworkSecurityGroups, id) {
		return nil
	}
	if len(desired.NetworkSecurityGroups) >= maxNetworkSecurityGroups {
		return &ValidationError{Service: desired.Owner.Service, Problems: []*Problem{problemf(annotation.NetworkSecurityGroups,
			strings.Join(desired.NetworkSecurityGroups, ","),
			"at most %d OCIDs with %s: NSG (oci-ccm attaches the frontend NSG as well)", maxNetworkSecurityGroups-1, annotation.SecurityRuleManagementMode)}}
	}
	desired.NetworkSecurityGroups = append(desired.NetworkSecurityGroups, id)
	slices.Sort(desired.NetworkSecurityGroups)
	return nil
}
