// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
)

// TestUnknownDefinedTagsNameTheirField: OCI refuses a create whose defined tags name a tag
// namespace the tenancy does not define; the error names where the tags came from (the
// annotation, else cloud-provider.yaml), so the operator knows what to fix. ocitest's default
// tenancy defines Operations.CostCenter only, and accepts that.
func TestUnknownDefinedTagsNameTheirField(t *testing.T) {
	unknown := `{"Finance":{"CostCenter":"1"}}`
	tests := []struct {
		name      string
		nlb       bool
		annotate  map[annotation.Name]string
		config    map[string]map[string]any
		wantField string // "" when the create must succeed
	}{
		{name: "LB annotation", annotate: map[annotation.Name]string{annotation.InitialDefinedTags: unknown},
			wantField: string(annotation.InitialDefinedTags)},
		{name: "config", config: map[string]map[string]any{"Finance": {"CostCenter": "1"}},
			wantField: "loadBalancer.tags.definedTags"},
		{name: "NLB annotation", nlb: true, annotate: map[annotation.Name]string{annotation.NLBInitialDefinedTags: unknown},
			wantField: string(annotation.NLBInitialDefinedTags)},
		{name: "NLB annotation, older spelling", nlb: true, annotate: map[annotation.Name]string{annotation.NLBDefinedTags: unknown},
			wantField: string(annotation.NLBDefinedTags)},
		{name: "defined in the tenancy", annotate: map[annotation.Name]string{annotation.InitialDefinedTags: `{"Operations":{"CostCenter":"42"}}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e *env
			opts := []svcOpt{ports(80)}
			if tc.nlb {
				e = newEnv(t, withNLBs())
				opts = append(opts, asNLB)
			} else {
				e = newEnv(t)
			}
			e.cfg.LoadBalancer.Tags.DefinedTags = tc.config
			for a, v := range tc.annotate {
				opts = append(opts, annotate(a, v))
			}
			_, err := e.r.Ensure(ctx, service(opts...), readyNodes(1), nil)
			if tc.wantField == "" {
				if err != nil {
					t.Fatalf("Ensure: %v", err)
				}
				return
			}
			var te *engine.DefinedTagsError
			if !errors.As(err, &te) || !strings.Contains(te.Field, tc.wantField) || !strings.Contains(err.Error(), "Finance") {
				t.Fatalf("Ensure: %v; want a *engine.DefinedTagsError naming %s and the namespace", err, tc.wantField)
			}
		})
	}
}
