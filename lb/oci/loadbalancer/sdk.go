// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package loadbalancer

// This file is the edge between Spec and oci-go-sdk types: Observe reads an OCI load balancer
// into a Spec, and the *Details functions build request bodies from Spec parts. Nothing else
// touches the Load Balancer API's SDK model types.

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/oracle/oci-go-sdk/v65/common"
	lbapi "github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/lb/internal/freeform"
	"github.com/oci-ccm/oci-ccm/lb/internal/ipaddr"
	"github.com/oci-ccm/oci-ccm/lb/internal/listener"
	"github.com/oci-ccm/oci-ccm/lb/internal/ruletext"
	"github.com/oci-ccm/oci-ccm/lb/internal/sdkval"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Observe reads an OCI load balancer into a Spec. Fields OCI does not report (private keys,
// desired-only fields) stay empty.
func Observe(lb lbapi.LoadBalancer) *model.Spec {
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
		s.Shape.MinMbps = sdkval.Deref(lb.ShapeDetails.MinimumBandwidthInMbps)
		s.Shape.MaxMbps = sdkval.Deref(lb.ShapeDetails.MaximumBandwidthInMbps)
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
		name := sdkval.NameOr(l.Name, key)
		ol := model.Listener{
			Name:       name,
			Protocol:   strings.ToUpper(sdkval.Deref(l.Protocol)),
			Port:       sdkval.Deref(l.Port),
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
			ol.ProxyProtocolVersion = sdkval.Deref(cc.BackendTcpProxyProtocolVersion)
		}
		s.Listeners[name] = ol
	}
	for key, b := range lb.BackendSets {
		name := sdkval.NameOr(b.Name, key)
		ob := model.BackendSet{
			Name:     name,
			Policy:   strings.ToUpper(sdkval.Deref(b.Policy)),
			Backends: make([]model.Backend, 0, len(b.Backends)),
			TLS:      observeTLS(b.SslConfiguration),
		}
		for _, be := range b.Backends {
			ob.Backends = append(ob.Backends, model.Backend{IP: ipaddr.Canonical(sdkval.Deref(be.IpAddress)), Port: sdkval.Deref(be.Port)})
		}
		ipaddr.SortBy(ob.Backends, func(b model.Backend) string { return b.IP }, func(x, y model.Backend) int { return x.Port - y.Port })
		if h := b.HealthChecker; h != nil {
			ob.HealthCheck = model.HealthCheck{
				Protocol:       strings.ToUpper(sdkval.Deref(h.Protocol)),
				Port:           sdkval.Deref(h.Port),
				Path:           sdkval.Deref(h.UrlPath),
				ReturnCode:     sdkval.Deref(h.ReturnCode),
				Retries:        sdkval.Deref(h.Retries),
				IntervalMillis: sdkval.Deref(h.IntervalInMillis),
				TimeoutMillis:  sdkval.Deref(h.TimeoutInMillis),
				ForcePlainText: h.IsForcePlainText != nil && *h.IsForcePlainText,
			}
		}
		s.BackendSets[name] = ob
	}
	for key, c := range lb.Certificates {
		name := sdkval.NameOr(c.CertificateName, key)
		s.Certificates[name] = model.Certificate{
			Name:              name,
			PublicCertificate: sdkval.Deref(c.PublicCertificate),
			CACertificate:     sdkval.Deref(c.CaCertificate),
		}
	}
	if len(lb.RuleSets) > 0 {
		s.RuleSets = make(map[string]model.RuleSet, len(lb.RuleSets))
		for key, rs := range lb.RuleSets {
			name := sdkval.NameOr(rs.Name, key)
			s.RuleSets[name] = observeRuleSet(name, rs.Items)
		}
	}
	return s
}

// observeRuleSet reads OCI's rules into their canonical text (ruletext.Canonical). A rule that does
// not encode is kept as its error, so it never compares equal and the desired rules replace it.
func observeRuleSet(name string, items []lbapi.Rule) model.RuleSet {
	rs := model.RuleSet{Name: name, Rules: make([]string, 0, len(items))}
	for _, item := range items {
		text, err := json.Marshal(item)
		rule := ""
		if err == nil {
			rule, err = ruletext.Canonical(text)
		}
		if err != nil {
			rule = "unreadable rule: " + err.Error()
		}
		rs.Rules = append(rs.Rules, rule)
	}
	return rs
}

// ruleItems turns canonical rule texts back into the SDK's rules, through its own decoding of
// the polymorphic Rule. Package lb checked the texts when it parsed the annotation (parseRule),
// so an error means a bug.
func ruleItems(rules []string) ([]lbapi.Rule, error) {
	var d lbapi.RuleSetDetails
	body := "{\"items\":[" + strings.Join(rules, ",") + "]}"
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		return nil, fmt.Errorf("lb: rules the SDK cannot decode: %w", err)
	}
	if d.Items == nil {
		d.Items = []lbapi.Rule{}
	}
	return d.Items, nil
}

