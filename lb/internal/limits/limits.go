// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package limits holds OCI's limits on the backends of one load balancer, one place for lb
// (which subsets a Service's Nodes to fit them) and lb/binding (which refuses a binding past
// them before any write).
package limits

// OCI's backend limits: a load balancer takes 512 backends per backend set and 512 over all its
// sets (OCI "Overview of Load Balancer", "Limits on Load Balancing Resources"; older quotes of
// that page say 1,024 in total, the lower current figure is the one that holds); a network load
// balancer 512 per set and 1,024 in all (OCI "Introduction to Network Load Balancer", "Limits on
// Network Load Balancers").
const (
	LBBackendsPerSet  = 512
	LBBackends        = 512
	NLBBackendsPerSet = 512
	NLBBackends       = 1024
)
