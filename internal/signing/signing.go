// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package signing keeps what the SDK's request signing needs parsed once. The SDK's raw
// configuration provider (oci-go-sdk common/configuration.go, rawConfigurationProvider.
// PrivateRSAKey) parses its PEM key again for every request it signs, which with Go's RSA key
// checks costs more CPU than the signature itself; a CCM signs thousands of requests a minute.
package signing

import (
	"crypto/rsa"

	"github.com/oracle/oci-go-sdk/v65/common"
)

// ParsedKey returns p with its private key parsed once, and that key. Use it only for a provider
// whose key never changes (an API signing key): providers that renew their keys (instance
// principals, workload identity, session tokens) must be asked every time.
func ParsedKey(p common.ConfigurationProvider) (common.ConfigurationProvider, *rsa.PrivateKey, error) {
	key, err := p.PrivateRSAKey()
	if err != nil {
		return nil, nil, err
	}
	return parsedKey{ConfigurationProvider: p, key: key}, key, nil
}

// parsedKey is a provider whose PrivateRSAKey answers with the key parsed once. An RSA key is
// only read when signing, so one key serves concurrent requests.
type parsedKey struct {
	common.ConfigurationProvider
	key *rsa.PrivateKey
}

func (p parsedKey) PrivateRSAKey() (*rsa.PrivateKey, error) { return p.key, nil }
