// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package seclist manages the OCI security rules that load balancer Services need, in security
// lists or (mode NSG) network security groups.
//
// The work splits in two. The pure part takes plain values and returns plain values: every LB
// Service contributes a Claim (its subnets, ports, source ranges and management mode), which the
// orchestrator (ccm/service's ClaimFor) builds from the Service's reconciled load balancer and
// the subnets of its nodes (instances.Subnets): this package knows nothing of lb. Desired
// turns the claims of the whole cluster into the set of rules each security list must hold; Diff
// compares that set with the rules a list holds now, as set arithmetic on normalised rules, and
// says what to add and what to remove. The I/O part is the Manager: one writer per list in the
// process, which takes the list with its ETag (as it last read or wrote it, or read afresh),
// merges the rules this cluster owns into it (every other rule is kept as it is, in order), writes
// it back with If-Match, and on a 412 re-reads and recomputes. A reconcile that changes nothing
// makes no call; many Services changing at once make one write per list, not one each. Rules
// that differ only in adjacent ports are merged into ranges, and Policy.NodePortRange opens the
// node port range with one rule per subnet pair, so a cluster's rules fit OCI's 200 per list.
//
// Rules are owned through their description: a rule whose description is exactly
// Owner(cluster) belongs to this cluster's oci-ccm and may be removed when no claim needs it.
// Every other rule — the user's own, another cluster's — is never touched, except that with
// Policy.AdoptUndescribed a rule without a description that exactly matches what a Service needs
// (as the upstream OCI CCM wrote them) is taken over; Manager.UndescribedRules is its dry run.
//
// One engine serves two targets. Desired computes the rules of every target, keyed by OCID: a
// security list, or a network security group (a Service's frontend NSG, which Manager.FrontendNSG
// creates for the load balancer and Delete deletes after the load balancer, and the backend NSGs a Service
// names). Diff is the same for both; only the write differs: a list is replaced whole with
// If-Match, an NSG's rules are removed and added by ID. OCI's 120 rules per NSG are checked
// before any call, as the 200 per list are.
//
// The public API: Claim; Policy (PolicyFromConfig); Desired, ListsOf, Diff and their
// value types (Subnet, Rule, RuleSet, Current, Observed, Update, Limits); Manager (NewManager,
// Prime, Reconcile, Delete, FrontendNSG with Frontend) over the VirtualNetwork interface it declares; the
// errors ErrInvalid, ErrNoSecurityList, ErrListNotAttached, ErrNoFrontendNSG and
// *CapacityError. Logs go to Options.Logger, else to the logger in the context of the call that
// started a write.
//
// See README.md for the rules each mode creates and the IAM policy the CCM needs.
package seclist
