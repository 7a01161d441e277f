// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package testcluster

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/csv"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTokenFileIsOneCSVRecordWithGroupsInOneField(t *testing.T) {
	tests := []struct {
		name   string
		groups string
		want   string
	}{
		{name: "one group", groups: "system:masters", want: "tok,alice,uid-1,system:masters\n"},
		{name: "several groups are quoted", groups: "a,b", want: "tok,alice,uid-1,\"a,b\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tokenFile("tok", "alice", "uid-1", tt.groups)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("token file (-want +got):\n%s", diff)
			}
			records, err := csv.NewReader(bytes.NewReader(got)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([][]string{{"tok", "alice", "uid-1", tt.groups}}, records); diff != "" {
				t.Errorf("parsed records (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewTokenIsRandomHex(t *testing.T) {
	a, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	b, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 64 || a == b {
		t.Errorf("tokens %q and %q: want two different 64-character tokens", a, b)
	}
}

func TestServiceAccountKeysAreAMatchingPair(t *testing.T) {
	dir := t.TempDir()
	priv, pub := filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	if err := writeServiceAccountKeys(priv, pub); err != nil {
		t.Fatal(err)
	}

	privBlock := readPEM(t, priv, "RSA PRIVATE KEY")
	key, err := x509.ParsePKCS1PrivateKey(privBlock.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	pubBlock := readPEM(t, pub, "PUBLIC KEY")
	parsed, err := x509.ParsePKIXPublicKey(pubBlock.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	pubKey, ok := parsed.(*rsa.PublicKey)
	if !ok {
		t.Fatalf("public key is %T, want *rsa.PublicKey", parsed)
	}
	if !key.PublicKey.Equal(pubKey) {
		t.Error("the public key does not belong to the private key")
	}
	for _, path := range []string{priv, pub} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != 0o600 {
			t.Errorf("%s mode = %o, want 600", path, got)
		}
	}
}

func readPEM(t *testing.T, path, wantType string) *pem.Block {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, rest := pem.Decode(data)
	if block == nil || block.Type != wantType || len(rest) != 0 {
		t.Fatalf("%s: want exactly one %q PEM block", path, wantType)
	}
	return block
}

func TestFreePortsAreDistinctLoopbackPorts(t *testing.T) {
	const n = 5
	ports, err := freePorts(n)
	if err != nil {
		t.Fatal(err)
	}
	if len(ports) != n {
		t.Fatalf("got %d ports, want %d", len(ports), n)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p <= 0 || p > 65535 || seen[p] {
			t.Errorf("port %d is out of range or repeated in %v", p, ports)
		}
		seen[p] = true
	}
}

func TestEnvironWithoutDropsOnlyPrefixedVariables(t *testing.T) {
	env := []string{"PATH=/bin", "ETCD_DATA_DIR=/x", "OCI_CCM_ETCD=/usr/bin/etcd", "ETCD_NAME=y", "MY_ETCD_=z"}
	got := environWithout(env, "ETCD_")
	want := []string{"PATH=/bin", "OCI_CCM_ETCD=/usr/bin/etcd", "MY_ETCD_=z"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("environment (-want +got):\n%s", diff)
	}
}
