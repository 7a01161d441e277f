// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package lookup says what a Service's load balancer is called, where it is and how the
// Service's status reports it: the kind the Service asks for, the display names it is created
// under and looked up by, the compartments it may be in, and its addresses' IP mode. lb's Desired names a new load balancer with it and lb/engine finds an existing
// one with it, so the two always agree. It is pure: values in, values out.
package lookup

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Kind is the kind svc asks for (an invalid type annotation counts as lb; Ensure reports it).
func Kind(svc *v1.Service) model.Kind {
	v, ok := annotation.LoadBalancerType.Value(svc.Annotations)
	if ok && strings.EqualFold(strings.TrimSpace(v), string(model.KindNetworkLoadBalancer)) {
		return model.KindNetworkLoadBalancer
	}
	return model.KindLoadBalancer
}

// MaxNameLength bounds display names under the name scheme. Longer names are cut and end in a
// hash of the full name, so two long names stay distinct.
const MaxNameLength = 128

// MaxDisplayName is OCI's limit on a load balancer's or network load balancer's display name;
// the upstream CCM cuts its names to it.
const MaxDisplayName = 1024

// Naming derives a load balancer's display name from its Service.
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
// Under both schemes a lookup also tries the Service's upstream names (UpstreamNames), so a
// cluster migrating from the upstream CCM, from an earlier oci-ccm, or between schemes finds
// its load balancers.
type Naming struct {
	Scheme config.NamingScheme
	Prefix string
}

// For returns the Naming configured in cfg (uid scheme when unset).
func For(cfg *config.Config) Naming {
	if cfg == nil {
		return Naming{Scheme: config.NamingUID}
	}
	n := Naming{Scheme: cfg.LoadBalancer.Naming.Scheme, Prefix: cfg.LoadBalancer.Naming.Prefix}
	if n.Scheme == "" {
		n.Scheme = config.NamingUID
	}
	return n
}

// Name returns the display name a new load balancer for svc gets, of the kind svc asks for.
func (n Naming) Name(svc *v1.Service) string { return n.NameOf(svc, Kind(svc)) }

// NameOf returns the display name a new load balancer of kind for svc gets.
func (n Naming) NameOf(svc *v1.Service, kind model.Kind) string {
	if n.Scheme != config.NamingName {
		return n.UpstreamName(svc, kind)
	}
	name := svc.Namespace + "-" + svc.Name
	if n.Prefix != "" {
		name = strings.TrimSuffix(n.Prefix, "-") + "-" + name
	}
	return boundName(name, MaxNameLength)
}

