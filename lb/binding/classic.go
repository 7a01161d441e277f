// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"context"
	"maps"
	"slices"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/lb/internal/limits"
	"github.com/oci-ccm/oci-ccm/lb/internal/sdkval"
)

// classic is a binding's side of the classic Load Balancer API. One GetLoadBalancer gives the
// bound set, the other sets (names and sizes), the tags and the ETag: the API has one ETag for a
// load balancer and everything in it (loadbalancer.UpdateBackendSetRequest.IfMatch: "the ETag
// for the load balancer ... obtained from a GET or POST response for any resource of that load
// balancer").
type classic struct {
	api LoadBalancers
	res *Result
}

func (c *classic) noun() string { return "load balancer" }

func (c *classic) read(ctx context.Context, b Binding) (observed, error) {
	c.res.Reads++
	lb, etag, err := c.api.GetLoadBalancerWithETag(ctx, b.LoadBalancerID)
	if err != nil {
		return observed{}, err
	}
	obs := observed{noun: c.noun(), tags: lb.FreeformTags, etag: etag, perSet: limits.LBBackendsPerSet, total: limits.LBBackends,
		setNames: slices.Sorted(maps.Keys(lb.BackendSets)), subnets: lb.SubnetIds}
	for name, set := range lb.BackendSets {
		if name != b.BackendSet {
			obs.others += len(set.Backends)
			continue
		}
		obs.found, obs.raw = true, set
		if set.HealthChecker != nil {
			obs.healthPort = sdkval.Deref(set.HealthChecker.Port)
		}
		for _, o := range set.Backends {
			obs.backends = append(obs.backends, Backend{Name: sdkval.Deref(o.Name), IP: sdkval.Deref(o.IpAddress), Port: sdkval.Deref(o.Port),
				Weight: sdkval.Deref(o.Weight), Backup: sdkval.Deref(o.Backup), Drain: sdkval.Deref(o.Drain), Offline: sdkval.Deref(o.Offline),
				MaxConnections: sdkval.Deref(o.MaxConnections)})
		}
	}
	return obs, nil
}

// write replaces the set with every field but its backends as read: UpdateBackendSet replaces
// the whole set (policy and health checker are mandatory; an optional field left out is
// cleared). Backends the binding does not own are sent as read.
func (c *classic) write(ctx context.Context, b Binding, obs observed, ch Change) (string, error) {
	set := obs.raw.(loadbalancer.BackendSet)
	mine := ownedAfter(ch)
	read := map[string]loadbalancer.Backend{}
	for _, o := range set.Backends {
		read[keyOf(sdkval.Deref(o.IpAddress), sdkval.Deref(o.Port), sdkval.Deref(o.Name))] = o
	}
	backends := make([]loadbalancer.BackendDetails, 0, len(ch.Backends))
	for _, n := range ch.Backends {
		if o, ok := read[n.key()]; ok && !mine[n.key()] {
			backends = append(backends, loadbalancer.BackendDetails{IpAddress: o.IpAddress, Port: o.Port, Weight: o.Weight,
				MaxConnections: o.MaxConnections, Backup: o.Backup, Drain: o.Drain, Offline: o.Offline})
			continue
		}
		backends = append(backends, loadbalancer.BackendDetails{IpAddress: common.String(n.IP), Port: common.Int(n.Port),
			Weight: nonZero(n.Weight), MaxConnections: nonZero(n.MaxConnections), Backup: common.Bool(n.Backup),
			Drain: common.Bool(n.Drain), Offline: common.Bool(n.Offline)})
	}
	details := loadbalancer.UpdateBackendSetDetails{
		Policy:                                  set.Policy,
		Backends:                                backends,
		HealthChecker:                           healthCheckerDetails(set.HealthChecker),
		BackendMaxConnections:                   set.BackendMaxConnections,
		SslConfiguration:                        sslDetails(set.SslConfiguration),
		SessionPersistenceConfiguration:         set.SessionPersistenceConfiguration,
		LbCookieSessionPersistenceConfiguration: set.LbCookieSessionPersistenceConfiguration,
	}
	c.res.Writes++
	return c.api.UpdateBackendSetIfMatch(ctx, b.LoadBalancerID, b.BackendSet, details, obs.etag)
}

// healthCheckerDetails is the health checker as read, in the form UpdateBackendSet takes.
func healthCheckerDetails(h *loadbalancer.HealthChecker) *loadbalancer.HealthCheckerDetails {
	if h == nil {
		return nil
	}
	return &loadbalancer.HealthCheckerDetails{Protocol: h.Protocol, UrlPath: h.UrlPath, Port: h.Port, ReturnCode: h.ReturnCode,
		Retries: h.Retries, TimeoutInMillis: h.TimeoutInMillis, IntervalInMillis: h.IntervalInMillis,
		ResponseBodyRegex: h.ResponseBodyRegex, IsForcePlainText: h.IsForcePlainText}
}

// sslDetails is the backend set's SSL configuration as read, in the form UpdateBackendSet takes.
func sslDetails(s *loadbalancer.SslConfiguration) *loadbalancer.SslConfigurationDetails {
	if s == nil {
		return nil
	}
	return &loadbalancer.SslConfigurationDetails{VerifyDepth: s.VerifyDepth, VerifyPeerCertificate: s.VerifyPeerCertificate,
		HasSessionResumption: s.HasSessionResumption, TrustedCertificateAuthorityIds: s.TrustedCertificateAuthorityIds,
		CertificateIds: s.CertificateIds, CertificateName: s.CertificateName, Protocols: s.Protocols,
		CipherSuiteName:       s.CipherSuiteName,
		ServerOrderPreference: loadbalancer.SslConfigurationDetailsServerOrderPreferenceEnum(s.ServerOrderPreference)}
}

func (c *classic) wait(ctx context.Context, wr string) error {
	return c.api.WaitForWorkRequest(ctx, wr)
}

// busy is false: a busy classic load balancer queues a change (OCI's ACCEPTED is "in the work
// request queue"); the 409 IncorrectState some report is retried by ociclient.
func (c *classic) busy(error) bool { return false }

func (c *classic) idle(context.Context, Binding) (bool, error) { return true, nil }

func (c *classic) health(ctx context.Context, b Binding) (map[string]Health, int, error) {
	c.res.Reads++
	h, err := c.api.GetBackendSetHealth(ctx, b.LoadBalancerID, b.BackendSet)
	if err != nil {
		return nil, 0, err
	}
	return healthByName(h.WarningStateBackendNames, h.CriticalStateBackendNames, h.UnknownStateBackendNames), sdkval.Deref(h.TotalBackendCount), nil
}

func (c *classic) names(ctx context.Context, b Binding) ([]string, error) {
	c.res.Reads++
	set, _, err := c.api.GetBackendSet(ctx, b.LoadBalancerID, b.BackendSet)
	var out []string
	for _, o := range set.Backends {
		out = append(out, sdkval.Deref(o.Name))
	}
	return out, err
}

// nonZero is a pointer to v, or nil for zero (OCI's default).
func nonZero(v int) *int {
	if v == 0 {
		return nil
	}
	return common.Int(v)
}
