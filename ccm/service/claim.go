// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package service

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/seclist"
)

// This file is where a load balancer meets its security rules: lb and seclist know nothing of
// each other, and the orchestrator hands seclist what it needs of a load balancer Spec as plain
// values.

// ClaimFor is the security claim of the load balancer Service named service: the subnets,
// listener ports, source ranges and mode of its load balancer spec, and the node ports and
// health-check port its backends are reached on in nodeSubnets. UDP ports (a network load
// balancer's) become UDP claims; a spec that preserves the client source says so, so the node
// ports open to the source ranges. In mode NSG the claim names the backend NSGs; the frontend
// NSG is the one seclist's Manager.FrontendNSG made for the Service, which the Manager fills in.
//
// Pass the Spec of the load balancer as reconciled (engine.Result.Spec, or model.Plan.Target), not
// the one a Service asks for: subnets cannot change on an existing load balancer, and rules
// belong in the subnets it is really in. nodeSubnets are the subnets of spec.BackendIPs()
// (instances.Subnets finds them).
func ClaimFor(service types.NamespacedName, spec *model.Spec, nodeSubnets []string) seclist.Claim {
	c := seclist.Claim{
		Service:     service,
		Mode:        spec.SecurityListMode,
		LBSubnets:   slices.Clone(spec.Subnets),
		NodeSubnets: slices.Clone(nodeSubnets),
		SourceCIDRs: slices.Clone(spec.SourceCIDRs),
		BackendNSGs: slices.Clone(spec.BackendNSGs),

		PreserveSource: spec.PreserveSource,
	}
	for _, p := range spec.Ports {
		if p.Protocol == v1.ProtocolUDP {
			c.UDPListenerPorts = append(c.UDPListenerPorts, p.Listener)
			c.UDPNodePorts = append(c.UDPNodePorts, p.NodePort)
		} else {
			c.ListenerPorts = append(c.ListenerPorts, p.Listener)
			c.NodePorts = append(c.NodePorts, p.NodePort)
		}
		if c.HealthCheckPort == 0 {
			c.HealthCheckPort = p.HealthCheck
		}
	}
	return c
}

// frontendOf is what seclist's Manager.FrontendNSG needs to know of the load balancer spec
// describes: its Service, mode, subnets and compartment.
func frontendOf(spec *model.Spec) seclist.Frontend {
	f := seclist.Frontend{UID: types.UID(spec.Owner.UID), Mode: spec.SecurityListMode,
		Subnets: slices.Clone(spec.Subnets), CompartmentID: spec.CompartmentID}
	if ns, name, ok := strings.Cut(spec.Owner.Service, "/"); ok { // Owner.Service is "namespace/name"
		f.Service = types.NamespacedName{Namespace: ns, Name: name}
	}
	return f
}