func observeTLS(c *lbapi.SslConfiguration) *model.TLS {
	if c == nil || sdkval.Deref(c.CertificateName) == "" {
		return nil
	}
	return &model.TLS{Certificate: sdkval.Deref(c.CertificateName), CipherSuite: sdkval.Deref(c.CipherSuiteName), Protocols: sdkval.SortedCopy(c.Protocols)}
}

// createDetails is the one CreateLoadBalancer body that carries the whole load balancer.
func createDetails(s *model.Spec, reservedIPID string) (lbapi.CreateLoadBalancerDetails, error) {
	tags, _ := freeform.WithOwner(s.FreeformTags, s.Owner)
	tags, _ = freeform.WithNSGs(tags, s.NetworkSecurityGroups)
	tags, _ = freeform.WithRuleSets(tags, slices.Sorted(maps.Keys(s.RuleSets)))
	d := lbapi.CreateLoadBalancerDetails{
		CompartmentId:           common.String(s.CompartmentID),
		DisplayName:             common.String(s.Name),
		ShapeName:               common.String(s.Shape.Name),
		ShapeDetails:            shapeDetails(s.Shape),
		SubnetIds:               slices.Clone(s.Subnets),
		IsPrivate:               common.Bool(s.Internal),
		NetworkSecurityGroupIds: slices.Clone(s.NetworkSecurityGroups),
		Listeners:               make(map[string]lbapi.ListenerDetails, len(s.Listeners)),
		BackendSets:             make(map[string]lbapi.BackendSetDetails, len(s.BackendSets)),
		Certificates:            make(map[string]lbapi.CertificateDetails, len(s.Certificates)),
		FreeformTags:            tags,
		DefinedTags:             s.DefinedTags,
	}
	if reservedIPID != "" {
		d.ReservedIps = []lbapi.ReservedIp{{Id: common.String(reservedIPID)}}
	}
	for name, l := range s.Listeners {
		d.Listeners[name] = listenerDetails(l)
	}
	for name, b := range s.BackendSets {
		d.BackendSets[name] = backendSetDetails(b)
	}
	for name, c := range s.Certificates {
		d.Certificates[name] = lbapi.CertificateDetails(certificateDetails(c))
	}
	for name, rs := range s.RuleSets {
		items, err := ruleItems(rs.Rules)
		if err != nil {
			return d, err
		}
		if d.RuleSets == nil {
			d.RuleSets = make(map[string]lbapi.RuleSetDetails, len(s.RuleSets))
		}
		d.RuleSets[name] = lbapi.RuleSetDetails{Items: items}
	}
	return d, nil
}

func shapeDetails(s model.Shape) *lbapi.ShapeDetails {
	if !s.IsFlexible() {
		return nil
	}
	return &lbapi.ShapeDetails{MinimumBandwidthInMbps: common.Int(s.MinMbps), MaximumBandwidthInMbps: common.Int(s.MaxMbps)}
}

func shapeUpdateDetails(s model.Shape) lbapi.UpdateLoadBalancerShapeDetails {
	return lbapi.UpdateLoadBalancerShapeDetails{ShapeName: common.String(s.Name), ShapeDetails: shapeDetails(s)}
}

func settingsDetails(s model.Settings) lbapi.UpdateLoadBalancerDetails {
	return lbapi.UpdateLoadBalancerDetails{DisplayName: common.String(s.Name), FreeformTags: maps.Clone(s.FreeformTags)}
}

// listenerDetails is a new listener (in CreateLoadBalancer, or CreateListener's body with its
// name): the routing the Spec does not manage is left out.
func listenerDetails(l model.Listener) lbapi.ListenerDetails {
	return lbapi.ListenerDetails{
		DefaultBackendSetName:   common.String(l.BackendSet),
		Port:                    common.Int(l.Port),
		Protocol:                common.String(l.Protocol),
		SslConfiguration:        sslDetails(l.TLS),
		ConnectionConfiguration: connectionConfig(l),
		RuleSetNames:            slices.Clone(l.Routing.RuleSets),
	}
}

func createListenerDetails(l model.Listener) lbapi.CreateListenerDetails {
	d := listenerDetails(l)
	return lbapi.CreateListenerDetails{Name: common.String(l.Name), DefaultBackendSetName: d.DefaultBackendSetName, Port: d.Port,
		Protocol: d.Protocol, SslConfiguration: d.SslConfiguration, ConnectionConfiguration: d.ConnectionConfiguration,
		RuleSetNames: d.RuleSetNames}
}

