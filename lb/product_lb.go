// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"context"
	"fmt"

	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/lb/internal/sdkval"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// lbProduct is the OCI Load Balancer service behind product.
type lbProduct struct{ c Client }

func (p lbProduct) kind() model.Kind { return model.KindLoadBalancer }

func (p lbProduct) words() productWords {
	return productWords{noun: "load balancer", get: "GetLoadBalancer", delete: "DeleteLoadBalancer", resource: "load-balancers"}
}

func (p lbProduct) get(ctx context.Context, id string) (*found, error) {
	lb, err := p.c.GetLoadBalancer(ctx, id)
	if err != nil {
		return nil, err
	}
	f := foundLB(lb)
	return &f, nil
}

func (p lbProduct) list(ctx context.Context, compartmentID, displayName string) ([]found, error) {
	lbs, err := p.c.ListLoadBalancers(ctx, compartmentID, displayName)
	if err != nil {
		return nil, err
	}
	out := make([]found, len(lbs))
	for i, lb := range lbs {
		out[i] = foundLB(lb)
	}
	return out, nil
}

func (p lbProduct) create(ctx context.Context, spec *model.Spec, reservedIPID, retryToken string) (string, string, error) {
	details, err := createDetails(spec, reservedIPID)
	if err != nil {
		return "", "", err
	}
	wr, err := p.c.CreateLoadBalancer(ctx, details, retryToken)
	return wr, "", err
}

func (p lbProduct) awaitCreate(ctx context.Context, wr, _ string) (string, error) {
	return p.c.WaitForWorkRequestResource(ctx, wr)
}

func (p lbProduct) wait(ctx context.Context, wr string) error { return p.c.WaitForWorkRequest(ctx, wr) }

func (p lbProduct) change(ctx context.Context, lbID string, c model.Change) (string, error) {
	switch c.Action {
	case model.ActionUpdateLoadBalancer:
		s, ok := c.After.(model.Settings)
		if !ok {
			return "", badChange(c)
		}
		return p.c.UpdateLoadBalancer(ctx, lbID, settingsDetails(s))
	case model.ActionUpdateShape:
		s, ok := c.After.(model.Shape)
		if !ok {
			return "", badChange(c)
		}
		return p.c.UpdateLoadBalancerShape(ctx, lbID, shapeUpdateDetails(s))
	case model.ActionUpdateNetworkSecurityGroups:
		nsgs, ok := c.After.([]string)
		if !ok && c.After != nil {
			return "", badChange(c)
		}
		return p.c.UpdateNetworkSecurityGroups(ctx, lbID, sdkval.NonNilStrings(nsgs))
	case model.ActionCreateCertificate:
		cert, ok := c.After.(model.Certificate)
		if !ok {
			return "", badChange(c)
		}
		return p.c.CreateCertificate(ctx, lbID, certificateDetails(cert), "")
	case model.ActionDeleteCertificate:
		return p.c.DeleteCertificate(ctx, lbID, c.Name)
	case model.ActionCreateBackendSet:
		bs, ok := c.After.(model.BackendSet)
		if !ok {
			return "", badChange(c)
		}
		return p.c.CreateBackendSet(ctx, lbID, createBackendSetDetails(bs), "")
	case model.ActionUpdateBackendSet:
		bs, ok := c.After.(model.BackendSet)
		if !ok {
			return "", badChange(c)
		}
		return p.c.UpdateBackendSet(ctx, lbID, c.Name, updateBackendSetDetails(bs))
	case model.ActionDeleteBackendSet:
		return p.c.DeleteBackendSet(ctx, lbID, c.Name)
	case model.ActionCreateListener:
		l, ok := c.After.(model.Listener)
		if !ok {
			return "", badChange(c)
		}
		return p.c.CreateListener(ctx, lbID, createListenerDetails(l), "")
	case model.ActionUpdateListener:
		l, ok := c.After.(model.Listener)
		if !ok {
			return "", badChange(c)
		}
		return p.c.UpdateListener(ctx, lbID, c.Name, updateListenerDetails(l))
	case model.ActionDeleteListener:
		return p.c.DeleteListener(ctx, lbID, c.Name)
	case model.ActionDeleteLoadBalancer:
		return p.c.DeleteLoadBalancer(ctx, lbID)
	case model.ActionCreateRuleSet, model.ActionUpdateRuleSet, model.ActionDeleteRuleSet:
		return p.changeRuleSet(ctx, lbID, c)
	}
	return "", badChange(c)
}

