// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package nlb

// This file is the edge between Spec and the Network Load Balancer API's SDK types, as
// lb/oci/loadbalancer's sdk.go is for the Load Balancer API: Observe and the request bodies.

import (
	"maps"
	"slices"

	"github.com/oracle/oci-go-sdk/v65/common"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/internal/freeform"
	"github.com/oci-ccm/oci-ccm/lb/internal/ipaddr"
	"github.com/oci-ccm/oci-ccm/lb/internal/sdkval"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// Observe reads an OCI network load balancer into a Spec.
func Observe(n nlbapi.NetworkLoadBalancer) *model.Spec {
	s := &model.Spec{
		Kind:                  model.KindNetworkLoadBalancer,
		ID:                    sdkval.Deref(n.Id),
		Name:                  sdkval.Deref(n.DisplayName),
		CompartmentID:         sdkval.Deref(n.CompartmentId),
		Internal:              n.IsPrivate != nil && *n.IsPrivate,
		IPFamilies:            familiesOf(n.NlbIpVersion),
		NetworkSecurityGroups: sdkval.SortedCopy(n.NetworkSecurityGroupIds),
		Listeners:             make(map[string]model.Listener, len(n.Listeners)),
		BackendSets:           make(map[string]model.BackendSet, len(n.BackendSets)),
		Certificates:          map[string]model.Certificate{},
		FreeformTags:          maps.Clone(n.FreeformTags),
		DefinedTags:           n.DefinedTags,
	}
	if id := sdkval.Deref(n.SubnetId); id != "" {
		s.Subnets = []string{id}
	}
	for _, ip := range n.IpAddresses {
		if ip.ReservedIp != nil && ip.ReservedIp.Id != nil && ip.IsPublic != nil && *ip.IsPublic {
			s.ReservedIP = sdkval.Deref(ip.IpAddress)
		}
	}
	if o, ok := freeform.Owner(n.FreeformTags); ok {
		s.Owner = o
	}
	for key, l := range n.Listeners {
		name := sdkval.NameOr(l.Name, key)
		ol := model.Listener{Name: name, Protocol: string(l.Protocol), Port: sdkval.Deref(l.Port), BackendSet: sdkval.Deref(l.DefaultBackendSetName),
			IPv6: l.IpVersion == nlbapi.IpVersionIpv6}
		if l.IsPpv2Enabled != nil && *l.IsPpv2Enabled {
			ol.ProxyProtocolVersion = 2
		}
		s.Listeners[name] = ol
	}
	for key, b := range n.BackendSets {
		name := sdkval.NameOr(b.Name, key)
		ob := model.BackendSet{Name: name, Policy: string(b.Policy), PreserveSource: b.IsPreserveSource != nil && *b.IsPreserveSource,
			IPv6: b.IpVersion == nlbapi.IpVersionIpv6, Backends: make([]model.Backend, 0, len(b.Backends))}
		for _, be := range b.Backends {
			ob.Backends = append(ob.Backends, model.Backend{IP: ipaddr.Canonical(sdkval.Deref(be.IpAddress)), Port: sdkval.Deref(be.Port), TargetID: sdkval.Deref(be.TargetId)})
		}
		if h := b.HealthChecker; h != nil {
			ob.HealthCheck = model.HealthCheck{Protocol: string(h.Protocol), Port: sdkval.Deref(h.Port), Path: sdkval.Deref(h.UrlPath),
				ReturnCode: sdkval.Deref(h.ReturnCode), Retries: sdkval.Deref(h.Retries), IntervalMillis: sdkval.Deref(h.IntervalInMillis),
				TimeoutMillis: sdkval.Deref(h.TimeoutInMillis)}
		}
		s.BackendSets[name] = ob
	}
	return s
}

// nlbCreateDetails is the one CreateNetworkLoadBalancer body that carries the whole network load
// balancer.
func nlbCreateDetails(s *model.Spec, reservedIPID string) nlbapi.CreateNetworkLoadBalancerDetails {
	tags, _ := freeform.WithOwner(s.FreeformTags, s.Owner)
	tags, _ = freeform.WithNSGs(tags, s.NetworkSecurityGroups)
	d := nlbapi.CreateNetworkLoadBalancerDetails{
		CompartmentId:           common.String(s.CompartmentID),
		DisplayName:             common.String(s.Name),
		SubnetId:                common.String(firstSubnet(s.Subnets)),
		IsPrivate:               common.Bool(s.Internal),
		NetworkSecurityGroupIds: slices.Clone(s.NetworkSecurityGroups),
		NlbIpVersion:            nlbIPVersion(s.IPFamilies),
		AssignedPrivateIpv4:     sdkval.OptString(s.AssignedIPv4),
		AssignedIpv6:            sdkval.OptString(s.AssignedIPv6),
		Listeners:               make(map[string]nlbapi.ListenerDetails, len(s.Listeners)),
		BackendSets:             make(map[string]nlbapi.BackendSetDetails, len(s.BackendSets)),
		FreeformTags:            tags,
		DefinedTags:             s.DefinedTags,
	}
	if reservedIPID != "" {
		d.ReservedIps = []nlbapi.ReservedIp{{Id: common.String(reservedIPID)}}
	}
	for name, l := range s.Listeners {
		d.Listeners[name] = nlbListenerDetails(l)
	}
	for name, b := range s.BackendSets {
		c := nlbBackendSetDetails(b)
		h := c.HealthChecker
		bs := nlbapi.BackendSetDetails{
			HealthChecker: &nlbapi.HealthChecker{Protocol: h.Protocol, Port: h.Port, Retries: h.Retries, TimeoutInMillis: h.TimeoutInMillis,
				IntervalInMillis: h.IntervalInMillis, UrlPath: h.UrlPath, ReturnCode: h.ReturnCode},
			Policy: c.Policy, IpVersion: c.IpVersion, IsPreserveSource: c.IsPreserveSource,
		}
		for _, be := range c.Backends {
			bs.Backends = append(bs.Backends, nlbapi.Backend{Port: be.Port, IpAddress: be.IpAddress, TargetId: be.TargetId, Weight: be.Weight})
		}
		d.BackendSets[name] = bs
	}
	return d
}

// firstSubnet is a network load balancer's one subnet, or "" when the Spec names none.
func firstSubnet(subnets []string) string {
	if len(subnets) > 0 {
		return subnets[0]
	}
	return ""
}

func nlbIPVersion(fams []v1.IPFamily) nlbapi.NlbIpVersionEnum {
	v4, v6 := slices.Contains(fams, v1.IPv4Protocol), slices.Contains(fams, v1.IPv6Protocol)
	switch {
	case v4 && v6:
		return nlbapi.NlbIpVersionIpv4AndIpv6
	case v6:
		return nlbapi.NlbIpVersionIpv6
	}
	return nlbapi.NlbIpVersionIpv4
}

// familiesOf is nlbIPVersion's inverse: IPv4 when OCI reports none.
func familiesOf(v nlbapi.NlbIpVersionEnum) []v1.IPFamily {
	switch v {
	case nlbapi.NlbIpVersionIpv4AndIpv6:
		return []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol}
	case nlbapi.NlbIpVersionIpv6:
		return []v1.IPFamily{v1.IPv6Protocol}
	}
	return []v1.IPFamily{v1.IPv4Protocol}
}

