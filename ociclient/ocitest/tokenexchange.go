// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// The identity-domain token exchange, as far as ocitest models it.
//
// oci-go-sdk's token-exchange provider (v65.130.0, common/auth/workload_identity_federation.go,
// TokenExchangeConfigurationProviderFromIssuer; federation_client.go, newTokenExchangeToken)
// posts a form to <domain URL>/oauth2/v1/token with "Authorization: Basic
// base64(clientId:clientSecret)" and the fields grant_type
// (urn:ietf:params:oauth:grant-type:token-exchange), requested_token_type, subject_token,
// subject_token_type, public_key (its session key, base64 DER), res_type and, when set,
// rpst_exp; it reads a JSON body {"token": "<session token>"}. ocitest serves that path on the
// server itself, so the domain URL is Server.URL().
//
// Checked: the client id and secret are those of an application registered with
// AddTokenExchangeApp (401 invalid_client otherwise); grant_type is the token-exchange grant and
// requested_token_type urn:oci:token-type:oci-rpst; res_type is set; public_key is an RSA key;
// subject_token is a well-formed JWT with a "sub" and an "exp" that has not passed by the
// server's clock (400 invalid_grant otherwise). The subject token's signature is not checked: a
// real domain checks it against the JSON web keys of the identity propagation trust, which
// ocitest does not model. The session token's principal is the subject token's "sub". Errors are
// OAuth 2.0's (RFC 6749 section 5.2: {"error", "error_description"}); which codes a real domain
// sends for each case is assumed, not documented.
//
// Exchanges signed with instance principals (no Basic credentials) are not modelled and
// answer 401.

// TokenExchangeOp is the operation name token exchanges are counted under in Calls.
const TokenExchangeOp = "TokenExchange"

// The OAuth 2.0 token-exchange values the SDK sends.
const (
	tokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
	ociRPSTTokenType   = "urn:oci:token-type:oci-rpst"
)

// tokenApps are the identity-domain applications that may exchange tokens: client id → secret.
type tokenApps struct {
	mu   sync.Mutex
	apps map[string]string
}

// AddTokenExchangeApp registers an identity-domain confidential application whose client id and
// secret may exchange tokens at Server.URL()+"/oauth2/v1/token". A second call for the same id
// replaces its secret.
func (s *Server) AddTokenExchangeApp(clientID, clientSecret string) {
	s.apps.mu.Lock()
	defer s.apps.mu.Unlock()
	if s.apps.apps == nil {
		s.apps.apps = map[string]string{}
	}
	s.apps.apps[clientID] = clientSecret
}

// checkClient reports whether the Basic credentials are a registered application's.
func (a *tokenApps) checkClient(authorization string) bool {
	scheme, cred, _ := strings.Cut(authorization, " ")
	if !strings.EqualFold(scheme, "Basic") {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(cred)
	if err != nil {
		return false
	}
	id, secret, ok := strings.Cut(string(raw), ":")
	a.mu.Lock()
	defer a.mu.Unlock()
	want, known := a.apps[id]
	return ok && known && secret == want
}

func (s *Server) registerTokenExchange() {
	rt := route{op: TokenExchangeOp, auth: authNone} // authenticated by its own client credentials
	s.mux.HandleFunc("POST /oauth2/v1/token", func(w http.ResponseWriter, r *http.Request) {
		s.ctl.serve(rt, w, r, s.exchangeToken)
	})
}

func (s *Server) exchangeToken(w http.ResponseWriter, r *http.Request) {
	if !s.apps.checkClient(r.Header.Get("Authorization")) {
		writeOAuthError(w, r, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return
	}
	if err := r.ParseForm(); err != nil {
		writeOAuthError(w, r, http.StatusBadRequest, "invalid_request", "malformed form body")
		return
	}
	f := r.PostForm
	switch {
	case f.Get("grant_type") != tokenExchangeGrant:
		writeOAuthError(w, r, http.StatusBadRequest, "unsupported_grant_type", "grant_type must be "+tokenExchangeGrant)
		return
	case f.Get("requested_token_type") != ociRPSTTokenType:
		writeOAuthError(w, r, http.StatusBadRequest, "invalid_request", "requested_token_type must be "+ociRPSTTokenType)
		return
	case f.Get("res_type") == "":
		writeOAuthError(w, r, http.StatusBadRequest, "invalid_request", "res_type is required")
		return
	}
	pub, err := parsePublicKey(f.Get("public_key"))
	if err != nil {
		writeOAuthError(w, r, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	sub, err := s.checkSubjectToken(f.Get("subject_token"))
	if err != nil {
		writeOAuthError(w, r, http.StatusBadRequest, "invalid_grant", "subject_token: "+err.Error())
		return
	}
	token, err := s.sessions.issue(Principal{Kind: PrincipalTokenExchange, Name: sub}, pub, f.Get("res_type"))
	if err != nil {
		writeOAuthError(w, r, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	writeJSON(w, r, http.StatusOK, map[string]string{"token": token})
}

// checkSubjectToken checks a subject token's form and expiry and returns its subject.
func (s *Server) checkSubjectToken(token string) (string, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", errors.New("not a JWT")
	}
	var claims struct {
		Sub string   `json:"sub"`
		Exp *float64 `json:"exp"`
	}
	if err := decodeJWTPayload(parts[1], &claims); err != nil {
		return "", err
	}
	switch {
	case claims.Sub == "":
		return "", errors.New(`no "sub" claim`)
	case claims.Exp == nil:
		return "", errors.New(`no "exp" claim`)
	case int64(*claims.Exp) <= s.now().Unix():
		return "", fmt.Errorf("expired at %d", int64(*claims.Exp))
	}
	return claims.Sub, nil
}

// writeOAuthError writes an OAuth 2.0 error response (RFC 6749 section 5.2).
func writeOAuthError(w http.ResponseWriter, r *http.Request, status int, code, description string) {
	setCommonHeaders(w, r)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": description})
}
