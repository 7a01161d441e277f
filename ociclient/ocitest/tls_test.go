// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func TestTLSServerIsReachableOnlyByClientsThatTrustIt(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{TLS: true}) // the fixture uses srv.HTTPClient()
	if !strings.HasPrefix(f.srv.URL(), "https://") {
		t.Fatalf("URL %s, want https", f.srv.URL())
	}
	vcn := f.srv.AddVCN(core.Vcn{})
	if _, err := f.vcn.GetVcn(t.Context(), core.GetVcnRequest{VcnId: vcn.Id}); err != nil {
		t.Fatalf("trusting client: %v", err)
	}

	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(f.srv.CACertPEM()) {
		t.Fatal("CACertPEM is not a PEM certificate")
	}
	byName := strings.Replace(f.srv.URL(), "127.0.0.1", "localhost", 1)
	for _, host := range []string{f.srv.URL(), byName} {
		vcnClient := f.vcn
		vcnClient.Host = host
		vcnClient.HTTPClient = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
		if _, err := vcnClient.GetVcn(t.Context(), core.GetVcnRequest{VcnId: vcn.Id}); err != nil {
			t.Errorf("%s with the CA from CACertPEM: %v", host, err)
		}
	}

	untrusting := f.vcn
	untrusting.HTTPClient = &http.Client{}
	_, err := untrusting.GetVcn(t.Context(), core.GetVcnRequest{VcnId: vcn.Id})
	var unknownAuthority x509.UnknownAuthorityError
	if !errors.As(err, &unknownAuthority) {
		t.Errorf("client without the CA: err %v, want an unknown-authority error", err)
	}
}

func TestPlainServerHasNoCACert(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	t.Cleanup(srv.Close)
	if srv.CACertPEM() != nil || !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") {
		t.Errorf("URL %s CACertPEM %d bytes, want plain http on loopback and none", srv.URL(), len(srv.CACertPEM()))
	}
}

func TestListenOnAGivenAddressAndRefuseABusyOne(t *testing.T) {
	srv, err := ocitest.Listen(ocitest.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	busy := strings.TrimPrefix(srv.URL(), "http://")
	if _, err := ocitest.Listen(ocitest.Options{Addr: busy}); err == nil {
		t.Errorf("a second server on %s started", busy)
	}
}
