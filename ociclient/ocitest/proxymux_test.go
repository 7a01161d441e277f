// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common/auth"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// serviceAccountToken is a token as kube-apiserver issues one for namespace/name, signed by key.
func serviceAccountToken(t *testing.T, key *rsa.PrivateKey, namespace, name string, exp time.Time) string {
	t.Helper()
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signing := enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." +
		enc(map[string]any{"sub": "system:serviceaccount:" + namespace + ":" + name, "exp": exp.Unix()})
	digest := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// okeEnvironment sets what the SDK's OKE workload identity provider reads from the process
// environment for px (the SDK offers no other way; hence not parallel).
func okeEnvironment(t *testing.T, srv *ocitest.Server, px *ocitest.Proxymux) {
	t.Helper()
	ca := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(ca, px.CACertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range px.Environment(ca, srv.Region()) {
		t.Setenv(k, v)
	}
}

func TestProxymuxIssuesWorkloadSessionTokens(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	issuer, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	px, err := srv.StartProxymux(ocitest.ProxymuxOptions{ServiceAccountKeys: []*rsa.PublicKey{&issuer.PublicKey}})
	if err != nil {
		t.Fatalf("StartProxymux: %v", err)
	}
	defer px.Close()
	if !strings.HasPrefix(px.Host, "127.") || px.Host == "127.0.0.1" {
		t.Errorf("Host = %s, want a random 127.x.y.z", px.Host)
	}
	okeEnvironment(t, srv, px)

	token := serviceAccountToken(t, issuer, "team-a", "lb-owner", time.Now().Add(time.Hour))
	p, err := auth.OkeWorkloadIdentityConfigurationProviderWithServiceAccountTokenProvider(auth.NewSuppliedServiceAccountTokenProvider(token))
	if err != nil {
		t.Fatal(err)
	}
	if err := listAs(srv, p); err != nil {
		t.Fatal(err)
	}
	if got := srv.CallsBy(ocitest.WorkloadPrincipal("team-a", "lb-owner")).Op("ListLoadBalancers"); got != 1 {
		t.Errorf("ListLoadBalancers as team-a/lb-owner = %d, want 1; principals %v", got, srv.Principals())
	}
	if got := srv.Calls().Op(ocitest.ProxymuxOp); got != 1 {
		t.Errorf("session tokens issued = %d, want 1", got)
	}

	// A token another issuer signed gets no session token (an expired one the SDK itself
	// refuses to send).
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]string{
		"other issuer": serviceAccountToken(t, other, "team-a", "lb-owner", time.Now().Add(time.Hour)),
	} {
		p, err := auth.OkeWorkloadIdentityConfigurationProviderWithServiceAccountTokenProvider(auth.NewSuppliedServiceAccountTokenProvider(bad))
		if err != nil {
			t.Fatal(err)
		}
		if err := listAs(srv, p); err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("%s: err = %v, want the endpoint's 401", name, err)
		}
	}
	if got := srv.Calls().Op("ListLoadBalancers"); got != 1 {
		t.Errorf("ListLoadBalancers = %d, want only the first", got)
	}
}
