// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package service

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/api"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/ccm/service/internal/kube"
	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// Get reports the status of the Service's load balancer, if it exists.
func (r *Reconciler) Get(ctx context.Context, svc *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	res, exists, err := r.lbs.Get(ctx, svc)
	if !exists || err != nil {
		return nil, exists, err
	}
	return res.Status, true, nil
}

// Name returns the load balancer's OCI display name.
func (r *Reconciler) Name(svc *v1.Service) string { return r.lbs.Name(svc) }

// Ensure creates or updates the Service's load balancer, then its security rules, and returns
// the load balancer's status.
func (r *Reconciler) Ensure(ctx context.Context, svc *v1.Service, nodes []*v1.Node) (*v1.LoadBalancerStatus, error) {
	return r.ensure(ctx, svc, nodes, r.lbs.Ensure)
}

// Update is Ensure for a change of the set of Nodes, through lb's Update: a plan of backend
// changes alone returns once OCI accepted it, followed up by lb's FollowUp.
func (r *Reconciler) Update(ctx context.Context, svc *v1.Service, nodes []*v1.Node) error {
	_, err := r.ensure(ctx, svc, nodes, r.lbs.Update)
	return err
}

// ensure is a Service's way: its Secrets and its Nodes' addresses, then lb's reconcile, the
// Service's status and Events, then the security rules its load balancer needs.
func (r *Reconciler) ensure(ctx context.Context, svc *v1.Service, nodes []*v1.Node,
	reconcile func(context.Context, *v1.Service, []*v1.Node, lb.Secrets) (*engine.Result, error)) (*v1.LoadBalancerStatus, error) {
	if !lb.Manages(svc) {
		return nil, cloudprovider.ImplementedElsewhere
	}
	secrets, err := r.Secrets(ctx, svc)
	if err != nil {
		return nil, err
	}
	nodes = r.nodes.WithAddresses(ctx, nodes)
	res, err := reconcile(ctx, svc, nodes, secrets)
	if pe, ok := kube.RecordPending(r.events, svc, err); ok {
		if err := kube.SetPending(ctx, r.client, svc, pe); err != nil {
			klog.FromContext(ctx).Error(err, "Could not record the pending load balancer work in the Service's status", "service", klog.KObj(svc))
		}
		return nil, r.retryLater(err)
	}
	kube.RecordPlan(r.events, svc, res, err)
	if err != nil {
		return nil, err
	}
	if err := kube.ClearPending(ctx, r.client, svc); err != nil {
		klog.FromContext(ctx).Error(err, "Could not clear the pending condition from the Service's status", "service", klog.KObj(svc))
	}
	if err := kube.RecordCompartment(ctx, r.client, svc, res.Spec.CompartmentID, r.cfg.CompartmentID); err != nil {
		klog.FromContext(ctx).Error(err, "Could not record the load balancer's compartment on the Service", "service", klog.KObj(svc))
	}
	claim, err := r.claim(ctx, svc, res.Spec, nodes, true)
	if err == nil {
		err = r.rules.Reconcile(ctx, claim)
	}
	if err != nil {
		return nil, fmt.Errorf("security rules of %s: %w", key(svc), err)
	}
	return res.Status, nil
}

// Delete deletes the load balancer the Service owns, then its security rules (in the subnets
// its load balancer is in, even if this process never saw its claim) and, in mode NSG, its
// frontend NSG (which OCI deletes only once no load balancer is in it).
func (r *Reconciler) Delete(ctx context.Context, svc *v1.Service) error {
	if err := r.lbs.Delete(ctx, svc); err != nil {
		if _, ok := kube.RecordPending(r.events, svc, err); ok {
			return r.retryLater(err)
		}
		return err
	}
	// The Secrets decide the subnets and the security-rule mode of a valid Service, so a Secret
	// that cannot be read fails the deletion (retried) rather than counting as missing.
	secrets, err := r.Secrets(ctx, svc)
	if err != nil {
		return err
	}
	claim := seclist.Claim{Service: key(svc), LBSubnets: r.lbs.Subnets(svc, secrets)}
	if spec, err := lb.Desired(svc, nil, r.cfg, lb.Known{Secrets: secrets}); err == nil && spec.SecurityListMode == config.SecurityListModeNSG {
		claim = ClaimFor(key(svc), spec, nil) // names its backend NSGs, whose rules go too
	}
	if err := r.rules.Delete(ctx, claim); err != nil {
		return fmt.Errorf("security rules of %s: %w", key(svc), err)
	}
	return nil
}

// claim is svc's security claim for its load balancer spec and the subnets of its backends. A
// backend whose subnet cannot be found is left out and logged, with Warning Events when warn
// (not at start-up: the Service's own reconcile warns).
func (r *Reconciler) claim(ctx context.Context, svc *v1.Service, spec *model.Spec, nodes []*v1.Node, warn bool) (seclist.Claim, error) {
	subnets, unplaced, err := r.nodes.Subnets(ctx, spec.BackendIPs(), nodes)
	if err != nil {
		return seclist.Claim{}, err
	}
	kube.RecordUnplaced(ctx, r.events, svc, unplaced, warn)
	return ClaimFor(key(svc), spec, subnets), nil
}

// retryLater turns an engine.PendingError into the service controller's retry error: the Service is
// synced again after the wait a sync may hold a worker (engine.Options.MaxWait), and at once when its
// work ends (pendingDone). Without it the controller would back off exponentially, up to minutes
// after the work ended.
func (r *Reconciler) retryLater(err error) error {
	after := r.maxWait
	if after <= 0 {
		after = time.Minute
	}
	return api.NewRetryError(err.Error(), after)
}

// pendingDone is lb's Options.PendingDone: work a sync left to the background ended, so the
// Service is requeued, as a drifted one is, with an Event saying how it ended. Before the
// informers run nothing is requeued; the service controller's retry (retryLater) syncs it.
func (r *Reconciler) pendingDone(ctx context.Context, namespace, name, applied string, err error) error {
	if r.client == nil || r.watch == nil {
		return nil
	}
	return kube.RequeuePendingDone(r.client, r.watch.Service, r.events)(ctx, namespace, name, applied, err)
}

// Secrets are the TLS Secrets svc references, as its next sync reads them (none before
// SetInformers): from the informers once they have synced, else from the API, so a Secret is
// never reported missing by a cache that has not listed it yet (kube.Watcher.Secrets). An error
// is the API's, never a missing Secret.
func (r *Reconciler) Secrets(ctx context.Context, svc *v1.Service) (lb.Secrets, error) {
	secrets, err := r.watch.Secrets(ctx, svc)
	if err != nil {
		return nil, fmt.Errorf("TLS Secrets of %s: %w", key(svc), err)
	}
	return secrets, nil
}

// key is svc's namespace and name, all seclist needs of it to name its claim; errors print it
// as "namespace/name".
func key(svc *v1.Service) types.NamespacedName {
	return types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}
}
