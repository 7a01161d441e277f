// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/common"

	"github.com/oci-ccm/oci-ccm/internal/signing"
)

// Credentials is a user identity whose public key the server trusts.
type Credentials struct {
	TenancyID     string
	UserID        string
	Fingerprint   string
	PrivateKeyPEM []byte
}

// KeyID is the keyId the SDK puts in the Authorization header for these credentials.
func (c Credentials) KeyID() string {
	return c.TenancyID + "/" + c.UserID + "/" + c.Fingerprint
}

// NewCredentials generates an RSA key for a new user and registers its public key with the server.
func (s *Server) NewCredentials() (Credentials, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return Credentials{}, fmt.Errorf("generate key: %w", err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return Credentials{}, fmt.Errorf("marshal public key: %w", err)
	}
	sum := md5.Sum(der) // OCI API-key fingerprints are MD5 of the DER public key, by definition.
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02x", b)
	}
	c := Credentials{
		TenancyID:   s.opts.TenancyID,
		UserID:      s.NewID("user"),
		Fingerprint: strings.Join(parts, ":"),
		PrivateKeyPEM: pem.EncodeToMemory(&pem.Block{
			Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key),
		}),
	}
	s.ctl.registerKey(c.KeyID(), &key.PublicKey, c.Principal())
	return c, nil
}

// ConfigurationProvider returns an SDK configuration provider for the server's default user,
// created on first use. Requests signed with it pass the server's signature check.
func (s *Server) ConfigurationProvider() common.ConfigurationProvider {
	s.defaultCredsOnce.Do(func() {
		c, err := s.NewCredentials()
		if err != nil {
			panic(fmt.Sprintf("ocitest: %v", err)) // crypto/rand failing leaves nothing to test
		}
		s.defaultCreds = c
	})
	c := s.defaultCreds
	raw := common.NewRawConfigurationProvider(c.TenancyID, c.UserID, s.opts.Region, c.Fingerprint, string(c.PrivateKeyPEM), nil)
	// Parsed once, as config parses an API key: the SDK would parse the PEM for every request.
	p, _, err := signing.ParsedKey(raw)
	if err != nil {
		panic(fmt.Sprintf("ocitest: %v", err)) // the key was made a moment ago
	}
	return p
}
