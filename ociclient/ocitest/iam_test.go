// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/identity"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// twoCompartments is a server with the default tenancy but node-3 (its VNIC and attachment
// too) in a second compartment, "other".
func twoCompartments(t *testing.T) (*coreFixture, ocitest.Seeded) {
	t.Helper()
	ten := ocitest.DefaultTenancy()
	ten.Compartments = []string{"other"}
	ten.Instances[2].Compartment = "other"
	f := newCoreFixture(t, ocitest.Options{Tenancy: &ten})
	return f, f.srv.Seeded()
}

// ociErr returns the status, code and message of an OCI error.
func ociErr(t *testing.T, err error) (int, string, string) {
	t.Helper()
	var se common.ServiceError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not an OCI service error", err)
	}
	return se.GetHTTPStatusCode(), se.GetCode(), se.GetMessage()
}

func TestGetInstanceOutsideThePolicysCompartmentsLooksExactlyLikeAMissingInstance(t *testing.T) {
	f, seeded := twoCompartments(t)
	if err := f.srv.SetPolicy("Allow dynamic-group ccm to read instance-family in compartment cluster"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.compute.GetInstance(t.Context(), core.GetInstanceRequest{InstanceId: new(seeded.Instances["node-1"])}); err != nil {
		t.Fatalf("node-1, in the policy's compartment: %v", err)
	}
	hidden := seeded.Instances["node-3"]
	_, err := f.compute.GetInstance(t.Context(), core.GetInstanceRequest{InstanceId: &hidden})
	status, code, msg := ociErr(t, err)

	// The same call for an instance that does not exist, after node-3 is really gone.
	f.srv.RemoveInstance(hidden)
	_, errGone := f.compute.GetInstance(t.Context(), core.GetInstanceRequest{InstanceId: &hidden})
	goneStatus, goneCode, goneMsg := ociErr(t, errGone)

	got := []any{status, code, msg}
	if diff := cmp.Diff([]any{goneStatus, goneCode, goneMsg}, got); diff != "" {
		t.Errorf("denied GetInstance differs from a missing instance's (-missing +denied):\n%s", diff)
	}
	if status != http.StatusNotFound || code != "NotAuthorizedOrNotFound" {
		t.Errorf("denied GetInstance: %d %s, want 404 NotAuthorizedOrNotFound", status, code)
	}
}

func TestListingsOfACompartmentThePolicyDoesNotCoverAreDenied(t *testing.T) {
	f, seeded := twoCompartments(t)
	err := f.srv.SetPolicy(
		"Allow dynamic-group ccm to read instance-family in compartment cluster",
		"Allow dynamic-group ccm to read virtual-network-family in compartment cluster")
	if err != nil {
		t.Fatal(err)
	}
	cluster, other := seeded.Compartments["cluster"], seeded.Compartments["other"]
	tests := []struct {
		name  string
		call  func() (int, error)
		items int // when allowed
		deny  bool
	}{
		{"ListInstances cluster", func() (int, error) {
			r, err := f.compute.ListInstances(t.Context(), core.ListInstancesRequest{CompartmentId: &cluster})
			return len(r.Items), err
		}, 2, false},
		{"ListVnicAttachments cluster", func() (int, error) {
			r, err := f.compute.ListVnicAttachments(t.Context(), core.ListVnicAttachmentsRequest{CompartmentId: &cluster})
			return len(r.Items), err
		}, 2, false},
		{"ListInstances other", func() (int, error) {
			r, err := f.compute.ListInstances(t.Context(), core.ListInstancesRequest{CompartmentId: &other})
			return len(r.Items), err
		}, 0, true},
		{"ListVnicAttachments other", func() (int, error) {
			r, err := f.compute.ListVnicAttachments(t.Context(), core.ListVnicAttachmentsRequest{CompartmentId: &other})
			return len(r.Items), err
		}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := tt.call()
			if tt.deny {
				if status, code, _ := ociErr(t, err); status != 404 || code != "NotAuthorizedOrNotFound" {
					t.Fatalf("got %d %s, want 404 NotAuthorizedOrNotFound", status, code)
				}
				return
			}
			if err != nil || n != tt.items {
				t.Fatalf("got %d items, %v; want %d items", n, err, tt.items)
			}
		})
	}
}

