// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClusterIdentityComesFromOneSourceAndRefusesTheDefault(t *testing.T) {
	const defaultHint = "is the framework's default cluster name and identifies no cluster: two clusters left at the default remove each other's security rules. Set " + uniqueHint +
		"; or, for a cluster already running under this name that shares nothing with another, set allowDefaultClusterName: true"
	tests := []struct {
		name         string
		clusterID    string
		allowDefault bool
		flag         string // --cluster-name
		want         string
		wantErr      []FieldError
	}{
		{name: "clusterID alone", clusterID: "prod-phx-1", flag: "", want: "prod-phx-1"},
		{name: "clusterID wins over the flag's default", clusterID: "prod-phx-1", flag: "kubernetes", want: "prod-phx-1"},
		{name: "clusterID and the same flag", clusterID: "prod", flag: "prod", want: "prod"},
		{name: "flag alone (upstream-style deployments)", flag: "prod", want: "prod"},
		{name: "flag at the framework default is refused", flag: "kubernetes",
			wantErr: []FieldError{{"--cluster-name", "kubernetes", defaultHint}}},
		{name: "clusterID kubernetes is refused", clusterID: "kubernetes",
			wantErr: []FieldError{{"clusterID", "kubernetes", defaultHint}}},
		{name: "the default with the explicit opt-in", flag: "kubernetes", allowDefault: true, want: "kubernetes"},
		{name: "no identity at all", wantErr: []FieldError{{"clusterID", "",
			"required: set clusterID in cloud-provider.yaml (or --cluster-name) to " + uniqueHint}}},
		{name: "two different identities", clusterID: "prod", flag: "staging", wantErr: []FieldError{{"clusterID", "prod",
			`differs from --cluster-name="staging"; set one of them, or both to the same name, so that load balancer tags and security rules carry one identity`}}},
		{name: "the shipped manifest's placeholder", flag: "<unique-cluster-id>", wantErr: []FieldError{{"--cluster-name", "<unique-cluster-id>",
			"is a placeholder; replace it with " + uniqueHint}}},
		{name: "spaces are refused", clusterID: "prod cluster", wantErr: []FieldError{{"clusterID", "prod cluster",
			clusterIDRule + "; it should be " + uniqueHint}}},
		{name: "too long", clusterID: "a234567890123456789012345678901234567890123456789012345678901234", wantErr: []FieldError{{"clusterID",
			"a234567890123456789012345678901234567890123456789012345678901234", clusterIDRule + "; it should be " + uniqueHint}}},
		{name: "dots and underscores and upper case are fine", flag: "Prod_eu.1", want: "Prod_eu.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validConfig(t)
			c.ClusterID, c.AllowDefaultClusterName = tt.clusterID, tt.allowDefault
			got, err := c.ClusterIdentity(tt.flag)
			var ve *ValidationError
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("ClusterIdentity(%q) = %v, want %q", tt.flag, err, tt.want)
				}
				if got != tt.want {
					t.Errorf("ClusterIdentity(%q) = %q, want %q", tt.flag, got, tt.want)
				}
				return
			}
			if !errors.As(err, &ve) {
				t.Fatalf("ClusterIdentity(%q) = %q, %v; want a *ValidationError", tt.flag, got, err)
			}
			if diff := cmp.Diff(tt.wantErr, ve.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateChecksClusterIDWhenSet(t *testing.T) {
	c := validConfig(t)
	c.ClusterID = "kubernetes"
	var ve *ValidationError
	if err := c.Validate(); !errors.As(err, &ve) || len(ve.Errors) != 1 || ve.Errors[0].Field != "clusterID" {
		t.Fatalf("Validate() = %v, want one clusterID problem", err)
	}
	c.AllowDefaultClusterName = true
	if err := c.Validate(); err != nil {
		t.Errorf("Validate() with allowDefaultClusterName = %v, want nil", err)
	}
	c.ClusterID = ""
	if err := c.Validate(); err != nil {
		t.Errorf("Validate() without clusterID = %v, want nil (--cluster-name may carry it)", err)
	}
}
