// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package lb turns Kubernetes Services of type LoadBalancer into OCI load balancers.
//
// The core is pure and works on values:
//
//	Service + Nodes + Config + Secrets ──► Desired ──► model.Spec (desired)
//	(observed, desired) ─────────────────► Diff ─────► model.Plan (typed, ordered changes)
//
// The values, a load balancer as a Spec and a Plan of changes, are in package model (lb/model).
// A custom controller can call Desired, Diff and Plan.String without credentials or OCI (see
// ExampleDiff).
//
// Reconciler is the edge to OCI, through the narrow Client interface this package owns
// (*ociclient.LoadBalancerClient satisfies it):
//
//   - Plan is a dry run: it finds the Service's load balancer (cached OCID, else one shared
//     name index per compartment), reads it into a Spec, checks it may be changed, and returns
//     the Plan Ensure would apply. It makes no write.
//   - Ensure applies that plan (one CreateLoadBalancer, or a dependency graph of changes) and
//     returns a Result: the OCID, the Service's *v1.LoadBalancerStatus, the plan and the
//     resulting Spec, from which seclist.ClaimFor computes the security rules.
//   - Update is Ensure for a node-set change (the service controller's UpdateLoadBalancer):
//     while FollowUp runs, a plan of backend changes alone returns once OCI accepted it, and
//     FollowUp requeues the Service if it does not take effect (see async.go).
//   - Get and Delete report and remove the load balancer; Name and Subnets answer without OCI.
//
// A cloud provider forwards cloudprovider.LoadBalancer to these (package ccm does). Every
// load balancer carries ownership tags with Options.Cluster, the cluster's identity, and one
// tagged for another cluster or Service is never changed.
//
// The errors callers decide on are *ValidationError (the Service is invalid: fix it, nothing
// changed), *ImmutableError (the change needs a new load balancer: nothing changed),
// ErrNotOwned (not this Service's: left alone), ErrUnavailable (retry later) and *AccessError
// (OCI said 404 for something a fresh read shows exists: most likely the IAM policy). Other
// errors are OCI's, wrapped; ociclient classifies them.
//
// Logs go to the logr.Logger in the context (klog.FromContext): a dry-run plan at V(2), a plan
// being applied and a deletion at Info.
//
// The annotations are named in package annotation (lb/annotation), one constant each, whose doc
// comments are their documentation; README.md's reference table is generated from them. README.md also lists the public API.
package lb

//go:generate go run ../internal/docgen -dir annotation
