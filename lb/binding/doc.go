// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package binding keeps the backends of one backend set of a load balancer that something else
// owns (Terraform, a platform team: listeners, certificates, WAF) in step with Kubernetes: the
// library core of a BackendSetBinding, for oci-ccm's controller and for custom ones.
//
//	Nodes ─────────► NodeTargets ─────┐
//	EndpointSlices ─► EndpointTargets ┴► []Target ──► Syncer.Sync ──► the set's backends
//	(observed backends, owned names, targets) ──► Plan ──► Change (pure)
//
// A binding owns the backends it added, and only those: the caller keeps their names
// (Result.Owned) between calls, for example in the custom resource's status, and passes them
// back. Backends someone else added are never changed or removed, and a target that is already
// someone else's backend stays theirs.
//
// A Syncer reads and writes only the named backend set's backends: never listeners,
// certificates, the shape, other backend sets, or the set's policy, health checker, SSL or
// session persistence. The classic Load Balancer API's UpdateBackendSet replaces the whole set,
// so every other field is carried over as read; the Network Load Balancer API's takes the
// backends alone. Each write is guarded by the ETag read with the set (412: read again and plan
// again), waits for its work request, and is skipped when nothing changes. Refusals (a load
// balancer an oci-ccm Service owns, a missing backend set, OCI's backend limits, an invalid
// Binding) are *RefusedError, decided before any write.
//
// README.md lists what it touches, the IAM policy it needs and a usage example.
package binding
