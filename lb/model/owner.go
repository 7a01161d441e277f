// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package model

// The freeform tags that record which cluster and Service own a load balancer. oci-ccm puts them
// on every load balancer it creates or adopts and never modifies or deletes a load balancer whose
// tags name another cluster or Service.
const (
	TagCluster    = "oci-ccm-cluster"
	TagService    = "oci-ccm-service"
	TagServiceUID = "oci-ccm-service-uid"
	TagManagedBy  = "oci-ccm-managed-by"
	// ManagedByValue is TagManagedBy's value.
	ManagedByValue = "oci-ccm"
)

// Tags returns the ownership tags for o (empty fields are left out).
func (o Owner) Tags() map[string]string {
	t := map[string]string{TagManagedBy: ManagedByValue}
	for k, v := range map[string]string{TagCluster: o.Cluster, TagService: o.Service, TagServiceUID: o.UID} {
		if v != "" {
			t[k] = v
		}
	}
	return t
}
