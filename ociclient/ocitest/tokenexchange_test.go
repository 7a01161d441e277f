// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/common/auth"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// jwtFor is a subject token as the token exchange checks it: form, subject and expiry.
func jwtFor(sub string, exp time.Time) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "RS256"}) + "." + enc(map[string]any{"sub": sub, "exp": exp.Unix()}) + ".c2ln"
}

// exchangeProvider is the SDK's token-exchange provider for srv's endpoint.
func exchangeProvider(t *testing.T, srv *ocitest.Server, subjectToken, secret string) common.ConfigurationProvider {
	t.Helper()
	p, err := auth.TokenExchangeConfigurationProviderFromToken(subjectToken, auth.TokenExchangeBuilder{
		DomainUrl: srv.URL(), ClientId: "app", ClientSecret: secret, Region: srv.Region(),
		RequestedTokenType: "urn:oci:token-type:oci-rpst", ResType: "ccm", SubjectTokenType: "jwt"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func listAs(srv *ocitest.Server, p common.ConfigurationProvider) error {
	c, err := loadbalancer.NewLoadBalancerClientWithConfigurationProvider(p)
	if err != nil {
		return err
	}
	c.Host = srv.URL()
	_, err = c.ListLoadBalancers(context.Background(), loadbalancer.ListLoadBalancersRequest{CompartmentId: common.String(srv.Seeded().Compartment)})
	return err
}

func TestTokenExchangeSessionTokenSignsAsTheSubject(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	srv.AddTokenExchangeApp("app", "secret")
	if err := listAs(srv, exchangeProvider(t, srv, jwtFor("alice", time.Now().Add(time.Hour)), "secret")); err != nil {
		t.Fatal(err)
	}
	if err := listAs(srv, srv.ConfigurationProvider()); err != nil {
		t.Fatal(err)
	}
	alice := ocitest.Principal{Kind: ocitest.PrincipalTokenExchange, Name: "alice"}
	if got := srv.CallsBy(alice).Op("ListLoadBalancers"); got != 1 {
		t.Errorf("ListLoadBalancers as alice = %d, want 1", got)
	}
	if got := len(srv.Principals()); got != 2 {
		t.Errorf("principals = %v, want alice and the default user", srv.Principals())
	}
}

func TestTokenExchangeRefusesBadClientsAndSubjectTokens(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	srv.AddTokenExchangeApp("app", "secret")
	for name, p := range map[string]common.ConfigurationProvider{
		"wrong secret":          exchangeProvider(t, srv, jwtFor("alice", time.Now().Add(time.Hour)), "nope"),
		"expired subject token": exchangeProvider(t, srv, jwtFor("alice", time.Now().Add(-time.Minute)), "secret"),
		"no subject":            exchangeProvider(t, srv, jwtFor("", time.Now().Add(time.Hour)), "secret"),
		"not a JWT":             exchangeProvider(t, srv, "opaque", "secret"),
	} {
		if err := listAs(srv, p); err == nil || !strings.Contains(err.Error(), "invalid token endpoint response") {
			t.Errorf("%s: err = %v, want the token endpoint's refusal", name, err)
		}
	}
	if n := srv.Calls().Op("ListLoadBalancers"); n != 0 || len(srv.Principals()) != 0 {
		t.Errorf("%d calls reached the API as %v, want none", n, srv.Principals())
	}
}

func TestTokenExchangeAnswersOAuthErrors(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	srv.AddTokenExchangeApp("app", "secret")
	post := func(form url.Values, secret string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/oauth2/v1/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth("app", secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct{ Error string }
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body.Error
	}
	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:token-exchange"},
		"requested_token_type": {"urn:oci:token-type:oci-rpst"}, "res_type": {"ccm"}, "public_key": {"bm90IGEga2V5"},
		"subject_token": {jwtFor("alice", time.Now().Add(time.Hour))}}
	if code, e := post(form, "wrong"); code != http.StatusUnauthorized || e != "invalid_client" {
		t.Errorf("wrong secret: %d %s, want 401 invalid_client", code, e)
	}
	if code, e := post(form, "secret"); code != http.StatusBadRequest || e != "invalid_request" {
		t.Errorf("a public key that is no key: %d %s, want 400 invalid_request", code, e)
	}
	form.Set("grant_type", "client_credentials")
	if code, e := post(form, "secret"); code != http.StatusBadRequest || e != "unsupported_grant_type" {
		t.Errorf("another grant: %d %s, want 400 unsupported_grant_type", code, e)
	}
}

func TestExpiredSessionTokenIsNotAuthenticated(t *testing.T) {
	clock := &ocitest.Clock{}
	srv := ocitest.New(ocitest.Options{Now: clock.Now, SessionTokenLifetime: 10 * time.Minute})
	defer srv.Close()
	srv.AddTokenExchangeApp("app", "secret")
	p := exchangeProvider(t, srv, jwtFor("alice", time.Now().Add(24*time.Hour)), "secret")
	if err := listAs(srv, p); err != nil {
		t.Fatal(err)
	}
	// By the server's clock the token has expired; by the SDK's it has minutes left, so the SDK
	// sends it and OCI refuses it.
	clock.Advance(11 * time.Minute)
	err := listAs(srv, p)
	var se common.ServiceError
	if !errors.As(err, &se) || se.GetHTTPStatusCode() != http.StatusUnauthorized || se.GetCode() != "NotAuthenticated" ||
		!strings.Contains(se.GetMessage(), "session token expired") {
		t.Errorf("err = %v, want 401 NotAuthenticated for the expired session token", err)
	}
}

func TestForgedSessionTokenIsNotAuthenticated(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	other := ocitest.New(ocitest.Options{})
	defer other.Close()
	other.AddTokenExchangeApp("app", "secret")
	// A token another server issued, signed with its session key: well formed, not this
	// server's.
	p := exchangeProvider(t, other, jwtFor("alice", time.Now().Add(time.Hour)), "secret")
	if err := listAs(srv, p); err == nil || !strings.Contains(err.Error(), "not issued by this server") {
		t.Errorf("err = %v, want 401 for a session token this server did not issue", err)
	}
}
