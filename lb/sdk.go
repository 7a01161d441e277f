// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

// This file is the edge between Spec and oci-go-sdk types: Observe reads an OCI load balancer
// into a Spec, the *Details functions build request bodies from Spec parts, and statusOf reads
// the addresses. Nothing else in the package touches SDK model types.

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/internal/freeform"
	"github.com/oci-ccm/oci-ccm/lb/internal/ipaddr"
	"github.com/oci-ccm/oci-ccm/lb/internal/sdkval"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Observe reads an OCI load balancer into a Spec. Fields OCI does not report (private keys,
// desired-only fields) stay empty.
func observe(lb loadbalancer.LoadBalancer) *model.Spec {
	s := &model.Spec{
		Kind:                  model.KindLoadBalancer,
		ID:                    sdkval.Deref(lb.Id),
		Name:                  sdkval.Deref(lb.DisplayName),
		CompartmentID:         sdkval.Deref(lb.CompartmentId),
		Internal:              lb.IsPrivate != nil && *lb.IsPrivate,
		Subnets:               sdkval.SortedCopy(lb.SubnetIds),
		Shape:                 model.Shape{Name: sdkval.Deref(lb.ShapeName)},
		NetworkSecurityGroups: sdkval.SortedCopy(lb.NetworkSecurityGroupIds),
		Listeners:             make(map[string]model.Listener, len(lb.Listeners)),
		BackendSets:           make(map[string]model.BackendSet, len(lb.BackendSets)),
		Certificates:          make(map[string]model.Certificate, len(lb.Certificates)),
		FreeformTags:          maps.Clone(lb.FreeformTags),
		DefinedTags:           lb.DefinedTags,
	}
	if s.Shape.IsFlexible() && lb.ShapeDetails != nil {
		s.Shape.MinMbps = sdkval.DerefInt(lb.ShapeDetails.MinimumBandwidthInMbps)
		s.Shape.MaxMbps = sdkval.DerefInt(lb.ShapeDetails.MaximumBandwidthInMbps)
	}
	for _, ip := range lb.IpAddresses {
		if ip.ReservedIp != nil && ip.ReservedIp.Id != nil {
			s.ReservedIP = sdkval.Deref(ip.IpAddress)
		}
	}
	if o, ok := freeform.Owner(lb.FreeformTags); ok {
		s.Owner = o
	}
	for key, l := range lb.Listeners {
		name := sdkval.Deref(l.Name)
		if name == "" {
			name = key
		}
		ol := model.Listener{
			Name:       name,
			Protocol:   strings.ToUpper(sdkval.Deref(l.Protocol)),
			Port:       sdkval.DerefInt(l.Port),
			BackendSet: sdkval.Deref(l.DefaultBackendSetName),
			TLS:        observeTLS(l.SslConfiguration),
			Routing: model.ListenerRouting{
				Hostnames:     slices.Clone(l.HostnameNames),
				RuleSets:      slices.Clone(l.RuleSetNames),
				RoutingPolicy: sdkval.Deref(l.RoutingPolicyName),
				PathRouteSet:  sdkval.Deref(l.PathRouteSetName),
			},
		}
		if cc := l.ConnectionConfiguration; cc != nil {
			if cc.IdleTimeout != nil {
				ol.IdleTimeoutSeconds = *cc.IdleTimeout
			}
			ol.ProxyProtocolVersion = sdkval.DerefInt(cc.BackendTcpProxyProtocolVersion)
		}
		s.Listeners[name] = ol
	}
	for key, b := range lb.BackendSets {
		name := sdkval.Deref(b.Name)
		if name == "" {
			name = key
		}
		ob := model.BackendSet{
			Name:     name,
			Policy:   strings.ToUpper(sdkval.Deref(b.Policy)),
			Backends: make([]model.Backend, 0, len(b.Backends)),
			TLS:      observeTLS(b.SslConfiguration),
		}
		for _, be := range b.Backends {
			ob.Backends = append(ob.Backends, model.Backend{IP: ipaddr.Canonical(sdkval.Deref(be.IpAddress)), Port: sdkval.DerefInt(be.Port)})
		}
		ipaddr.SortBy(ob.Backends, func(b model.Backend) string { return b.IP }, func(x, y model.Backend) int { return x.Port - y.Port })
		if h := b.HealthChecker; h != nil {
			ob.HealthCheck = model.HealthCheck{
				Protocol:       strings.ToUpper(sdkval.Deref(h.Protocol)),
				Port:           sdkval.DerefInt(h.Port),
				Path:           sdkval.Deref(h.UrlPath),
				ReturnCode:     sdkval.DerefInt(h.ReturnCode),
				Retries:        sdkval.DerefInt(h.Retries),
				IntervalMillis: sdkval.DerefInt(h.IntervalInMillis),
				TimeoutMillis:  sdkval.DerefInt(h.TimeoutInMillis),
				ForcePlainText: h.IsForcePlainText != nil && *h.IsForcePlainText,
			}
		}
		s.BackendSets[name] = ob
	}
	for key, c := range lb.Certificates {
		name := sdkval.Deref(c.CertificateName)
		if name == "" {
			name = key
		}
		s.Certificates[name] = model.Certificate{
			Name:              name,
			PublicCertificate: sdkval.Deref(c.PublicCertificate),
			CACertificate:     sdkval.Deref(c.CaCertificate),
		}
	}
	if len(lb.RuleSets) > 0 {
		s.RuleSets = make(map[string]model.RuleSet, len(lb.RuleSets))
		for key, rs := range lb.RuleSets {
			name := sdkval.Deref(rs.Name)
			if name == "" {
				name = key
			}
			s.RuleSets[name] = observeRuleSet(name, rs.Items)
		}
	}
	return s
}

// observeRuleSet reads OCI's rules into their canonical text (canonicalRule). A rule that does
// not encode is kept as its error, so it never compares equal and the desired rules replace it.
func observeRuleSet(name string, items []loadbalancer.Rule) model.RuleSet {
	rs := model.RuleSet{Name: name, Rules: make([]string, 0, len(items))}
	for _, item := range items {
		text, err := json.Marshal(item)
		rule := ""
		if err == nil {
			rule, err = canonicalRule(text)
		}
		if err != nil {
			rule = "unreadable rule: " + err.Error()
		}
		rs.Rules = append(rs.Rules, rule)
	}
	return rs
}

// ruleItems turns canonical rule texts back into the SDK's rules, through its own decoding of
// the polymorphic Rule. The texts were checked by parseRule, so an error means a bug.
func ruleItems(rules []string) ([]loadbalancer.Rule, error) {
	var d loadbalancer.RuleSetDetails
	body := "{\"items\":[" + strings.Join(rules, ",") + "]}"
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		return nil, fmt.Errorf("lb: rules the SDK cannot decode: %w", err)
	}
	if d.Items == nil {
		d.Items = []loadbalancer.Rule{}
	}
	return d.Items, nil
}