func TestVerbsIncludeTheLowerOnesAndOnlyManageUpdatesASecurityList(t *testing.T) {
	tests := []struct {
		statement      string
		get, update    bool // GetSecurityList, UpdateSecurityList allowed
		getOtherCompRO bool
	}{
		{"Allow group ops to inspect security-lists in compartment cluster", true, false, false},
		{"Allow group ops to read security-lists in compartment cluster", true, false, false},
		{"Allow group ops to use security-lists in compartment cluster", true, false, false},
		{"Allow group ops to manage security-lists in compartment cluster", true, true, false},
		{"Allow group ops to manage virtual-network-family in compartment cluster", true, true, false},
		{"Allow group ops to manage all-resources in tenancy", true, true, true},
		{"Allow group ops to manage subnets in tenancy", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.statement, func(t *testing.T) {
			ten := ocitest.DefaultTenancy()
			ten.Compartments = []string{"net"}
			ten.SecurityLists[2].Compartment = "net"
			// What each statement allows, not when: consistency_test.go tests the delay.
			f := newCoreFixture(t, ocitest.Options{Tenancy: &ten, PolicyDelay: ocitest.NoLag})
			seeded := f.srv.Seeded()
			if err := f.srv.SetPolicy(tt.statement); err != nil {
				t.Fatal(err)
			}
			id := seeded.SecurityLists["lb-1"]
			got, err := f.vcn.GetSecurityList(t.Context(), core.GetSecurityListRequest{SecurityListId: &id})
			if allowed := err == nil; allowed != tt.get {
				t.Errorf("GetSecurityList allowed=%v (%v), want %v", allowed, err, tt.get)
			}
			_, err = f.vcn.UpdateSecurityList(t.Context(), core.UpdateSecurityListRequest{SecurityListId: &id,
				UpdateSecurityListDetails: core.UpdateSecurityListDetails{EgressSecurityRules: got.EgressSecurityRules}})
			if allowed := err == nil; allowed != tt.update {
				t.Errorf("UpdateSecurityList allowed=%v (%v), want %v", allowed, err, tt.update)
			}
			if err != nil {
				if status, code, _ := ociErr(t, err); status != 404 || code != "NotAuthorizedOrNotFound" {
					t.Errorf("refused UpdateSecurityList: %d %s, want 404 NotAuthorizedOrNotFound", status, code)
				}
			}
			nodes := seeded.SecurityLists["nodes"] // in compartment net
			_, err = f.vcn.GetSecurityList(t.Context(), core.GetSecurityListRequest{SecurityListId: &nodes})
			if allowed := err == nil; allowed != tt.getOtherCompRO {
				t.Errorf("GetSecurityList in compartment net allowed=%v (%v), want %v", allowed, err, tt.getOtherCompRO)
			}
		})
	}
}

func TestPolicyStatementsWithErrorsAreRefusedNamingTheWord(t *testing.T) {
	tests := []struct {
		statement string
		want      string // part of the message: the word's position and what is allowed
	}{
		{"Allow dynamic-group ccm to usee load-balancers in tenancy", `word 5 ("usee"): the verb must be one of inspect, read, use, manage`},
		{"Allow dynamic-group ccm to use load-balancer in tenancy", `word 6 ("load-balancer"): unknown resource type`},
		{"Allow dynamic-group ccm to use load-balancers in compartment nosuch", `word 9 ("nosuch"): no compartment of that name; declared: cluster`},
		{"Allow dynamic-group ccm to use load-balancers in compartment cluster where request.operation='X'", `word 10 ("where"): conditions (where ...) are not supported`},
		{"Deny group ops to use load-balancers in tenancy", `word 1 ("Deny"): a statement starts with Allow`},
		{"Allow ccm to use load-balancers in tenancy", `word 2 ("ccm"): the subject must be`},
		{"Allow group ops to use load-balancers", `word 7 (end of statement): expected "in tenancy"`},
		{"Allow group ops to use load-balancers in tenancy please", `word 9 ("please"): end of statement expected`},
	}
	for _, tt := range tests {
		t.Run(tt.statement, func(t *testing.T) {
			srv := ocitest.New(ocitest.Options{})
			defer srv.Close()
			srv.AddCompartment("cluster")
			err := srv.SetPolicy("Allow group ops to read instances in tenancy", tt.statement)
			if !errors.Is(err, ocitest.ErrPolicySyntax) {
				t.Fatalf("got %v, want ErrPolicySyntax", err)
			}
			if !strings.Contains(err.Error(), "statement 2") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("message %q does not name statement 2 and %q", err, tt.want)
			}
			if got, _ := srv.Policy(); !slices.Equal(got, ocitest.DefaultPolicy()) {
				t.Errorf("the policy changed despite the error: %q", got)
			}
		})
	}
}