// canChangeRuleSets refuses, before anything of plan is applied, a plan that changes rule sets
// one by one on a product whose Client does not implement RuleSets: found in the middle of
// applying, it would leave the plan half done. (A create carries its rule sets itself.)
func canChangeRuleSets(p product, plan *model.Plan) error {
	lp, ok := p.(lbProduct)
	if !ok {
		return nil
	}
	if _, ok := lp.c.(RuleSets); ok {
		return nil
	}
	for _, c := range plan.Changes {
		switch c.Action {
		case model.ActionCreateRuleSet, model.ActionUpdateRuleSet, model.ActionDeleteRuleSet:
			return fmt.Errorf("lb: %s: the Client (%T) does not implement lb.RuleSets", c, lp.c)
		}
	}
	return nil
}

// changeRuleSet carries out a rule-set change through the RuleSets the Client also implements
// (canChangeRuleSets checked it before the plan began).
func (p lbProduct) changeRuleSet(ctx context.Context, lbID string, c model.Change) (string, error) {
	rc, ok := p.c.(RuleSets)
	if !ok {
		return "", fmt.Errorf("lb: %s: the Client (%T) does not implement lb.RuleSets", c, p.c)
	}
	if c.Action == model.ActionDeleteRuleSet {
		return rc.DeleteRuleSet(ctx, lbID, c.Name)
	}
	rs, ok := c.After.(model.RuleSet)
	if !ok {
		return "", badChange(c)
	}
	items, err := ruleItems(rs.Rules)
	if err != nil {
		return "", err
	}
	if c.Action == model.ActionCreateRuleSet {
		return rc.CreateRuleSet(ctx, lbID, loadbalancer.CreateRuleSetDetails{Name: &rs.Name, Items: items}, "")
	}
	return rc.UpdateRuleSet(ctx, lbID, c.Name, loadbalancer.UpdateRuleSetDetails{Items: items})
}

// foundLB is an OCI load balancer as a found.
func foundLB(lb loadbalancer.LoadBalancer) found {
	f := found{
		Kind:          model.KindLoadBalancer,
		ID:            sdkval.Deref(lb.Id),
		Name:          sdkval.Deref(lb.DisplayName),
		CompartmentID: sdkval.Deref(lb.CompartmentId),
		StateName:     string(lb.LifecycleState),
		FreeformTags:  lb.FreeformTags,
		Internal:      lb.IsPrivate != nil && *lb.IsPrivate,
		raw:           lb,
	}
	switch lb.LifecycleState {
	case loadbalancer.LoadBalancerLifecycleStateCreating:
		f.State = lifecycleCreating
	case loadbalancer.LoadBalancerLifecycleStateActive:
		f.State = lifecycleActive
	case loadbalancer.LoadBalancerLifecycleStateFailed:
		f.State = lifecycleFailed
	case loadbalancer.LoadBalancerLifecycleStateDeleting:
		f.State = lifecycleDeleting
	case loadbalancer.LoadBalancerLifecycleStateDeleted:
		f.State = lifecycleDeleted
	}
	for _, a := range lb.IpAddresses {
		public := !f.Internal
		if a.IsPublic != nil {
			public = *a.IsPublic
		}
		f.Addresses = append(f.Addresses, address{IP: sdkval.Deref(a.IpAddress), Public: public})
	}
	return f
}
