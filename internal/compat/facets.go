// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Facet names one thing about a load balancer (or a configuration) that an upstream annotation
// or cloud-provider.yaml key can change. Both CCMs are described in facets, so that what the
// upstream CCM builds for a sample and what oci-ccm builds can be compared side by side.
type Facet string

// Facets is a description of one CCM's outcome for a sample: facet → value. A facet left out has
// no value (no TLS, no tags, no NSGs...). Refusal, when present, means the CCM refuses the sample
// and holds its message; the other facets are then empty.
type Facets map[Facet]string

// The load balancer facets. Values are rendered the same way on both sides (see specFacets), so
// that the expectations in upstream.go read as what upstream's code builds.
const (
	Refusal Facet = "refused"

	Kind        Facet = "kind"        // lb or nlb
	Internal    Facet = "internal"    // true; left out when public
	Shape       Facet = "shape"       // "100Mbps", "flexible 10–100 Mbps"; a load balancer's only
	Subnets     Facet = "subnets"     // subnet references (see subnetRef), comma-separated
	Compartment Facet = "compartment" // the compartment's OCID
	Listeners   Facet = "listeners"   // "TCP-80: TCP :80 → TCP-80", one per listener
	IdleTimeout Facet = "idle timeout"
	Proxy       Facet = "PROXY protocol"
	ListenerTLS Facet = "listener TLS"
	BackendTLS  Facet = "backend TLS"
	Policy      Facet = "backend policy"
	HealthCheck Facet = "health check"
	Backends    Facet = "backends"
	Preserve    Facet = "client address preserved"
	SourceCIDRs Facet = "source ranges"
	RuleMode    Facet = "security rule mode" // All, Frontend, Backend, None or NSG
	BackendNSGs Facet = "backend NSGs"
	NSGs        Facet = "NSGs"
	Freeform    Facet = "freeform tags"
	Defined     Facet = "defined tags"
	IPMode      Facet = "status ipMode"
	IPFamilies  Facet = "IP families"
	AssignedIP  Facet = "assigned private IPs"
	RuleSets    Facet = "rule sets" // "TCP-80: hdr", the rule sets each listener applies
)

// The configuration facets: what a cloud-provider.yaml key changes in how the CCM talks to OCI,
// beside what it changes in a load balancer.
const (
	AuthRegion      Facet = "auth region"
	AuthTenancy     Facet = "auth tenancy"
	AuthUser        Facet = "auth user"
	AuthKey         Facet = "auth key"
	AuthFingerprint Facet = "auth fingerprint"
	// AuthPassphrase is whether a key passphrase reaches the OCI SDK.
	AuthPassphrase  Facet = "key passphrase sent to the SDK"
	AuthPrincipal   Facet = "authenticates as"
	VCN             Facet = "VCN"
	ReadQPS         Facet = "read QPS"
	ReadBurst       Facet = "read burst"
	WriteQPS        Facet = "write QPS"
	WriteBurst      Facet = "write burst"
	RateLimiter     Facet = "rate limiter"
	LoadBalancers   Facet = "load balancers"
	SecurityLists   Facet = "security lists"
	MonitoringPush  Facet = "metrics pushed to OCI Monitoring"
	NotLoadBalancer Facet = "tags of storage resources"
)

// with returns a copy of base with changes applied; a change to "" removes the facet.
func (base Facets) with(changes Facets) Facets {
	out := maps.Clone(base)
	if out == nil {
		out = Facets{}
	}
	for f, v := range changes {
		if v == "" {
			delete(out, f)
		} else {
			out[f] = v
		}
	}
	return out
}

// refused is the facets of a refused sample.
func refused(msg string) Facets { return Facets{Refusal: msg} }

// changed returns the facets whose value differs between a and b, sorted.
func changed(a, b Facets) []Facet {
	var out []Facet
	for _, f := range slices.Sorted(maps.Keys(a.with(b))) {
		if a[f] != b[f] {
			out = append(out, f)
		}
	}
	return out
}