func TestTenancySeedLoadsItsPolicyAndRefusesABadOne(t *testing.T) {
	// Empty and IAM off (no tenancy means no policy to test under; the test is not about IAM): the test seeds the default tenancy itself, to see Seed load its policy.
	srv := ocitest.New(ocitest.Options{EmptyTenancy: true, AllowAll: true})
	defer srv.Close()
	ten := ocitest.DefaultTenancy()
	ten.Instances[0].Compartment = "elsewhere"
	ten.Policy = []string{"Allow any-user to read instance-family in compartment cluter"}
	_, err := srv.Seed(ten)
	for _, want := range []string{`instances[0] (node-1).compartment: no compartment "elsewhere"`, `policy[0]`, `("cluter"): no compartment of that name`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Seed error %v does not contain %q", err, want)
		}
	}
	ten = ocitest.DefaultTenancy()
	ten.Policy = []string{"Allow any-user to read instance-family in compartment cluster"}
	if _, err := srv.Seed(ten); err != nil {
		t.Fatal(err)
	}
	got, loaded := srv.Policy()
	if diff := cmp.Diff(ten.Policy, got); !loaded || diff != "" {
		t.Errorf("policy after Seed (-want +got):\n%s", diff)
	}
}

func TestAdminAPILoadsReportsAndRemovesThePolicy(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	seeded := f.srv.Seeded()
	id := seeded.Instances["node-1"]
	get := func() error {
		_, err := f.compute.GetInstance(t.Context(), core.GetInstanceRequest{InstanceId: &id})
		return err
	}
	if status, body := admin(t, f.srv, "PUT", "/ocitest/policy", `{"statements":["Allow group g to reed instances in tenancy"]}`); status != 400 || !strings.Contains(string(body), "reed") {
		t.Fatalf("bad statement: %d %s, want 400 naming it", status, body)
	}

	statements := []string{"Allow group g to read load-balancers in tenancy"}
	body, _ := json.Marshal(map[string][]string{"statements": statements})
	if status, b := admin(t, f.srv, "PUT", "/ocitest/policy", string(body)); status != 204 {
		t.Fatalf("PUT: %d %s", status, b)
	}
	if err := get(); err == nil {
		t.Fatal("GetInstance allowed by a policy about load balancers only")
	}
	status, b := admin(t, f.srv, "GET", "/ocitest/policy", "")
	var got struct{ Statements []string }
	_ = json.Unmarshal(b, &got)
	if diff := cmp.Diff(statements, got.Statements); status != 200 || diff != "" {
		t.Errorf("GET: %d (-want +got):\n%s", status, diff)
	}
	if status, _ := admin(t, f.srv, "DELETE", "/ocitest/policy", ""); status != 204 {
		t.Fatalf("DELETE: %d", status)
	}
	if err := get(); err == nil {
		t.Fatal("GetInstance allowed with no statements")
	}
	if status, b := admin(t, f.srv, "PUT", "/ocitest/policy", `{"allowAll":true}`); status != 204 {
		t.Fatalf("PUT allowAll: %d %s", status, b)
	}
	if err := get(); err != nil {
		t.Fatalf("GetInstance with IAM off: %v", err)
	}
	if _, b := admin(t, f.srv, "GET", "/ocitest/policy", ""); !strings.Contains(string(b), `"allowAll":true`) {
		t.Errorf("GET with IAM off: %s, want allowAll", b)
	}
}

func TestDeniedCallsAreCountedAndRecorded(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	seeded := f.srv.Seeded()
	f.srv.DenyAll()
	id := seeded.Instances["node-1"]
	if _, err := f.compute.GetInstance(t.Context(), core.GetInstanceRequest{InstanceId: &id}); err == nil {
		t.Fatal("GetInstance allowed under DenyAll")
	}
	c := f.srv.Calls()
	if got := []int{c.Op("GetInstance"), c.Status(404)}; !cmp.Equal(got, []int{1, 1}) {
		t.Errorf("GetInstance calls, 404s = %v, want [1 1]", got)
	}
	want := []ocitest.Denial{{Operation: "GetInstance", Verb: "read", ResourceType: "instances",
		Compartment: seeded.Compartment, Resource: id}}
	if diff := cmp.Diff(want, f.srv.Denials()); diff != "" {
		t.Errorf("denials (-want +got):\n%s", diff)
	}
}

