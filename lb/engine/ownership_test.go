// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"errors"
	"testing"

	"github.com/oci-ccm/oci-ccm/lb/model"
)

func TestCheckOwnership(t *testing.T) {
	desired := &model.Spec{Owner: model.Owner{Cluster: "prod", Service: "default/web", UID: "uid-1"}}
	tagged := func(o model.Owner) *model.Spec {
		return &model.Spec{ID: "ocid1.loadbalancer.x", Name: "lb", FreeformTags: o.Tags()}
	}
	untagged := &model.Spec{ID: "ocid1.loadbalancer.x", Name: "lb", FreeformTags: map[string]string{"team": "web"}}
	tests := []struct {
		name     string
		observed *model.Spec
		claim    foundBy
		ok       bool
	}{
		{"our tags", tagged(desired.Owner), foundByName, true},
		{"restored Service: same name, new UID", tagged(model.Owner{Cluster: "prod", Service: "default/web", UID: "uid-0"}), foundByName, true},
		{"another cluster", tagged(model.Owner{Cluster: "staging", Service: "default/web", UID: "uid-1"}), foundByCachedID, false},
		{"another Service", tagged(model.Owner{Cluster: "prod", Service: "default/api", UID: "uid-9"}), foundByAdoption, false},
		{"untagged, found by UID name (upstream CCM)", untagged, foundByUIDName, true},
		{"untagged, adopted explicitly", untagged, foundByAdoption, true},
		{"untagged, found by name only", untagged, foundByName, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkOwnership(tc.observed, desired, tc.claim)
			if tc.ok && err != nil {
				t.Errorf("checkOwnership = %v, want ok", err)
			}
			if !tc.ok && !errors.Is(err, ErrNotOwned) {
				t.Errorf("checkOwnership = %v, want ErrNotOwned", err)
			}
		})
	}
}
