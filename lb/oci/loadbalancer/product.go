// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package loadbalancer is the OCI Load Balancer API (model.KindLoadBalancer) behind package lb:
// a Product (oci.Product) over the Client it calls, and the conversion between its SDK types
// and a model.Spec (Observe, and the request bodies). Of lb and its packages, it is the only one
// that uses the SDK's loadbalancer types (lb names them only in the declarations of its Client
// and RuleSets interfaces).
package loadbalancer

import (
	"context"
	"fmt"

	lbapi "github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/lb/internal/sdkval"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/lb/oci"
)

// Product is the OCI Load Balancer service behind oci.Product.
type Product struct{ c Client }

// New is the Product that calls c.
func New(c Client) Product { return Product{c: c} }

var _ oci.Product = Product{}

// Kind is model.KindLoadBalancer.
func (p Product) Kind() model.Kind { return model.KindLoadBalancer }

// Words names the Load Balancer API's operations and IAM resource type.
func (p Product) Words() oci.Words {
	return oci.Words{Noun: "load balancer", Get: "GetLoadBalancer", Delete: "DeleteLoadBalancer", Resource: "load-balancers"}
}

// Get reads one load balancer.
func (p Product) Get(ctx context.Context, id string) (*oci.Found, error) {
	lb, err := p.c.GetLoadBalancer(ctx, id)
	if err != nil {
		return nil, err
	}
	f := Found(lb)
	return &f, nil
}

// List returns a compartment's load balancers.
func (p Product) List(ctx context.Context, compartmentID, displayName string) ([]oci.Found, error) {
	lbs, err := p.c.ListLoadBalancers(ctx, compartmentID, displayName)
	if err != nil {
		return nil, err
	}
	out := make([]oci.Found, len(lbs))
	for i, lb := range lbs {
		out[i] = Found(lb)
	}
	return out, nil
}

// Create starts creating spec; OCI names the new load balancer only in the work request.
func (p Product) Create(ctx context.Context, spec *model.Spec, reservedIPID, retryToken string) (string, string, error) {
	details, err := createDetails(spec, reservedIPID)
	if err != nil {
		return "", "", err
	}
	wr, err := p.c.CreateLoadBalancer(ctx, details, retryToken)
	return wr, "", err
}

// AwaitCreate waits for the create and returns the OCID its work request names.
func (p Product) AwaitCreate(ctx context.Context, wr, _ string) (string, error) {
	return p.c.WaitForWorkRequestResource(ctx, wr)
}

// Wait waits for a work request.
func (p Product) Wait(ctx context.Context, wr string) error { return p.c.WaitForWorkRequest(ctx, wr) }

// Change starts one change of a plan.
func (p Product) Change(ctx context.Context, lbID string, c model.Change) (string, error) {
	switch c.Action {
	case model.ActionUpdateLoadBalancer:
		s, ok := c.After.(model.Settings)
		if !ok {
			return "", oci.BadChange(c)
		}
		return p.c.UpdateLoadBalancer(ctx, lbID, settingsDetails(s))
	case model.ActionUpdateShape:
		s, ok := c.After.(model.Shape)
		if !ok {
			return "", oci.BadChange(c)
		}
		return p.c.UpdateLoadBalancerShape(ctx, lbID, shapeUpdateDetails(s))
	case model.ActionUpdateNetworkSecurityGroups:
		nsgs, ok := c.After.([]string)
		if !ok && c.After != nil {
			return "", oci.BadChange(c)
		}
		return p.c.UpdateNetworkSecurityGroups(ctx, lbID, sdkval.NonNilStrings(nsgs))
	case model.ActionCreateCertificate:
		cert, ok := c.After.(model.Certificate)
		if !ok {
			return "", oci.BadChange(c)
		}
		return p.c.CreateCertificate(ctx, lbID, certificateDetails(cert), "")
	case model.ActionDeleteCertificate:
		return p.c.DeleteCertificate(ctx, lbID, c.Name)
	case model.ActionCreateBackendSet:
		bs, ok := c.After.(model.BackendSet)
		if !ok {
			return "", oci.BadChange(c)
		}
		return p.c.CreateBackendSet(ctx, lbID, createBackendSetDetails(bs), "")
	case model.ActionUpdateBackendSet:
		bs, ok := c.After.(model.BackendSet)
		if !ok {
			return "", oci.BadChange(c)
		}
		return p.c.UpdateBackendSet(ctx, lbID, c.Name, updateBackendSetDetails(bs))
	case model.ActionDeleteBackendSet:
		return p.c.DeleteBackendSet(ctx, lbID, c.Name)
	case model.ActionCreateListener:
		l, ok := c.After.(model.Listener)
		if !ok {
			return "", oci.BadChange(c)
		}
		return p.c.CreateListener(ctx, lbID, createListenerDetails(l), "")
	case model.ActionUpdateListener:
		l, ok := c.After.(model.Listener)
		if !ok {
			return "", oci.BadChange(c)
		}
		return p.c.UpdateListener(ctx, lbID, c.Name, updateListenerDetails(l))
	case model.ActionDeleteListener:
		return p.c.DeleteListener(ctx, lbID, c.Name)
	case model.ActionDeleteLoadBalancer:
		return p.c.DeleteLoadBalancer(ctx, lbID)
	case model.ActionCreateRuleSet, model.ActionUpdateRuleSet, model.ActionDeleteRuleSet:
		return p.changeRuleSet(ctx, lbID, c)
	}
	return "", oci.BadChange(c)
}

