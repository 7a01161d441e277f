// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/common"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// This file checks Network Load Balancer API requests as OCI does and turns request details into
// stored resources with OCI's defaults. checkNLB, the consistency of a whole network load
// balancer, runs when a work request completes and fails it.

var (
	nlbPolicies          = []string{"TWO_TUPLE", "THREE_TUPLE", "FIVE_TUPLE"}
	nlbListenerProtocols = []string{"TCP", "UDP", "TCP_AND_UDP", "ANY", "L3IP"}
	nlbHealthProtocols   = []string{"HTTP", "HTTPS", "TCP", "UDP", "DNS"}
	nlbPartVersions      = []string{string(nlbapi.IpVersionIpv4), string(nlbapi.IpVersionIpv6)}
)

// nlbConvert moves a value between SDK types that share a wire form (e.g. HealthCheckerDetails
// and HealthChecker); fields the target lacks are dropped. These types always marshal.
func nlbConvert[T any](v any) T {
	var out T
	if b, err := json.Marshal(v); err == nil {
		_ = json.Unmarshal(b, &out)
	}
	return out
}

func nlbCheckListener(name *string, d nlbapi.ListenerDetails) error {
	proto := string(d.Protocol)
	if err := lbCheckListenerBasics(name, &proto, nlbListenerProtocols, d.Port, true, d.DefaultBackendSetName); err != nil {
		return err
	}
	if d.IpVersion != "" {
		v := string(d.IpVersion)
		if err := lbCheckOneOf(fmt.Sprintf("listener '%s' ipVersion", *name), &v, nlbPartVersions); err != nil {
			return err
		}
	}
	if deref(d.IsPpv2Enabled) && proto != "TCP" && proto != "TCP_AND_UDP" {
		return lbInvalid("listener '%s': proxy protocol v2 needs a TCP or TCP_AND_UDP listener, not %s", *name, proto)
	}
	return nil
}

func nlbCheckBackendSet(name *string, d nlbapi.BackendSetDetails, caps lbCaps) error {
	if err := lbCheckName("backend set", name, 32); err != nil {
		return err
	}
	if d.Policy != "" {
		policy := string(d.Policy)
		if err := lbCheckOneOf(fmt.Sprintf("backend set '%s' policy", *name), &policy, nlbPolicies); err != nil {
			return err
		}
	}
	if d.IpVersion != "" {
		v := string(d.IpVersion)
		if err := lbCheckOneOf(fmt.Sprintf("backend set '%s' ipVersion", *name), &v, nlbPartVersions); err != nil {
			return err
		}
	}
	if err := nlbCheckHealthChecker(*name, d.HealthChecker); err != nil {
		return err
	}
	return nlbCheckBackends(*name, nlbPartVersion(d.IpVersion), d.Backends, caps)
}

// nlbCheckBackendFamily refuses a backend whose address is not of its backend set's IP version.
// An IPv6 backend set takes backends by IPv6 address only (the upstream CCM sends its IPv6
// backends without targetId); an IPv4 one takes IPv4 addresses and targetIds. Assumed.
func nlbCheckBackendFamily(set string, v nlbapi.IpVersionEnum, b nlbapi.Backend) error {
	ip, err := netip.ParseAddr(deref(b.IpAddress))
	switch {
	case v == nlbapi.IpVersionIpv6 && (err != nil || !ip.Is6() || ip.Is4In6()):
		return lbInvalid("backend set '%s' has ipVersion IPV6; backend %s needs an IPv6 ipAddress", set, nlbBackendName(b))
	case v == nlbapi.IpVersionIpv4 && err == nil && !ip.Is4():
		return lbInvalid("backend set '%s' has ipVersion IPV4; backend %s has an IPv6 ipAddress", set, nlbBackendName(b))
	}
	return nil
}

func nlbCheckBackends(set string, v nlbapi.IpVersionEnum, backends []nlbapi.Backend, caps lbCaps) error {
	if err := caps.checkSet(set, len(backends)); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, b := range backends {
		if err := nlbCheckBackend(b); err != nil {
			return err
		}
		if err := nlbCheckBackendFamily(set, v, b); err != nil {
			return err
		}
		n := nlbBackendName(b)
		if seen[n] {
			// Assumed: a list with a backend twice gets the answer of a CreateBackend that
			// duplicates one (nlbDuplicateBackend); the request names no NLB yet on create.
			return nlbDuplicateBackend("", set, n)
		}
		seen[n] = true
	}
	return nil
}

