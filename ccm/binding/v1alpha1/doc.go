// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package v1alpha1 is the BackendSetBinding API (group oci-ccm.github.io, version v1alpha1):
// a binding asks oci-ccm to keep the backends of one backend set of a load balancer it does not
// own in step with a Service's Nodes (target type node) or Pods (target type ip), and reports
// what it did in its status. The CustomResourceDefinition, with its OpenAPI schema and
// kubectl columns, is examples/deploy/backendsetbinding-crd.yaml (also in the Helm chart's
// crds/); a test applies it to a real kube-apiserver and holds it equal to these types.
package v1alpha1
