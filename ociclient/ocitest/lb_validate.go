// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

// This file checks Load Balancer API requests the way OCI does and turns request details into
// the stored resources, with OCI's defaults filled in. Request checks answer synchronously;
// checkLB, the consistency of a whole load balancer, runs when a work request completes and
// fails it.

// The shapes, policies and protocols the Load Balancer API knows.
var (
	lbShapes             = []string{"flexible", "10Mbps", "10Mbps-Micro", "100Mbps", "400Mbps", "8000Mbps"}
	lbPolicies           = []string{"ROUND_ROBIN", "LEAST_CONNECTIONS", "IP_HASH"}
	lbListenerProtocols  = []string{"TCP", "HTTP", "HTTP2", "GRPC"}
	lbHealthProtocols    = []string{"HTTP", "TCP"}
	lbFlexibleMbps       = [2]int{10, 8000}
	lbMaxNSGs            = 5
	lbMaxIdleTimeoutSecs = int64(7200)
	// lbMinMaxConnections is the least non-zero maxConnections of a backend and
	// backendMaxConnections of a backend set: the SDK's doc comments of BackendDetails and
	// BackendSetDetails (v65.130.0) say "must be greater or equal to 256"; 0 means unlimited.
	lbMinMaxConnections = 256
)

// lbCipherSuites are the predefined cipher suites of the Load Balancer API, from the SDK's doc
// comment of CreateSslCipherSuiteDetails.Name (v65.130.0). A listener or backend set may name
// one of these or a cipher suite of its own load balancer.
var lbCipherSuites = []string{
	"oci-default-ssl-cipher-suite-v1", "oci-modern-ssl-cipher-suite-v1",
	"oci-compatible-ssl-cipher-suite-v1", "oci-wider-compatible-ssl-cipher-suite-v1",
	"oci-default-http2-ssl-cipher-suite-v1", "oci-default-http2-tls-13-ssl-cipher-suite-v1",
	"oci-default-http2-tls-12-13-ssl-cipher-suite-v1", "oci-tls-13-recommended-ssl-cipher-suite-v1",
	"oci-tls-12-13-wider-ssl-cipher-suite-v1", "oci-tls-11-12-13-wider-ssl-cipher-suite-v1",
}

// lbCustomizedCipherSuite is what GET shows for a cipher configuration changed by Oracle; the
// SDK's doc comment of SslConfigurationDetails.CipherSuiteName: it "is not accepted as valid
// input for this field".
const lbCustomizedCipherSuite = "oci-customized-ssl-cipher-suite"

// lbCheckMaxConnections refuses a maxConnections below OCI's minimum other than 0 (unlimited).
func lbCheckMaxConnections(what string, v *int) error {
	if v != nil && *v != 0 && *v < lbMinMaxConnections {
		return lbInvalid("%s %d is too low: 0 (unlimited) or at least %d", what, *v, lbMinMaxConnections)
	}
	return nil
}

// lbCheckCipherSuites is checkLB's part for cipher suites: every listener and backend set names
// a predefined suite or one of the load balancer's own (SslCipherSuites). Assumed: OCI's stage
// and wording for an unknown name are not documented; this fails the work request, as an unknown
// certificate does.
func lbCheckCipherSuites(lb *loadbalancer.LoadBalancer) error {
	known := func(name string) bool {
		_, own := lb.SslCipherSuites[name]
		return name == "" || own || slices.Contains(lbCipherSuites, name)
	}
	for _, name := range lbSortedKeys(lb.Listeners) {
		if c := lb.Listeners[name].SslConfiguration; c != nil && !known(deref(c.CipherSuiteName)) {
			return wrBadInput("Listener '%s' has unknown cipher suite '%s'", name, *c.CipherSuiteName)
		}
	}
	for _, name := range lbSortedKeys(lb.BackendSets) {
		if c := lb.BackendSets[name].SslConfiguration; c != nil && !known(deref(c.CipherSuiteName)) {
			return wrBadInput("Backend set '%s' has unknown cipher suite '%s'", name, *c.CipherSuiteName)
		}
	}
	return nil
}

// lbCheckName enforces OCI's rule for listener and backend set names: 1 to maxLen characters,
// letters, digits, '-' and '_'. The SDK's doc comment of CreateBackendSetDetails.Name (both APIs,
// v65.130.0): "Valid backend set names include only alphanumeric characters, dashes, and
// underscores"; listeners are held to the same rule (assumed: the SDK does not say).
func lbCheckName(kind string, name *string, maxLen int) error {
	return lbCheckNameChars(kind, name, maxLen, "-_")
}