func observeTLS(c *loadbalancer.SslConfiguration) *model.TLS {
	if c == nil || sdkval.Deref(c.CertificateName) == "" {
		return nil
	}
	return &model.TLS{Certificate: sdkval.Deref(c.CertificateName), CipherSuite: sdkval.Deref(c.CipherSuiteName), Protocols: sdkval.SortedCopy(c.Protocols)}
}

// createDetails is the one CreateLoadBalancer body that carries the whole load balancer.
func createDetails(s *model.Spec, reservedIPID string) (loadbalancer.CreateLoadBalancerDetails, error) {
	tags, _ := freeform.WithOwner(s.FreeformTags, s.Owner)
	tags, _ = freeform.WithNSGs(tags, s.NetworkSecurityGroups)
	tags, _ = freeform.WithRuleSets(tags, ruleSetNames(s.RuleSets))
	d := loadbalancer.CreateLoadBalancerDetails{
		CompartmentId:           common.String(s.CompartmentID),
		DisplayName:             common.String(s.Name),
		ShapeName:               common.String(s.Shape.Name),
		ShapeDetails:            shapeDetails(s.Shape),
		SubnetIds:               slices.Clone(s.Subnets),
		IsPrivate:               common.Bool(s.Internal),
		NetworkSecurityGroupIds: slices.Clone(s.NetworkSecurityGroups),
		Listeners:               make(map[string]loadbalancer.ListenerDetails, len(s.Listeners)),
		BackendSets:             make(map[string]loadbalancer.BackendSetDetails, len(s.BackendSets)),
		Certificates:            make(map[string]loadbalancer.CertificateDetails, len(s.Certificates)),
		FreeformTags:            tags,
		DefinedTags:             s.DefinedTags,
	}
	if reservedIPID != "" {
		d.ReservedIps = []loadbalancer.ReservedIp{{Id: common.String(reservedIPID)}}
	}
	for name, l := range s.Listeners {
		d.Listeners[name] = loadbalancer.ListenerDetails{
			DefaultBackendSetName:   common.String(l.BackendSet),
			Port:                    common.Int(l.Port),
			Protocol:                common.String(l.Protocol),
			SslConfiguration:        sslDetails(l.TLS),
			ConnectionConfiguration: connectionConfig(l),
			RuleSetNames:            slices.Clone(l.Routing.RuleSets),
		}
	}
	for name, b := range s.BackendSets {
		d.BackendSets[name] = loadbalancer.BackendSetDetails{
			Policy:           common.String(b.Policy),
			HealthChecker:    healthCheckerDetails(b.HealthCheck),
			Backends:         backendDetails(b.Backends),
			SslConfiguration: sslDetails(b.TLS),
		}
	}
	for name, c := range s.Certificates {
		d.Certificates[name] = loadbalancer.CertificateDetails(certificateDetails(c))
	}
	for name, rs := range s.RuleSets {
		items, err := ruleItems(rs.Rules)
		if err != nil {
			return d, err
		}
		if d.RuleSets == nil {
			d.RuleSets = make(map[string]loadbalancer.RuleSetDetails, len(s.RuleSets))
		}
		d.RuleSets[name] = loadbalancer.RuleSetDetails{Items: items}
	}
	return d, nil
}

