// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/internal/lookup"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// LookupNames returns the display names oci-ccm looks svc's existing load balancer of kind up by
// under cfg's naming (loadBalancer.naming, with LOAD_BALANCER_PREFIX applied), best first: the
// name a new one gets, then the upstream CCM's names for the Service. A load balancer of kind
// under none of them is not found, and a new one is created beside it.
func LookupNames(svc *v1.Service, cfg *config.Config, kind model.Kind) []string {
	return lookup.For(cfg).Candidates(svc, kind)
}

// UpstreamName returns the display name the upstream CCM gives svc's load balancer of kind when
// it runs with LOAD_BALANCER_PREFIX set to prefix ("" when unset): what a switch from it must
// find (LookupNames says what oci-ccm looks for).
func UpstreamName(svc *v1.Service, prefix string, kind model.Kind) string {
	return lookup.Naming{Prefix: prefix}.UpstreamName(svc, kind)
}

// listenerName is the upstream name of a listener: "<protocol>-<port>", e.g. "TCP-80".
func listenerName(protocol string, port int) string { return fmt.Sprintf("%s-%d", protocol, port) }

// backendSetName is the upstream name of a backend set: "<Service port protocol>-<port>". It
// does not change with the backend-protocol annotation, so switching TCP→HTTP keeps the set.
func backendSetName(protocol v1.Protocol, port int) string {
	return fmt.Sprintf("%s-%d", protocol, port)
}

// maxCertificateBase bounds the Secret-derived part of a certificate name.
const maxCertificateBase = 48

// certificateName names a certificate after its Secret and a hash of its content: a changed
// Secret gives a new name, so rotation is create-new, switch, delete-old (OCI certificates are
// immutable and cannot be deleted while in use). Only characters OCI allows are kept.
func certificateName(secretName string, c model.Certificate) string {
	h := sha256.New()
	for _, part := range []string{c.PublicCertificate, c.CACertificate, c.PrivateKey.Reveal(), c.Passphrase.Reveal()} {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	base := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		default:
			return '-'
		}
	}, secretName)
	if len(base) > maxCertificateBase {
		base = base[:maxCertificateBase]
	}
	return base + "-" + hex.EncodeToString(h.Sum(nil))[:12]
}