func nlbCheckHealthChecker(set string, h *nlbapi.HealthChecker) error {
	if h == nil {
		return lbInvalid("backend set '%s' requires a healthChecker", set)
	}
	proto := string(h.Protocol)
	if err := lbCheckHealthTarget(set, &proto, nlbHealthProtocols, h.Port); err != nil {
		return err
	}
	switch proto {
	case "HTTP", "HTTPS":
		if deref(h.UrlPath) == "" {
			return lbInvalid("backend set '%s': an %s health checker requires urlPath", set, proto)
		}
	case "UDP":
		if len(h.RequestData) == 0 || len(h.ResponseData) == 0 {
			return lbInvalid("backend set '%s': a UDP health checker requires requestData and responseData", set)
		}
	case "DNS":
		if h.Dns == nil || deref(h.Dns.DomainName) == "" {
			return lbInvalid("backend set '%s': a DNS health checker requires dns.domainName", set)
		}
	}
	return lbCheckHealthTiming(set, h.Retries, h.IntervalInMillis, h.TimeoutInMillis)
}

func nlbCheckBackend(b nlbapi.Backend) error {
	if deref(b.IpAddress) == "" && deref(b.TargetId) == "" {
		return lbInvalid("a backend needs an ipAddress or a targetId")
	}
	if b.IpAddress != nil && net.ParseIP(*b.IpAddress) == nil {
		return lbInvalid("backend ipAddress %s is not an IP address", *b.IpAddress)
	}
	if err := lbCheckPort("backend port", b.Port, true); err != nil {
		return err
	}
	return lbCheckWeight(b.Weight)
}

// nlbBackendName is the backend's own name or, as OCI generates it, "<target OCID>:<port>" for a
// backend given by targetId (with or without its ipAddress: the SDK's example names a backend by
// OCID) and "<ip>:<port>" ("[<ip>]:<port>" for IPv6) for one given by address.
func nlbBackendName(b nlbapi.Backend) string {
	if n := deref(b.Name); n != "" {
		return n
	}
	if t := deref(b.TargetId); t != "" {
		return t + ":" + strconv.Itoa(deref(b.Port))
	}
	return net.JoinHostPort(deref(b.IpAddress), strconv.Itoa(deref(b.Port)))
}