func shapeDetails(s model.Shape) *loadbalancer.ShapeDetails {
	if !s.IsFlexible() {
		return nil
	}
	return &loadbalancer.ShapeDetails{MinimumBandwidthInMbps: common.Int(s.MinMbps), MaximumBandwidthInMbps: common.Int(s.MaxMbps)}
}

func shapeUpdateDetails(s model.Shape) loadbalancer.UpdateLoadBalancerShapeDetails {
	return loadbalancer.UpdateLoadBalancerShapeDetails{ShapeName: common.String(s.Name), ShapeDetails: shapeDetails(s)}
}

func settingsDetails(s model.Settings) loadbalancer.UpdateLoadBalancerDetails {
	return loadbalancer.UpdateLoadBalancerDetails{DisplayName: common.String(s.Name), FreeformTags: maps.Clone(s.FreeformTags)}
}

func createListenerDetails(l model.Listener) loadbalancer.CreateListenerDetails {
	return loadbalancer.CreateListenerDetails{
		Name:                    common.String(l.Name),
		DefaultBackendSetName:   common.String(l.BackendSet),
		Port:                    common.Int(l.Port),
		Protocol:                common.String(l.Protocol),
		SslConfiguration:        sslDetails(l.TLS),
		ConnectionConfiguration: connectionConfig(l),
		RuleSetNames:            slices.Clone(l.Routing.RuleSets),
	}
}

// updateListenerDetails is the whole listener (OCI replaces it), with the routing the Spec does
// not manage sent back as observed.
func updateListenerDetails(l model.Listener) loadbalancer.UpdateListenerDetails {
	return loadbalancer.UpdateListenerDetails{
		DefaultBackendSetName:   common.String(l.BackendSet),
		Port:                    common.Int(l.Port),
		Protocol:                common.String(l.Protocol),
		SslConfiguration:        sslDetails(l.TLS),
		ConnectionConfiguration: connectionConfig(l),
		HostnameNames:           slices.Clone(l.Routing.Hostnames),
		RuleSetNames:            slices.Clone(l.Routing.RuleSets),
		RoutingPolicyName:       sdkval.OptString(l.Routing.RoutingPolicy),
		PathRouteSetName:        sdkval.OptString(l.Routing.PathRouteSet),
	}
}

func connectionConfig(l model.Listener) *loadbalancer.ConnectionConfiguration {
	c := &loadbalancer.ConnectionConfiguration{IdleTimeout: common.Int64(l.IdleTimeoutSeconds)}
	if l.IdleTimeoutSeconds == 0 {
		c.IdleTimeout = common.Int64(defaultIdleTimeout(l.Protocol))
	}
	if l.ProxyProtocolVersion != 0 {
		c.BackendTcpProxyProtocolVersion = common.Int(l.ProxyProtocolVersion)
	}
	return c
}

