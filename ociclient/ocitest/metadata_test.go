// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/identity"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func TestListAvailabilityDomains(t *testing.T) {
	// Empty and IAM off (no tenancy means no policy to test under; the test is not about IAM): the test counts the availability domains it adds itself, the default tenancy's three
	// would hide whether a repeated name is added twice.
	f := newCoreFixture(t, ocitest.Options{EmptyTenancy: true, AllowAll: true})
	for _, name := range []string{"Uocm:PHX-AD-1", "Uocm:PHX-AD-2", "Uocm:PHX-AD-1"} {
		f.srv.AddAvailabilityDomain(name)
	}
	tenancy := f.srv.TenancyID()
	resp, err := f.ident.ListAvailabilityDomains(t.Context(), identity.ListAvailabilityDomainsRequest{CompartmentId: &tenancy})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ad := range resp.Items {
		names = append(names, *ad.Name)
		if ad.Id == nil || *ad.CompartmentId != tenancy {
			t.Errorf("AD %s: id %v compartment %s, want an id and the tenancy", *ad.Name, ad.Id, *ad.CompartmentId)
		}
	}
	if diff := cmp.Diff([]string{"Uocm:PHX-AD-1", "Uocm:PHX-AD-2"}, names); diff != "" {
		t.Errorf("ADs (-want +got):\n%s", diff)
	}
	_, err = f.ident.ListAvailabilityDomains(t.Context(), identity.ListAvailabilityDomainsRequest{CompartmentId: new("")})
	wantStatus(t, err, http.StatusBadRequest, "MissingParameter")
}

func metadataGet(t *testing.T, srv *ocitest.Server, path, auth string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp := rawDo(t, srv, req)
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

func TestInstanceMetadataNeedsTheBearerHeader(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	t.Cleanup(srv.Close)
	srv.SetSelf(*srv.AddInstance(ocitest.Instance{}).Id)
	for _, auth := range []string{"", "Bearer Other", "Signature keyId=\"x\""} {
		if status, _ := metadataGet(t, srv, "/opc/v2/instance/", auth); status != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, status)
		}
	}
	if status, _ := metadataGet(t, srv, "/opc/v2/instance/", "Bearer Oracle"); status != http.StatusOK {
		t.Errorf("with Bearer Oracle: status %d, want 200", status)
	}
	if c := srv.Calls(); c.Op("GetInstanceMetadata") != 4 || c.Status(401) != 3 {
		t.Errorf("metadata calls %d, 401s %d; want 4 and 3", c.Op("GetInstanceMetadata"), c.Status(401))
	}
}

func TestInstanceMetadataDescribesSelf(t *testing.T) {
	// Empty and IAM off (no tenancy means no policy to test under; the test is not about IAM): the default tenancy's node-1 is "self", and the test starts from a server without one.
	srv := ocitest.New(ocitest.Options{Region: "us-ashburn-1", EmptyTenancy: true, AllowAll: true})
	t.Cleanup(srv.Close)
	if status, _ := metadataGet(t, srv, "/opc/v2/instance/", "Bearer Oracle"); status != http.StatusNotFound {
		t.Errorf("no self: status %d, want 404", status)
	}
	vcn := srv.AddVCN(core.Vcn{})
	sn := srv.AddSubnet(core.Subnet{VcnId: vcn.Id, CidrBlock: new("10.0.3.0/24")})
	ad := *srv.AddAvailabilityDomain("Uocm:US-ASHBURN-AD-2").Name
	inst := srv.AddInstance(ocitest.Instance{
		Instance: core.Instance{DisplayName: new("Node-7"), AvailabilityDomain: &ad, FaultDomain: new("FAULT-DOMAIN-3"),
			Shape: new("VM.Standard.A1.Flex"), FreeformTags: map[string]string{"role": "worker"}},
		VNICs: []core.Vnic{{SubnetId: sn.Id}},
	})
	if !srv.SetSelf(*inst.Id) {
		t.Fatal("SetSelf refused a seeded instance")
	}
	status, body := metadataGet(t, srv, "/opc/v2/instance/", "Bearer Oracle")
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "timeCreated")
	want := map[string]any{
		"id": *inst.Id, "displayName": "Node-7", "hostname": "node-7", "compartmentId": srv.TenancyID(),
		"availabilityDomain": ad, "faultDomain": "FAULT-DOMAIN-3", "region": "iad", "canonicalRegionName": "us-ashburn-1",
		"shape": "VM.Standard.A1.Flex", "state": "RUNNING", "freeformTags": map[string]any{"role": "worker"},
		"regionInfo": map[string]any{"realmKey": "oc1", "realmDomainComponent": "oraclecloud.com", "regionKey": "IAD", "regionIdentifier": "us-ashburn-1"},
	}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}

	leaves := map[string]string{
		"/opc/v2/instance/canonicalRegionName":         "us-ashburn-1",
		"/opc/v2/instance/regionInfo/regionKey":        "IAD",
		"/opc/v2/instance/region":                      "iad",
		"/opc/v2/instance/regionInfo/realmKey":         "oc1",
		"/opc/v2/instance/freeformTags/role":           "worker",
		"/opc/v2/instance/availabilityDomain":          ad,
		"/opc/v2/instance/regionInfo/regionIdentifier": "us-ashburn-1",
	}
	for path, wantLeaf := range leaves {
		if status, body := metadataGet(t, srv, path, "Bearer Oracle"); status != 200 || string(body) != wantLeaf {
			t.Errorf("%s: %d %q, want 200 %q", path, status, body, wantLeaf)
		}
	}
	if status, _ := metadataGet(t, srv, "/opc/v2/instance/nope", "Bearer Oracle"); status != http.StatusNotFound {
		t.Errorf("unknown field: status %d, want 404", status)
	}

	status, body = metadataGet(t, srv, "/opc/v2/vnics/", "Bearer Oracle")
	var vnics []map[string]any
	if err := json.Unmarshal(body, &vnics); status != 200 || err != nil || len(vnics) != 1 {
		t.Fatalf("vnics: %d %s", status, body)
	}
	if vnics[0]["privateIp"] != "10.0.3.2" || vnics[0]["subnetCidrBlock"] != "10.0.3.0/24" || vnics[0]["virtualRouterIp"] != "10.0.3.1" {
		t.Errorf("vnic entry %v", vnics[0])
	}
	if srv.SetSelf("ocid1.instance.oc1.iad.nope") {
		t.Error("SetSelf accepted an unknown instance")
	}
}
