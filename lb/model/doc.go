// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package model holds the values package lb computes with: a load balancer as a value (Spec
// and its parts), and the ordered changes between two of them (Plan, Change, Op, Object).
//
// lb.Desired returns the Spec a Service asks for; engine.Reconciler reads the Spec OCI has;
// lb.Diff turns the two into a Plan, whose String prints as a readable diff with private keys
// left out. Nothing here talks to OCI or Kubernetes: the package is values, their printing,
// Equal (the same load balancer to OCI), FieldDiffs, and the ownership tags every load balancer
// oci-ccm manages carries (Owner.Tags).
//
// The values are kept apart from lb so that lb's documentation is its operations, and so that a
// tool that only reads plans (an admission check, a report) depends on values alone.
package model