func TestCallsOnResourcesInAnotherCompartmentAreDeniedWhateverTheirKind(t *testing.T) {
	ten := ocitest.DefaultTenancy()
	ten.Compartments = []string{"other"}
	ten.VCN.Compartment = "other"
	ten.Subnets[2].Compartment = "other" // nodes
	ten.SecurityLists[2].Compartment = "other"
	ten.Instances[2].Compartment = "other"
	ten.ReservedPublicIPs[0].Compartment = "other"
	ten.ReservedPublicIPs[0].IP = "198.51.100.250"
	f := newCoreFixture(t, ocitest.Options{Tenancy: &ten})
	seeded := f.srv.Seeded()
	if err := f.srv.SetPolicy("Allow any-user to manage all-resources in compartment cluster"); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	vnicOf := func(name string) *string { return f.srv.InstanceVNICs(seeded.Instances[name])[0].Id }
	tests := []struct {
		name    string
		call    func() error
		allowed bool
	}{
		{"GetVcn", func() error {
			_, err := f.vcn.GetVcn(ctx, core.GetVcnRequest{VcnId: new(seeded.VCN)})
			return err
		}, false},
		{"GetSubnet lb-1", func() error {
			_, err := f.vcn.GetSubnet(ctx, core.GetSubnetRequest{SubnetId: new(seeded.Subnets["lb-1"])})
			return err
		}, true},
		{"GetSubnet nodes", func() error {
			_, err := f.vcn.GetSubnet(ctx, core.GetSubnetRequest{SubnetId: new(seeded.Subnets["nodes"])})
			return err
		}, false},
		{"ListPrivateIps of the nodes subnet", func() error {
			_, err := f.vcn.ListPrivateIps(ctx, core.ListPrivateIpsRequest{SubnetId: new(seeded.Subnets["nodes"])})
			return err
		}, false},
		{"GetVnic node-1", func() error {
			_, err := f.vcn.GetVnic(ctx, core.GetVnicRequest{VnicId: vnicOf("node-1")})
			return err
		}, true},
		{"GetVnic node-3", func() error {
			_, err := f.vcn.GetVnic(ctx, core.GetVnicRequest{VnicId: vnicOf("node-3")})
			return err
		}, false},
		{"GetPublicIpByIpAddress of the reserved IP", func() error {
			_, err := f.vcn.GetPublicIpByIpAddress(ctx, core.GetPublicIpByIpAddressRequest{
				GetPublicIpByIpAddressDetails: core.GetPublicIpByIpAddressDetails{IpAddress: new("198.51.100.250")}})
			return err
		}, false},
		{"GetSecurityList nodes", func() error {
			_, err := f.vcn.GetSecurityList(ctx, core.GetSecurityListRequest{SecurityListId: new(seeded.SecurityLists["nodes"])})
			return err
		}, false},
		{"ListAvailabilityDomains needs no policy", func() error {
			_, err := f.ident.ListAvailabilityDomains(ctx, identity.ListAvailabilityDomainsRequest{CompartmentId: new(seeded.Compartments["other"])})
			return err
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if tt.allowed {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("allowed")
			}
			if status, code, _ := ociErr(t, err); status != 404 || code != "NotAuthorizedOrNotFound" {
				t.Fatalf("got %d %s, want 404 NotAuthorizedOrNotFound", status, code)
			}
		})
	}
}

func TestSeedingTwiceMakesAFreshCompartmentThatTheNameThenMeans(t *testing.T) {
	srv := ocitest.New(ocitest.Options{}) // the first seed: DefaultTenancy
	defer srv.Close()
	first := srv.Seeded()
	ten := ocitest.DefaultTenancy()
	ten.VCN.CIDR, ten.Subnets = "10.1.0.0/16", nil
	ten.Instances, ten.ReservedPublicIPs, ten.SecurityLists = nil, nil, nil
	second, err := srv.Seed(ten)
	if err != nil {
		t.Fatal(err)
	}
	if first.Compartment == second.Compartment {
		t.Errorf("both seeds in compartment %s, want a fresh one", first.Compartment)
	}
	if got := srv.Compartments()["cluster"]; got != second.Compartment {
		t.Errorf("cluster names %s, want the second seed's %s", got, second.Compartment)
	}
}
