// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestEndpointRootCAs(t *testing.T) {
	template := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "ocitest CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &mustKey(t).PublicKey, mustKey(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	notPEM := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(notPEM, []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}

	pool, err := Endpoint{URL: "https://127.0.0.1:8443", CAFile: caFile}.RootCAs()
	if err != nil {
		t.Fatalf("RootCAs: %v", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: pool}); err != nil {
		t.Errorf("the CA from caFile is not trusted by the pool: %v", err)
	}

	if pool, err := (Endpoint{URL: "https://x"}).RootCAs(); pool != nil || err != nil {
		t.Errorf("RootCAs without caFile = %v, %v; want nil, nil (system roots)", pool, err)
	}
	if _, err := (Endpoint{CAFile: notPEM}).RootCAs(); !errors.Is(err, ErrNoCertificates) {
		t.Errorf("RootCAs(junk) error = %v, want ErrNoCertificates", err)
	}
	if _, err := (Endpoint{CAFile: filepath.Join(dir, "missing.pem")}).RootCAs(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("RootCAs(missing) error = %v, want fs.ErrNotExist", err)
	}
}

func TestEndpointEnabled(t *testing.T) {
	if (Endpoint{}).Enabled() {
		t.Error("zero Endpoint reports Enabled")
	}
	if !(Endpoint{URL: "http://127.0.0.1:1"}).Enabled() {
		t.Error("Endpoint with a URL reports not Enabled")
	}
}
