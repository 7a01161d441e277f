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

	"github.com/oci-ccm/oci-ccm/lb/internal/found"
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
	return found.Get(ctx, id, p.c.GetLoadBalancer, Found)
}

// List returns a compartment's load balancers.
func (p Product) List(ctx context.Context, compartmentID, displayName string) ([]oci.Found, error) {
	return found.List(ctx, compartmentID, displayName, p.c.ListLoadBalancers, Found)
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
	switch o := c.Object().(type) {
	case *model.Spec:
		if c.Op == model.OpDelete {
			return p.c.DeleteLoadBalancer(ctx, lbID)
		}
	case model.Settings:
		return p.c.UpdateLoadBalancer(ctx, lbID, settingsDetails(o))
	case model.Shape:
		return p.c.UpdateLoadBalancerShape(ctx, lbID, shapeUpdateDetails(o))
	case model.NSGs:
		return p.c.UpdateNetworkSecurityGroups(ctx, lbID, sdkval.NonNilStrings(o))
	case model.Certificate:
		switch c.Op {
		case model.OpCreate:
			return p.c.CreateCertificate(ctx, lbID, certificateDetails(o), "")
		case model.OpDelete:
			return p.c.DeleteCertificate(ctx, lbID, c.Name)
		}
	case model.BackendSet:
		switch c.Op {
		case model.OpCreate:
			return p.c.CreateBackendSet(ctx, lbID, createBackendSetDetails(o), "")
		case model.OpUpdate:
			return p.c.UpdateBackendSet(ctx, lbID, c.Name, updateBackendSetDetails(o))
		case model.OpDelete:
			return p.c.DeleteBackendSet(ctx, lbID, c.Name)
		}
	case model.Listener:
		switch c.Op {
		case model.OpCreate:
			return p.c.CreateListener(ctx, lbID, createListenerDetails(o), "")
		case model.OpUpdate:
			return p.c.UpdateListener(ctx, lbID, c.Name, updateListenerDetails(o))
		case model.OpDelete:
			return p.c.DeleteListener(ctx, lbID, c.Name)
		}
	case model.RuleSet:
		return p.changeRuleSet(ctx, lbID, c, o)
	}
	// A create of the load balancer is Create's, and certificates are never updated in place.
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
		if _, ok := c.Object().(model.RuleSet); ok {
			return fmt.Errorf("lb: %s: the Client (%T) does not implement loadbalancer.RuleSets", c, p.c)
		}
	}
	return nil
}

// changeRuleSet carries out a rule-set change through the RuleSets the Client also implements
// (CanChangeRuleSets checked it before the plan began); rs is the change's Object.
func (p Product) changeRuleSet(ctx context.Context, lbID string, c model.Change, rs model.RuleSet) (string, error) {
	rc, ok := p.c.(RuleSets)
	if !ok {
		return "", fmt.Errorf("lb: %s: the Client (%T) does not implement loadbalancer.RuleSets", c, p.c)
	}
	if c.Op == model.OpDelete {
		return rc.DeleteRuleSet(ctx, lbID, c.Name)
	}
	items, err := ruleItems(rs.Rules)
	if err != nil {
		return "", err
	}
	if c.Op == model.OpCreate {
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
		State:         oci.LifecycleOf(string(lb.LifecycleState)),
		FreeformTags:  lb.FreeformTags,
		Internal:      lb.IsPrivate != nil && *lb.IsPrivate,
		Observe:       func() *model.Spec { return Observe(lb) },
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