// lbCheckNameChars is lbCheckName with the punctuation allowed besides letters and digits.
func lbCheckNameChars(kind string, name *string, maxLen int, punct string) error {
	if name == nil || *name == "" {
		return lbInvalid("%s name is required", kind)
	}
	if len(*name) > maxLen {
		return lbInvalid("%s name '%s' is longer than %d characters", kind, *name, maxLen)
	}
	for _, c := range *name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(punct, c)
		if !ok {
			return lbInvalid("%s name '%s' contains %q; allowed are letters, digits and %s", kind, *name, c, lbQuoteRunes(punct))
		}
	}
	return nil
}

// lbQuoteRunes lists runes for a message: "'-', '_' and '.'".
func lbQuoteRunes(rs string) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, "'"+string(r)+"'")
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// lbCheckPort requires a port in 1..65535, or 0..65535 when allowZero.
func lbCheckPort(what string, port *int, allowZero bool) error {
	if port == nil {
		return lbInvalid("%s is required", what)
	}
	low := 1
	if allowZero {
		low = 0
	}
	if *port < low || *port > 65535 {
		return lbInvalid("%s %d is out of range %d..65535", what, *port, low)
	}
	return nil
}

func lbCheckOneOf(what string, v *string, allowed []string) error {
	if v == nil || *v == "" {
		return lbInvalid("%s is required", what)
	}
	if !slices.Contains(allowed, *v) {
		return lbInvalid("%s '%s' is not one of %v", what, *v, allowed)
	}
	return nil
}

// lbCheckCreateOwner is how both APIs' creates begin their checks: a compartment, then a display
// name (lbCheckDisplayName).
func lbCheckCreateOwner(compartment, displayName *string) error {
	if deref(compartment) == "" {
		return lbInvalid("compartmentId is required")
	}
	return lbCheckDisplayName(displayName)
}

func lbCheckDisplayName(v *string) error {
	if v == nil || *v == "" {
		return lbInvalid("displayName is required")
	}
	if len(*v) > 1024 {
		return lbInvalid("displayName is longer than 1024 characters")
	}
	return nil
}

func lbCheckNSGs(ids []string) error {
	if len(ids) > lbMaxNSGs {
		return lbLimitExceeded("%d network security groups exceed the limit of %d", len(ids), lbMaxNSGs)
	}
	for _, id := range ids {
		if id == "" {
			return lbInvalid("networkSecurityGroupIds contains an empty id")
		}
	}
	return nil
}

// lbCheckShape validates a shape and its flexible bandwidth.
func lbCheckShape(name *string, d *loadbalancer.ShapeDetails) error {
	if err := lbCheckOneOf("shapeName", name, lbShapes); err != nil {
		return err
	}
	if *name != "flexible" {
		if d != nil {
			return lbInvalid("shapeDetails is only valid with the flexible shape, not '%s'", *name)
		}
		return nil
	}
	if d == nil || d.MinimumBandwidthInMbps == nil || d.MaximumBandwidthInMbps == nil {
		return lbInvalid("the flexible shape requires shapeDetails with minimumBandwidthInMbps and maximumBandwidthInMbps")
	}
	lo, hi := *d.MinimumBandwidthInMbps, *d.MaximumBandwidthInMbps
	for _, v := range []int{lo, hi} {
		if v < lbFlexibleMbps[0] || v > lbFlexibleMbps[1] {
			return lbInvalid("bandwidth %d Mbps is out of range %d..%d", v, lbFlexibleMbps[0], lbFlexibleMbps[1])
		}
	}
	if lo > hi {
		return lbInvalid("minimumBandwidthInMbps %d exceeds maximumBandwidthInMbps %d", lo, hi)
	}
	return nil
}

// lbCheckListenerBasics checks what a listener needs in both APIs, in this order: a valid name,
// one of the API's protocols, a port (0 too where anyPort, the NLB's "any port") and a default
// backend set.
func lbCheckListenerBasics(name, protocol *string, protocols []string, port *int, anyPort bool, defaultSet *string) error {
	if err := lbCheckName("listener", name, 32); err != nil {
		return err
	}
	if err := lbCheckOneOf(fmt.Sprintf("listener '%s' protocol", *name), protocol, protocols); err != nil {
		return err
	}
	if err := lbCheckPort(fmt.Sprintf("listener '%s' port", *name), port, anyPort); err != nil {
		return err
	}
	if deref(defaultSet) == "" {
		return lbInvalid("listener '%s' requires defaultBackendSetName", *name)
	}
	return nil
}

