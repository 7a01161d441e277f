// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package nlb is the OCI Network Load Balancer API (model.KindNetworkLoadBalancer) behind
// package lb: a Product (oci.Product) over the Client it calls, and the conversion between its
// SDK types and a model.Spec (Observe, and the request bodies). Of lb and its packages, it is the
// only one that uses the SDK's networkloadbalancer types (lb names them only in the declaration
// of its NetworkLoadBalancers interface).
package nlb

import (
	"context"
	"maps"

	"github.com/oracle/oci-go-sdk/v65/common"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"

	"github.com/oci-ccm/oci-ccm/lb/internal/found"
	"github.com/oci-ccm/oci-ccm/lb/internal/ipaddr"
	"github.com/oci-ccm/oci-ccm/lb/internal/sdkval"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/lb/oci"
)

// Product is the OCI Network Load Balancer service behind oci.Product.
type Product struct{ c Client }

// New is the Product that calls c.
func New(c Client) Product { return Product{c: c} }

var _ oci.Product = Product{}

// Kind is model.KindNetworkLoadBalancer.
func (p Product) Kind() model.Kind { return model.KindNetworkLoadBalancer }

// Words names the Network Load Balancer API's operations and IAM resource type.
func (p Product) Words() oci.Words {
	return oci.Words{Noun: "network load balancer", Get: "GetNetworkLoadBalancer", Delete: "DeleteNetworkLoadBalancer",
		Resource: "network-load-balancers"}
}

// Get reads one network load balancer.
func (p Product) Get(ctx context.Context, id string) (*oci.Found, error) {
	return found.Get(ctx, id, p.c.GetNetworkLoadBalancer, Found)
}

// List returns a compartment's network load balancers.
func (p Product) List(ctx context.Context, compartmentID, displayName string) ([]oci.Found, error) {
	return found.List(ctx, compartmentID, displayName, p.c.ListNetworkLoadBalancers, func(s nlbapi.NetworkLoadBalancerSummary) oci.Found {
		return Found(nlbapi.NetworkLoadBalancer(s)) // a summary carries the whole network load balancer
	})
}

// Create returns the new network load balancer's OCID at once: OCI answers with its body.
func (p Product) Create(ctx context.Context, spec *model.Spec, reservedIPID, retryToken string) (string, string, error) {
	n, wr, err := p.c.CreateNetworkLoadBalancer(ctx, nlbCreateDetails(spec, reservedIPID), retryToken)
	return wr, sdkval.Deref(n.Id), err
}

// AwaitCreate waits for the create; id is the OCID Create returned.
func (p Product) AwaitCreate(ctx context.Context, wr, id string) (string, error) {
	return id, p.c.WaitForWorkRequest(ctx, wr)
}

// Wait waits for a work request.
func (p Product) Wait(ctx context.Context, wr string) error {
	return p.c.WaitForWorkRequest(ctx, wr)
}

// Change starts one change of a plan.
func (p Product) Change(ctx context.Context, id string, c model.Change) (string, error) {
	switch o := c.Object().(type) {
	case *model.Spec:
		if c.Op == model.OpDelete {
			return p.c.DeleteNetworkLoadBalancer(ctx, id)
		}
	case model.Settings:
		d := nlbapi.UpdateNetworkLoadBalancerDetails{DisplayName: common.String(o.Name), FreeformTags: maps.Clone(o.FreeformTags)}
		if o.IPFamilies != nil {
			d.NlbIpVersion = nlbIPVersion(o.IPFamilies)
		}
		return p.c.UpdateNetworkLoadBalancer(ctx, id, d)
	case model.NSGs:
		return p.c.UpdateNetworkSecurityGroups(ctx, id, sdkval.NonNilStrings(o))
	case model.BackendSet:
		switch c.Op {
		case model.OpCreate:
			return p.c.CreateBackendSet(ctx, id, nlbBackendSetDetails(o), "")
		case model.OpUpdate:
			d := nlbBackendSetDetails(o)
			return p.c.UpdateBackendSet(ctx, id, c.Name, nlbapi.UpdateBackendSetDetails{Policy: common.String(string(d.Policy)),
				HealthChecker: d.HealthChecker, IsPreserveSource: d.IsPreserveSource, IpVersion: d.IpVersion, Backends: d.Backends})
		case model.OpDelete:
			return p.c.DeleteBackendSet(ctx, id, c.Name)
		}
	case model.Listener:
		d := nlbListenerDetails(o)
		switch c.Op {
		case model.OpCreate:
			return p.c.CreateListener(ctx, id, nlbapi.CreateListenerDetails{Name: d.Name, DefaultBackendSetName: d.DefaultBackendSetName,
				Port: d.Port, Protocol: d.Protocol, IpVersion: d.IpVersion, IsPpv2Enabled: d.IsPpv2Enabled}, "")
		case model.OpUpdate:
			return p.c.UpdateListener(ctx, id, c.Name, nlbapi.UpdateListenerDetails{DefaultBackendSetName: d.DefaultBackendSetName,
				Port: d.Port, Protocol: d.Protocol, IpVersion: d.IpVersion, IsPpv2Enabled: d.IsPpv2Enabled})
		case model.OpDelete:
			return p.c.DeleteListener(ctx, id, c.Name)
		}
	}
	// A create is Create's; shapes, certificates and rule sets are the Load Balancer API's: Diff
	// never plans them for a network load balancer.
	return "", oci.BadChange(c)
}

// Found is an OCI network load balancer as an oci.Found.
func Found(n nlbapi.NetworkLoadBalancer) oci.Found {
	f := oci.Found{
		Kind:          model.KindNetworkLoadBalancer,
		ID:            sdkval.Deref(n.Id),
		Name:          sdkval.Deref(n.DisplayName),
		CompartmentID: sdkval.Deref(n.CompartmentId),
		StateName:     string(n.LifecycleState),
		State:         oci.LifecycleOf(string(n.LifecycleState)),
		FreeformTags:  n.FreeformTags,
		Internal:      n.IsPrivate != nil && *n.IsPrivate,
		Observe:       func() *model.Spec { return Observe(n) },
	}
	for _, a := range n.IpAddresses {
		f.Addresses = append(f.Addresses, oci.Address{IP: ipaddr.Canonical(sdkval.Deref(a.IpAddress)), Public: a.IsPublic != nil && *a.IsPublic})
	}
	return f
}
