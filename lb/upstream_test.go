// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

func TestWorkloadServiceAccountMustNameAServiceAccount(t *testing.T) {
	for _, value := range []string{"", "  ", "Not_A_Name"} {
		svc := testService(withAnnotation(annotation.WorkloadServiceAccount, value))
		_, err := Desired(svc, nodes(1), testConfig(), Known{})
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("%q: Desired = %v, want a *ValidationError", value, err)
		}
		if len(ve.Problems) != 1 || ve.Problems[0].Field != string(annotation.WorkloadServiceAccount) ||
			!strings.Contains(ve.Problems[0].Allowed, "ServiceAccount") {
			t.Errorf("%q: problems = %v, want one naming %s and what it must be", value, ve.Problems, annotation.WorkloadServiceAccount)
		}
	}
	if _, err := Desired(testService(withAnnotation(annotation.WorkloadServiceAccount, "lb-owner")), nodes(1), testConfig(), Known{}); err != nil {
		t.Errorf("a ServiceAccount name: %v", err)
	}
}

func TestSecurityRuleManagementModeOverridesTheSecurityListAnnotation(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  config.SecurityListMode
	}{
		{"SL-All", config.SecurityListModeAll},
		{"SL-Frontend", config.SecurityListModeFrontend},
		{"None", config.SecurityListModeNone},
	} {
		svc := testService(withAnnotation(annotation.SecurityListManagementMode, "Backend"),
			withAnnotation(annotation.SecurityRuleManagementMode, tc.value))
		spec, err := Desired(svc, nodes(1), testConfig(), Known{})
		if err != nil {
			t.Fatalf("%s: %v", tc.value, err)
		}
		if diff := cmp.Diff(tc.want, spec.SecurityListMode); diff != "" {
			t.Errorf("%s: mode (-want +got):\n%s", tc.value, diff)
		}
	}
}

func TestSecurityRuleManagementModeNSGTakesTheBackendNSGsSorted(t *testing.T) {
	svc := testService(withAnnotation(annotation.SecurityRuleManagementMode, "NSG"),
		withAnnotation(annotation.BackendNetworkSecurityGroups, "ocid1.networksecuritygroup.oc1..b, ocid1.networksecuritygroup.oc1..a"))
	spec, err := Desired(svc, nodes(1), testConfig(), Known{})
	if err != nil {
		t.Fatal(err)
	}
	if spec.SecurityListMode != config.SecurityListModeNSG {
		t.Errorf("mode %q, want NSG", spec.SecurityListMode)
	}
	if diff := cmp.Diff([]string{"ocid1.networksecuritygroup.oc1..a", "ocid1.networksecuritygroup.oc1..b"}, spec.BackendNSGs); diff != "" {
		t.Errorf("backend NSGs (-want +got):\n%s", diff)
	}
}

func TestBackendNSGAnnotationIsRefusedWithoutModeNSGOrWithBadOCIDs(t *testing.T) {
	const key = annotation.BackendNetworkSecurityGroups
	for _, tc := range []struct {
		name, mode, value, allowed string
	}{
		{"no mode", "", "ocid1.networksecuritygroup.oc1..a",
			"only with oci.oraclecloud.com/security-rule-management-mode: NSG; remove it or set that mode"},
		{"a list mode", "SL-All", "ocid1.networksecuritygroup.oc1..a",
			"only with oci.oraclecloud.com/security-rule-management-mode: NSG; remove it or set that mode"},
		{"not an NSG OCID", "NSG", "ocid1.subnet.oc1..a",
			`OCIDs of the form ocid1.networksecuritygroup.…; "ocid1.subnet.oc1..a" is not one`},
	} {
		svc := testService(withAnnotation(key, tc.value))
		if tc.mode != "" {
			svc.Annotations[string(annotation.SecurityRuleManagementMode)] = tc.mode
		}
		_, err := Desired(svc, nodes(1), testConfig(), Known{})
		var ve *ValidationError
		if !errors.As(err, &ve) || len(ve.Problems) != 1 {
			t.Fatalf("%s: Desired = %v, want one problem", tc.name, err)
		}
		want := &Problem{Field: string(key), Value: tc.value, Allowed: tc.allowed}
		if diff := cmp.Diff(want, ve.Problems[0]); diff != "" {
			t.Errorf("%s: problem (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestSecurityRuleManagementModeUnknownIsRefusedNamingTheAllowedModes(t *testing.T) {
	svc := testService(withAnnotation(annotation.SecurityRuleManagementMode, "NSGs"))
	_, err := Desired(svc, nodes(1), testConfig(), Known{})
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 {
		t.Fatalf("Desired = %v, want one problem", err)
	}
	want := &Problem{Field: string(annotation.SecurityRuleManagementMode), Value: "NSGs",
		Allowed: "one of SL-All, SL-Frontend, NSG, None"}
	if diff := cmp.Diff(want, ve.Problems[0]); diff != "" {
		t.Errorf("problem (-want +got):\n%s", diff)
	}
}