// lbCheckListener validates one listener's details (not what they refer to: see checkLB).
func lbCheckListener(name *string, d loadbalancer.ListenerDetails) error {
	if err := lbCheckListenerBasics(name, d.Protocol, lbListenerProtocols, d.Port, false, d.DefaultBackendSetName); err != nil {
		return err
	}
	p := *d.Protocol
	if (p == "HTTP2" || p == "GRPC") && d.SslConfiguration == nil {
		return lbInvalid("listener '%s': protocol %s requires sslConfiguration", *name, p)
	}
	if d.SslConfiguration != nil {
		if err := lbCheckSSL("listener '"+*name+"'", d.SslConfiguration, true); err != nil {
			return err
		}
	}
	if c := d.ConnectionConfiguration; c != nil {
		if c.IdleTimeout != nil && (*c.IdleTimeout < 1 || *c.IdleTimeout > lbMaxIdleTimeoutSecs) {
			return lbInvalid("listener '%s': idleTimeout %d is out of range 1..%d", *name, *c.IdleTimeout, lbMaxIdleTimeoutSecs)
		}
		if v := c.BackendTcpProxyProtocolVersion; v != nil {
			if *v != 1 && *v != 2 {
				return lbInvalid("listener '%s': backendTcpProxyProtocolVersion must be 1 or 2", *name)
			}
			if p != "TCP" {
				return lbInvalid("listener '%s': the proxy protocol needs a TCP listener", *name)
			}
		}
	}
	return nil
}

func lbCheckSSL(owner string, c *loadbalancer.SslConfigurationDetails, needCertificate bool) error {
	if needCertificate && (c.CertificateName == nil || *c.CertificateName == "") && len(c.CertificateIds) == 0 {
		return lbInvalid("%s: sslConfiguration needs certificateName or certificateIds", owner)
	}
	if deref(c.CipherSuiteName) == lbCustomizedCipherSuite {
		return lbInvalid("%s: cipherSuiteName '%s' is reserved by Oracle; give a predefined or custom cipher suite", owner, lbCustomizedCipherSuite)
	}
	// OCI accepts verifyDepth 0 when peers are not verified: the upstream CCM sends exactly that
	// on every TLS listener. A depth only matters, and is checked, when verifying.
	if d := c.VerifyDepth; d != nil {
		low := 0
		if deref(c.VerifyPeerCertificate) {
			low = 1
		}
		if *d < low || *d > 10 {
			return lbInvalid("%s: verifyDepth %d is out of range %d..10", owner, *d, low)
		}
	}
	return nil
}

// lbCheckBackendSet validates one backend set's details and its backends against the cap of one
// set.
func lbCheckBackendSet(name *string, d loadbalancer.BackendSetDetails, caps lbCaps) error {
	if err := lbCheckName("backend set", name, 32); err != nil {
		return err
	}
	if err := lbCheckOneOf(fmt.Sprintf("backend set '%s' policy", *name), d.Policy, lbPolicies); err != nil {
		return err
	}
	if err := lbCheckHealthChecker(*name, d.HealthChecker); err != nil {
		return err
	}
	if d.SslConfiguration != nil {
		if err := lbCheckSSL("backend set '"+*name+"'", d.SslConfiguration, false); err != nil {
			return err
		}
	}
	if err := lbCheckMaxConnections(fmt.Sprintf("backend set '%s' backendMaxConnections", *name), d.BackendMaxConnections); err != nil {
		return err
	}
	if d.SessionPersistenceConfiguration != nil && d.LbCookieSessionPersistenceConfiguration != nil {
		return lbInvalid("backend set '%s': sessionPersistenceConfiguration and lbCookieSessionPersistenceConfiguration are exclusive", *name)
	}
	if err := caps.checkSet(*name, len(d.Backends)); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, b := range d.Backends {
		if err := lbCheckBackend(b); err != nil {
			return err
		}
		n := lbBackendName(*b.IpAddress, *b.Port)
		if seen[n] {
			return lbInvalid("backend set '%s' lists backend %s twice", *name, n)
		}
		seen[n] = true
	}
	return nil
}

