// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package testcluster

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/csv"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"os"
)

// adminUser, adminUID and adminGroup describe the static-token user that
// AdminConfig authenticates as. system:masters bypasses RBAC entirely, so
// the admin can set up whatever a test needs.
const (
	adminUser  = "testcluster-admin"
	adminUID   = "testcluster-admin"
	adminGroup = "system:masters"
)

// freePorts returns n distinct TCP ports that were free on 127.0.0.1 a
// moment ago. All listeners stay open until every port is chosen, so the
// ports differ from each other; another process can still take one before
// the child binds it, which Start handles by retrying.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	listeners := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free loopback port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// writeServiceAccountKeys writes a fresh RSA key pair: privPath (PKCS#1
// PEM) is what kube-apiserver signs service-account tokens with, pubPath
// (PKIX PEM) what it verifies them with.
func writeServiceAccountKeys(privPath, pubPath string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("generate service-account key: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return fmt.Errorf("encode service-account public key: %w", err)
	}
	privPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(privPath, privPEM, 0o600); err != nil {
		return fmt.Errorf("write service-account private key: %w", err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})
	if err := os.WriteFile(pubPath, pubPEM, 0o600); err != nil {
		return fmt.Errorf("write service-account public key: %w", err)
	}
	return nil
}

// newToken returns a random bearer token.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// tokenFile renders kube-apiserver's --token-auth-file: one CSV record
// "token,user,uid,groups" in which groups is itself comma-separated (and
// therefore quoted by the CSV writer when there are several).
func tokenFile(token, user, uid string, groups string) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write([]string{token, user, uid, groups}); err != nil {
		return nil, err
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