// relevant returns the facets a sample touches on either side: those where upstream's facets
// differ from upstream's for the plain sample Service, or oci-ccm's from oci-ccm's. Only they
// are compared, so a difference of defaults (shown once, on the row without annotations) is not
// repeated on every row. A refusal is compared as a refusal (the messages differ between the
// CCMs), beside what the other side builds.
func relevant(upstreamBase, upstream, ociBase, oci Facets) []Facet {
	upRefused, ociRefused := upstream[Refusal] != "", oci[Refusal] != ""
	set := map[Facet]bool{}
	add := func(fs []Facet) {
		for _, f := range fs {
			set[f] = true
		}
	}
	switch {
	case upRefused && ociRefused:
		set[Refusal] = true
	case upRefused:
		set[Refusal] = true
		add(changed(ociBase, oci))
	case ociRefused:
		set[Refusal] = true
		add(changed(upstreamBase, upstream))
	default:
		add(changed(upstreamBase, upstream))
		add(changed(ociBase, oci))
	}
	return slices.Sorted(maps.Keys(set))
}

// differing returns the facets among fs whose values differ, a refusal on both sides being the
// same whatever the messages.
func differing(fs []Facet, upstream, oci Facets) []Facet {
	var out []Facet
	for _, f := range fs {
		switch {
		case f == Refusal && (upstream[Refusal] == "") == (oci[Refusal] == ""):
		case upstream[Refusal] != "" && oci[Refusal] != "":
			// Both refuse: nothing else to compare.
		case upstream[f] != oci[f]:
			out = append(out, f)
		}
	}
	return out
}

// render prints the facets fs of x as "facet: value" lines joined by "; ", "—" for none.
func (x Facets) render(fs []Facet) string {
	var parts []string
	for _, f := range fs {
		v := x[f]
		if v == "" {
			v = "—"
		}
		parts = append(parts, string(f)+": "+v)
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, "; ")
}