func lbCheckHealthChecker(set string, h *loadbalancer.HealthCheckerDetails) error {
	if h == nil {
		return lbInvalid("backend set '%s' requires a healthChecker", set)
	}
	if err := lbCheckHealthTarget(set, h.Protocol, lbHealthProtocols, h.Port); err != nil {
		return err
	}
	if *h.Protocol == "HTTP" && (h.UrlPath == nil || *h.UrlPath == "") {
		return lbInvalid("backend set '%s': an HTTP health checker requires urlPath", set)
	}
	return lbCheckHealthTiming(set, h.Retries, h.IntervalInMillis, h.TimeoutInMillis)
}

// lbCheckHealthTarget checks what a health checker probes, as both APIs do: one of the API's
// protocols, and a port when given (0: each backend's own).
func lbCheckHealthTarget(set string, protocol *string, protocols []string, port *int) error {
	if err := lbCheckOneOf(fmt.Sprintf("backend set '%s' health checker protocol", set), protocol, protocols); err != nil {
		return err
	}
	if port != nil {
		return lbCheckPort(fmt.Sprintf("backend set '%s' health checker port", set), port, true)
	}
	return nil
}

// lbCheckHealthTiming checks a health checker's retries, interval and timeout against the bounds
// both APIs share.
func lbCheckHealthTiming(set string, retries, intervalMs, timeoutMs *int) error {
	if retries != nil && *retries < 0 {
		return lbInvalid("backend set '%s': health checker retries must not be negative", set)
	}
	if intervalMs != nil && (*intervalMs < 1000 || *intervalMs > 1800000) {
		return lbInvalid("backend set '%s': intervalInMillis %d is out of range 1000..1800000", set, *intervalMs)
	}
	if timeoutMs != nil && (*timeoutMs < 1 || *timeoutMs > 600000) {
		return lbInvalid("backend set '%s': timeoutInMillis %d is out of range 1..600000", set, *timeoutMs)
	}
	return nil
}

func lbCheckBackend(b loadbalancer.BackendDetails) error {
	if b.IpAddress == nil || net.ParseIP(*b.IpAddress) == nil {
		return lbInvalid("backend ipAddress %s is not an IP address", deref(b.IpAddress))
	}
	if err := lbCheckPort("backend port", b.Port, false); err != nil {
		return err
	}
	if err := lbCheckWeight(b.Weight); err != nil {
		return err
	}
	return lbCheckMaxConnections("backend maxConnections", b.MaxConnections)
}

// lbCheckWeight refuses a backend weight outside 1..100, in both APIs; nil keeps the default.
func lbCheckWeight(w *int) error {
	if w != nil && (*w < 1 || *w > 100) {
		return lbInvalid("backend weight %d is out of range 1..100", *w)
	}
	return nil
}

func lbCheckCertificate(d loadbalancer.CertificateDetails) error {
	if err := lbCheckNameChars("certificate", d.CertificateName, 255, "-_"); err != nil {
		return err
	}
	if d.PublicCertificate == nil && d.CaCertificate == nil {
		return lbInvalid("certificate '%s' needs publicCertificate or caCertificate", *d.CertificateName)
	}
	if d.PrivateKey != nil && d.PublicCertificate == nil {
		return lbInvalid("certificate '%s' has a privateKey without a publicCertificate", *d.CertificateName)
	}
	return nil
}

// checkLB is the consistency OCI requires of a whole load balancer after a change: listeners
// name existing backend sets and certificates, and no two listeners share a port. The messages
// are OCI's own.
func checkLB(lb *loadbalancer.LoadBalancer) error {
	for _, name := range lbSortedKeys(lb.Listeners) {
		l := lb.Listeners[name]
		if _, ok := lb.BackendSets[deref(l.DefaultBackendSetName)]; !ok {
			return wrBadInput("Listener '%s' has unknown default backend set '%s'", name, deref(l.DefaultBackendSetName))
		}
		if c := l.SslConfiguration; c != nil && c.CertificateName != nil {
			if _, ok := lb.Certificates[*c.CertificateName]; !ok {
				return wrBadInput("Listener '%s' has unknown certificate '%s'", name, *c.CertificateName)
			}
		}
		if err := lbCheckListenerRefs(lb, name, l); err != nil {
			return err
		}
	}
	for _, name := range lbSortedKeys(lb.BackendSets) {
		if c := lb.BackendSets[name].SslConfiguration; c != nil && c.CertificateName != nil {
			if _, ok := lb.Certificates[*c.CertificateName]; !ok {
				return wrBadInput("Backend set '%s' has unknown certificate '%s'", name, *c.CertificateName)
			}
		}
	}
	if err := lbCheckCipherSuites(lb); err != nil {
		return err
	}
	byPort := map[int]string{}
	for _, name := range lbSortedKeys(lb.Listeners) {
		port := deref(lb.Listeners[name].Port)
		if other, ok := byPort[port]; ok {
			return wrBadInput("Listeners '%s' and '%s' both use port %d", other, name, port)
		}
		byPort[port] = name
	}
	return nil
}

