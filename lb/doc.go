// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package lb turns a Kubernetes Service of type LoadBalancer into the OCI load balancer it asks
// for. It is pure and works on values, with no OCI client and no context:
//
//	Service + Nodes + Config + Known ──► Desired ──► model.Spec (desired)
//	(observed, desired) ───────────────► Diff ─────► model.Plan (typed, ordered changes)
//
// Known is what Desired needs to know besides its arguments (TLS Secrets, the Nodes that run a
// Local Service's endpoints, subnets' IPv6 prefixes and regions, the frontend NSG, the load
// balancer that exists), read before it is called. The values, a
// load balancer as a Spec and a Plan of changes, are in package model (lb/model). A custom
// controller can call Desired, Diff and Plan.String without credentials or OCI (see
// ExampleDiff); package engine (lb/engine) finds a Service's load balancer in OCI, plans with
// this package and applies the plan.
//
// The errors callers decide on are *ValidationError (the Service is invalid: fix it, nothing
// changed), *ImmutableError (the change needs a new load balancer: nothing changed) and
// ErrNotManaged (not a Service oci-ccm handles).
//
// The annotations are named in package annotation (lb/annotation), one constant each, whose doc
// comments are their documentation; README.md's reference table is generated from them. README.md also lists the public API.
package lb

//go:generate go run ../internal/docgen -dir annotation