func ipVersion(v6 bool) nlbapi.IpVersionEnum {
	if v6 {
		return nlbapi.IpVersionIpv6
	}
	return nlbapi.IpVersionIpv4
}

func nlbListenerDetails(l model.Listener) nlbapi.ListenerDetails {
	return nlbapi.ListenerDetails{
		Name:                  common.String(l.Name),
		DefaultBackendSetName: common.String(l.BackendSet),
		Port:                  common.Int(l.Port),
		Protocol:              nlbapi.ListenerProtocolsEnum(l.Protocol),
		IpVersion:             ipVersion(l.IPv6),
		IsPpv2Enabled:         common.Bool(l.ProxyProtocolVersion == 2),
	}
}

// nlbBackendSetDetails is a backend set as the Spec has it, in CreateBackendSet's form; its update
// and CreateNetworkLoadBalancer send the same fields.
func nlbBackendSetDetails(b model.BackendSet) nlbapi.CreateBackendSetDetails {
	return nlbapi.CreateBackendSetDetails{
		Name:             common.String(b.Name),
		Policy:           nlbapi.NetworkLoadBalancingPolicyEnum(b.Policy),
		HealthChecker:    nlbHealthCheckerDetails(b.HealthCheck),
		IsPreserveSource: common.Bool(b.PreserveSource),
		IpVersion:        ipVersion(b.IPv6),
		Backends:         nlbBackendDetails(b.Backends),
	}
}

func nlbHealthCheckerDetails(h model.HealthCheck) *nlbapi.HealthCheckerDetails {
	d := &nlbapi.HealthCheckerDetails{
		Protocol:         nlbapi.HealthCheckProtocolsEnum(h.Protocol),
		Port:             common.Int(h.Port),
		Retries:          common.Int(h.Retries),
		IntervalInMillis: common.Int(h.IntervalMillis),
		TimeoutInMillis:  common.Int(h.TimeoutMillis),
	}
	if h.Protocol == string(nlbapi.HealthCheckProtocolsHttp) {
		d.UrlPath = common.String(h.Path)
		d.ReturnCode = common.Int(h.ReturnCode)
	}
	return d
}

// nlbBackendDetails names each backend by instance when it can (targetId, as the Network Load
// Balancer API prefers), else by address.
func nlbBackendDetails(bs []model.Backend) []nlbapi.BackendDetails {
	out := make([]nlbapi.BackendDetails, len(bs))
	for i, b := range bs {
		out[i] = nlbapi.BackendDetails{Port: common.Int(b.Port), Weight: common.Int(1)}
		if b.TargetID != "" {
			out[i].TargetId = common.String(b.TargetID)
		} else {
			out[i].IpAddress = common.String(b.IP)
		}
	}
	return out
}
