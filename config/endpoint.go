// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// ErrNoCertificates is returned by Endpoint.RootCAs when the CA file holds no PEM certificate.
var ErrNoCertificates = errors.New("no PEM certificates found")

// Enabled reports whether the endpoint override is in use.
func (e Endpoint) Enabled() bool { return e.URL != "" }

// RootCAs returns the pool of CAs to trust for the endpoint: the certificates in CAFile, or nil
// when CAFile is empty (meaning the system roots).
func (e Endpoint) RootCAs() (*x509.CertPool, error) {
	if e.CAFile == "" {
		return nil, nil
	}
	pemData, err := os.ReadFile(e.CAFile)
	if err != nil {
		return nil, fmt.Errorf("endpoint.caFile: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemData) {
		return nil, fmt.Errorf("endpoint.caFile %s: %w", e.CAFile, ErrNoCertificates)
	}
	return pool, nil
}
