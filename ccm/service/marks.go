// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package service

import "github.com/oci-ccm/oci-ccm/ccm/service/internal/kube"

// The marks a Reconciler leaves on Services, for tools that compare or wait on them (GitOps
// ignore rules, tests, dashboards). ccm/README.md ("Marks oci-ccm leaves on your objects") says
// why each is there and when it goes.
const (
	// AnnotationSecretsHash is a hash of the TLS Secrets a Service references: changed when one of
	// them changes, which makes the service controller sync the Service.
	AnnotationSecretsHash = kube.AnnotationSecretsHash
	// AnnotationEndpointNodes is a hash of the names of the Nodes that run the endpoints of a
	// Service with externalTrafficPolicy Local: changed when they move, which makes the service
	// controller sync the Service.
	AnnotationEndpointNodes = kube.AnnotationEndpointNodes
	// AnnotationDriftRequeued is the time of the drift check that found the Service's load
	// balancer changed outside Kubernetes: setting it makes the service controller sync the
	// Service, which repairs the load balancer.
	AnnotationDriftRequeued = kube.AnnotationDriftRequeued
	// ConditionPending is the status condition of a Service whose sync left OCI work running in
	// the background, with reason ReasonPending; removed by the first sync that completes.
	ConditionPending = kube.ConditionPending
	// ReasonPending is the reason of a ConditionPending.
	ReasonPending = kube.ReasonPending
)

// The reasons of the Events a Reconciler records beyond the service controller's own
// (ccm/docs/events.md lists them, generated from their definitions).
const (
	EventPlanApplied       = kube.EventPlanApplied
	EventPlanAccepted      = kube.EventPlanAccepted
	EventPlanFailed        = kube.EventPlanFailed
	EventDrift             = kube.EventDrift
	EventUpdateFailed      = kube.EventUpdateFailed
	EventPending           = kube.EventPending
	EventPendingDone       = kube.EventPendingDone
	EventRulesAdopted      = kube.EventRulesAdopted
	EventNodeSubnetUnknown = kube.EventNodeSubnetUnknown
)
