// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"context"

	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

// lbProduct is the OCI Load Balancer service behind product.
type lbProduct struct{ c Client }

func (p lbProduct) kind() Kind { return KindLoadBalancer }

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

func (p lbProduct) create(ctx context.Context, spec *Spec, reservedIPID, retryToken string) (string, string, error) {
	wr, err := p.c.CreateLoadBalancer(ctx, createDetails(spec, reservedIPID), retryToken)
	return wr, "", err
}

func (p lbProduct) awaitCreate(ctx context.Context, wr, _ string) (string, error) {
	return p.c.WaitForWorkRequestResource(ctx, wr)
}

func (p lbProduct) wait(ctx context.Context, wr string) error { return p.c.WaitForWorkRequest(ctx, wr) }

func (p lbProduct) change(ctx context.Context, lbID string, c Change) (string, error) {
	switch c.Action {
	case ActionUpdateLoadBalancer:
		s, ok := c.After.(Settings)
		if !ok {
			return "", badChange(c)
		}
		return p.c.UpdateLoadBalancer(ctx, lbID, settingsDetails(s))
	case ActionUpdateShape:
		s, ok := c.After.(Shape)
		if !ok {
			return "", badChange(c)
		}
		return p.c.UpdateLoadBalancerShape(ctx, lbID, shapeUpdateDetails(s))
	case ActionUpdateNetworkSecurityGroups:
		nsgs, ok := c.After.([]string)
		if !ok && c.After != nil {
			return "", badChange(c)
		}
		return p.c.UpdateNetworkSecurityGroups(ctx, lbID, nonNilStrings(nsgs))
	case ActionCreateCertificate:
		cert, ok := c.After.(Certificate)
		if !ok {
			return "", badChange(c)
		}
		return p.c.CreateCertificate(ctx, lbID, certificateDetails(cert), "")
	case ActionDeleteCertificate:
		return p.c.DeleteCertificate(ctx, lbID, c.Name)
	case ActionCreateBackendSet:
		bs, ok := c.After.(BackendSet)
		if !ok {
			return "", badChange(c)
		}
		return p.c.CreateBackendSet(ctx, lbID, createBackendSetDetails(bs), "")
	case ActionUpdateBackendSet:
		bs, ok := c.After.(BackendSet)
		if !ok {
			return "", badChange(c)
		}
		return p.c.UpdateBackendSet(ctx, lbID, c.Name, updateBackendSetDetails(bs))
	case ActionDeleteBackendSet:
		return p.c.DeleteBackendSet(ctx, lbID, c.Name)
	case ActionCreateListener:
		l, ok := c.After.(Listener)
		if !ok {
			return "", badChange(c)
		}
		return p.c.CreateListener(ctx, lbID, createListenerDetails(l), "")
	case ActionUpdateListener:
		l, ok := c.After.(Listener)
		if !ok {
			return "", badChange(c)
		}
		return p.c.UpdateListener(ctx, lbID, c.Name, updateListenerDetails(l))
	case ActionDeleteListener:
		return p.c.DeleteListener(ctx, lbID, c.Name)
	case ActionDeleteLoadBalancer:
		return p.c.DeleteLoadBalancer(ctx, lbID)
	}
	return "", badChange(c)
}

// foundLB is an OCI load balancer as a found.
func foundLB(lb loadbalancer.LoadBalancer) found {
	f := found{
		Kind:          KindLoadBalancer,
		ID:            deref(lb.Id),
		Name:          deref(lb.DisplayName),
		CompartmentID: deref(lb.CompartmentId),
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
		f.Addresses = append(f.Addresses, address{IP: deref(a.IpAddress), Public: public})
	}
	return f
}
