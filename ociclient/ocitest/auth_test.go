// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// signedRequest builds a request for the server signed as the SDK signs it; edit changes it
// before signing, tamper after.
func signedRequest(t *testing.T, srv *ocitest.Server, method, path string, body []byte, edit, tamper func(*http.Request)) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL()+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("Content-Type", "application/json")
	if edit != nil {
		edit(req)
	}
	if err := common.DefaultRequestSigner(srv.ConfigurationProvider()).Sign(req); err != nil {
		t.Fatal(err)
	}
	if tamper != nil {
		tamper(req)
	}
	return req
}

func errorCode(t *testing.T, resp *http.Response) string {
	t.Helper()
	var body struct{ Code string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("error body: %v", err)
	}
	return body.Code
}

func TestSignatureVerification(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	t.Cleanup(srv.Close)
	srv.AddPublicIP(core.PublicIp{IpAddress: new("192.0.2.1")})
	list := "/20160918/instances?compartmentId=" + srv.Seeded().Compartment // the default policy allows it
	body := []byte(`{"ipAddress":"192.0.2.1"}`)
	const lookup = "/20160918/publicIps/actions/getByIpAddress"
	tests := []struct {
		name         string
		method, path string
		edit, tamper func(*http.Request)
		wantStatus   int
	}{
		{name: "signed GET", method: "GET", path: list, wantStatus: 200},
		{name: "signed POST with body", method: "POST", path: lookup, wantStatus: 200},
		{name: "unsigned", method: "GET", path: list, wantStatus: 401,
			tamper: func(r *http.Request) { r.Header.Del("Authorization") }},
		{name: "body changed after signing", method: "POST", path: lookup, wantStatus: 401,
			tamper: func(r *http.Request) {
				r.Body = io.NopCloser(strings.NewReader(`{"ipAddress":"192.0.2.2"}`))
			}},
		{name: "body hash header dropped", method: "POST", path: lookup, wantStatus: 401,
			tamper: func(r *http.Request) { r.Header.Del("x-content-sha256") }},
		{name: "query changed after signing", method: "GET", path: "/20160918/instances?compartmentId=x", wantStatus: 401,
			tamper: func(r *http.Request) { r.URL.RawQuery = "compartmentId=y" }},
		{name: "method changed after signing", method: "GET", path: "/20160918/securityLists/x", wantStatus: 401,
			tamper: func(r *http.Request) { r.Method = "PUT" }},
		{name: "signature garbled", method: "GET", path: "/20160918/vcns?compartmentId=x", wantStatus: 401,
			tamper: func(r *http.Request) {
				r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), `signature="`, `signature="AAAA`, 1))
			}},
		{name: "date ten minutes old", method: "GET", path: "/20160918/vcns?compartmentId=x", wantStatus: 401,
			edit: func(r *http.Request) {
				r.Header.Set("Date", time.Now().Add(-10*time.Minute).UTC().Format(http.TimeFormat))
			}},
		{name: "bearer token instead of signature", method: "GET", path: "/20160918/vcns?compartmentId=x", wantStatus: 401,
			tamper: func(r *http.Request) { r.Header.Set("Authorization", "Bearer Oracle") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b []byte
			if tt.method == "POST" {
				b = body
			}
			before := srv.Calls()
			resp := rawDo(t, srv, signedRequest(t, srv, tt.method, tt.path, b, tt.edit, tt.tamper))
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			calls := srv.Calls().Since(before)
			wantRejected := 0
			if tt.wantStatus == 401 {
				wantRejected = 1
				if code := errorCode(t, resp); code != "NotAuthenticated" {
					t.Errorf("code %s, want NotAuthenticated", code)
				}
			}
			if calls.Total() != 1 || calls.Rejected() != wantRejected || calls.Status(tt.wantStatus) != 1 {
				t.Errorf("calls: total %d rejected %d status %d; want 1, %d, 1", calls.Total(), calls.Rejected(), calls.Status(tt.wantStatus), wantRejected)
			}
		})
	}
}

func TestSDKClientWithUnregisteredKeyIsRejected(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	t.Cleanup(srv.Close)
	_, vcn, _ := coreClients(t, srv, unregisteredProvider(t, srv))
	tenancy := srv.TenancyID()
	_, err := vcn.ListVcns(t.Context(), core.ListVcnsRequest{CompartmentId: &tenancy})
	wantStatus(t, err, 401, "NotAuthenticated")
	if n := srv.Calls().Op("ListVcns"); n != 1 {
		t.Errorf("ListVcns calls = %d, want the rejected one counted", n)
	}
}

func TestNewCredentialsAreTrustedAlongsideTheDefault(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	t.Cleanup(srv.Close)
	creds, err := srv.NewCredentials()
	if err != nil {
		t.Fatal(err)
	}
	p := common.NewRawConfigurationProvider(creds.TenancyID, creds.UserID, srv.Region(), creds.Fingerprint, string(creds.PrivateKeyPEM), nil)
	_, vcn, _ := coreClients(t, srv, p)
	comp := srv.Seeded().Compartment // where the default policy lets every signed caller list VCNs
	if _, err := vcn.ListVcns(t.Context(), core.ListVcnsRequest{CompartmentId: &comp}); err != nil {
		t.Fatalf("second user rejected: %v", err)
	}
	_, vcn, _ = coreClients(t, srv, srv.ConfigurationProvider())
	if _, err := vcn.ListVcns(t.Context(), core.ListVcnsRequest{CompartmentId: &comp}); err != nil {
		t.Fatalf("default user rejected: %v", err)
	}
}

func TestUnemulatedPathsAreNotFoundAndCounted(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	_, err := f.compute.ListImages(t.Context(), core.ListImagesRequest{CompartmentId: new("x")})
	wantStatus(t, err, 404, "NotAuthorizedOrNotFound")
	if calls := f.srv.Calls(); calls.Total() != 1 || calls.Status(404) != 1 || len(calls.Ops()) != 0 {
		t.Errorf("calls %v; want 1 total, one 404, no operation", calls)
	}
}