// specFacets describes a desired Spec in facets.
func specFacets(spec *model.Spec) Facets {
	x := Facets{Kind: string(spec.Kind), Compartment: spec.CompartmentID}
	if spec.Internal {
		x[Internal] = "true"
	}
	if spec.Kind == model.KindLoadBalancer {
		x[Shape] = spec.Shape.String()
	}
	refs := make([]string, len(spec.Subnets))
	for i, s := range spec.Subnets {
		refs[i] = subnetRef(s)
	}
	x[Subnets] = strings.Join(refs, ", ")

	var listeners, idle, proxy, ltls, btls, policy, health, backends, preserve, rules []string
	for _, name := range slices.Sorted(maps.Keys(spec.Listeners)) {
		l := spec.Listeners[name]
		listeners = append(listeners, fmt.Sprintf("%s: %s :%d → %s", l.Name, l.Protocol, l.Port, l.BackendSet))
		if l.IdleTimeoutSeconds != 0 {
			idle = append(idle, fmt.Sprintf("%ds", l.IdleTimeoutSeconds))
		}
		if l.ProxyProtocolVersion != 0 {
			proxy = append(proxy, fmt.Sprintf("v%d", l.ProxyProtocolVersion))
		}
		if l.TLS != nil {
			ltls = append(ltls, tlsFacet(*l.TLS))
		}
		if len(l.Routing.RuleSets) > 0 {
			rules = append(rules, l.Name+": "+strings.Join(slices.Sorted(slices.Values(l.Routing.RuleSets)), " "))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(spec.BackendSets)) {
		bs := spec.BackendSets[name]
		policy = append(policy, bs.Policy)
		health = append(health, healthFacet(bs.HealthCheck))
		if bs.TLS != nil {
			btls = append(btls, tlsFacet(*bs.TLS))
		}
		if bs.PreserveSource {
			preserve = append(preserve, "true")
		}
		var bes []string
		for _, b := range bs.Backends {
			bes = append(bes, fmt.Sprintf("%s:%d", b.IP, b.Port))
		}
		slices.Sort(bes)
		backends = append(backends, name+" ["+strings.Join(bes, " ")+"]")
	}
	x[Listeners] = strings.Join(listeners, ", ")
	x[RuleSets] = strings.Join(rules, ", ")
	set := func(f Facet, vs []string) {
		// One value for all listeners or backend sets when they agree (the samples have one port).
		if vs = slices.Compact(vs); len(vs) > 0 {
			x[f] = strings.Join(vs, ", ")
		}
	}
	set(IdleTimeout, idle)
	set(Proxy, proxy)
	set(ListenerTLS, ltls)
	set(BackendTLS, btls)
	set(Policy, policy)
	set(HealthCheck, health)
	set(Preserve, preserve)
	x[Backends] = strings.Join(backends, ", ")

	x[SourceCIDRs] = strings.Join(spec.SourceCIDRs, ", ")
	x[RuleMode] = string(spec.SecurityListMode)
	x[BackendNSGs] = strings.Join(spec.BackendNSGs, ", ")
	x[NSGs] = strings.Join(spec.NetworkSecurityGroups, ", ")
	x[Freeform] = jsonFacet(spec.FreeformTags)
	x[Defined] = jsonFacet(spec.DefinedTags)
	if spec.IPMode != nil {
		x[IPMode] = string(*spec.IPMode)
	}
	if spec.Kind == model.KindNetworkLoadBalancer {
		var fams []string
		for _, f := range spec.IPFamilies {
			fams = append(fams, string(f))
		}
		x[IPFamilies] = strings.Join(fams, ", ")
	}
	x[AssignedIP] = strings.Join(slices.DeleteFunc([]string{spec.AssignedIPv4, spec.AssignedIPv6}, func(s string) bool { return s == "" }), ", ")
	return x.with(nil) // drops the empty values
}

// certificateHash is the content hash oci-ccm appends to a certificate's name.
var certificateHash = regexp.MustCompile(`-[0-9a-f]{12}$`)

// tlsFacet renders a listener's or backend set's TLS as "certificate web-tls, cipher suite …,
// TLSv1.2". oci-ccm's content hash shows as "-<hash>".
func tlsFacet(t model.TLS) string {
	s := "certificate " + certificateHash.ReplaceAllString(t.Certificate, "-<hash>")
	if t.CipherSuite != "" {
		s += ", cipher suite " + t.CipherSuite
	}
	if len(t.Protocols) > 0 {
		s += ", " + strings.Join(t.Protocols, " ")
	}
	return s
}

// healthFacet renders a health check as "HTTP :10256/healthz, 3 retries, every 10000 ms,
// timeout 3000 ms", with ", plain HTTP" when it probes in plain text beside TLS backends.
func healthFacet(h model.HealthCheck) string {
	s := fmt.Sprintf("%s :%d%s, %d retries, every %d ms, timeout %d ms", h.Protocol, h.Port, h.Path, h.Retries, h.IntervalMillis, h.TimeoutMillis)
	if h.ForcePlainText {
		s += ", plain HTTP"
	}
	return s
}

// jsonFacet renders tags as compact JSON with sorted keys; "" for none.
func jsonFacet[M ~map[string]V, V any](m M) string {
	if len(m) == 0 {
		return ""
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Sprint(m)
	}
	return string(b)
}

// subnetRef names a subnet the samples use by where it comes from: the sample configuration's
// loadBalancer.subnet1 or subnet2, else its OCID.
func subnetRef(id string) string {
	switch id {
	case sampleSubnet1:
		return "loadBalancer.subnet1"
	case sampleSubnet2:
		return "loadBalancer.subnet2"
	}
	return id
}

// configFacets describes what a loaded configuration changes in how oci-ccm talks to OCI; the
// load balancer facets come from lb.Desired with it (classifyConfigKey).
func configFacets(cfg *config.Config) Facets {
	x := Facets{
		AuthRegion:      cfg.Auth.Region,
		AuthTenancy:     cfg.Auth.Tenancy,
		AuthUser:        cfg.Auth.User,
		AuthFingerprint: cfg.Auth.Fingerprint,
		VCN:             cfg.VCNID,
		ReadQPS:         fmt.Sprint(cfg.RateLimiter.ReadQPS),
		ReadBurst:       fmt.Sprint(cfg.RateLimiter.ReadBurst),
		WriteQPS:        fmt.Sprint(cfg.RateLimiter.WriteQPS),
		WriteBurst:      fmt.Sprint(cfg.RateLimiter.WriteBurst),
		RateLimiter:     "on",
		LoadBalancers:   "managed",
		AuthPrincipal:   "user API key",
		SecurityLists:   jsonFacet(cfg.LoadBalancer.SecurityLists),
	}
	if cfg.Auth.Key != "" {
		x[AuthKey] = "set"
	}
	if cfg.Auth.Passphrase != "" {
		x[AuthPassphrase] = "yes"
	}
	if cfg.UseInstancePrincipals {
		x[AuthPrincipal] = "instance principal"
	}
	if cfg.UseWorkloadIdentity {
		x[AuthPrincipal] = "workload identity"
	}
	if cfg.RateLimiter.Disabled {
		x[RateLimiter] = "off"
	}
	if cfg.LoadBalancer.Disabled {
		x[LoadBalancers] = "not managed"
	}
	return x.with(nil)
}
