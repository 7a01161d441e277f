// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// authScheme is how a route's requests prove who they are.
type authScheme int

const (
	// authSignature requires an OCI request signature by a registered key (every OCI API).
	authSignature authScheme = iota
	// authBearerOracle requires "Authorization: Bearer Oracle" (instance metadata service v2).
	authBearerOracle
	// authNone accepts anything (paths ocitest does not emulate, which answer 404 anyway).
	authNone
)

// maxClockSkew is how far a request's date may be from the server's clock, as OCI enforces, so
// a captured request cannot be replayed later.
const maxClockSkew = 5 * time.Minute

// maxSignedBody bounds the body read to check its hash; OCI request bodies are small JSON.
const maxSignedBody = 8 << 20

// errUnauthenticated is the cause of every authentication failure; the wrapped detail is for
// the response message and never contains key material.
var errUnauthenticated = errors.New("the required information to complete authentication was not provided or was incorrect")

// authenticate checks a request as its route asks and returns who made it (the zero Principal
// for routes that take no signature).
func (c *control) authenticate(scheme authScheme, r *http.Request) (Principal, error) {
	switch scheme {
	case authNone:
		return Principal{}, nil
	case authBearerOracle:
		if r.Header.Get("Authorization") != "Bearer Oracle" {
			return Principal{}, fmt.Errorf("%w: instance metadata v2 requires the header Authorization: Bearer Oracle", errUnauthenticated)
		}
		return Principal{}, nil
	default:
		return c.verifySignature(r)
	}
}

// verifySignature checks an OCI (draft-cavage HTTP signatures) request signature: the signing
// string is "name: value" per signed header joined by newlines, where (request-target) is the
// lower-case method and request URI and host is the Host header; the signature is RSA PKCS#1
// v1.5 over its SHA-256. For requests with a body the body must match x-content-sha256, and the
// body is restored for the handler. The key is a registered API key or, for keyId
// "ST$<token>", the session key in a session token this server issued (sessiontokens.go).
func (c *control) verifySignature(r *http.Request) (Principal, error) {
	auth := r.Header.Get("Authorization")
	scheme, rest, _ := strings.Cut(auth, " ")
	if !strings.EqualFold(scheme, "Signature") {
		return Principal{}, fmt.Errorf("%w: missing Signature authorization", errUnauthenticated)
	}
	params, err := parseSignatureParams(rest)
	if err != nil {
		return Principal{}, fmt.Errorf("%w: %w", errUnauthenticated, err)
	}
	if v, ok := params["version"]; ok && v != "1" {
		return Principal{}, fmt.Errorf("%w: unsupported signature version %q", errUnauthenticated, v)
	}
	if !strings.EqualFold(params["algorithm"], "rsa-sha256") {
		return Principal{}, fmt.Errorf("%w: unsupported signature algorithm %q", errUnauthenticated, params["algorithm"])
	}
	pub, principal, err := c.publicKey(params["keyId"])
	if err != nil {
		return Principal{}, fmt.Errorf("%w: %w", errUnauthenticated, err)
	}
	sig, err := base64.StdEncoding.DecodeString(params["signature"])
	if err != nil || len(sig) == 0 {
		return Principal{}, fmt.Errorf("%w: malformed signature", errUnauthenticated)
	}

	signed := strings.Fields(strings.ToLower(params["headers"]))
	required := []string{"date", "(request-target)", "host"}
	hasBody := r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch
	if hasBody {
		required = append(required, "content-length", "content-type", "x-content-sha256")
	}
	for _, h := range required {
		if !slices.Contains(signed, h) {
			return Principal{}, fmt.Errorf("%w: header %q must be signed", errUnauthenticated, h)
		}
	}

	date, err := http.ParseTime(r.Header.Get("Date"))
	if err != nil {
		return Principal{}, fmt.Errorf("%w: missing or malformed date header", errUnauthenticated)
	}
	if skew := c.now().Sub(date); skew > maxClockSkew || skew < -maxClockSkew {
		return Principal{}, fmt.Errorf("%w: date header is more than %v from the server's clock", errUnauthenticated, maxClockSkew)
	}

	if hasBody {
		if err := checkBody(r); err != nil {
			return Principal{}, fmt.Errorf("%w: %w", errUnauthenticated, err)
		}
	}

	lines := make([]string, len(signed))
	for i, h := range signed {
		var v string
		switch h {
		case "(request-target)":
			v = strings.ToLower(r.Method) + " " + r.RequestURI
		case "host":
			v = r.Host
		default:
			v = r.Header.Get(h)
		}
		lines[i] = h + ": " + v
	}
	digest := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, digest[:], sig); err != nil {
		return Principal{}, fmt.Errorf("%w: signature does not verify", errUnauthenticated)
	}
	return principal, nil
}

// checkBody reads the body, compares it with the signed content-length and x-content-sha256,
// and puts it back for the handler.
func checkBody(r *http.Request) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxSignedBody+1))
	if err != nil {
		return fmt.Errorf("read body: %w", err)
	}
	if len(body) > maxSignedBody {
		return fmt.Errorf("body larger than %d bytes", maxSignedBody)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if n, err := strconv.Atoi(r.Header.Get("Content-Length")); err != nil || n != len(body) {
		return errors.New("content-length does not match the body")
	}
	sum := sha256.Sum256(body)
	if r.Header.Get("x-content-sha256") != base64.StdEncoding.EncodeToString(sum[:]) {
		return errors.New("x-content-sha256 does not match the body")
	}
	return nil
}

// parseSignatureParams parses `k1="v1",k2="v2"` (values may also be unquoted tokens).
func parseSignatureParams(s string) (map[string]string, error) {
	params := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; {
		key, rest, ok := strings.Cut(s, "=")
		if !ok {
			return nil, errors.New("malformed signature parameters")
		}
		key = strings.TrimSpace(key)
		var val string
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return nil, errors.New("unterminated quoted signature parameter")
			}
			val, rest = rest[1:1+end], rest[2+end:]
		} else {
			val, rest, _ = strings.Cut(rest, ",")
			rest = "," + rest
		}
		params[key] = val
		rest = strings.TrimSpace(rest)
		if rest != "" && !strings.HasPrefix(rest, ",") {
			return nil, errors.New("malformed signature parameters")
		}
		s = strings.TrimSpace(strings.TrimPrefix(rest, ","))
	}
	for _, k := range []string{"keyId", "signature", "headers"} {
		if params[k] == "" {
			return nil, fmt.Errorf("signature parameter %s is missing", k)
		}
	}
	return params, nil
}