func createBackendSetDetails(b model.BackendSet) loadbalancer.CreateBackendSetDetails {
	return loadbalancer.CreateBackendSetDetails{
		Name:             common.String(b.Name),
		Policy:           common.String(b.Policy),
		HealthChecker:    healthCheckerDetails(b.HealthCheck),
		Backends:         backendDetails(b.Backends),
		SslConfiguration: sslDetails(b.TLS),
	}
}

func updateBackendSetDetails(b model.BackendSet) loadbalancer.UpdateBackendSetDetails {
	return loadbalancer.UpdateBackendSetDetails{
		Policy:           common.String(b.Policy),
		HealthChecker:    healthCheckerDetails(b.HealthCheck),
		Backends:         backendDetails(b.Backends),
		SslConfiguration: sslDetails(b.TLS),
	}
}

func backendDetails(bs []model.Backend) []loadbalancer.BackendDetails {
	out := make([]loadbalancer.BackendDetails, len(bs))
	for i, b := range bs {
		out[i] = loadbalancer.BackendDetails{IpAddress: common.String(b.IP), Port: common.Int(b.Port), Weight: common.Int(1)}
	}
	return out
}

func healthCheckerDetails(h model.HealthCheck) *loadbalancer.HealthCheckerDetails {
	d := &loadbalancer.HealthCheckerDetails{
		Protocol:         common.String(h.Protocol),
		Port:             common.Int(h.Port),
		Retries:          common.Int(h.Retries),
		IntervalInMillis: common.Int(h.IntervalMillis),
		TimeoutInMillis:  common.Int(h.TimeoutMillis),
		IsForcePlainText: common.Bool(h.ForcePlainText),
	}
	if h.Protocol == protocolHTTP {
		d.UrlPath = common.String(h.Path)
		d.ReturnCode = common.Int(h.ReturnCode)
	}
	return d
}

// sslDetails builds the SSL configuration. Peer verification stays off, as in the upstream CCM:
// backends are nodes reached by IP, whose certificates rarely name those IPs.
func sslDetails(t *model.TLS) *loadbalancer.SslConfigurationDetails {
	if t == nil {
		return nil
	}
	d := &loadbalancer.SslConfigurationDetails{
		CertificateName:       common.String(t.Certificate),
		VerifyPeerCertificate: common.Bool(false),
		Protocols:             slices.Clone(t.Protocols),
	}
	if t.CipherSuite != "" {
		d.CipherSuiteName = common.String(t.CipherSuite)
	}
	return d
}

func certificateDetails(c model.Certificate) loadbalancer.CreateCertificateDetails {
	return loadbalancer.CreateCertificateDetails{
		CertificateName:   common.String(c.Name),
		PublicCertificate: sdkval.OptString(c.PublicCertificate),
		CaCertificate:     sdkval.OptString(c.CACertificate),
		PrivateKey:        sdkval.OptString(c.PrivateKey.Reveal()),
		Passphrase:        sdkval.OptString(c.Passphrase.Reveal()),
	}
}

// statusOf lists the load balancer's addresses for the Service status. A load balancer reports
// its public addresses when public, its private ones when internal. A network load balancer
// reports every address, as the upstream CCM does, or only the public ones with publicOnly
// (annotation.NLBExternalIPOnly).
func statusOf(f *found, ipMode *v1.LoadBalancerIPMode, publicOnly bool) *v1.LoadBalancerStatus {
	var ips []string
	for _, a := range f.Addresses {
		keep := a.Public != f.Internal
		if f.Kind == model.KindNetworkLoadBalancer {
			keep = a.Public || !publicOnly
		}
		if a.IP != "" && keep {
			ips = append(ips, a.IP)
		}
	}
	ipaddr.Sort(ips)
	st := &v1.LoadBalancerStatus{}
	for _, ip := range slices.Compact(ips) {
		ing := v1.LoadBalancerIngress{IP: ip}
		if ipMode != nil {
			m := *ipMode
			ing.IPMode = &m
		}
		st.Ingress = append(st.Ingress, ing)
	}
	return st
}

// observeFound reads a found's SDK value into a Spec.
func observeFound(f *found) *model.Spec {
	switch raw := f.raw.(type) {
	case loadbalancer.LoadBalancer:
		return observe(raw)
	case nlbapi.NetworkLoadBalancer:
		return observeNLB(raw)
	}
	return &model.Spec{Kind: f.Kind, ID: f.ID, Name: f.Name, CompartmentID: f.CompartmentID, FreeformTags: maps.Clone(f.FreeformTags)}
}
