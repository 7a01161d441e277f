// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package listener holds the facts of a classic load balancer's listeners that both the desired
// state (package lb) and the Load Balancer API product (lb/oci/loadbalancer) need: its
// protocols and the idle timeout of a listener that sets none. They are facts of the model, so
// the pure side does not import the product for them.
package listener

// The listener protocols of KindLoadBalancer.
const (
	ProtocolTCP  = "TCP"
	ProtocolHTTP = "HTTP"
	ProtocolGRPC = "GRPC"
)

// The idle timeouts of a listener that sets none, in seconds, the same as the upstream CCM's:
// package lb makes them explicit in a desired Spec, and a listener created without one gets
// them.
const (
	DefaultIdleTimeoutTCP  = 300
	DefaultIdleTimeoutHTTP = 60
)

// DefaultIdleTimeout is the idle timeout of a listener of protocol that sets none.
func DefaultIdleTimeout(protocol string) int64 {
	if protocol == ProtocolTCP {
		return DefaultIdleTimeoutTCP
	}
	return DefaultIdleTimeoutHTTP
}
