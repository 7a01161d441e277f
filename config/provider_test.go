// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
)

// userPrincipalConfig returns a valid user-principal config whose key is keyPEM.
func userPrincipalConfig(t *testing.T, keyPEM, passphrase string) *Config {
	t.Helper()
	c := validConfig(t)
	c.Auth.Key = Secret(keyPEM)
	c.Auth.Passphrase = Secret(passphrase)
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return c
}

// noInstancePrincipal fails the test if the instance-principal path is taken.
func noInstancePrincipal(t *testing.T) instancePrincipalFunc {
	return func(common.Region) (common.ConfigurationProvider, error) {
		t.Error("instance-principal provider constructed for a user-principal config")
		return nil, errors.New("unexpected")
	}
}

// checkUserProvider asserts that p signs as the test user with the test key.
func checkUserProvider(t *testing.T, p common.ConfigurationProvider) {
	t.Helper()
	key, err := p.PrivateRSAKey()
	if err != nil {
		t.Fatalf("PrivateRSAKey: %v", err)
	}
	if !key.Equal(mustKey(t)) {
		t.Error("PrivateRSAKey returned a different key")
	}
	keyID, err := p.KeyID()
	if err != nil {
		t.Fatalf("KeyID: %v", err)
	}
	if want := tenancyID + "/" + userID + "/" + testFingerprint(t); keyID != want {
		t.Errorf("KeyID = %q, want %q", keyID, want)
	}
	if region, err := p.Region(); err != nil || region != "us-phoenix-1" {
		t.Errorf("Region = %q, %v; want us-phoenix-1", region, err)
	}
}

func TestUserPrincipalProviderFromInlineKeys(t *testing.T) {
	tests := []struct {
		name       string
		key        string
		passphrase string
	}{
		{"plain PKCS#1", plainPEM(t), ""},
		{"legacy encrypted PKCS#1 with passphrase", legacyEncryptedPEM(t, testPassphrase), testPassphrase},
		{"encrypted PKCS#8 with passphrase", pkcs8EncryptedPEM(t, testPassphrase), testPassphrase},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := userPrincipalConfig(t, tt.key, tt.passphrase)
			p, err := c.configurationProvider(noInstancePrincipal(t))
			if err != nil {
				t.Fatalf("configurationProvider: %v", err)
			}
			checkUserProvider(t, p)
		})
	}
}

// The upstream CCM read auth.key_passphrase and auth.passphrase but passed neither to the SDK.
// Here both names, through Load, yield a provider that decrypts the key.
func TestPassphraseFromTheFileReachesTheSDK(t *testing.T) {
	key := legacyEncryptedPEM(t, testPassphrase)
	for _, field := range []string{"passphrase", "key_passphrase"} {
		t.Run(field, func(t *testing.T) {
			doc := "auth:\n  region: us-phoenix-1\n  tenancy: " + tenancyID + "\n  user: " + userID +
				"\n  fingerprint: " + testFingerprint(t) + "\n  " + field + ": " + testPassphrase +
				"\n  key: |\n" + indent(key, 4) + "\ncompartment: " + compartmentID +
				"\nloadBalancer:\n  subnet1: " + subnet1ID + "\n"
			cfg, _ := mustParse(t, doc)
			if err := cfg.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			p, err := cfg.ConfigurationProvider()
			if err != nil {
				t.Fatalf("ConfigurationProvider: %v", err)
			}
			checkUserProvider(t, p)
		})
	}
}

func TestUserPrincipalProviderReadsKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(path, []byte(pkcs8EncryptedPEM(t, testPassphrase)), 0o600); err != nil {
		t.Fatal(err)
	}
	c := validConfig(t)
	c.Auth.Key, c.Auth.KeyFile, c.Auth.Passphrase = "", path, testPassphrase
	p, err := c.configurationProvider(noInstancePrincipal(t))
	if err != nil {
		t.Fatalf("configurationProvider: %v", err)
	}
	checkUserProvider(t, p)
}

func TestUserPrincipalProviderFailsEarly(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *Config)
		is     error // nil: any error
	}{
		{"wrong passphrase", func(c *Config) {
			c.Auth.Key, c.Auth.Passphrase = Secret(pkcs8EncryptedPEM(t, testPassphrase)), "wrong"
		}, nil},
		{"missing passphrase", func(c *Config) { c.Auth.Key = Secret(legacyEncryptedPEM(t, testPassphrase)) }, nil},
		{"garbage key", func(c *Config) { c.Auth.Key = "not a key" }, nil},
		{"missing key file", func(c *Config) { c.Auth.Key, c.Auth.KeyFile = "", "/nonexistent/key.pem" }, fs.ErrNotExist},
		{"no key at all", func(c *Config) { c.Auth.Key = "" }, ErrNoKey},
		{"fingerprint of another key", func(c *Config) {
			c.Auth.Fingerprint = "00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff"
		}, ErrFingerprintMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validConfig(t)
			tt.mutate(c)
			p, err := c.configurationProvider(noInstancePrincipal(t))
			if err == nil {
				t.Fatalf("configurationProvider succeeded with %T, want an error", p)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error = %v, want errors.Is %v", err, tt.is)
			}
		})
	}
}

// stubProvider stands for the SDK's instance-principal provider, which cannot be built here.
type stubProvider struct{ common.ConfigurationProvider }

