// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/identity"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// coreFixture is a server with the Core and Identity SDK clients pointed at it. SDK retries and
// circuit breakers are off, so each call a test makes is exactly one request.
type coreFixture struct {
	srv     *ocitest.Server
	compute core.ComputeClient
	vcn     core.VirtualNetworkClient
	ident   identity.IdentityClient
}

func newCoreFixture(t *testing.T, opts ocitest.Options) *coreFixture {
	t.Helper()
	srv := ocitest.New(opts)
	t.Cleanup(srv.Close)
	f := &coreFixture{srv: srv}
	f.compute, f.vcn, f.ident = coreClients(t, srv, srv.ConfigurationProvider())
	return f
}

// coreClients builds the three clients for a server and a signer.
func coreClients(t *testing.T, srv *ocitest.Server, p common.ConfigurationProvider) (core.ComputeClient, core.VirtualNetworkClient, identity.IdentityClient) {
	t.Helper()
	noRetry := common.NoRetryPolicy()
	compute, err := core.NewComputeClientWithConfigurationProvider(p)
	if err != nil {
		t.Fatalf("compute client: %v", err)
	}
	vcn, err := core.NewVirtualNetworkClientWithConfigurationProvider(p)
	if err != nil {
		t.Fatalf("virtual network client: %v", err)
	}
	ident, err := identity.NewIdentityClientWithConfigurationProvider(p)
	if err != nil {
		t.Fatalf("identity client: %v", err)
	}
	for _, c := range []*common.BaseClient{&compute.BaseClient, &vcn.BaseClient, &ident.BaseClient} {
		c.Host = srv.URL()
		c.HTTPClient = srv.HTTPClient()
		c.Configuration.RetryPolicy = &noRetry
		c.Configuration.CircuitBreaker = nil
	}
	return compute, vcn, ident
}

// unregisteredProvider signs with a fresh key the server has never seen.
func unregisteredProvider(t *testing.T, srv *ocitest.Server) common.ConfigurationProvider {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return common.NewRawConfigurationProvider(srv.TenancyID(), "ocid1.user.oc1..stranger", srv.Region(),
		"00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff", string(pemKey), nil)
}

// serviceErr returns the status and code of an SDK service error, failing the test for any other
// error or none.
func serviceErr(t *testing.T, err error) (int, string) {
	t.Helper()
	var se common.ServiceError
	if !errors.As(err, &se) {
		t.Fatalf("want an OCI service error, got %v", err)
	}
	return se.GetHTTPStatusCode(), se.GetCode()
}

// wantStatus fails unless err is a service error with this status and code.
func wantStatus(t *testing.T, err error, status int, code string) {
	t.Helper()
	if gotStatus, gotCode := serviceErr(t, err); gotStatus != status || gotCode != code {
		t.Fatalf("got %d %s, want %d %s", gotStatus, gotCode, status, code)
	}
}

// smallNetwork seeds a VCN, a security list and a subnet using it.
func smallNetwork(srv *ocitest.Server) (core.Vcn, core.SecurityList, core.Subnet) {
	vcn := srv.AddVCN(core.Vcn{CidrBlock: new("10.0.0.0/16"), DisplayName: new("vcn")})
	sl := srv.AddSecurityList(core.SecurityList{VcnId: vcn.Id, DisplayName: new("nodes")})
	sn := srv.AddSubnet(core.Subnet{VcnId: vcn.Id, CidrBlock: new("10.0.10.0/24"), DisplayName: new("nodes"),
		SecurityListIds: []string{*sl.Id}})
	return vcn, sl, sn
}

// rawDo sends a request as it is (unsigned unless the caller signed it) straight to the server.
func rawDo(t *testing.T, srv *ocitest.Server, req *http.Request) *http.Response {
	t.Helper()
	resp, err := srv.HTTPClient().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}
