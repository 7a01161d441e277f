// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// maxNameLength bounds display names under the name scheme. Longer names are cut and end in a
// hash of the full name, so two long names stay distinct.
const maxNameLength = 128

// naming derives a load balancer's display name from its Service.
//
// The uid scheme (the default) names a load balancer after the Service UID, exactly as the
// upstream OCI CCM does, so existing load balancers are found again. The name scheme uses
// "[prefix-]namespace-name", which people can read and which survives a backup/restore that gives
// the Service a new UID. Lookups under the name scheme fall back to the UID name, so a cluster
// can switch schemes without orphaning its load balancers.
type naming struct {
	Scheme config.NamingScheme
	Prefix string
}

// namingFor returns the naming configured in cfg (uid scheme when unset).
func namingFor(cfg *config.Config) naming {
	if cfg == nil {
		return naming{Scheme: config.NamingUID}
	}
	n := naming{Scheme: cfg.LoadBalancer.Naming.Scheme, Prefix: cfg.LoadBalancer.Naming.Prefix}
	if n.Scheme == "" {
		n.Scheme = config.NamingUID
	}
	return n
}

// Name returns the display name a new load balancer for svc gets.
func (n naming) Name(svc *v1.Service) string {
	if n.Scheme != config.NamingName {
		return uidName(svc)
	}
	name := svc.Namespace + "-" + svc.Name
	if n.Prefix != "" {
		name = strings.TrimSuffix(n.Prefix, "-") + "-" + name
	}
	return boundName(name, maxNameLength)
}

// Candidates returns the display names to look a Service's load balancer up by, best first: the
// scheme's name and, under the name scheme, the UID name as a migration fallback.
func (n naming) Candidates(svc *v1.Service) []string {
	primary := n.Name(svc)
	if uid := uidName(svc); uid != primary {
		return []string{primary, uid}
	}
	return []string{primary}
}

// uidName is the upstream-compatible display name: the Service UID.
func uidName(svc *v1.Service) string { return string(svc.UID) }

// boundName cuts name to max characters, ending a cut name in "-" and 8 hex digits of its hash.
func boundName(name string, max int) string {
	if len(name) <= max {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "-" + hex.EncodeToString(sum[:])[:8]
	return name[:max-len(suffix)] + suffix
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

// createRetryToken is the opc-retry-token of a Service's CreateLoadBalancer call. It depends only
// on the Service UID and a generation, so a create repeated after a lost response returns the
// first call's work request instead of making a second load balancer.
//
// The generation counts the Service's creates whose load balancer is gone (deleted out of band,
// or failed and deleted): OCI invalidates the token of a deleted resource (409
// InvalidatedRetryToken), so a new create needs a new token. Nothing of it is stored: Apply tries
// generation 0, 1, ... until a token makes or finds a live load balancer, so it survives a
// restart. Generation 0 is the token of earlier releases.
func createRetryToken(uid string, generation int) string {
	if generation == 0 {
		return "oci-ccm-create-" + uid
	}
	return "oci-ccm-create-" + uid + "-" + strconv.Itoa(generation)
}