// checkNLB is the consistency OCI requires of a whole network load balancer after a change.
func checkNLB(n *nlbapi.NetworkLoadBalancer) error {
	for _, name := range lbSortedKeys(n.Listeners) {
		l := n.Listeners[name]
		bs, ok := n.BackendSets[deref(l.DefaultBackendSetName)]
		if !ok {
			return wrBadInput("Listener '%s' has unknown default backend set '%s'", name, deref(l.DefaultBackendSetName))
		}
		if nlbPartVersion(l.IpVersion) != nlbPartVersion(bs.IpVersion) {
			return wrBadInput("Listener '%s' has ipVersion %s but its default backend set '%s' has ipVersion %s",
				name, nlbPartVersion(l.IpVersion), *bs.Name, nlbPartVersion(bs.IpVersion))
		}
	}
	names := lbSortedKeys(n.Listeners)
	for i, a := range names {
		for _, b := range names[i+1:] {
			la, lb := n.Listeners[a], n.Listeners[b]
			if deref(la.Port) == deref(lb.Port) && nlbPartVersion(la.IpVersion) == nlbPartVersion(lb.IpVersion) &&
				nlbProtocolsOverlap(la.Protocol, lb.Protocol) {
				return wrBadInput("Listeners '%s' and '%s' both use %s port %d", a, b, la.Protocol, deref(la.Port))
			}
		}
	}
	// ANY listeners need transparent mode (isPreserveSourceDestination); an L3IP listener is the
	// NLB's only one and listens on port 0 (OCI "Listeners for Network Load Balancers"; status and
	// stage assumed, as for the other listener rules).
	l3ip := 0
	for _, name := range names {
		l := n.Listeners[name]
		switch l.Protocol {
		case nlbapi.ListenerProtocolsAny:
			if !deref(n.IsPreserveSourceDestination) {
				return wrBadInput("Listener '%s' of protocol ANY needs isPreserveSourceDestination on the network load balancer", name)
			}
		case nlbapi.ListenerProtocolsL3Ip:
			l3ip++
			if deref(l.Port) != 0 {
				return wrBadInput("Listener '%s' of protocol L3IP must listen on port 0, not %d", name, deref(l.Port))
			}
		}
	}
	if l3ip > 0 && len(names) > 1 {
		return wrBadInput("An L3IP listener must be the network load balancer's only listener")
	}
	if deref(n.IsSymmetricHashEnabled) && !deref(n.IsPreserveSourceDestination) {
		return wrBadInput("isSymmetricHashEnabled requires isPreserveSourceDestination")
	}
	if deref(n.IsPreserveSourceDestination) {
		for _, name := range lbSortedKeys(n.BackendSets) {
			bs := n.BackendSets[name]
			if !deref(bs.IsPreserveSource) {
				return wrBadInput("Backend set '%s' cannot disable isPreserveSource while isPreserveSourceDestination is enabled", name)
			}
			for _, b := range bs.Backends {
				if deref(b.TargetId) == "" {
					return wrBadInput("Backend %s of backend set '%s' is given by IP address; isPreserveSourceDestination needs backends given by compute OCID (targetId)", deref(b.Name), name)
				}
			}
		}
		for _, name := range lbSortedKeys(n.Listeners) {
			if deref(n.Listeners[name].IsPpv2Enabled) {
				return wrBadInput("Listener '%s' cannot enable proxy protocol while isPreserveSourceDestination is enabled", name)
			}
		}
	}
	return nil
}

// nlbTransparentPublic refuses source/destination preservation ("transparent mode") on a public
// network load balancer: OCI's "Introduction to Network Load Balancer" lists it for private ones
// only.
const nlbTransparentPublic = "isPreserveSourceDestination can only be enabled on a private network load balancer"

func nlbProtocolsOverlap(a, b nlbapi.ListenerProtocolsEnum) bool {
	covers := func(p nlbapi.ListenerProtocolsEnum) []string {
		switch p {
		case nlbapi.ListenerProtocolsTcpAndUdp:
			return []string{"TCP", "UDP"}
		case nlbapi.ListenerProtocolsAny, nlbapi.ListenerProtocolsL3Ip:
			return []string{"TCP", "UDP", "OTHER"}
		}
		return []string{string(p)}
	}
	for _, p := range covers(a) {
		if slices.Contains(covers(b), p) {
			return true
		}
	}
	return false
}

func nlbListenerFrom(name string, d nlbapi.ListenerDetails) nlbapi.Listener {
	l := nlbConvert[nlbapi.Listener](d)
	l.Name = common.String(name)
	l.IpVersion = cmp.Or(l.IpVersion, nlbapi.IpVersionIpv4)
	orDefault(&l.IsPpv2Enabled, common.Bool(false))
	return l
}

// nlbBackendSetFrom is the stored backend set, with OCI's defaults: five-tuple hashing, source
// preserved, IPv4, and the health checker's retries, timeout and interval.
func nlbBackendSetFrom(name string, d nlbapi.BackendSetDetails) nlbapi.BackendSet {
	bs := nlbConvert[nlbapi.BackendSet](d)
	bs.Name = common.String(name)
	bs.Policy = cmp.Or(bs.Policy, nlbapi.NetworkLoadBalancingPolicyFiveTuple)
	bs.IpVersion = cmp.Or(bs.IpVersion, nlbapi.IpVersionIpv4)
	orDefault(&bs.IsPreserveSource, common.Bool(true))
	orDefault(&bs.IsFailOpen, common.Bool(false))
	orDefault(&bs.IsInstantFailoverEnabled, common.Bool(false))
	orDefault(&bs.IsInstantFailoverTcpResetEnabled, common.Bool(false))
	orDefault(&bs.AreOperationallyActiveBackendsPreferred, common.Bool(false))
	bs.HealthChecker = nlbHealthCheckerFrom(bs.HealthChecker)
	bs.Backends = make([]nlbapi.Backend, 0, len(d.Backends))
	for _, b := range d.Backends {
		bs.Backends = append(bs.Backends, nlbBackendFrom(b))
	}
	return bs
}

