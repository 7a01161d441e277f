// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// ownerFromTags reads the ownership tags; ok is false when the load balancer carries none.
func ownerFromTags(tags map[string]string) (model.Owner, bool) {
	if tags[model.TagManagedBy] != model.ManagedByValue {
		return model.Owner{}, false
	}
	return model.Owner{Cluster: tags[model.TagCluster], Service: tags[model.TagService], UID: tags[model.TagServiceUID]}, true
}

// foundBy is how a load balancer was found, which decides whether an untagged one may be taken.
type foundBy int

// The claims.
const (
	// foundByName: found by a display name alone. An untagged load balancer found so is refused
	// (under the name scheme another cluster may use the same name).
	foundByName foundBy = iota
	// foundByUIDName: found by one of the Service's upstream names, each carrying its UID (the
	// UID alone, "<LOAD_BALANCER_PREFIX><uid>", "<namespace>/<name>/<uid>" for a network load
	// balancer; naming.upstreamNames). UIDs are unique, so an untagged load balancer found so was
	// created for this Service by the upstream CCM and is adopted.
	foundByUIDName
	// foundByAdoption: named by the Service's adopt-load-balancer-id annotation.
	foundByAdoption
	// foundByCachedID: the OCID this process recorded for the Service.
	foundByCachedID
)

// checkOwnership decides whether the load balancer observed may be managed for the Service that
// desired describes. Tags win: matching tags are accepted however the load balancer was found,
// tags naming another cluster or Service are refused however it was found. Without tags, only a
// upstream-name match (foundByUIDName), an explicit adoption or this process's own record is accepted.
//
// A Service is identified by cluster and namespace/name; a different Service UID under the same
// name is accepted (a backup restore recreates the Service with a new UID) and re-tagged by Diff.
func checkOwnership(observed, desired *model.Spec, claim foundBy) error {
	refuse := func(reason string) error {
		return &ownershipError{LoadBalancerID: observed.ID, DisplayName: observed.Name, Reason: reason}
	}
	got, tagged := ownerFromTags(observed.FreeformTags)
	want := desired.Owner
	if tagged {
		switch {
		case got.Cluster != want.Cluster:
			return refuse("its " + model.TagCluster + " tag is " + quote(got.Cluster) + ", this cluster is " + quote(want.Cluster))
		case got.Service != want.Service && got.UID != want.UID:
			return refuse("its " + model.TagService + " tag is " + quote(got.Service) + ", this Service is " + quote(want.Service))
		}
		return nil
	}
	switch claim {
	case foundByUIDName, foundByAdoption, foundByCachedID:
		return nil
	}
	return refuse("it has no " + model.TagManagedBy + " tag; set " + string(annotation.AdoptLoadBalancerID) + " to take it over")
}

// ownerTagsAfter returns the freeform tags a load balancer should carry: its current tags with
// the ownership tags set. ok is false when nothing changes.
func ownerTagsAfter(current map[string]string, o model.Owner) (map[string]string, bool) {
	out := maps.Clone(current)
	if out == nil {
		out = map[string]string{}
	}
	changed := false
	for k, v := range o.Tags() {
		if out[k] != v {
			out[k] = v
			changed = true
		}
	}
	return out, changed
}

// recorded returns the values of the freeform tags whose keys start with prefix, sorted, each
// once: what oci-ccm recorded as its own on a load balancer shared with others (the NSGs it
// attached, the rule sets it manages), one value a tag, as values are limited to 256 characters.
func recorded(tags map[string]string, prefix string) []string {
	var out []string
	for k, v := range tags {
		if strings.HasPrefix(k, prefix) && v != "" {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// recordAs returns tags with those under prefix replaced by one per value, sorted (prefix + "1",
// "2", ...), and whether that differs from tags.
func recordAs(tags map[string]string, prefix string, values []string) (map[string]string, bool) {
	out := maps.Clone(tags)
	if out == nil {
		out = map[string]string{}
	}
	maps.DeleteFunc(out, func(k, _ string) bool { return strings.HasPrefix(k, prefix) })
	for i, v := range sortedCopy(values) {
		out[prefix+strconv.Itoa(i+1)] = v
	}
	return out, !maps.Equal(out, tags) && !(len(out) == 0 && len(tags) == 0)
}

func quote(s string) string { return `"` + s + `"` }