// Candidates returns the display names to look a Service's load balancer of kind up by, best
// first: the scheme's name, then the Service's other upstream names (UpstreamNames). kind is the
// product looked in, not necessarily the one svc asks for: a Service switched between lb and nlb
// looks for its former load balancer under that kind's names.
func (n Naming) Candidates(svc *v1.Service, kind model.Kind) []string {
	out := []string{n.NameOf(svc, kind)}
	for _, name := range n.UpstreamNames(svc, kind) {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// UpstreamName is the upstream CCM's display name for svc's load balancer of kind.
func (n Naming) UpstreamName(svc *v1.Service, kind model.Kind) string {
	var name string
	if kind == model.KindNetworkLoadBalancer {
		name = svc.Namespace + "/" + svc.Name + "/" + string(svc.UID)
	} else {
		name = upstreamPrefix(n.Prefix) + string(svc.UID)
	}
	if len(name) > MaxDisplayName {
		name = name[:MaxDisplayName]
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

// UpstreamNames are the names svc's load balancer of kind may have been given for this very
// Service, each carrying its UID: the upstream CCM's (UpstreamName), and the bare UID (the
// upstream CCM's load balancers without a prefix; oci-ccm's network load balancers before it
// named them the upstream way). UIDs are unique, so an untagged load balancer under one of them
// was made for svc and is adopted (foundByUIDName), and under the uid scheme it keeps that name
// (KeepsName).
func (n Naming) UpstreamNames(svc *v1.Service, kind model.Kind) []string {
	upstream := n.UpstreamName(svc, kind)
	if uid := UIDName(svc); uid != upstream {
		return []string{upstream, uid}
	}
	return []string{upstream}
}

// KeepsName says whether a load balancer of kind named observed keeps its name: under the uid
// scheme one of svc's upstream names is never changed, so an adopted load balancer is not renamed
// on any sync (a rollback to the upstream CCM finds it under the name it gave). Under the name
// scheme every load balancer is renamed to the scheme's name, as switching schemes does.
func (n Naming) KeepsName(svc *v1.Service, kind model.Kind, observed string) bool {
	return n.Scheme != config.NamingName && slices.Contains(n.UpstreamNames(svc, kind), observed)
}

// TargetName returns the display name desired's load balancer should have once observed (nil:
// none yet) is found for svc: observed's own when it keeps it, else desired's.
func (n Naming) TargetName(svc *v1.Service, observed, desired *model.Spec) string {
	if observed != nil && n.KeepsName(svc, desired.Kind, observed.Name) {
		return observed.Name
	}
	return desired.Name
}

// UIDName is the display name made of the Service UID alone.
func UIDName(svc *v1.Service) string { return string(svc.UID) }

// boundName cuts name to max characters, ending a cut name in "-" and 8 hex digits of its hash.
func boundName(name string, max int) string {
	if len(name) <= max {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "-" + hex.EncodeToString(sum[:])[:8]
	return name[:max-len(suffix)] + suffix
}

// CompartmentOK says whether v may name a compartment: a compartment OCID, or the tenancy's (its
// root compartment).
func CompartmentOK(v string) bool {
	return strings.HasPrefix(v, "ocid1.compartment.") || strings.HasPrefix(v, "ocid1.tenancy.")
}

// compartment sets spec's compartment from annotation.CompartmentID, else the configured one
// Compartments are where svc's load balancer may be, in order: the compartment svc names,
// the one oci-ccm recorded its load balancer in (annotation.LoadBalancerCompartmentID: it was
// there when svc last synced, whatever svc names now), then the configured one, where it was made
// before svc named another. A Service that names none and has no record costs one compartment's
// lookup. An invalid value counts as none (Ensure refuses it; Delete and Get still find what the
// Service had).
func Compartments(svc *v1.Service, configured string) []string {
	var out []string
	for _, a := range []annotation.Name{annotation.CompartmentID, annotation.LoadBalancerCompartmentID} {
		if v, ok := a.Value(svc.Annotations); ok {
			if v = strings.TrimSpace(v); CompartmentOK(v) && v != configured && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return append(out, configured)
}

// NSGAnnotation is the annotation a Service of kind names its network security groups in.
func NSGAnnotation(kind model.Kind) annotation.Name {
	if kind == model.KindNetworkLoadBalancer {
		return annotation.NLBNetworkSecurityGroups
	}
	return annotation.NetworkSecurityGroups
}

// Status says how svc's status reports its load balancer's addresses: with the IP mode
// annotation.IngressIPMode names (nil when unset or invalid), and, for a network load balancer,
// only its public addresses when annotation.NLBExternalIPOnly is true. lb's Desired refuses an
// invalid value of either; Status reads what there is, so that Get reports an existing load
// balancer whatever the Service says now.
func Status(svc *v1.Service) (ipMode *v1.LoadBalancerIPMode, publicOnly bool) {
	if v, ok := svc.Annotations[string(annotation.IngressIPMode)]; ok {
		for _, m := range []v1.LoadBalancerIPMode{v1.LoadBalancerIPModeVIP, v1.LoadBalancerIPModeProxy} {
			if strings.EqualFold(strings.TrimSpace(v), string(m)) {
				ipMode = &m
			}
		}
	}
	if v, ok := annotation.NLBExternalIPOnly.Value(svc.Annotations); ok {
		publicOnly, _ = strconv.ParseBool(strings.TrimSpace(v))
	}
	return ipMode, publicOnly
}

// AnnotatedSubnet is a subnet a Service names, with the annotation that names it.
type AnnotatedSubnet struct {
	Annotation annotation.Name
	ID         string
}

// RegionalCandidates are the subnets whose being regional decides where the load balancer spec
// describes goes, in the order they are asked (oci-load-balancer-subnet1, then subnet2, as the
// upstream CCM does: load_balancer.go, getOciLoadBalancerSubnets): the first regional one is the
// load balancer's only subnet, since a regional subnet hosts both the primary and the standby.
// spec is svc's desired Spec before that choice (the pair of subnets); existing is the load
// balancer svc has (nil: none yet). Only a load balancer whose Service names its subnets (not
// the configured defaults) has candidates, and only when it is to be created, or is in one
// subnet where the Service names two (it may be in an annotated regional one); any other has
// none, so nothing need be known of its subnets. lb's Desired chooses with them and lb/engine
// reads them, so the two always agree.
func RegionalCandidates(svc *v1.Service, spec, existing *model.Spec) []AnnotatedSubnet {
	if spec.Kind != model.KindLoadBalancer || spec.Defaulted.Subnets || len(spec.Subnets) < 2 {
		return nil
	}
	if existing != nil && (len(existing.Subnets) != 1 || len(spec.Subnets) != 2) {
		return nil
	}
	var out []AnnotatedSubnet
	for _, a := range []annotation.Name{annotation.Subnet1, annotation.Subnet2} {
		if id := strings.TrimSpace(svc.Annotations[string(a)]); id != "" {
			out = append(out, AnnotatedSubnet{Annotation: a, ID: id})
		}
	}
	return out
}
