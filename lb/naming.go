// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// maxNameLength bounds display names under the name scheme. Longer names are cut and end in a
// hash of the full name, so two long names stay distinct.
const maxNameLength = 128

// maxDisplayName is OCI's limit on a load balancer's or network load balancer's display name;
// the upstream CCM cuts its names to it.
const maxDisplayName = 1024

// naming derives a load balancer's display name from its Service.
//
// The uid scheme (the default) names a load balancer as the upstream OCI CCM does (upstream CCM
// v1.35.0, pkg/cloudprovider/providers/oci/load_balancer_util.go, GetLoadBalancerName): a load
// balancer "<prefix><uid>" (Prefix is upstream's LOAD_BALANCER_PREFIX, "-" appended when it
// lacks one; none by default), a network load balancer "<namespace>/<name>/<uid>". Upstream
// looks its load balancers up by that exact name, so a rollback to it finds them.
//
// The name scheme uses "[prefix-]namespace-name", which people can read and which survives a
// backup/restore that gives the Service a new UID.
//
// Under both schemes a lookup also tries the Service's upstream names (upstreamNames), so a
// cluster migrating from the upstream CCM, from an earlier oci-ccm, or between schemes finds
// its load balancers.
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

// Name returns the display name a new load balancer for svc gets, of the kind svc asks for.
func (n naming) Name(svc *v1.Service) string { return n.nameOf(svc, kindOf(svc)) }

// nameOf returns the display name a new load balancer of kind for svc gets.
func (n naming) nameOf(svc *v1.Service, kind model.Kind) string {
	if n.Scheme != config.NamingName {
		return n.upstreamName(svc, kind)
	}
	name := svc.Namespace + "-" + svc.Name
	if n.Prefix != "" {
		name = strings.TrimSuffix(n.Prefix, "-") + "-" + name
	}
	return boundName(name, maxNameLength)
}

// Candidates returns the display names to look a Service's load balancer of kind up by, best
// first: the scheme's name, then the Service's other upstream names (upstreamNames). kind is the
// product looked in, not necessarily the one svc asks for: a Service switched between lb and nlb
// looks for its former load balancer under that kind's names.
func (n naming) Candidates(svc *v1.Service, kind model.Kind) []string {
	out := []string{n.nameOf(svc, kind)}
	for _, name := range n.upstreamNames(svc, kind) {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// LookupNames returns the display names oci-ccm looks svc's existing load balancer of kind up by
// under cfg's naming (loadBalancer.naming, with LOAD_BALANCER_PREFIX applied), best first: the
// name a new one gets, then the upstream CCM's names for the Service. A load balancer of kind
// under none of them is not found, and a new one is created beside it.
func LookupNames(svc *v1.Service, cfg *config.Config, kind model.Kind) []string {
	return namingFor(cfg).Candidates(svc, kind)
}

// UpstreamName returns the display name the upstream CCM gives svc's load balancer of kind when
// it runs with LOAD_BALANCER_PREFIX set to prefix ("" when unset): what a switch from it must
// find (LookupNames says what oci-ccm looks for).
func UpstreamName(svc *v1.Service, prefix string, kind model.Kind) string {
	return naming{Prefix: prefix}.upstreamName(svc, kind)
}

// upstreamName is the upstream CCM's display name for svc's load balancer of kind.
func (n naming) upstreamName(svc *v1.Service, kind model.Kind) string {
	var name string
	if kind == model.KindNetworkLoadBalancer {
		name = svc.Namespace + "/" + svc.Name + "/" + string(svc.UID)
	} else {
		name = upstreamPrefix(n.Prefix) + string(svc.UID)
	}
	if len(name) > maxDisplayName {
		name = name[:maxDisplayName]
	}
	return name
}

// upstreamPrefix is prefix as the upstream CCM uses LOAD_BALANCER_PREFIX: "-" appended when it
// lacks one.
func upstreamPrefix(prefix string) string {
	if prefix != "" && !strings.HasSuffix(prefix, "-") {
		prefix += "-"
	}
	return prefix
}

// upstreamNames are the names svc's load balancer of kind may have been given for this very
// Service, each carrying its UID: the upstream CCM's (upstreamName), and the bare UID (the
// upstream CCM's load balancers without a prefix; oci-ccm's network load balancers before it
// named them the upstream way). UIDs are unique, so an untagged load balancer under one of them
// was made for svc and is adopted (foundByUIDName), and under the uid scheme it keeps that name
// (keepsName).
func (n naming) upstreamNames(svc *v1.Service, kind model.Kind) []string {
	upstream := n.upstreamName(svc, kind)
	if uid := uidName(svc); uid != upstream {
		return []string{upstream, uid}
	}
	return []string{upstream}
}

// keepsName says whether a load balancer of kind named observed keeps its name: under the uid
// scheme one of svc's upstream names is never changed, so an adopted load balancer is not renamed
// on any sync (a rollback to the upstream CCM finds it under the name it gave). Under the name
// scheme every load balancer is renamed to the scheme's name, as switching schemes does.
func (n naming) keepsName(svc *v1.Service, kind model.Kind, observed string) bool {
	return n.Scheme != config.NamingName && slices.Contains(n.upstreamNames(svc, kind), observed)
}

// targetName returns the display name desired's load balancer should have once observed (nil:
// none yet) is found for svc: observed's own when it keeps it, else desired's.
func (n naming) targetName(svc *v1.Service, observed, desired *model.Spec) string {
	if observed != nil && n.keepsName(svc, desired.Kind, observed.Name) {
		return observed.Name
	}
	return desired.Name
}

// uidName is the display name made of the Service UID alone.
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
