// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func tcpIngress(cidr string, port int) core.IngressSecurityRule {
	return core.IngressSecurityRule{Protocol: new("6"), Source: new(cidr),
		TcpOptions: &core.TcpOptions{DestinationPortRange: &core.PortRange{Min: new(port), Max: new(port)}}}
}

func TestUpdateSecurityListWithCurrentETagAppliesAndChangesETag(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	_, sl, _ := smallNetwork(f.srv)
	got, err := f.vcn.GetSecurityList(t.Context(), core.GetSecurityListRequest{SecurityListId: sl.Id})
	if err != nil {
		t.Fatal(err)
	}
	if got.Etag == nil || *got.Etag == "" {
		t.Fatal("GetSecurityList returned no ETag")
	}
	ingress := []core.IngressSecurityRule{tcpIngress("0.0.0.0/0", 80), tcpIngress("10.0.0.0/16", 10256)}
	egress := []core.EgressSecurityRule{{Protocol: new("all"), Destination: new("0.0.0.0/0")}}
	upd, err := f.vcn.UpdateSecurityList(t.Context(), core.UpdateSecurityListRequest{
		SecurityListId: sl.Id, IfMatch: got.Etag,
		UpdateSecurityListDetails: core.UpdateSecurityListDetails{
			IngressSecurityRules: ingress, EgressSecurityRules: egress, DisplayName: new("renamed")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if upd.Etag == nil || *upd.Etag == *got.Etag {
		t.Fatalf("ETag after update = %v, want a new one (was %s)", upd.Etag, *got.Etag)
	}
	stored, _ := f.srv.SecurityList(*sl.Id)
	if diff := cmp.Diff(ingress, stored.IngressSecurityRules); diff != "" {
		t.Errorf("stored ingress (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(egress, stored.EgressSecurityRules); diff != "" {
		t.Errorf("stored egress (-want +got):\n%s", diff)
	}
	if *stored.DisplayName != "renamed" || *upd.DisplayName != "renamed" {
		t.Errorf("display name %q (response %q), want renamed", *stored.DisplayName, *upd.DisplayName)
	}
	again, err := f.vcn.GetSecurityList(t.Context(), core.GetSecurityListRequest{SecurityListId: sl.Id})
	if err != nil {
		t.Fatal(err)
	}
	if *again.Etag != *upd.Etag {
		t.Errorf("GetSecurityList ETag %s, want the update's %s", *again.Etag, *upd.Etag)
	}
}

func TestUpdateSecurityListLeavesOmittedFieldsAlone(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	vcn := f.srv.AddVCN(core.Vcn{})
	egress := []core.EgressSecurityRule{{Protocol: new("all"), Destination: new("0.0.0.0/0")}}
	sl := f.srv.AddSecurityList(core.SecurityList{VcnId: vcn.Id, EgressSecurityRules: egress})
	_, err := f.vcn.UpdateSecurityList(t.Context(), core.UpdateSecurityListRequest{
		SecurityListId:            sl.Id,
		UpdateSecurityListDetails: core.UpdateSecurityListDetails{IngressSecurityRules: []core.IngressSecurityRule{tcpIngress("0.0.0.0/0", 443)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := f.srv.SecurityList(*sl.Id)
	if diff := cmp.Diff(egress, stored.EgressSecurityRules); diff != "" {
		t.Errorf("egress changed though not sent (-want +got):\n%s", diff)
	}
	if len(stored.IngressSecurityRules) != 1 {
		t.Errorf("%d ingress rules, want 1", len(stored.IngressSecurityRules))
	}
}

func TestUpdateSecurityListWithStaleETagFailsWith412(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	_, sl, _ := smallNetwork(f.srv)
	got, err := f.vcn.GetSecurityList(t.Context(), core.GetSecurityListRequest{SecurityListId: sl.Id})
	if err != nil {
		t.Fatal(err)
	}
	// Someone edits the list in the console between our read and our write.
	f.srv.EditSecurityList(*sl.Id, func(l *core.SecurityList) {
		l.IngressSecurityRules = append(l.IngressSecurityRules, tcpIngress("192.168.0.0/16", 22))
	})
	_, err = f.vcn.UpdateSecurityList(t.Context(), core.UpdateSecurityListRequest{
		SecurityListId: sl.Id, IfMatch: got.Etag,
		UpdateSecurityListDetails: core.UpdateSecurityListDetails{IngressSecurityRules: []core.IngressSecurityRule{}},
	})
	wantStatus(t, err, http.StatusPreconditionFailed, "NoEtagMatch")
	stored, _ := f.srv.SecurityList(*sl.Id)
	if len(stored.IngressSecurityRules) != 1 {
		t.Errorf("the console's rule was overwritten: %d ingress rules, want 1", len(stored.IngressSecurityRules))
	}
}

func TestUpdateSecurityListRejectsInvalidRules(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	_, sl, _ := smallNetwork(f.srv)
	many := make([]core.IngressSecurityRule, 201)
	for i := range many {
		many[i] = tcpIngress("0.0.0.0/0", 1000+i)
	}
	tests := []struct {
		name    string
		details core.UpdateSecurityListDetails
	}{
		{"201 ingress rules", core.UpdateSecurityListDetails{IngressSecurityRules: many}},
		{"source not a CIDR", core.UpdateSecurityListDetails{IngressSecurityRules: []core.IngressSecurityRule{tcpIngress("10.0.0.1", 80)}}},
		{"tcp options on udp", core.UpdateSecurityListDetails{IngressSecurityRules: []core.IngressSecurityRule{
			{Protocol: new("17"), Source: new("0.0.0.0/0"), TcpOptions: &core.TcpOptions{}}}}},
		{"port 0", core.UpdateSecurityListDetails{IngressSecurityRules: []core.IngressSecurityRule{tcpIngress("0.0.0.0/0", 0)}}},
		{"unknown protocol", core.UpdateSecurityListDetails{EgressSecurityRules: []core.EgressSecurityRule{
			{Protocol: new("tcp"), Destination: new("0.0.0.0/0")}}}},
		{"no destination", core.UpdateSecurityListDetails{EgressSecurityRules: []core.EgressSecurityRule{{Protocol: new("all")}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.vcn.UpdateSecurityList(t.Context(), core.UpdateSecurityListRequest{
				SecurityListId: sl.Id, UpdateSecurityListDetails: tt.details})
			wantStatus(t, err, http.StatusBadRequest, "InvalidParameter")
		})
	}
	if stored, _ := f.srv.SecurityList(*sl.Id); len(stored.IngressSecurityRules)+len(stored.EgressSecurityRules) != 0 {
		t.Errorf("a rejected update changed the list: %+v", stored)
	}
	exactly200 := many[:200]
	if _, err := f.vcn.UpdateSecurityList(t.Context(), core.UpdateSecurityListRequest{SecurityListId: sl.Id,
		UpdateSecurityListDetails: core.UpdateSecurityListDetails{IngressSecurityRules: exactly200}}); err != nil {
		t.Errorf("200 ingress rules (the capacity) rejected: %v", err)
	}
}

func TestSecurityListReadsOfUnknownListAreNotFound(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	id := new("ocid1.securitylist.oc1.phx.nope")
	_, err := f.vcn.GetSecurityList(t.Context(), core.GetSecurityListRequest{SecurityListId: id})
	wantStatus(t, err, 404, "NotAuthorizedOrNotFound")
	_, err = f.vcn.UpdateSecurityList(t.Context(), core.UpdateSecurityListRequest{SecurityListId: id})
	wantStatus(t, err, 404, "NotAuthorizedOrNotFound")
	if f.srv.EditSecurityList(*id, func(*core.SecurityList) {}) {
		t.Error("EditSecurityList of an unknown list reported success")
	}
}

func TestListSecurityListsFiltersByVCNAndName(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	vcn, sl, _ := smallNetwork(f.srv)
	other := f.srv.AddVCN(core.Vcn{})
	f.srv.AddSecurityList(core.SecurityList{VcnId: other.Id, DisplayName: new("nodes")})
	f.srv.AddSecurityList(core.SecurityList{VcnId: vcn.Id, DisplayName: new("lb")})
	resp, err := f.vcn.ListSecurityLists(t.Context(), core.ListSecurityListsRequest{
		CompartmentId: vcn.CompartmentId, VcnId: vcn.Id, DisplayName: new("nodes")})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Items) != 1 || *resp.Items[0].Id != *sl.Id {
		t.Errorf("got %d lists, want just %s", len(resp.Items), *sl.Id)
	}
}

// Fifty writers read the same ETag and race to update: OCI lets exactly one win; the rest must
// re-read. Then they go again with the new ETag, and again exactly one wins.
func TestConcurrentUpdatesWithOneETagHaveExactlyOneWinner(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	_, sl, _ := smallNetwork(f.srv)
	for round := range 2 {
		cur, err := f.vcn.GetSecurityList(t.Context(), core.GetSecurityListRequest{SecurityListId: sl.Id})
		if err != nil {
			t.Fatal(err)
		}
		var (
			wg                sync.WaitGroup
			mu                sync.Mutex
			wins, stale, othr int
		)
		for i := range 50 {
			wg.Go(func() {
				_, err := f.vcn.UpdateSecurityList(t.Context(), core.UpdateSecurityListRequest{
					SecurityListId: sl.Id, IfMatch: cur.Etag,
					UpdateSecurityListDetails: core.UpdateSecurityListDetails{
						IngressSecurityRules: []core.IngressSecurityRule{tcpIngress("0.0.0.0/0", 1000+round*100+i)}},
				})
				mu.Lock()
				defer mu.Unlock()
				var se common.ServiceError
				switch {
				case err == nil:
					wins++
				case errors.As(err, &se) && se.GetHTTPStatusCode() == http.StatusPreconditionFailed:
					stale++
				default:
					othr++
				}
			})
		}
		wg.Wait()
		if wins != 1 || stale != 49 || othr != 0 {
			t.Errorf("round %d: %d won, %d got 412, %d other errors; want 1, 49, 0", round, wins, stale, othr)
		}
	}
	if n := f.srv.Calls().Op("UpdateSecurityList"); n != 100 {
		t.Errorf("UpdateSecurityList calls = %d, want 100", n)
	}
}
