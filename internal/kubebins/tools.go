// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build tools

// Package kubebins pins the Kubernetes commands that the real-cluster tests
// build from source. The blank import keeps k8s.io/kubernetes/cmd/kube-apiserver
// and its dependencies in go.mod and go.sum; the build tag keeps this file out
// of every ordinary build.
package kubebins

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
