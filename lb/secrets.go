// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
)

// SecretRef names a Kubernetes Secret.
type SecretRef struct {
	Namespace string
	Name      string
}

// String returns "namespace/name".
func (r SecretRef) String() string { return r.Namespace + "/" + r.Name }

// TLSSecret is the TLS material of a Secret, as plain values: Desired reads Secrets through this,
// never through a Kubernetes client. Key and Passphrase never print.
type TLSSecret struct {
	// Certificate is the PEM certificate chain (tls.crt).
	Certificate string
	// Key is the PEM private key (tls.key).
	Key config.Secret
	// CA is the PEM CA bundle (ca.crt).
	CA string
	// Passphrase decrypts Key, if it is encrypted (passphrase).
	Passphrase config.Secret
}

// The Secret data keys TLSSecretFromData reads.
const (
	secretKeyCertificate = v1.TLSCertKey       // "tls.crt"
	secretKeyKey         = v1.TLSPrivateKeyKey // "tls.key"
	secretKeyCA          = v1.ServiceAccountRootCAKey
	secretKeyPassphrase  = "passphrase"
)

// TLSSecretFromData reads a Secret's data map (tls.crt, tls.key, ca.crt, passphrase).
func TLSSecretFromData(data map[string][]byte) TLSSecret {
	return TLSSecret{
		Certificate: string(data[secretKeyCertificate]),
		Key:         config.Secret(data[secretKeyKey]),
		CA:          string(data[secretKeyCA]),
		Passphrase:  config.Secret(data[secretKeyPassphrase]),
	}
}

// Secrets holds the TLS material of Secrets by reference: those a Service names
// (RequiredSecrets). Desired reads Secrets only from it, never through a Kubernetes client. A
// missing entry is a Secret that does not exist; nil holds none.
type Secrets map[SecretRef]TLSSecret

// RequiredSecrets returns the Secrets a Service's load balancer is built from, so a controller
// can fetch them for Desired and re-reconcile the Service when one changes (the upstream service
// controller does not watch Secrets).
func RequiredSecrets(svc *v1.Service) []SecretRef {
	var out []SecretRef
	for _, a := range []annotation.Name{annotation.TLSSecret, annotation.TLSBackendSetSecret} {
		v, ok := a.Value(svc.Annotations)
		if !ok {
			continue
		}
		if ref, ok := parseSecretRef(v, svc.Namespace); ok && !containsRef(out, ref) {
			out = append(out, ref)
		}
	}
	return out
}

// parseSecretRef parses "[namespace/]name"; the namespace defaults to the Service's.
func parseSecretRef(v, defaultNamespace string) (SecretRef, bool) {
	v = strings.TrimSpace(v)
	ns, name, found := strings.Cut(v, "/")
	if !found {
		ns, name = defaultNamespace, v
	}
	if ns == "" || name == "" || strings.Contains(name, "/") {
		return SecretRef{}, false
	}
	return SecretRef{Namespace: ns, Name: name}, true
}

func containsRef(refs []SecretRef, r SecretRef) bool {
	for _, x := range refs {
		if x == r {
			return true
		}
	}
	return false
}