func TestInstancePrincipalsChooseTheInstancePrincipalProvider(t *testing.T) {
	for _, region := range []string{"us-ashburn-1", ""} {
		t.Run("region "+region, func(t *testing.T) {
			c := &Config{UseInstancePrincipals: true, Auth: Auth{Region: region}}
			want := &stubProvider{}
			var calls int
			var gotRegion common.Region
			p, err := c.configurationProvider(func(r common.Region) (common.ConfigurationProvider, error) {
				calls++
				gotRegion = r
				return want, nil
			})
			if err != nil {
				t.Fatalf("configurationProvider: %v", err)
			}
			if p != want {
				t.Errorf("provider = %T, want the instance-principal provider", p)
			}
			if calls != 1 || gotRegion != common.Region(region) {
				t.Errorf("constructor calls = %d with region %q; want 1 with %q", calls, gotRegion, region)
			}
		})
	}
}

func TestInstancePrincipalErrorsSurface(t *testing.T) {
	boom := errors.New("metadata service unreachable")
	c := &Config{UseInstancePrincipals: true, Auth: Auth{Region: "us-phoenix-1"}}
	_, err := c.configurationProvider(func(common.Region) (common.ConfigurationProvider, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("error = %v, want it to wrap %v", err, boom)
	}
}

// sdkMetadataServer stands in for the metadata endpoints the SDK's instance-principal
// constructor reads (OCI_METADATA_BASE_URL). It answers the region; with identity set it also
// serves the instance certificate and key (the certificate names the tenancy, as OCI's do),
// otherwise it refuses them, which makes the SDK fail at once without its retry loop.
// It counts requests by path.
func sdkMetadataServer(t *testing.T, identity bool) *map[string]int {
	t.Helper()
	var certPEM, keyPEM []byte
	if identity {
		template := &x509.Certificate{
			SerialNumber: big.NewInt(7),
			Subject:      pkix.Name{CommonName: "instance", OrganizationalUnit: []string{"opc-tenant:" + tenancyID}},
			NotBefore:    time.Now().Add(-time.Hour),
			NotAfter:     time.Now().Add(time.Hour),
		}
		der, err := x509.CreateCertificate(rand.Reader, template, template, &mustKey(t).PublicKey, mustKey(t))
		if err != nil {
			t.Fatal(err)
		}
		certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
		keyPEM = []byte(plainPEM(t))
	}
	var mu sync.Mutex
	calls := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls[r.URL.Path]++
		mu.Unlock()
		switch {
		case r.URL.Path == "/opc/v2/instance/region":
			fmt.Fprint(w, "us-phoenix-1")
		case r.URL.Path == "/opc/v2/identity/cert.pem" && identity:
			w.Write(certPEM)
		case r.URL.Path == "/opc/v2/identity/key.pem" && identity:
			w.Write(keyPEM)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	t.Setenv("OCI_METADATA_BASE_URL", srv.URL+"/opc/v2")
	return &calls
}

// The real constructor, end to end and offline: instance-principal mode reaches the SDK, which
// reads the instance identity from the metadata service and yields a provider for the
// instance's tenancy.
func TestConfigurationProviderBuildsTheSDKInstancePrincipalProvider(t *testing.T) {
	calls := sdkMetadataServer(t, true)
	c := &Config{UseInstancePrincipals: true, Auth: Auth{Region: "us-ashburn-1"}}
	p, err := c.ConfigurationProvider()
	if err != nil {
		t.Fatalf("ConfigurationProvider: %v", err)
	}
	// The SDK's AuthType also returns an "unsupported" error for this provider; the value counts.
	if authType, _ := p.AuthType(); authType.AuthType != common.InstancePrincipal {
		t.Errorf("AuthType = %+v; want instance principal", authType)
	}
	if tenancy, err := p.TenancyOCID(); err != nil || tenancy != tenancyID {
		t.Errorf("TenancyOCID = %q, %v; want %q from the instance certificate", tenancy, err, tenancyID)
	}
	if region, err := p.Region(); err != nil || region != "us-ashburn-1" {
		t.Errorf("Region = %q, %v; want auth.region us-ashburn-1", region, err)
	}
	want := map[string]int{"/opc/v2/instance/region": 1, "/opc/v2/identity/cert.pem": 1, "/opc/v2/identity/key.pem": 1}
	if diff := cmp.Diff(want, *calls); diff != "" {
		t.Errorf("metadata requests mismatch (-want +got):\n%s", diff)
	}
}

// The SDK's failure to read the instance identity comes back as an error.
func TestConfigurationProviderReportsSDKInstancePrincipalErrors(t *testing.T) {
	calls := sdkMetadataServer(t, false)
	c := &Config{UseInstancePrincipals: true, Auth: Auth{Region: "us-phoenix-1"}}
	p, err := c.ConfigurationProvider()
	if err == nil {
		t.Fatalf("ConfigurationProvider succeeded with %T, want the SDK's certificate error", p)
	}
	want := map[string]int{"/opc/v2/instance/region": 1, "/opc/v2/identity/cert.pem": 1}
	if diff := cmp.Diff(want, *calls); diff != "" {
		t.Errorf("metadata requests mismatch (-want +got):\n%s", diff)
	}
}

// Only instance principals may contact the metadata service; user principals never do.
func TestConfigurationProviderForUserPrincipalsMakesNoMetadataCalls(t *testing.T) {
	calls := sdkMetadataServer(t, true)
	p, err := validConfig(t).ConfigurationProvider()
	if err != nil {
		t.Fatalf("ConfigurationProvider: %v", err)
	}
	checkUserProvider(t, p)
	if len(*calls) != 0 {
		t.Errorf("metadata requests = %v, want none", *calls)
	}
}
