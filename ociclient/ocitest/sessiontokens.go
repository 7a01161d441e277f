// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"
)

// Session tokens, as far as ocitest models them.
//
// OCI's session tokens (the user-principal session token of a token exchange, the resource
// principal session token of OKE workload identity) are JWTs signed by OCI that carry the
// public half of a session key the client generated; the client signs requests with that key
// and sends keyId "ST$<token>" (oci-go-sdk v65.130.0, common/auth/federation_client.go,
// tokenExchangeFederationClient.SecurityToken; resource_principal_key_provider.go, KeyID).
// ocitest issues such tokens, RS256-signed with a key of its own, with the claims the SDK reads
// (sub, tenant, res_tenant, exp, iat) and the session key as a "jwk" claim. A request whose keyId is a
// session token passes when the token is one this server signed, has not expired by the
// server's clock (Options.Now) and the request signature verifies with its session key;
// otherwise it answers 401 NotAuthenticated, as OCI does. What the real tokens hold beyond the
// claims the SDK reads is not modelled.

// DefaultSessionTokenLifetime is how long a session token lasts unless
// Options.SessionTokenLifetime says otherwise: an hour, the longest an OCI user-principal session
// token lasts [OCI docs, "Token-based Authentication for the CLI": 5 to 60 minutes].
const DefaultSessionTokenLifetime = time.Hour

// sessionIssuer signs and verifies session tokens. It has its own lock.
type sessionIssuer struct {
	now     func() time.Time
	tenancy string

	mu       sync.Mutex
	key      *rsa.PrivateKey // made on first use: most tests never need it
	lifetime time.Duration
}

func newSessionIssuer(now func() time.Time, lifetime time.Duration, tenancy string) *sessionIssuer {
	if lifetime <= 0 {
		lifetime = DefaultSessionTokenLifetime
	}
	return &sessionIssuer{now: now, tenancy: tenancy, lifetime: lifetime}
}

// signingKey returns the issuer's key, generating it on first use.
func (s *sessionIssuer) signingKey() (*rsa.PrivateKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key == nil {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, fmt.Errorf("generate the session token signing key: %w", err)
		}
		s.key = k
	}
	return s.key, nil
}

// SetSessionTokenLifetime changes how long the session tokens issued from now on last (zero or
// negative: DefaultSessionTokenLifetime). The SDK renews a token five minutes before it expires
// (common/auth/jwt.go, bufferTimeBeforeTokenExpiration), so a lifetime just over five minutes
// makes it renew a few seconds after each exchange; one of five minutes or less makes every
// request fail, because the SDK then renews between reading the key and the token of one
// signature.
func (s *Server) SetSessionTokenLifetime(d time.Duration) {
	if d <= 0 {
		d = DefaultSessionTokenLifetime
	}
	s.sessions.mu.Lock()
	defer s.sessions.mu.Unlock()
	s.sessions.lifetime = d
}

// sessionClaims are the claims of a session token ocitest issues.
type sessionClaims struct {
	Subject string `json:"sub"`
	Tenant  string `json:"tenant"`
	// ResTenant is the tenancy as resource principals read it (resource_principal_key_provider.go,
	// TenancyOCIDClaimKey); the token exchange's provider reads "tenant".
	ResTenant string          `json:"res_tenant"`
	Issued    int64           `json:"iat"`
	Expires   int64           `json:"exp"`
	Kind      PrincipalKind   `json:"ptype"`
	ResType   string          `json:"res_type,omitempty"`
	JWK       json.RawMessage `json:"jwk"`
	IssuedBy  string          `json:"iss"`
}

// issue returns a session token for p carrying the session key pub.
func (s *sessionIssuer) issue(p Principal, pub *rsa.PublicKey, resType string) (string, error) {
	key, err := s.signingKey()
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	lifetime := s.lifetime
	s.mu.Unlock()
	now := s.now()
	jwk, err := json.Marshal(map[string]string{"kty": "RSA", "alg": "RS256", "use": "sig",
		"n": b64(pub.N.Bytes()), "e": b64(big.NewInt(int64(pub.E)).Bytes())})
	if err != nil {
		return "", err
	}
	claims := sessionClaims{Subject: p.Name, Tenant: s.tenancy, ResTenant: s.tenancy, Issued: now.Unix(), Expires: now.Add(lifetime).Unix(),
		Kind: p.Kind, ResType: resType, JWK: jwk, IssuedBy: "ocitest"}
	return signJWT(key, claims)
}

// verify checks that token is a session token this issuer signed and that it has not expired,
// and returns its session key and principal.
func (s *sessionIssuer) verify(token string) (*rsa.PublicKey, Principal, error) {
	key, err := s.signingKey()
	if err != nil {
		return nil, Principal{}, err
	}
	var c sessionClaims
	if err := verifyJWT(&key.PublicKey, token, &c); err != nil {
		return nil, Principal{}, fmt.Errorf("session token: %w", err)
	}
	if !s.now().Before(time.Unix(c.Expires, 0)) {
		return nil, Principal{}, errors.New("session token expired")
	}
	var jwk struct{ N, E string }
	if err := json.Unmarshal(c.JWK, &jwk); err != nil {
		return nil, Principal{}, errors.New("session token: malformed jwk claim")
	}
	n, errN := base64.RawURLEncoding.DecodeString(jwk.N)
	e, errE := base64.RawURLEncoding.DecodeString(jwk.E)
	if errN != nil || errE != nil {
		return nil, Principal{}, errors.New("session token: malformed jwk claim")
	}
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	return pub, Principal{Kind: c.Kind, Name: c.Subject}, nil
}

// signJWT returns an RS256 JWT of claims.
func signJWT(key *rsa.PrivateKey, claims any) (string, error) {
	header, err := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT"})
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	signing := b64(header) + "." + b64(payload)
	digest := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	if err != nil {
		return "", err
	}
	return signing + "." + b64(sig), nil
}

// verifyJWT checks an RS256 JWT's signature with pub and decodes its claims into v.
func verifyJWT(pub *rsa.PublicKey, token string, v any) error {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return errors.New("not a JWT")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return errors.New("malformed JWT signature")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(pub, crypto.SHA256, digest[:], sig) != nil {
		return errors.New("not issued by this server")
	}
	return decodeJWTPayload(parts[1], v)
}

// decodeJWTPayload decodes a JWT's base64url payload into v.
func decodeJWTPayload(part string, v any) error {
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(part, "="))
	if err != nil {
		return errors.New("malformed JWT payload")
	}
	if err := json.Unmarshal(payload, v); err != nil {
		return errors.New("malformed JWT claims")
	}
	return nil
}

// parsePublicKey reads an RSA public key sent by the SDK: PEM (OKE workload identity's podKey)
// or base64 DER (the token exchange's public_key), both PKIX.
func parsePublicKey(s string) (*rsa.PublicKey, error) {
	der := []byte(nil)
	if block, _ := pem.Decode([]byte(s)); block != nil {
		der = block.Bytes
	} else {
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
		if err != nil {
			return nil, errors.New("public key is neither PEM nor base64 DER")
		}
		der = b
	}
	k, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, fmt.Errorf("public key: %w", err)
	}
	rk, ok := k.(*rsa.PublicKey)
	if !ok {
		return nil, errors.New("public key is not RSA")
	}
	return rk, nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
