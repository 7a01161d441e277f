// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/api"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/internal/kube"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// loadBalancers forwards cloudprovider.LoadBalancer to lb (the load balancer), then seclist (the
// security rules it needs). The clusterName arguments are ignored: the Cloud has one identity.
type loadBalancers struct{ c *Cloud }

var _ cloudprovider.LoadBalancer = (*loadBalancers)(nil)

// GetLoadBalancer reports the status of the Service's load balancer, if it exists.
func (l *loadBalancers) GetLoadBalancer(ctx context.Context, _ string, svc *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	res, exists, err := l.c.lbs.Get(ctx, svc)
	if !exists || err != nil {
		return nil, exists, err
	}
	return res.Status, true, nil
}

// GetLoadBalancerName returns the load balancer's OCI display name.
func (l *loadBalancers) GetLoadBalancerName(_ context.Context, _ string, svc *v1.Service) string {
	return l.c.lbs.Name(svc)
}

// EnsureLoadBalancer creates or updates the load balancer, then its security rules.
func (l *loadBalancers) EnsureLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) (*v1.LoadBalancerStatus, error) {
	return l.ensure(ctx, svc, nodes, l.c.lbs.Ensure)
}

// UpdateLoadBalancer is EnsureLoadBalancer for a node-set change, through lb's Update: a plan of
// backend changes alone returns once OCI accepted it, followed up by lb's FollowUp.
func (l *loadBalancers) UpdateLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) error {
	_, err := l.ensure(ctx, svc, nodes, l.c.lbs.Update)
	return err
}

func (l *loadBalancers) ensure(ctx context.Context, svc *v1.Service, nodes []*v1.Node,
	reconcile func(context.Context, *v1.Service, []*v1.Node, lb.Secrets) (*lb.Result, error)) (*v1.LoadBalancerStatus, error) {
	if !lb.Manages(svc) {
		return nil, cloudprovider.ImplementedElsewhere
	}
	secrets, err := l.c.secrets(ctx, svc)
	if err != nil {
		return nil, err
	}
	nodes = l.c.nodes.WithAddresses(ctx, nodes)
	res, err := reconcile(ctx, svc, nodes, secrets)
	if pe, ok := kube.RecordPending(l.c.events, svc, err); ok {
		if err := kube.SetPending(ctx, l.c.client, svc, pe); err != nil {
			klog.FromContext(ctx).Error(err, "Could not record the pending load balancer work in the Service's status", "service", klog.KObj(svc))
		}
		return nil, l.c.retryLater(err)
	}
	kube.RecordPlan(l.c.events, svc, res, err)
	if err != nil {
		return nil, err
	}
	if err := kube.ClearPending(ctx, l.c.client, svc); err != nil {
		klog.FromContext(ctx).Error(err, "Could not clear the pending condition from the Service's status", "service", klog.KObj(svc))
	}
	if err := kube.RecordCompartment(ctx, l.c.client, svc, res.Spec.CompartmentID, l.c.cfg.CompartmentID); err != nil {
		klog.FromContext(ctx).Error(err, "Could not record the load balancer's compartment on the Service", "service", klog.KObj(svc))
	}
	claim, err := l.c.claim(ctx, svc, res.Spec, nodes, true)
	if err == nil {
		err = l.c.rules.Reconcile(ctx, claim)
	}
	if err != nil {
		return nil, fmt.Errorf("security rules of %s: %w", key(svc), err)
	}
	return res.Status, nil
}

// EnsureLoadBalancerDeleted deletes the load balancer the Service owns, then its security rules
// (in the subnets its load balancer is in, even if this process never saw its claim) and, in
// mode NSG, its frontend NSG (which OCI deletes only once no load balancer is in it).
func (l *loadBalancers) EnsureLoadBalancerDeleted(ctx context.Context, _ string, svc *v1.Service) error {
	if err := l.c.lbs.Delete(ctx, svc); err != nil {
		if _, ok := kube.RecordPending(l.c.events, svc, err); ok {
			return l.c.retryLater(err)
		}
		return err
	}
	// The Secrets decide the subnets and the security-rule mode of a valid Service, so a Secret
	// that cannot be read fails the deletion (retried) rather than counting as missing.
	secrets, err := l.c.secrets(ctx, svc)
	if err != nil {
		return err
	}
	claim := seclist.Claim{Service: key(svc), LBSubnets: l.c.lbs.Subnets(svc, secrets)}
	if spec, err := lb.Desired(svc, nil, l.c.cfg, secrets); err == nil && spec.SecurityListMode == config.SecurityListModeNSG {
		claim = seclist.ClaimFor(key(svc), spec, nil) // names its backend NSGs, whose rules go too
	}
	if err := l.c.rules.Delete(ctx, claim); err != nil {
		return fmt.Errorf("security rules of %s: %w", key(svc), err)
	}
	return nil
}

// claim is svc's security claim for its load balancer spec and the subnets of its backends. A
// backend whose subnet cannot be found is left out and logged, with Warning Events when warn
// (not at start-up: the Service's own reconcile warns).
func (c *Cloud) claim(ctx context.Context, svc *v1.Service, spec *model.Spec, nodes []*v1.Node, warn bool) (seclist.Claim, error) {
	subnets, unplaced, err := c.nodes.Subnets(ctx, spec.BackendIPs(), nodes)
	if err != nil {
		return seclist.Claim{}, err
	}
	kube.RecordUnplaced(ctx, c.events, svc, unplaced, warn)
	return seclist.ClaimFor(key(svc), spec, subnets), nil
}

// retryLater turns an lb.PendingError into the service controller's retry error: the Service is
// synced again after the wait a sync may hold a worker (lb.Options.MaxWait), and at once when its
// work ends (pendingDone). Without it the controller would back off exponentially, up to minutes
// after the work ended.
func (c *Cloud) retryLater(err error) error {
	after := c.maxWait
	if after <= 0 {
		after = time.Minute
	}
	return api.NewRetryError(err.Error(), after)
}

// pendingDone is lb's Options.PendingDone: work a sync left to the background ended, so the
// Service is requeued, as a drifted one is, with an Event saying how it ended. Before the
// informers run nothing is requeued; the service controller's retry (retryLater) syncs it.
func (c *Cloud) pendingDone(ctx context.Context, namespace, name, applied string, err error) error {
	if c.client == nil || c.watch == nil {
		return nil
	}
	return kube.RequeuePendingDone(c.client, c.watch.Service, c.events)(ctx, namespace, name, applied, err)
}

// secrets are the TLS Secrets svc references (none before SetInformers): from the informers once
// they have synced, else from the API, so a Secret is never reported missing by a cache that has
// not listed it yet (kube.Watcher.Secrets). An error is the API's, never a missing Secret.
func (c *Cloud) secrets(ctx context.Context, svc *v1.Service) (lb.Secrets, error) {
	secrets, err := c.watch.Secrets(ctx, svc)
	if err != nil {
		return nil, fmt.Errorf("TLS Secrets of %s: %w", key(svc), err)
	}
	return secrets, nil
}

func key(svc *v1.Service) string { return svc.Namespace + "/" + svc.Name }