func nlbHealthCheckerFrom(h *nlbapi.HealthChecker) *nlbapi.HealthChecker {
	hc := jsonClone(*h)
	orDefault(&hc.Port, common.Int(0))
	orDefault(&hc.Retries, common.Int(3))
	orDefault(&hc.TimeoutInMillis, common.Int(3000))
	orDefault(&hc.IntervalInMillis, common.Int(10000))
	if hc.Protocol == nlbapi.HealthCheckProtocolsHttp || hc.Protocol == nlbapi.HealthCheckProtocolsHttps {
		orDefault(&hc.ReturnCode, common.Int(200))
	}
	return &hc
}

func nlbBackendFrom(d nlbapi.Backend) nlbapi.Backend {
	b := jsonClone(d)
	b.Name = common.String(nlbBackendName(d))
	orDefault(&b.Weight, common.Int(1))
	for _, p := range []**bool{&b.IsDrain, &b.IsBackup, &b.IsOffline} {
		if *p == nil {
			*p = common.Bool(false)
		}
	}
	return b
}

// The kinds of reserved IP a network load balancer takes, by the resource type of their OCIDs.
const (
	nlbReservedPublic  = "publicip"
	nlbReservedPrivate = "privateip"
	nlbReservedIPv6    = "ipv6"
)

// nlbReservedKind is the kind of a reserved IP's OCID ("ocid1.<kind>.…"), "" when it is none.
func nlbReservedKind(id string) string {
	for _, k := range []string{nlbReservedPublic, nlbReservedPrivate, nlbReservedIPv6} {
		if strings.HasPrefix(id, "ocid1."+k+".") {
			return k
		}
	}
	return ""
}

// nlbCheckReservedIPs applies the SDK's documented rule for CreateNetworkLoadBalancerDetails:
// up to three reserved IPs, all different, at most one of each kind (public IP, private IP,
// IPv6); a private network load balancer takes no public one. A reserved IP of a family the
// network load balancer's version does not serve is refused too (assumed). It returns them by
// kind.
func nlbCheckReservedIPs(ips []nlbapi.ReservedIp, private bool, version nlbapi.NlbIpVersionEnum) (map[string]string, error) {
	byKind := map[string]string{}
	for _, r := range ips {
		id := deref(r.Id)
		kind := nlbReservedKind(id)
		switch {
		case id == "":
			return nil, lbInvalid("reservedIps: every reserved IP needs an id")
		case kind == "":
			return nil, lbInvalid("reservedIps: %s is not the OCID of a public IP, private IP or IPv6 address", id)
		case byKind[kind] == id:
			return nil, lbInvalid("reservedIps lists %s twice", id)
		case byKind[kind] != "":
			return nil, lbInvalid("reservedIps: at most one reserved IP of each kind (public IP, private IP, IPv6); %s and %s are both of kind %s",
				byKind[kind], id, kind)
		case kind == nlbReservedPublic && private:
			return nil, lbInvalid("reservedIps: a private network load balancer takes no reserved public IP (%s)", id)
		case kind == nlbReservedIPv6 && !nlbServes(version, nlbapi.IpVersionIpv6):
			return nil, lbInvalid("reservedIps: the reserved IPv6 %s needs nlbIpVersion IPV4_AND_IPV6 or IPV6, not %s", id, nlbVersionOf(version))
		case kind != nlbReservedIPv6 && !nlbServes(version, nlbapi.IpVersionIpv4):
			return nil, lbInvalid("reservedIps: the reserved IPv4 address %s needs nlbIpVersion IPV4 or IPV4_AND_IPV6, not %s", id, nlbVersionOf(version))
		}
		byKind[kind] = id
	}
	return byKind, nil
}
