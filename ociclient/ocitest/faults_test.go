// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// outcomes calls GetVcn and ListVcns n times each and records each call's result as "200" or
// the service error's "status code".
func outcomes(t *testing.T, f *coreFixture, vcn core.Vcn, n int) (get, list []string) {
	t.Helper()
	result := func(err error) string {
		if err == nil {
			return "200"
		}
		s, code := serviceErr(t, err)
		return fmt.Sprint(s, " ", code)
	}
	for range n {
		_, err := f.vcn.GetVcn(t.Context(), core.GetVcnRequest{VcnId: vcn.Id})
		get = append(get, result(err))
		_, err = f.vcn.ListVcns(t.Context(), core.ListVcnsRequest{CompartmentId: vcn.CompartmentId})
		list = append(list, result(err))
	}
	return get, list
}

func TestInjectedFaultsMatchOperationClassTimesAndProbability(t *testing.T) {
	const ok, unavailable, internal = "200", "503 ServiceUnavailable", "500 InternalServerError"
	tests := []struct {
		name              string
		fault             ocitest.Fault
		wantGet, wantList []string
		wantFaulted       int
	}{
		{name: "one operation, twice", fault: ocitest.Fault{Operation: "GetVcn", Status: 503, Times: 2},
			wantGet: []string{unavailable, unavailable, ok}, wantList: []string{ok, ok, ok}, wantFaulted: 2},
		{name: "a class, until removed", fault: ocitest.Fault{Class: ocitest.ClassRead, Status: 500},
			wantGet: []string{internal, internal, internal}, wantList: []string{internal, internal, internal}, wantFaulted: 6},
		{name: "probability 1 is always", fault: ocitest.Fault{Operation: "ListVcns", Status: 429, Probability: 1},
			wantGet: []string{ok, ok, ok}, wantList: []string{"429 TooManyRequests", "429 TooManyRequests", "429 TooManyRequests"}, wantFaulted: 3},
		{name: "explicit code", fault: ocitest.Fault{Operation: "GetVcn", Status: 409, Code: "IncorrectState", Times: 1},
			wantGet: []string{"409 IncorrectState", ok, ok}, wantList: []string{ok, ok, ok}, wantFaulted: 1},
		{name: "412 gets NoEtagMatch", fault: ocitest.Fault{Operation: "GetVcn", Status: 412, Times: 1},
			wantGet: []string{"412 NoEtagMatch", ok, ok}, wantList: []string{ok, ok, ok}, wantFaulted: 1},
		{name: "writes only", fault: ocitest.Fault{Class: ocitest.ClassWrite, Status: 500},
			wantGet: []string{ok, ok, ok}, wantList: []string{ok, ok, ok}, wantFaulted: 0},
		{name: "tiny probability practically never", fault: ocitest.Fault{Status: 500, Probability: 1e-12},
			wantGet: []string{ok, ok, ok}, wantList: []string{ok, ok, ok}, wantFaulted: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newCoreFixture(t, ocitest.Options{})
			vcn := f.srv.AddVCN(core.Vcn{})
			f.srv.InjectFault(tt.fault)
			get, list := outcomes(t, f, vcn, 3)
			if diff := cmp.Diff([][]string{tt.wantGet, tt.wantList}, [][]string{get, list}); diff != "" {
				t.Errorf("GetVcn, ListVcns results (-want +got):\n%s", diff)
			}
			if calls := f.srv.Calls(); calls.Faulted() != tt.wantFaulted || calls.Rejected() != tt.wantFaulted {
				t.Errorf("faulted %d rejected %d, want %d each", calls.Faulted(), calls.Rejected(), tt.wantFaulted)
			}
		})
	}
}

func TestRemovingAFaultStopsIt(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	vcn := f.srv.AddVCN(core.Vcn{})
	remove := f.srv.InjectFault(ocitest.Fault{Status: 500})
	_, err := f.vcn.GetVcn(t.Context(), core.GetVcnRequest{VcnId: vcn.Id})
	wantStatus(t, err, 500, "InternalServerError")
	remove()
	remove() // harmless
	if _, err := f.vcn.GetVcn(t.Context(), core.GetVcnRequest{VcnId: vcn.Id}); err != nil {
		t.Errorf("after remove: %v", err)
	}
}

func TestFaultRetryAfterHeaderReachesTheClient(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	t.Cleanup(srv.Close)
	srv.InjectFault(ocitest.Fault{Status: 429, RetryAfter: "7"})
	resp := rawDo(t, srv, signedRequest(t, srv, "GET", "/20160918/vcns?compartmentId=x", nil, nil, nil))
	if resp.StatusCode != 429 || resp.Header.Get("retry-after") != "7" {
		t.Errorf("status %d retry-after %q, want 429 and 7", resp.StatusCode, resp.Header.Get("retry-after"))
	}
}

