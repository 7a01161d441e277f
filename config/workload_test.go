// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// wiConfig is a valid workload identity configuration for srv's token exchange, with the
// service account token to exchange in a file.
func wiConfig(t *testing.T, srv *ocitest.Server, subject string) *config.Config {
	t.Helper()
	srv.AddTokenExchangeApp("ccm-app", "s3cr3t")
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte(subjectJWT(subject, time.Now().Add(time.Hour))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(strings.NewReader("useWorkloadIdentity: true\nauth:\n  region: us-phoenix-1\n" +
		"compartment: " + srv.Seeded().Compartment + "\nloadBalancer:\n  subnet1: " + srv.Seeded().LoadBalancerSubnets[0] + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.WorkloadIdentity = config.WorkloadIdentity{DomainURL: srv.URL(), ClientID: "ccm-app", ClientSecret: "s3cr3t",
		ResourceType: "ccm", TokenPath: path}
	return cfg
}

// subjectJWT is a service account token as far as the token exchange looks at it: a JWT with
// a subject and an expiry. Its signature is not checked (see ocitest/tokenexchange.go).
func subjectJWT(sub string, exp time.Time) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." +
		enc(map[string]any{"sub": sub, "exp": exp.Unix(), "iss": "https://kubernetes.default.svc"}) + ".c2ln"
}

func TestWorkloadIdentityFromEnvironmentReadsUpstreamVariables(t *testing.T) {
	env := map[string]string{
		"OCI_WORKLOAD_IDENTITY_DOMAIN_URL":                                " https://idcs-x.identity.oraclecloud.com ",
		"OCI_WORKLOAD_IDENTITY_CLIENT_ID":                                 "id",
		"OCI_WORKLOAD_IDENTITY_CLIENT_SECRET":                             "secret",
		"OCI_WORKLOAD_IDENTITY_RESOURCE_TYPE":                             "ccm",
		"OCI_WORKLOAD_IDENTITY_SUBJECT_TOKEN_TYPE":                        "jwt",
		"OCI_WORKLOAD_IDENTITY_REQUESTED_TOKEN_TYPE":                      "urn:oci:token-type:oci-rpst",
		"OCI_WORKLOAD_IDENTITY_TOKEN_PATH":                                "/var/run/token",
		"OCI_WORKLOAD_IDENTITY_RPST_EXP":                                  "60",
		"OCI_WORKLOAD_IDENTITY_PUBLIC_KEY":                                "pk",
		"OCI_WORKLOAD_IDENTITY_USE_INSTANCE_PRINCIPAL_FOR_TOKEN_EXCHANGE": "TRUE",
	}
	got, err := config.WorkloadIdentityFromEnvironment(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	want := config.WorkloadIdentity{DomainURL: "https://idcs-x.identity.oraclecloud.com", ClientID: "id", ClientSecret: "secret",
		ResourceType: "ccm", SubjectTokenType: "jwt", RequestedTokenType: "urn:oci:token-type:oci-rpst", TokenPath: "/var/run/token",
		RPSTExp: "60", PublicKey: "pk", UseInstancePrincipal: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WorkloadIdentityFromEnvironment (-want +got):\n%s", diff)
	}
}

func TestWorkloadIdentityFromEnvironmentRefusesANonBooleanInstancePrincipalFlag(t *testing.T) {
	_, err := config.WorkloadIdentityFromEnvironment(func(k string) string {
		if k == config.EnvWorkloadIdentityUseInstancePrincipal {
			return "yes"
		}
		return ""
	})
	if err == nil || !strings.Contains(err.Error(), config.EnvWorkloadIdentityUseInstancePrincipal+`="yes"`) ||
		!strings.Contains(err.Error(), "true or false") {
		t.Errorf("err = %v, want one naming the variable, the value and what is allowed", err)
	}
}

func TestValidateWorkloadIdentity(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	tests := []struct {
		name   string
		change func(c *config.Config)
		want   []config.FieldError
	}{
		{name: "complete", change: func(*config.Config) {}},
		{name: "instance principal exchange needs no client", change: func(c *config.Config) {
			c.WorkloadIdentity.ClientID, c.WorkloadIdentity.ClientSecret, c.WorkloadIdentity.UseInstancePrincipal = "", "", true
		}},
		{name: "exclusive with instance principals", change: func(c *config.Config) { c.UseInstancePrincipals = true },
			want: []config.FieldError{{Field: "useWorkloadIdentity", Value: "true",
				Detail: "not allowed together with useInstancePrincipals: true; choose one way to authenticate"}}},
		{name: "region required", change: func(c *config.Config) { c.Auth.Region = "" },
			want: []config.FieldError{{Field: "auth.region", Detail: "required; when running on an OCI instance it is inferred from instance metadata (Complete)"}}},
		{name: "no user key", change: func(c *config.Config) { c.Auth.KeyFile = "/k.pem" },
			want: []config.FieldError{{Field: "auth.keyFile", Value: "/k.pem",
				Detail: "not allowed with useWorkloadIdentity: true; the CCM signs with the session key of the exchanged token"}}},
		{name: "every variable missing", change: func(c *config.Config) { c.WorkloadIdentity = config.WorkloadIdentity{} },
			want: []config.FieldError{
				{Field: "OCI_WORKLOAD_IDENTITY_DOMAIN_URL", Detail: "required with useWorkloadIdentity: true: the identity domain's URL, e.g. https://idcs-….identity.oraclecloud.com"},
				{Field: "OCI_WORKLOAD_IDENTITY_RESOURCE_TYPE", Detail: "required with useWorkloadIdentity: true: the res_type of the identity propagation trust"},
				{Field: "OCI_WORKLOAD_IDENTITY_CLIENT_ID", Detail: "required with useWorkloadIdentity: true unless OCI_WORKLOAD_IDENTITY_USE_INSTANCE_PRINCIPAL_FOR_TOKEN_EXCHANGE=true"},
				{Field: "OCI_WORKLOAD_IDENTITY_CLIENT_SECRET", Detail: "required with useWorkloadIdentity: true unless OCI_WORKLOAD_IDENTITY_USE_INSTANCE_PRINCIPAL_FOR_TOKEN_EXCHANGE=true"},
			}},
		{name: "domain URL with a path", change: func(c *config.Config) { c.WorkloadIdentity.DomainURL = "https://idcs-x.example.com/oauth2/v1/token" },
			want: []config.FieldError{{Field: "OCI_WORKLOAD_IDENTITY_DOMAIN_URL", Value: "https://idcs-x.example.com/oauth2/v1/token",
				Detail: "must have no path, query or fragment (not even a trailing slash): the SDK appends /oauth2/v1/token and refuses any other"}}},
		{name: "domain URL not a URL", change: func(c *config.Config) { c.WorkloadIdentity.DomainURL = "idcs-x.example.com" },
			want: []config.FieldError{{Field: "OCI_WORKLOAD_IDENTITY_DOMAIN_URL", Value: "idcs-x.example.com",
				Detail: "must be an https URL such as https://idcs-….identity.oraclecloud.com"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := wiConfig(t, srv, "system:serviceaccount:kube-system:ccm")
			tt.change(cfg)
			err := cfg.Validate()
			var got []config.FieldError
			var ve *config.ValidationError
			if errors.As(err, &ve) {
				got = ve.Errors
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWorkloadIdentityNeverPrintsTheClientSecret(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	cfg := wiConfig(t, srv, "sub")
	cfg.WorkloadIdentity.ResourceType = ""
	for _, s := range []string{fmt.Sprintf("%v %+v %#v", cfg, cfg.WorkloadIdentity, cfg.WorkloadIdentity), cfg.Validate().Error()} {
		if strings.Contains(s, "s3cr3t") {
			t.Errorf("printed the client secret: %s", s)
		}
	}
}

// listLoadBalancers lists the cluster compartment's load balancers through an ociclient (the
// real SDK) signing with p, against srv. Building the client reads the tenancy, which makes the
// first exchange.
func listLoadBalancers(t *testing.T, srv *ocitest.Server, p common.ConfigurationProvider) error {
	t.Helper()
	o := ociclient.ForServer(srv)
	o.Provider = p
	c, err := ociclient.New(o)
	if err != nil {
		return err
	}
	_, err = c.LoadBalancers.ListLoadBalancers(context.Background(), srv.Seeded().Compartment, "")
	return err
}

func TestWorkloadIdentityProviderSignsAsTheExchangedSubject(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	const sub = "system:serviceaccount:kube-system:cloud-controller-manager"
	cfg := wiConfig(t, srv, sub)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	p, err := cfg.ConfigurationProvider()
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.Calls().Op(ocitest.TokenExchangeOp); n != 0 {
		t.Errorf("building the provider exchanged %d tokens, want none before the first call", n)
	}
	for range 3 {
		if err := listLoadBalancers(t, srv, p); err != nil {
			t.Fatal(err)
		}
	}
	by := srv.CallsBy(ocitest.Principal{Kind: ocitest.PrincipalTokenExchange, Name: sub})
	if got := by.Op("ListLoadBalancers"); got != 3 {
		t.Errorf("ListLoadBalancers as %s: %d, want 3 (principals seen: %v)", sub, got, srv.Principals())
	}
	if got := srv.Calls().Op(ocitest.TokenExchangeOp); got != 1 {
		t.Errorf("token exchanges = %d, want 1: the session token lasts an hour", got)
	}
	if tenancy, err := p.TenancyOCID(); err != nil || tenancy != srv.TenancyID() {
		t.Errorf("TenancyOCID = %q, %v; want the session token's tenant %q", tenancy, err, srv.TenancyID())
	}
}

func TestWorkloadIdentityProviderWithAWrongSecretFailsTheCall(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	cfg := wiConfig(t, srv, "sub")
	cfg.WorkloadIdentity.ClientSecret = "wrong"
	p, err := cfg.ConfigurationProvider()
	if err != nil {
		t.Fatal(err)
	}
	err = listLoadBalancers(t, srv, p)
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("err = %v, want the token endpoint's 401", err)
	}
	if got := srv.Calls().Op("ListLoadBalancers"); got != 0 {
		t.Errorf("ListLoadBalancers reached the server %d times without a session token", got)
	}
}

func TestWorkloadIdentityProviderRenewsTheSessionTokenBeforeItExpires(t *testing.T) {
	// The SDK renews a session token five minutes before its expiry (common/auth/jwt.go); one
	// that lasts three seconds longer than that is renewed within seconds.
	srv := ocitest.New(ocitest.Options{SessionTokenLifetime: 5*time.Minute + 3*time.Second})
	defer srv.Close()
	const sub = "system:serviceaccount:kube-system:ccm"
	cfg := wiConfig(t, srv, sub)
	p, err := cfg.ConfigurationProvider()
	if err != nil {
		t.Fatal(err)
	}
	if err := listLoadBalancers(t, srv, p); err != nil {
		t.Fatal(err)
	}
	first, err := p.KeyID()
	if err != nil {
		t.Fatal(err)
	}
	// Waiting through KeyID, not signed calls: the SDK reads the key and then the token of one
	// signature, each renewing when due, so a token that falls due between the two signs with
	// the old key under the new token (a 401). That race is the SDK's; here the renewal itself
	// is under test.
	for deadline := time.Now().Add(30 * time.Second); srv.Calls().Op(ocitest.TokenExchangeOp) < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the SDK did not renew the session token")
		}
		if _, err := p.KeyID(); err != nil {
			t.Fatal(err)
		}
	}
	renewed, err := p.KeyID()
	if err != nil || renewed == first {
		t.Fatalf("KeyID after the renewal = the first token (%v), want a new one", err)
	}
	if err := listLoadBalancers(t, srv, p); err != nil {
		t.Fatalf("call with the renewed token: %v", err)
	}
	by := srv.CallsBy(ocitest.Principal{Kind: ocitest.PrincipalTokenExchange, Name: sub})
	if got := by.Op("ListLoadBalancers"); got != 2 || srv.Calls().Status(401) != 0 {
		t.Errorf("%d calls made as %s, %d answered 401; want 2, none", got, sub, srv.Calls().Status(401))
	}
}

func TestWorkloadIdentityProviderReadsTheRotatedServiceAccountToken(t *testing.T) {
	srv := ocitest.New(ocitest.Options{SessionTokenLifetime: 5*time.Minute + 3*time.Second})
	defer srv.Close()
	cfg := wiConfig(t, srv, "first")
	p, err := cfg.ConfigurationProvider()
	if err != nil {
		t.Fatal(err)
	}
	if err := listLoadBalancers(t, srv, p); err != nil {
		t.Fatal(err)
	}
	// The kubelet rotates the projected token; the next exchange must send the new one.
	if err := os.WriteFile(cfg.WorkloadIdentity.TokenPath, []byte(subjectJWT("second", time.Now().Add(time.Hour))), 0o600); err != nil {
		t.Fatal(err)
	}
	second := ocitest.Principal{Kind: ocitest.PrincipalTokenExchange, Name: "second"}
	for deadline := time.Now().Add(30 * time.Second); srv.Calls().Op(ocitest.TokenExchangeOp) < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the SDK did not renew the session token")
		}
		if _, err := p.KeyID(); err != nil {
			t.Fatal(err)
		}
	}
	if err := listLoadBalancers(t, srv, p); err != nil {
		t.Fatal(err)
	}
	if got := srv.CallsBy(second).Op("ListLoadBalancers"); got != 1 {
		t.Errorf("calls as the rotated token's subject = %d, want 1; principals: %v", got, srv.Principals())
	}
}
