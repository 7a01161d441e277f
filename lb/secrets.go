package lb

import (
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/config"
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
	SecretKeyCertificate = v1.TLSCertKey       // "tls.crt"
	SecretKeyKey         = v1.TLSPrivateKeyKey // "tls.key"
	SecretKeyCA          = v1.ServiceAccountRootCAKey
	SecretKeyPassphrase  = "passphrase"
)

// TLSSecretFromData reads a Secret's data map (tls.crt, tls.key, ca.crt, passphrase).
func TLSSecretFromData(data map[string][]byte) TLSSecret {
	return TLSSecret{
		Certificate: string(data[SecretKeyCertificate]),
		Key:         config.Secret(data[SecretKeyKey]),
		CA:          string(data[SecretKeyCA]),
		Passphrase:  config.Secret(data[SecretKeyPassphrase]),
	}
}

// Secrets looks up the TLS material of a Secret. ok is false when the Secret does not exist.
// Implementations must not do network I/O on the Desired path; the ccm passes an informer-backed
// lookup, tests pass a SecretMap.
type Secrets interface {
	TLSSecret(ref SecretRef) (s TLSSecret, ok bool)
}

// SecretMap is a Secrets backed by a map.
type SecretMap map[SecretRef]TLSSecret

// TLSSecret implements Secrets.
func (m SecretMap) TLSSecret(ref SecretRef) (TLSSecret, bool) {
	s, ok := m[ref]
	return s, ok
}

// SecretsFunc adapts a function to Secrets.
type SecretsFunc func(ref SecretRef) (TLSSecret, bool)

// TLSSecret implements Secrets.
func (f SecretsFunc) TLSSecret(ref SecretRef) (TLSSecret, bool) { return f(ref) }

// RequiredSecrets returns the Secrets a Service's load balancer is built from, so a controller
// can fetch them for Desired and re-reconcile the Service when one changes (the upstream service
// controller does not watch Secrets).
func RequiredSecrets(svc *v1.Service) []SecretRef {
	var out []SecretRef
	for _, a := range []Annotation{AnnotationTLSSecret, AnnotationTLSBackendSetSecret} {
		v, err := a.Value(svc.Annotations)
		if err != nil {
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
