// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestSecretPrintsAPlaceholderForEveryVerb(t *testing.T) {
	s := Secret("hunter2")
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10s", "%-10v", "%T"} {
		got := fmt.Sprintf(format, s)
		if strings.Contains(got, "hunter2") || strings.Contains(got, hex.EncodeToString([]byte("hunter2"))) {
			t.Errorf("Sprintf(%q) = %q, leaks the secret", format, got)
		}
	}
	if got := fmt.Sprintf("%q", s); got != `"[redacted]"` {
		t.Errorf(`Sprintf("%%q") = %s, want "[redacted]"`, got)
	}
	if got := fmt.Sprint(Secret("")); got != "" {
		t.Errorf("empty Secret prints %q, want empty (so a missing value is visible)", got)
	}
	text, err := s.MarshalText()
	if err != nil || string(text) != redacted {
		t.Errorf("MarshalText() = %q, %v; want the placeholder", text, err)
	}
	if got := s.GoString(); got != redacted {
		t.Errorf("GoString() = %q, want the placeholder", got)
	}
	if got := s.Reveal(); got != "hunter2" {
		t.Errorf("Reveal() = %q, want the value", got)
	}
}

// redactionFixture is a loaded config holding an encrypted key and its passphrase, plus the
// strings that must never appear in output: the whole key, each base64 line of its body, the
// passphrase, and their hex forms (for %x).
func redactionFixture(t *testing.T) (*Config, []string) {
	t.Helper()
	key := legacyEncryptedPEM(t, testPassphrase)
	doc := "auth:\n  region: us-phoenix-1\n  tenancy: " + tenancyID + "\n  user: " + userID +
		"\n  fingerprint: " + testFingerprint(t) + "\n  passphrase: " + testPassphrase +
		"\n  key: |\n" + indent(key, 4) + "\ncompartment: " + compartmentID +
		"\nloadBalancer:\n  subnet1: " + subnet1ID + "\n"
	cfg, _ := mustParse(t, doc)
	if cfg.Auth.Key.Reveal() != key || cfg.Auth.Passphrase.Reveal() != testPassphrase {
		t.Fatal("fixture did not load the key and passphrase")
	}

	forbidden := []string{key, testPassphrase, hex.EncodeToString([]byte(testPassphrase))}
	for _, line := range strings.Split(key, "\n") {
		if len(line) >= 16 && !strings.HasPrefix(line, "-----") && !strings.Contains(line, ":") {
			forbidden = append(forbidden, line) // base64 body lines, not the BEGIN/END or DEK-Info headers
		}
	}
	forbidden = append(forbidden, hex.EncodeToString([]byte(key))[:64])
	if len(forbidden) < 10 {
		t.Fatalf("only %d forbidden strings; the key body was not split into lines", len(forbidden))
	}
	return cfg, forbidden
}

func assertNoSecrets(t *testing.T, what, out string, forbidden []string) {
	t.Helper()
	for _, f := range forbidden {
		if strings.Contains(out, f) {
			t.Errorf("%s leaks secret material %.24q…", what, f)
			return
		}
	}
}

func TestLoadedConfigNeverRevealsKeyOrPassphrase(t *testing.T) {
	cfg, forbidden := redactionFixture(t)

	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
		assertNoSecrets(t, "Sprintf("+format+", *Config)", fmt.Sprintf(format, *cfg), forbidden)
		assertNoSecrets(t, "Sprintf("+format+", Auth)", fmt.Sprintf(format, cfg.Auth), forbidden)
		assertNoSecrets(t, "Sprintf("+format+", &Auth)", fmt.Sprintf(format, &cfg.Auth), forbidden)
	}
	// %v of a pointer prints &{...} with fields, which must redact too.
	assertNoSecrets(t, "Sprint(cfg)", fmt.Sprint(cfg), forbidden)
	if out := fmt.Sprintf("%+v", cfg.Auth); !strings.Contains(out, "Key:[redacted]") || !strings.Contains(out, "Passphrase:[redacted]") {
		t.Errorf("%%+v of Auth = %s; want the placeholders in place of the secrets", out)
	}

	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	assertNoSecrets(t, "json.Marshal", string(js), forbidden)

	ym, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatalf("yaml.Marshal: %v", err)
	}
	assertNoSecrets(t, "yaml.Marshal", string(ym), forbidden)

	var logs bytes.Buffer
	for _, h := range []slog.Handler{slog.NewTextHandler(&logs, nil), slog.NewJSONHandler(&logs, nil)} {
		slog.New(h).Info("loaded", "config", cfg, "auth", cfg.Auth, "key", cfg.Auth.Key)
	}
	assertNoSecrets(t, "slog", logs.String(), forbidden)

	// Errors: Validate with the secrets in the wrong places, and ConfigurationProvider failing
	// on the key.
	bad := *cfg
	bad.UseInstancePrincipals = true
	bad.Auth.KeyFile = "/k.pem"
	assertNoSecrets(t, "Validate (instance principals with key)", errString(bad.Validate()), forbidden)
	bad = *cfg
	bad.Auth.Key = Secret(strings.Replace(cfg.Auth.Key.Reveal(), "-----BEGIN", "-----BOGUS", 1))
	assertNoSecrets(t, "Validate (key not PEM)", errString(bad.Validate()), forbidden)
	bad = *cfg
	bad.Auth.Passphrase = Secret(testPassphrase + "-wrong")
	_, err = bad.ConfigurationProvider()
	assertNoSecrets(t, "ConfigurationProvider (wrong passphrase)", errString(err), forbidden)
	bad = *cfg
	bad.Auth.Fingerprint = "00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff"
	_, err = bad.ConfigurationProvider()
	assertNoSecrets(t, "ConfigurationProvider (fingerprint mismatch)", errString(err), forbidden)
	var ve *ValidationError
	if err := (&Config{Auth: Auth{Key: "x", Passphrase: testPassphrase}, UseInstancePrincipals: true}).Validate(); errors.As(err, &ve) {
		assertNoSecrets(t, "ValidationError %+v", fmt.Sprintf("%+v %#v", ve, ve.Errors), forbidden)
	} else {
		t.Errorf("Validate = %v, want a *ValidationError", err)
	}
}

// Load errors come from yaml.v3 and may quote a few characters of a misplaced value; they must
// still never quote the passphrase or key when those sit under their own field names.
func TestLoadErrorsNeverRevealSecretsInTheirFields(t *testing.T) {
	cfg, forbidden := redactionFixture(t)
	key := cfg.Auth.Key.Reveal()
	docs := []string{
		"auth:\n  passphrase: " + testPassphrase + "\n  bogus: 1\n",
		"auth:\n  passphrase: " + testPassphrase + "\n  key: |\n" + indent(key, 4) + "\nrateLimiter:\n  readQPS: fast\n",
		"auth:\n  key_passphrase: " + testPassphrase + "\n  key: |\n" + indent(key, 4) + "\n  key: again\n",
		"auth:\n  passphrase: [" + testPassphrase + "]\n",
		"auth:\n  key:\n" + indent(key, 4) + "\n", // unindented block scalar: a syntax error
	}
	for i, doc := range docs {
		_, _, err := Load(strings.NewReader(doc))
		if err == nil {
			t.Errorf("doc %d: Load succeeded, want an error", i)
			continue
		}
		assertNoSecrets(t, fmt.Sprintf("Load error for doc %d", i), err.Error(), forbidden)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