// CanChangeRuleSets refuses, before anything of plan is applied, a plan that changes rule sets
// one by one when the Client does not implement RuleSets: found in the middle of applying, it
// would leave the plan half done. (A create carries its rule sets itself.)
func (p Product) CanChangeRuleSets(plan *model.Plan) error {
	if _, ok := p.c.(RuleSets); ok {
		return nil
	}
	for _, c := range plan.Changes {
		switch c.Action {
		case model.ActionCreateRuleSet, model.ActionUpdateRuleSet, model.ActionDeleteRuleSet:
			return fmt.Errorf("lb: %s: the Client (%T) does not implement lb.RuleSets", c, p.c)
		}
	}
	return nil
}

// changeRuleSet carries out a rule-set change through the RuleSets the Client also implements
// (CanChangeRuleSets checked it before the plan began).
func (p Product) changeRuleSet(ctx context.Context, lbID string, c model.Change) (string, error) {
	rc, ok := p.c.(RuleSets)
	if !ok {
		return "", fmt.Errorf("lb: %s: the Client (%T) does not implement lb.RuleSets", c, p.c)
	}
	if c.Action == model.ActionDeleteRuleSet {
		return rc.DeleteRuleSet(ctx, lbID, c.Name)
	}
	rs, ok := c.After.(model.RuleSet)
	if !ok {
		return "", oci.BadChange(c)
	}
	items, err := ruleItems(rs.Rules)
	if err != nil {
		return "", err
	}
	if c.Action == model.ActionCreateRuleSet {
		return rc.CreateRuleSet(ctx, lbID, lbapi.CreateRuleSetDetails{Name: &rs.Name, Items: items}, "")
	}
	return rc.UpdateRuleSet(ctx, lbID, c.Name, lbapi.UpdateRuleSetDetails{Items: items})
}

// Found is an OCI load balancer as an oci.Found.
func Found(lb lbapi.LoadBalancer) oci.Found {
	f := oci.Found{
		Kind:          model.KindLoadBalancer,
		ID:            sdkval.Deref(lb.Id),
		Name:          sdkval.Deref(lb.DisplayName),
		CompartmentID: sdkval.Deref(lb.CompartmentId),
		StateName:     string(lb.LifecycleState),
		FreeformTags:  lb.FreeformTags,
		Internal:      lb.IsPrivate != nil && *lb.IsPrivate,
		Observe:       func() *model.Spec { return Observe(lb) },
	}
	switch lb.LifecycleState {
	case lbapi.LoadBalancerLifecycleStateCreating:
		f.State = oci.LifecycleCreating
	case lbapi.LoadBalancerLifecycleStateActive:
		f.State = oci.LifecycleActive
	case lbapi.LoadBalancerLifecycleStateFailed:
		f.State = oci.LifecycleFailed
	case lbapi.LoadBalancerLifecycleStateDeleting:
		f.State = oci.LifecycleDeleting
	case lbapi.LoadBalancerLifecycleStateDeleted:
		f.State = oci.LifecycleDeleted
	}
	for _, a := range lb.IpAddresses {
		public := !f.Internal
		if a.IsPublic != nil {
			public = *a.IsPublic
		}
		f.Addresses = append(f.Addresses, oci.Address{IP: sdkval.Deref(a.IpAddress), Public: public})
	}
	return f
}
