// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package engine makes OCI hold the load balancer a Service asks for. Its Reconciler is the
// edge to OCI, through the two products' clients (lb/oci/loadbalancer's Client, lb/oci/nlb's
// Client; an *ociclient.Client's LoadBalancers and NetworkLoadBalancers satisfy them):
//
//   - Plan is a dry run: it finds the Service's load balancer (cached OCID, else one shared
//     name index per compartment), reads it into a Spec and what lb.Desired needs to know
//     (lb.Known, the load balancer found among it), checks it may be changed, and returns the
//     Plan Ensure would apply (lb.Diff). It makes no write.
//   - Ensure applies that plan (one CreateLoadBalancer, or a dependency graph of changes run
//     concurrently under OCI's busy and work-request rules) and returns a Result: the OCID, the
//     Service's *v1.LoadBalancerStatus, the plan and the resulting Spec, from which
//     ccm/service's ClaimFor computes the security rules.
//   - Update is Ensure for a node-set change (the service controller's UpdateLoadBalancer):
//     while FollowUp runs, a plan of backend changes alone returns once OCI accepted it, and
//     FollowUp requeues the Service if it does not take effect (see async.go).
//   - Get and Delete report and remove the load balancer; Name and Subnets answer without OCI;
//     Drift compares a compartment's listing with what the Services ask for.
//
// A cloud provider forwards cloudprovider.LoadBalancer to these (package ccm/service does).
// Every load balancer carries ownership tags with the cluster's identity (config.Config.ClusterID),
// and one tagged for another cluster or Service is never changed.
//
// Besides lb's *ValidationError and *ImmutableError, the errors callers decide on are
// ErrNotOwned (not this Service's: left alone), ErrUnavailable (retry later), *AccessError (OCI
// said 404 for something a fresh read shows exists: most likely the IAM policy), *PendingError
// (OCI had not finished within Options.MaxWait) and *DefinedTagsError. Other errors are OCI's,
// wrapped; ociclient classifies them.
//
// Logs go to the logr.Logger in the context (klog.FromContext): a dry-run plan at V(2), a plan
// being applied and a deletion at Info. README.md lists the public API.
package engine