// lbCertificateUsers names the listeners and backend sets that use a certificate.
func lbCertificateUsers(lb *loadbalancer.LoadBalancer, cert string) []string {
	var users []string
	for _, name := range lbSortedKeys(lb.Listeners) {
		if c := lb.Listeners[name].SslConfiguration; c != nil && deref(c.CertificateName) == cert {
			users = append(users, "listener '"+name+"'")
		}
	}
	for _, name := range lbSortedKeys(lb.BackendSets) {
		if c := lb.BackendSets[name].SslConfiguration; c != nil && deref(c.CertificateName) == cert {
			users = append(users, "backend set '"+name+"'")
		}
	}
	return users
}

// lbListenerFrom is the stored listener for request details, with OCI's defaults.
func lbListenerFrom(name string, d loadbalancer.ListenerDetails) loadbalancer.Listener {
	conn := loadbalancer.ConnectionConfiguration{}
	if d.ConnectionConfiguration != nil {
		conn = jsonClone(*d.ConnectionConfiguration)
	}
	if conn.IdleTimeout == nil {
		idle := int64(60) // OCI's default for HTTP-like listeners
		if deref(d.Protocol) == "TCP" {
			idle = 300
		}
		conn.IdleTimeout = &idle
	}
	return loadbalancer.Listener{
		Name:                    common.String(name),
		DefaultBackendSetName:   common.String(deref(d.DefaultBackendSetName)),
		Port:                    common.Int(deref(d.Port)),
		Protocol:                common.String(deref(d.Protocol)),
		HostnameNames:           append([]string{}, d.HostnameNames...),
		PathRouteSetName:        d.PathRouteSetName,
		RoutingPolicyName:       d.RoutingPolicyName,
		RuleSetNames:            append([]string{}, d.RuleSetNames...),
		SslConfiguration:        lbSSLFrom(d.SslConfiguration),
		ConnectionConfiguration: &conn,
	}
}

func lbSSLFrom(d *loadbalancer.SslConfigurationDetails) *loadbalancer.SslConfiguration {
	if d == nil {
		return nil
	}
	c := loadbalancer.SslConfiguration{
		VerifyDepth:                    common.Int(1),
		VerifyPeerCertificate:          common.Bool(false),
		HasSessionResumption:           d.HasSessionResumption,
		TrustedCertificateAuthorityIds: slices.Clone(d.TrustedCertificateAuthorityIds),
		CertificateIds:                 slices.Clone(d.CertificateIds),
		CertificateName:                d.CertificateName,
		ServerOrderPreference:          loadbalancer.SslConfigurationServerOrderPreferenceEnum(d.ServerOrderPreference),
		CipherSuiteName:                d.CipherSuiteName,
		Protocols:                      slices.Clone(d.Protocols),
	}
	patch(&c.VerifyDepth, d.VerifyDepth)
	patch(&c.VerifyPeerCertificate, d.VerifyPeerCertificate)
	return &c
}

