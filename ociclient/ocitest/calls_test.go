// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func TestCallsCountOperationsClassesStatusesAndRejections(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	_, sl, sn := smallNetwork(f.srv)
	for range 2 {
		if _, err := f.vcn.GetSubnet(t.Context(), core.GetSubnetRequest{SubnetId: sn.Id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.vcn.UpdateSecurityList(t.Context(), core.UpdateSecurityListRequest{SecurityListId: sl.Id, IfMatch: new("stale")}); err == nil {
		t.Fatal("stale ETag accepted")
	}
	remove := f.srv.InjectFault(ocitest.Fault{Operation: "GetSecurityList", Status: 500})
	if _, err := f.vcn.GetSecurityList(t.Context(), core.GetSecurityListRequest{SecurityListId: sl.Id}); err == nil {
		t.Fatal("fault not injected")
	}
	remove()
	if _, err := f.vcn.UpdateSecurityList(t.Context(), core.UpdateSecurityListRequest{SecurityListId: sl.Id}); err != nil {
		t.Fatal(err)
	}

	calls := f.srv.Calls()
	got := map[string]int{
		"GetSubnet": calls.Op("GetSubnet"), "GetSecurityList": calls.Op("GetSecurityList"),
		"UpdateSecurityList": calls.Op("UpdateSecurityList"), "read": calls.Class(ocitest.ClassRead),
		"write": calls.Class(ocitest.ClassWrite), "poll": calls.Class(ocitest.ClassPoll), "total": calls.Total(),
		"200": calls.Status(200), "412": calls.Status(412), "500": calls.Status(500),
		"rejected": calls.Rejected(), "faulted": calls.Faulted(), "dropped": calls.Dropped(),
	}
	want := map[string]int{
		"GetSubnet": 2, "GetSecurityList": 1, "UpdateSecurityList": 2, "read": 3, "write": 2, "poll": 0, "total": 5,
		"200": 3, "412": 1, "500": 1, "rejected": 1, "faulted": 1, "dropped": 0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	wantTable := "" +
		"operation           class  calls\n" +
		"GetSecurityList     read       1\n" +
		"GetSubnet           read       2\n" +
		"UpdateSecurityList  write      2\n" +
		"reads 3  writes 2  polls 0  total 5  rejected 1  dropped 0"
	if diff := cmp.Diff(wantTable, calls.String()); diff != "" {
		t.Errorf("String() (-want +got):\n%s", diff)
	}

	if _, err := f.vcn.GetSubnet(t.Context(), core.GetSubnetRequest{SubnetId: sn.Id}); err != nil {
		t.Fatal(err)
	}
	if d := f.srv.Calls().Since(calls); d.Total() != 1 || d.Op("GetSubnet") != 1 || d.Op("UpdateSecurityList") != 0 || d.Status(200) != 1 {
		t.Errorf("Since: %v; want the one GetSubnet", d)
	}
	f.srv.ResetCalls()
	if c := f.srv.Calls(); c.Total() != 0 || c.Op("GetSubnet") != 0 || len(c.Ops()) != 0 {
		t.Errorf("after ResetCalls: %v", c)
	}
}

func TestCallsSurviveAJSONRoundTrip(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	vcn := f.srv.AddVCN(core.Vcn{})
	if _, err := f.vcn.GetVcn(t.Context(), core.GetVcnRequest{VcnId: vcn.Id}); err != nil {
		t.Fatal(err)
	}
	orig := f.srv.Calls()
	b, err := json.Marshal(orig)
	if err != nil {
		t.Fatal(err)
	}
	var back ocitest.Calls
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Op("GetVcn") != 1 || back.Class(ocitest.ClassRead) != 1 || back.Total() != 1 || back.Status(200) != 1 {
		t.Errorf("round trip of %s gave %v", b, back)
	}
}

func TestServerRateLimitAnswers429PerClass(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	_, sl, _ := smallNetwork(f.srv)
	// A bucket that refills once in 1000 s: exactly the burst gets through.
	f.srv.SetRateLimit(ocitest.ClassRead, 0.001, 2)
	var got []string
	for range 3 {
		_, err := f.vcn.GetSecurityList(t.Context(), core.GetSecurityListRequest{SecurityListId: sl.Id})
		if err != nil {
			status, code := serviceErr(t, err)
			got = append(got, strconv.Itoa(status)+" "+code)
			continue
		}
		got = append(got, "200")
	}
	if diff := cmp.Diff([]string{"200", "200", "429 TooManyRequests"}, got); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
	if _, err := f.vcn.UpdateSecurityList(t.Context(), core.UpdateSecurityListRequest{SecurityListId: sl.Id}); err != nil {
		t.Errorf("a write was limited by the read bucket: %v", err)
	}
	if c := f.srv.Calls(); c.Status(429) != 1 || c.Rejected() != 1 || c.Op("GetSecurityList") != 3 {
		t.Errorf("429s %d rejected %d GetSecurityList %d; want 1, 1, 3", c.Status(429), c.Rejected(), c.Op("GetSecurityList"))
	}

	f.srv.SetRateLimitRetryAfter(true)
	resp := rawDo(t, f.srv, signedRequest(t, f.srv, "GET", "/20160918/securityLists/"+*sl.Id, nil, nil, nil))
	if secs, err := strconv.Atoi(resp.Header.Get("retry-after")); resp.StatusCode != http.StatusTooManyRequests || err != nil || secs < 1 {
		t.Errorf("status %d retry-after %q, want 429 with whole seconds >= 1", resp.StatusCode, resp.Header.Get("retry-after"))
	}

	f.srv.SetRateLimit(ocitest.ClassRead, 0, 0)
	if _, err := f.vcn.GetSecurityList(t.Context(), core.GetSecurityListRequest{SecurityListId: sl.Id}); err != nil {
		t.Errorf("after removing the limit: %v", err)
	}
}