// updateListenerDetails is the whole listener (OCI replaces it), with the routing the Spec does
// not manage sent back as observed.
func updateListenerDetails(l model.Listener) lbapi.UpdateListenerDetails {
	d := listenerDetails(l)
	return lbapi.UpdateListenerDetails{DefaultBackendSetName: d.DefaultBackendSetName, Port: d.Port, Protocol: d.Protocol,
		SslConfiguration: d.SslConfiguration, ConnectionConfiguration: d.ConnectionConfiguration, RuleSetNames: d.RuleSetNames,
		HostnameNames: slices.Clone(l.Routing.Hostnames), RoutingPolicyName: sdkval.OptString(l.Routing.RoutingPolicy),
		PathRouteSetName: sdkval.OptString(l.Routing.PathRouteSet)}
}

func connectionConfig(l model.Listener) *lbapi.ConnectionConfiguration {
	c := &lbapi.ConnectionConfiguration{IdleTimeout: common.Int64(l.IdleTimeoutSeconds)}
	if l.IdleTimeoutSeconds == 0 {
		c.IdleTimeout = common.Int64(listener.DefaultIdleTimeout(l.Protocol))
	}
	if l.ProxyProtocolVersion != 0 {
		c.BackendTcpProxyProtocolVersion = common.Int(l.ProxyProtocolVersion)
	}
	return c
}

// backendSetDetails is a backend set as the Spec has it, in CreateLoadBalancer's form; its create
// (with its name) and its update (OCI replaces the whole set) send the same fields.
func backendSetDetails(b model.BackendSet) lbapi.BackendSetDetails {
	return lbapi.BackendSetDetails{
		Policy:           common.String(b.Policy),
		HealthChecker:    healthCheckerDetails(b.HealthCheck),
		Backends:         backendDetails(b.Backends),
		SslConfiguration: sslDetails(b.TLS),
	}
}

func createBackendSetDetails(b model.BackendSet) lbapi.CreateBackendSetDetails {
	d := backendSetDetails(b)
	return lbapi.CreateBackendSetDetails{Name: common.String(b.Name), Policy: d.Policy, HealthChecker: d.HealthChecker,
		Backends: d.Backends, SslConfiguration: d.SslConfiguration}
}

func updateBackendSetDetails(b model.BackendSet) lbapi.UpdateBackendSetDetails {
	d := backendSetDetails(b)
	return lbapi.UpdateBackendSetDetails{Policy: d.Policy, HealthChecker: d.HealthChecker, Backends: d.Backends,
		SslConfiguration: d.SslConfiguration}
}

func backendDetails(bs []model.Backend) []lbapi.BackendDetails {
	out := make([]lbapi.BackendDetails, len(bs))
	for i, b := range bs {
		out[i] = lbapi.BackendDetails{IpAddress: common.String(b.IP), Port: common.Int(b.Port), Weight: common.Int(1)}
	}
	return out
}

func healthCheckerDetails(h model.HealthCheck) *lbapi.HealthCheckerDetails {
	d := &lbapi.HealthCheckerDetails{
		Protocol:         common.String(h.Protocol),
		Port:             common.Int(h.Port),
		Retries:          common.Int(h.Retries),
		IntervalInMillis: common.Int(h.IntervalMillis),
		TimeoutInMillis:  common.Int(h.TimeoutMillis),
		IsForcePlainText: common.Bool(h.ForcePlainText),
	}
	if h.Protocol == listener.ProtocolHTTP {
		d.UrlPath = common.String(h.Path)
		d.ReturnCode = common.Int(h.ReturnCode)
	}
	return d
}

// sslDetails builds the SSL configuration. Peer verification stays off, as in the upstream CCM:
// backends are nodes reached by IP, whose certificates rarely name those IPs.
func sslDetails(t *model.TLS) *lbapi.SslConfigurationDetails {
	if t == nil {
		return nil
	}
	d := &lbapi.SslConfigurationDetails{
		CertificateName:       common.String(t.Certificate),
		VerifyPeerCertificate: common.Bool(false),
		Protocols:             slices.Clone(t.Protocols),
	}
	if t.CipherSuite != "" {
		d.CipherSuiteName = common.String(t.CipherSuite)
	}
	return d
}

func certificateDetails(c model.Certificate) lbapi.CreateCertificateDetails {
	return lbapi.CreateCertificateDetails{
		CertificateName:   common.String(c.Name),
		PublicCertificate: sdkval.OptString(c.PublicCertificate),
		CaCertificate:     sdkval.OptString(c.CACertificate),
		PrivateKey:        sdkval.OptString(c.PrivateKey.Reveal()),
		Passphrase:        sdkval.OptString(c.Passphrase.Reveal()),
	}
}
