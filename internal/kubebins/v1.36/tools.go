// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build tools

// Package kubebins pins kube-apiserver v1.36.3, the previous Kubernetes
// minor, for `make e2e KUBE_VERSION=1.36`; ../tools.go pins the default,
// newest one. The blank import keeps k8s.io/kubernetes/cmd/kube-apiserver
// and its dependencies in go.mod and go.sum; the build tag keeps this file
// out of every ordinary build.
package kubebins

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