// Latency is asserted by what it does, not by a stopwatch: a short delay still answers and is
// counted; a delay longer than the client's deadline makes the client give up.
func TestLatencyFaultsDelayCallsAndAreCounted(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	vcn := f.srv.AddVCN(core.Vcn{})
	f.srv.InjectFault(ocitest.Fault{Operation: "GetVcn", Latency: time.Millisecond, Times: 2})
	for range 3 {
		if _, err := f.vcn.GetVcn(t.Context(), core.GetVcnRequest{VcnId: vcn.Id}); err != nil {
			t.Fatal(err)
		}
	}
	if calls := f.srv.Calls(); calls.Faulted() != 2 || calls.Rejected() != 0 || calls.Status(200) != 3 {
		t.Errorf("faulted %d rejected %d ok %d, want 2, 0, 3", calls.Faulted(), calls.Rejected(), calls.Status(200))
	}

	// A raw request, because the SDK (v65.130.0) races with itself when the context ends
	// mid-call: common.Retry returns a response its goroutine is still writing.
	f.srv.InjectFault(ocitest.Fault{Operation: "ListVcns", Latency: time.Hour})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	req := signedRequest(t, f.srv, "GET", "/20160918/vcns?compartmentId=x", nil, nil, nil).WithContext(ctx)
	resp, err := f.srv.HTTPClient().Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want the client's deadline", err)
	}
}

func TestDroppedConnectionIsAClientError(t *testing.T) {
	for _, tls := range []bool{false, true} {
		f := newCoreFixture(t, ocitest.Options{TLS: tls})
		vcn := f.srv.AddVCN(core.Vcn{})
		f.srv.InjectFault(ocitest.Fault{Operation: "GetVcn", DropConnection: true, Times: 1})
		_, err := f.vcn.GetVcn(t.Context(), core.GetVcnRequest{VcnId: vcn.Id})
		var se common.ServiceError
		if err == nil || errors.As(err, &se) {
			t.Fatalf("TLS %v: err %v, want a transport error, not an answer", tls, err)
		}
		if _, err := f.vcn.GetVcn(t.Context(), core.GetVcnRequest{VcnId: vcn.Id}); err != nil {
			t.Fatalf("TLS %v: the call after the drop failed: %v", tls, err)
		}
		if calls := f.srv.Calls(); calls.Dropped() != 1 || calls.Op("GetVcn") != 2 || calls.Status(200) != 1 {
			t.Errorf("TLS %v: dropped %d, GetVcn %d, ok %d; want 1, 2, 1", tls, calls.Dropped(), calls.Op("GetVcn"), calls.Status(200))
		}
	}
}

// A fault after the handler models a lost response: the write happened, the caller cannot know.
func TestFaultAfterHandlerKeepsTheStateChange(t *testing.T) {
	for _, drop := range []bool{false, true} {
		f := newCoreFixture(t, ocitest.Options{})
		_, sl, _ := smallNetwork(f.srv)
		before, err := f.vcn.GetSecurityList(t.Context(), core.GetSecurityListRequest{SecurityListId: sl.Id})
		if err != nil {
			t.Fatal(err)
		}
		f.srv.InjectFault(ocitest.Fault{Operation: "UpdateSecurityList", Status: 503, DropConnection: drop, AfterHandler: true, Times: 1})
		_, err = f.vcn.UpdateSecurityList(t.Context(), core.UpdateSecurityListRequest{SecurityListId: sl.Id, IfMatch: before.Etag,
			UpdateSecurityListDetails: core.UpdateSecurityListDetails{IngressSecurityRules: []core.IngressSecurityRule{tcpIngress("0.0.0.0/0", 80)}}})
		if drop {
			var se common.ServiceError
			if err == nil || errors.As(err, &se) {
				t.Fatalf("drop: err %v, want a transport error", err)
			}
		} else {
			wantStatus(t, err, http.StatusServiceUnavailable, "ServiceUnavailable")
		}
		after, err := f.vcn.GetSecurityList(t.Context(), core.GetSecurityListRequest{SecurityListId: sl.Id})
		if err != nil {
			t.Fatal(err)
		}
		if len(after.IngressSecurityRules) != 1 || *after.Etag == *before.Etag {
			t.Errorf("drop %v: %d rules, ETag changed %v; want the update applied", drop, len(after.IngressSecurityRules), *after.Etag != *before.Etag)
		}
	}
}

func TestCloseEndsInjectedLatency(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	srv.InjectFault(ocitest.Fault{Latency: time.Hour})
	_, vcn, _ := coreClients(t, srv, srv.ConfigurationProvider())
	errc := make(chan error, 1)
	go func() {
		_, err := vcn.ListVcns(context.Background(), core.ListVcnsRequest{CompartmentId: new("x")})
		errc <- err
	}()
	for srv.Calls().Total() == 0 { // wait until the call is held up in the server
		time.Sleep(time.Millisecond)
	}
	srv.Close() // must return, though the fault asks for an hour
	var se common.ServiceError
	if err := <-errc; err == nil || errors.As(err, &se) {
		t.Errorf("the delayed call ended with %v, want a dropped connection", err)
	}
}