// lbBackendSetFrom is the stored backend set for request details, with OCI's defaults.
func lbBackendSetFrom(name string, d loadbalancer.BackendSetDetails) loadbalancer.BackendSet {
	backends := make([]loadbalancer.Backend, 0, len(d.Backends))
	for _, b := range d.Backends {
		backends = append(backends, lbBackendFrom(b))
	}
	h := d.HealthChecker
	hc := loadbalancer.HealthChecker{
		Protocol:          common.String(*h.Protocol),
		Port:              common.Int(0), // 0: each backend's own port
		ReturnCode:        common.Int(0),
		ResponseBodyRegex: common.String(""),
		UrlPath:           h.UrlPath,
		Retries:           common.Int(3),
		TimeoutInMillis:   common.Int(3000),
		IntervalInMillis:  common.Int(10000),
		IsForcePlainText:  common.Bool(false),
	}
	if *h.Protocol == "HTTP" {
		hc.ReturnCode = common.Int(200)
	}
	patch(&hc.Port, h.Port)
	patch(&hc.ReturnCode, h.ReturnCode)
	patch(&hc.Retries, h.Retries)
	patch(&hc.TimeoutInMillis, h.TimeoutInMillis)
	patch(&hc.IntervalInMillis, h.IntervalInMillis)
	patch(&hc.ResponseBodyRegex, h.ResponseBodyRegex)
	patch(&hc.IsForcePlainText, h.IsForcePlainText)
	bs := loadbalancer.BackendSet{
		Name:                  common.String(name),
		Policy:                common.String(*d.Policy),
		Backends:              backends,
		HealthChecker:         &hc,
		BackendMaxConnections: d.BackendMaxConnections,
		SslConfiguration:      lbSSLFrom(d.SslConfiguration),
	}
	if d.SessionPersistenceConfiguration != nil {
		bs.SessionPersistenceConfiguration = new(jsonClone(*d.SessionPersistenceConfiguration))
	}
	if d.LbCookieSessionPersistenceConfiguration != nil {
		bs.LbCookieSessionPersistenceConfiguration = new(jsonClone(*d.LbCookieSessionPersistenceConfiguration))
	}
	return bs
}

// lbBackendName is how OCI names a backend: "ip:port".
func lbBackendName(ip string, port int) string { return net.JoinHostPort(ip, fmt.Sprint(port)) }

func lbBackendFrom(d loadbalancer.BackendDetails) loadbalancer.Backend {
	b := loadbalancer.Backend{
		Name:           common.String(lbBackendName(*d.IpAddress, *d.Port)),
		IpAddress:      common.String(*d.IpAddress),
		Port:           common.Int(*d.Port),
		Weight:         common.Int(1),
		Drain:          common.Bool(false),
		Backup:         common.Bool(false),
		Offline:        common.Bool(false),
		MaxConnections: d.MaxConnections,
	}
	patch(&b.Weight, d.Weight)
	patch(&b.Drain, d.Drain)
	patch(&b.Backup, d.Backup)
	patch(&b.Offline, d.Offline)
	return b
}

// lbCertificateFrom keeps what OCI returns of a certificate: never the private key or passphrase.
func lbCertificateFrom(d loadbalancer.CertificateDetails) loadbalancer.Certificate {
	return loadbalancer.Certificate{
		CertificateName:   common.String(*d.CertificateName),
		PublicCertificate: d.PublicCertificate,
		CaCertificate:     d.CaCertificate,
	}
}

// deref is *p, or the zero value for nil: the SDK's optional fields.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func lbSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// lbSortedValues lists a map's values in key order: the parts of one kind of a (network) load
// balancer as a List answers them, never nil.
func lbSortedValues[V any](m map[string]V) []V {
	out := make([]V, 0, len(m))
	for _, k := range lbSortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}

// lbCheckListenerRefs checks that the hostnames, rule sets, routing policy and path route set a
// listener names exist on its load balancer. ocitest stores these parts as given (through
// AddLoadBalancer or EditLoadBalancer) and does not route by them.
func lbCheckListenerRefs(lb *loadbalancer.LoadBalancer, name string, l loadbalancer.Listener) error {
	for _, h := range l.HostnameNames {
		if _, ok := lb.Hostnames[h]; !ok {
			return wrBadInput("Listener '%s' has unknown hostname '%s'", name, h)
		}
	}
	for _, rs := range l.RuleSetNames {
		if _, ok := lb.RuleSets[rs]; !ok {
			return wrBadInput("Listener '%s' has unknown rule set '%s'", name, rs)
		}
	}
	if p := deref(l.RoutingPolicyName); p != "" {
		if _, ok := lb.RoutingPolicies[p]; !ok {
			return wrBadInput("Listener '%s' has unknown routing policy '%s'", name, p)
		}
	}
	if p := deref(l.PathRouteSetName); p != "" {
		if _, ok := lb.PathRouteSets[p]; !ok {
			return wrBadInput("Listener '%s' has unknown path route set '%s'", name, p)
		}
	}
	return nil
}
