// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package signing

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/common"
)

func rawProvider(tb testing.TB) common.ConfigurationProvider {
	tb.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return common.NewRawConfigurationProvider("ocid1.tenancy.oc1..t", "ocid1.user.oc1..u", "us-phoenix-1", "aa:bb", string(pemKey), nil)
}

func request(tb testing.TB) *http.Request {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, "https://iaas.us-phoenix-1.oraclecloud.com/20160918/instances/ocid1.instance.oc1..i", nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Date", "Sun, 06 Dec 2026 20:00:00 GMT")
	return req
}

func TestAParsedKeySignsAsTheRawProviderDoes(t *testing.T) {
	raw := rawProvider(t)
	parsed, key, err := ParsedKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := parsed.PrivateRSAKey(); got != key {
		t.Error("PrivateRSAKey does not return the key parsed once")
	}
	if a, _ := parsed.KeyID(); a != "ocid1.tenancy.oc1..t/ocid1.user.oc1..u/aa:bb" {
		t.Errorf("KeyID = %q", a)
	}
	// RSA PKCS#1 v1.5 signatures are deterministic: the same request signs the same.
	want, got := request(t), request(t)
	if err := common.DefaultRequestSigner(raw).Sign(want); err != nil {
		t.Fatal(err)
	}
	if err := common.DefaultRequestSigner(parsed).Sign(got); err != nil {
		t.Fatal(err)
	}
	if got.Header.Get("Authorization") != want.Header.Get("Authorization") {
		t.Errorf("signature differs:\n%s\n%s", got.Header.Get("Authorization"), want.Header.Get("Authorization"))
	}
}

func TestABadKeyIsAnError(t *testing.T) {
	bad := common.NewRawConfigurationProvider("t", "u", "r", "f", "not a key", nil)
	if _, _, err := ParsedKey(bad); err == nil {
		t.Error("ParsedKey accepted a provider whose key does not parse")
	}
}

// BenchmarkSign: one request signed with the SDK's raw provider (the PEM parsed per request) and
// with ParsedKey's.
func BenchmarkSign(b *testing.B) {
	raw := rawProvider(b)
	parsed, _, err := ParsedKey(raw)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		p    common.ConfigurationProvider
	}{{"raw", raw}, {"parsed-once", parsed}} {
		b.Run(bc.name, func(b *testing.B) {
			signer := common.DefaultRequestSigner(bc.p)
			for b.Loop() {
				if err := signer.Sign(request(b)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
