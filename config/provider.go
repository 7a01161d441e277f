// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"crypto/md5"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/common/auth"

	"github.com/oci-ccm/oci-ccm/internal/signing"
)

// ErrNoKey is returned by ConfigurationProvider when user-principal auth has neither auth.key
// nor auth.keyFile.
var ErrNoKey = errors.New("no private key: set auth.key or auth.keyFile, or useInstancePrincipals: true")

// ErrFingerprintMismatch is returned by ConfigurationProvider when auth.fingerprint is not the
// fingerprint of the configured key's public half. OCI would reject every signed request, with
// an error that does not say why, so this is caught at startup.
var ErrFingerprintMismatch = errors.New("auth.fingerprint does not match the private key")

// ConfigurationProvider builds the oci-go-sdk configuration provider the config asks for.
//
// User principals: the key comes from auth.key or is read from auth.keyFile, and is decrypted
// with auth.passphrase here, once, so a wrong passphrase or a key that does not match
// auth.fingerprint fails at startup instead of on the first OCI call.
//
// Instance principals: the SDK's provider is constructed only here, never by Load or Validate,
// because constructing it contacts the instance metadata service (the SDK retries that for
// minutes and cannot be cancelled). The region is taken from auth.region when set.
//
// Workload identity (useWorkloadIdentity): the SDK's token-exchange provider, built from
// Config.WorkloadIdentity; it exchanges the service account token on the first signed request,
// not here.
//
// The Config must be valid (Load and Open return it so); this checks only what it needs to build
// the provider.
func (c *Config) ConfigurationProvider() (common.ConfigurationProvider, error) {
	return c.configurationProvider(auth.InstancePrincipalConfigurationProviderForRegion)
}

// instancePrincipalFunc constructs an instance-principal provider; a seam so tests can check
// the choice of mode and the error path without an instance metadata service.
type instancePrincipalFunc func(region common.Region) (common.ConfigurationProvider, error)

func (c *Config) configurationProvider(newInstancePrincipal instancePrincipalFunc) (common.ConfigurationProvider, error) {
	if c.UseWorkloadIdentity {
		return c.workloadIdentityProvider(newInstancePrincipal)
	}
	if c.UseInstancePrincipals {
		p, err := newInstancePrincipal(common.Region(c.Auth.Region))
		if err != nil {
			return nil, fmt.Errorf("instance principals: %w", err)
		}
		return p, nil
	}

	a := &c.Auth
	key := a.Key.Reveal()
	if a.KeyFile != "" {
		b, err := os.ReadFile(a.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("auth.keyFile: %w", err) // names the path, never the content
		}
		key = string(b)
	}
	if key == "" {
		return nil, ErrNoKey
	}
	var passphrase *string
	if a.Passphrase != "" {
		p := a.Passphrase.Reveal()
		passphrase = &p
	}

	// The key is parsed once here, not by the SDK for every request it signs.
	p, rsaKey, err := signing.ParsedKey(common.NewRawConfigurationProvider(a.Tenancy, a.User, a.Region, a.Fingerprint, key, passphrase))
	if err != nil {
		return nil, fmt.Errorf("auth: parse private key (check auth.passphrase): %w", err)
	}
	der, err := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("auth: encode public key: %w", err)
	}
	if got := fingerprint(der); !strings.EqualFold(got, a.Fingerprint) {
		// The key's fingerprint is public (OCI shows it in the console), so naming it helps.
		return nil, fmt.Errorf("%w: the key's fingerprint is %s", ErrFingerprintMismatch, got)
	}
	return p, nil
}

// fingerprint is OCI's API-key fingerprint: MD5 of the DER public key as colon-separated hex.
// MD5 is OCI's definition here, not a security choice.
func fingerprint(publicKeyDER []byte) string {
	sum := md5.Sum(publicKeyDER)
	parts := make([]string, len(sum))
	for i := range sum {
		parts[i] = hex.EncodeToString(sum[i : i+1])
	}
	return strings.Join(parts, ":")
}
