// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/internal/freeform"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

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
	got, tagged := freeform.Owner(observed.FreeformTags)
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

func quote(s string) string { return `"` + s + `"` }
