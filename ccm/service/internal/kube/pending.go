// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/oci-ccm/oci-ccm/lb/engine"
)

// ConditionPending is the type of the condition in a Service's status.conditions that says its
// load balancer work goes on in the background (engine.PendingError): status True, reason
// ReasonPending, the message what is being applied and since when. It is removed by the first
// sync that completes. The service controller writes only status.loadBalancer, so it leaves the
// condition alone.
const ConditionPending = "oci-ccm.github.io/LoadBalancerPending"

// ReasonPending is the reason of a ConditionPending.
const ReasonPending = "WorkInProgress"

// SetPending puts ConditionPending, for pe, in svc's status; a condition with the same message is
// left as it is. The message says what is being applied and since when, not how long this sync
// waited, so that the syncs of one pending piece of work write it once.
func SetPending(ctx context.Context, client kubernetes.Interface, svc *v1.Service, pe *engine.PendingError) error {
	what := pe.Pending
	if what == "" {
		what = "reading the load balancer"
	}
	msg := cutEvent(fmt.Sprintf("%s in progress since %s, left to the background when a sync stopped waiting for OCI: %s",
		pe.Operation, pe.Since.UTC().Format(time.RFC3339), what))
	if c := pendingCondition(svc); c != nil && c.Message == msg {
		return nil
	}
	cond := metav1.Condition{Type: ConditionPending, Status: metav1.ConditionTrue, Reason: ReasonPending, Message: msg,
		ObservedGeneration: svc.Generation, LastTransitionTime: metav1.NewTime(pe.Since)}
	if c := pendingCondition(svc); c != nil {
		cond.LastTransitionTime = c.LastTransitionTime // still pending: no transition
	}
	return patchConditions(ctx, client, svc, map[string]any{"status": map[string]any{"conditions": []metav1.Condition{cond}}})
}

// ClearPending removes ConditionPending from svc's status, if it is there.
func ClearPending(ctx context.Context, client kubernetes.Interface, svc *v1.Service) error {
	if pendingCondition(svc) == nil {
		return nil
	}
	return patchConditions(ctx, client, svc, map[string]any{"status": map[string]any{
		"conditions": []map[string]string{{"type": ConditionPending, "$patch": "delete"}}}})
}

func pendingCondition(svc *v1.Service) *metav1.Condition {
	for i := range svc.Status.Conditions {
		if svc.Status.Conditions[i].Type == ConditionPending {
			return &svc.Status.Conditions[i]
		}
	}
	return nil
}

// patchConditions applies a strategic merge patch to svc's status (conditions merge by type).
func patchConditions(ctx context.Context, client kubernetes.Interface, svc *v1.Service, patch map[string]any) error {
	if client == nil {
		return nil
	}
	body, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err = client.CoreV1().Services(svc.Namespace).Patch(ctx, svc.Name, types.StrategicMergePatchType, body, metav1.PatchOptions{}, "status")
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("status condition %s of Service %s/%s: %w", ConditionPending, svc.Namespace, svc.Name, err)
	}
	return nil
}
