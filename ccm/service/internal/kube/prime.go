// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// primeRetryInterval is how long Prime waits after a Service's claim could not be computed.
const primeRetryInterval = 10 * time.Second

// ClaimFunc computes the security claim of a valid load balancer Service from its desired Spec.
type ClaimFunc func(ctx context.Context, svc *v1.Service, spec *model.Spec, nodes []*v1.Node) (seclist.Claim, error)

// Prime gathers the security claim of every cached load balancer Service and hands them all at
// once to prime (seclist.Manager.Prime), and reports whether it did. Call it after WaitForSync.
// A valid Service's claim comes from claim; an invalid Service that has a load balancer (lbs
// finds it) gets an unknown claim, which keeps every rule until the Service is reconciled or
// deleted, so an invalid value never changes anything in OCI. When a claim cannot be computed
// (OCI unavailable) the whole gathering is retried later rather than priming with a claim
// missing, which would remove that Service's rules. It gives up (false) only when ctx ends.
func (w *Watcher) Prime(ctx context.Context, cfg *config.Config, lbs *engine.Reconciler, claim ClaimFunc, prime func([]seclist.Claim) error) bool {
	logger := klog.FromContext(ctx)
	return nil == wait.PollUntilContextCancel(ctx, primeRetryInterval, true, func(ctx context.Context) (bool, error) {
		services, err := w.services.List(labels.Everything())
		if err != nil {
			return false, err
		}
		nodes, err := w.nodes.List(labels.Everything())
		if err != nil {
			return false, err
		}
		var claims []seclist.Claim
		for _, svc := range services {
			c, err := w.startUpClaim(ctx, svc, nodes, cfg, lbs, claim)
			if err != nil {
				logger.Error(err, "Cannot gather security claims yet; retrying", "after", primeRetryInterval)
				return false, nil
			}
			if c != nil {
				claims = append(claims, *c)
			}
		}
		if err := prime(claims); err != nil {
			logger.Error(err, "Some security claims were invalid")
		}
		logger.Info("Security rules now cover every load balancer Service", "services", len(claims))
		return true, nil
	})
}

// startUpClaim is svc's claim at start-up (see Prime), nil if it has none.
func (w *Watcher) startUpClaim(ctx context.Context, svc *v1.Service, nodes []*v1.Node, cfg *config.Config, lbs *engine.Reconciler, claim ClaimFunc) (*seclist.Claim, error) {
	if !lb.Manages(svc) || svc.DeletionTimestamp != nil {
		return nil, nil
	}
	key := types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}
	spec, invalid := lb.Desired(svc, nodes, cfg, lb.Known{Secrets: w.SecretsFor(svc)})
	if invalid == nil {
		c, err := claim(ctx, svc, spec, nodes)
		return &c, err
	}
	_, exists, err := lbs.Get(ctx, svc)
	if err != nil && !errors.Is(err, engine.ErrNotOwned) { // another's load balancer: no rules of ours
		return nil, fmt.Errorf("load balancer of invalid Service %s: %w", key, err)
	}
	if !exists {
		return nil, nil
	}
	klog.FromContext(ctx).Info("Service is invalid and has a load balancer; no security rule is removed until it is reconciled or deleted",
		"service", klog.KObj(svc), "reason", invalid)
	return &seclist.Claim{Service: key, Unknown: true}, nil
}
