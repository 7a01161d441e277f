// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"context"
	"maps"
	"slices"

	"github.com/oracle/oci-go-sdk/v65/common"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"

	"github.com/oci-ccm/oci-ccm/lb/internal/limits"
	"github.com/oci-ccm/oci-ccm/lb/internal/sdkval"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// network is a binding's side of the Network Load Balancer API. It reads the network load
// balancer (tags, state, the other sets) and then the bound set for its own ETag, which the API
// asks for ("the etag from a previous GET or POST response for that resource",
// networkloadbalancer.UpdateBackendSetRequest.IfMatch); its UpdateBackendSet takes the backends
// alone, every field being optional.
type network struct {
	api NetworkLoadBalancers
	res *Result
}

func (n *network) noun() string { return "network load balancer" }

func (n *network) read(ctx context.Context, b Binding) (observed, error) {
	n.res.Reads++
	lb, err := n.api.GetNetworkLoadBalancer(ctx, b.LoadBalancerID)
	if err != nil {
		return observed{}, err
	}
	obs := observed{noun: n.noun(), tags: lb.FreeformTags, perSet: limits.NLBBackendsPerSet, total: limits.NLBBackends,
		setNames: slices.Sorted(maps.Keys(lb.BackendSets)), busy: lb.LifecycleState == nlbapi.LifecycleStateUpdating}
	if lb.SubnetId != nil {
		obs.subnets = []string{*lb.SubnetId}
	}
	_, obs.found = lb.BackendSets[b.BackendSet]
	for name, set := range lb.BackendSets {
		if name != b.BackendSet {
			obs.others += len(set.Backends)
		}
	}
	if !obs.found {
		return obs, nil
	}
	n.res.Reads++
	set, etag, err := n.api.GetBackendSet(ctx, b.LoadBalancerID, b.BackendSet)
	if err != nil {
		return observed{}, err
	}
	obs.etag, obs.raw = etag, set
	if set.HealthChecker != nil {
		obs.healthPort = sdkval.Deref(set.HealthChecker.Port)
	}
	for _, o := range set.Backends {
		obs.backends = append(obs.backends, Backend{Name: sdkval.Deref(o.Name), IP: sdkval.Deref(o.IpAddress), Port: sdkval.Deref(o.Port),
			Weight: sdkval.Deref(o.Weight), Backup: sdkval.Deref(o.IsBackup), Drain: sdkval.Deref(o.IsDrain), Offline: sdkval.Deref(o.IsOffline)})
	}
	return obs, nil
}

// write sends the backends alone; backends the binding does not own are sent as read.
func (n *network) write(ctx context.Context, b Binding, obs observed, ch Change) (string, error) {
	set := obs.raw.(nlbapi.BackendSet)
	mine := ownedAfter(ch)
	read := map[string]nlbapi.Backend{}
	for _, o := range set.Backends {
		read[keyOf(sdkval.Deref(o.IpAddress), sdkval.Deref(o.Port), sdkval.Deref(o.Name))] = o
	}
	backends := make([]nlbapi.BackendDetails, 0, len(ch.Backends))
	for _, x := range ch.Backends {
		if o, ok := read[x.key()]; ok && !mine[x.key()] {
			backends = append(backends, nlbapi.BackendDetails{Port: o.Port, Name: o.Name, IpAddress: o.IpAddress, TargetId: o.TargetId,
				Weight: o.Weight, IsBackup: o.IsBackup, IsDrain: o.IsDrain, IsOffline: o.IsOffline})
			continue
		}
		backends = append(backends, nlbapi.BackendDetails{Port: common.Int(x.Port), IpAddress: common.String(x.IP),
			Weight: nonZero(x.Weight), IsBackup: common.Bool(x.Backup), IsDrain: common.Bool(x.Drain), IsOffline: common.Bool(x.Offline)})
	}
	n.res.Writes++
	return n.api.UpdateBackendSetIfMatch(ctx, b.LoadBalancerID, b.BackendSet, nlbapi.UpdateBackendSetDetails{Backends: backends}, obs.etag)
}

func (n *network) wait(ctx context.Context, wr string) error {
	return n.api.WaitForWorkRequest(ctx, wr)
}

// busy: a network load balancer refuses a change while another runs with 409 Conflict ("Invalid
// State Transition of NLB lifeCycle state from Updating to Updating", terraform-provider-oci
// #1456), which ociclient retries for seconds only.
func (n *network) busy(err error) bool {
	return ociclient.IsConflict(err) && !ociclient.IsInvalidatedRetryToken(err)
}

func (n *network) idle(ctx context.Context, b Binding) (bool, error) {
	n.res.Reads++
	lb, err := n.api.GetNetworkLoadBalancer(ctx, b.LoadBalancerID)
	return lb.LifecycleState != nlbapi.LifecycleStateUpdating, err
}

func (n *network) health(ctx context.Context, b Binding) (map[string]Health, int, error) {
	n.res.Reads++
	h, err := n.api.GetBackendSetHealth(ctx, b.LoadBalancerID, b.BackendSet)
	if err != nil {
		return nil, 0, err
	}
	return healthByName(h.WarningStateBackendNames, h.CriticalStateBackendNames, h.UnknownStateBackendNames), sdkval.Deref(h.TotalBackendCount), nil
}

func (n *network) names(ctx context.Context, b Binding) ([]string, error) {
	n.res.Reads++
	set, _, err := n.api.GetBackendSet(ctx, b.LoadBalancerID, b.BackendSet)
	var out []string
	for _, o := range set.Backends {
		out = append(out, sdkval.Deref(o.Name))
	}
	return out, err
}
