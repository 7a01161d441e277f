// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// testKey is one RSA key shared by the tests: generating a key costs far more than any test.
var testKey = sync.OnceValues(func() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 2048) })

// testPassphrase is distinctive so the redaction tests can search output for it.
const testPassphrase = "Tr0ub4dor&3-passphrase-7f3a9c"

func mustKey(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	k, err := testKey()
	if err != nil {
		t.Fatalf("generate RSA key: %v", err)
	}
	return k
}

// plainPEM is the test key as an unencrypted PKCS#1 PEM.
func plainPEM(t testing.TB) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(mustKey(t))}))
}

// legacyEncryptedPEM is the test key as a PKCS#1 PEM encrypted with a Proc-Type/DEK-Info
// header, what `openssl genrsa -aes128` wrote before OpenSSL 3.
func legacyEncryptedPEM(t testing.TB, passphrase string) string {
	t.Helper()
	//lint:ignore SA1019 legacy encrypted PEM is a format users still hold; the test must cover it.
	block, err := x509.EncryptPEMBlock(rand.Reader, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(mustKey(t)), []byte(passphrase), x509.PEMCipherAES128)
	if err != nil {
		t.Fatalf("encrypt PEM: %v", err)
	}
	return string(pem.EncodeToMemory(block))
}

// PKCS#5 v2 object identifiers (RFC 8018) for an "ENCRYPTED PRIVATE KEY" as OpenSSL 3 writes it.
var (
	oidPBES2          = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2         = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACWithSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidAES256CBC      = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
)

type pbkdf2Params struct {
	Salt       []byte
	Iterations int
	PRF        pkix.AlgorithmIdentifier
}

type pbes2Params struct {
	KDF struct {
		Algorithm asn1.ObjectIdentifier
		Params    pbkdf2Params
	}
	Cipher struct {
		Algorithm asn1.ObjectIdentifier
		IV        []byte
	}
}

type encryptedPrivateKeyInfo struct {
	Algorithm struct {
		Algorithm asn1.ObjectIdentifier
		Params    pbes2Params
	}
	Data []byte
}

// pkcs8EncryptedPEM is the test key as a PKCS#8 "ENCRYPTED PRIVATE KEY" (PBES2, PBKDF2 with
// HMAC-SHA256, AES-256-CBC), the format `openssl genrsa -aes256` writes today.
func pkcs8EncryptedPEM(t testing.TB, passphrase string) string {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(mustKey(t))
	if err != nil {
		t.Fatalf("marshal PKCS#8: %v", err)
	}
	salt, iv := make([]byte, 16), make([]byte, aes.BlockSize)
	_, _ = rand.Read(salt)
	_, _ = rand.Read(iv)
	const iterations = 2048
	key, err := pbkdf2.Key(sha256.New, passphrase, salt, iterations, 32)
	if err != nil {
		t.Fatalf("pbkdf2: %v", err)
	}
	pad := aes.BlockSize - len(der)%aes.BlockSize
	plain := append(der, make([]byte, pad)...)
	for i := len(der); i < len(plain); i++ {
		plain[i] = byte(pad)
	}
	blockCipher, err := aes.NewCipher(key)
	if err != nil {
		t.Fatalf("aes: %v", err)
	}
	encrypted := make([]byte, len(plain))
	cipher.NewCBCEncrypter(blockCipher, iv).CryptBlocks(encrypted, plain)

	var info encryptedPrivateKeyInfo
	info.Algorithm.Algorithm = oidPBES2
	info.Algorithm.Params.KDF.Algorithm = oidPBKDF2
	info.Algorithm.Params.KDF.Params = pbkdf2Params{
		Salt: salt, Iterations: iterations,
		PRF: pkix.AlgorithmIdentifier{Algorithm: oidHMACWithSHA256, Parameters: asn1.NullRawValue},
	}
	info.Algorithm.Params.Cipher.Algorithm = oidAES256CBC
	info.Algorithm.Params.Cipher.IV = iv
	info.Data = encrypted
	out, err := asn1.Marshal(info)
	if err != nil {
		t.Fatalf("marshal EncryptedPrivateKeyInfo: %v", err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: out}))
}

// testFingerprint is the OCI fingerprint of the test key, computed independently of the
// production code: MD5 of the DER public key, as colon-separated lowercase hex.
func testFingerprint(t testing.TB) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(&mustKey(t).PublicKey)
	if err != nil {
		t.Fatalf("marshal public key: %v", err)
	}
	sum := md5.Sum(der)
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02x", b)
	}
	return strings.Join(parts, ":")
}
