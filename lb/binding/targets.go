// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"cmp"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/oci-ccm/oci-ccm/lb/internal/backendnode"
	"github.com/oci-ccm/oci-ccm/lb/internal/ipaddr"
	"github.com/oci-ccm/oci-ccm/lb/internal/subset"
)

// NodeTargets returns a target for each Node a Service's load balancer would take as a backend,
// at nodePort, sorted by address: the Nodes oci-ccm chooses for Services (package lb), by the same
// code. A Node is left out when it is labelled node.kubernetes.io/exclude-from-external-load-balancers,
// does not match selector (nil selects every Node), is being deleted, has no OCI providerID yet,
// or has no IPv4 InternalIP, and when it shares its InternalIP with a Node before it. Readiness
// is not a reason: the load balancer's health check decides whether a Node gets traffic.
//
// Each target's Place is its Node's zone and fault domain: with Binding.Subset, Sync keeps a
// subset spread over them when OCI's limits cannot take every Node, as a Service's load balancer
// does (package lb, the same rule).
func NodeTargets(nodes []*v1.Node, nodePort int, selector labels.Selector) []Target {
	ips, _ := backendnode.IPv4(nodes, selector)
	places := make(map[string]string, len(ips))
	for _, n := range nodes {
		if n != nil {
			if ip := backendnode.InternalIPv4(n); ip != "" {
				if _, seen := places[ip]; !seen {
					places[ip] = subset.NodePlace(n)
				}
			}
		}
	}
	out := make([]Target, 0, len(ips))
	for _, ip := range ips {
		out = append(out, Target{IP: ip, Port: nodePort, Place: places[ip]})
	}
	return out
}

// ServicePort returns the port of svc that port names, by name (a string) or by number (the
// Service's port, not the target port), as a Service reference in a binding gives it.
func ServicePort(svc *v1.Service, port intstr.IntOrString) (v1.ServicePort, error) {
	for _, p := range svc.Spec.Ports {
		if port.Type == intstr.String && p.Name == port.StrVal || port.Type == intstr.Int && p.Port == port.IntVal {
			return p, nil
		}
	}
	return v1.ServicePort{}, fmt.Errorf("service %s/%s has no port %s", svc.Namespace, svc.Name, port.String())
}

// EndpointTargets returns a target for each endpoint of port (a port of the Service the slices
// belong to) in slices, sorted by address and port, as kube-proxy reads them
// (pkg/proxy/endpointslicecache.go): a slice's port is the Service's when their names and
// protocols match, and its number is the endpoint's target port (a named targetPort is resolved
// per pod there); an endpoint is ready unless its Ready condition is false, serving unless its
// Serving condition is false, and terminating only when its Terminating condition is true.
//
// A ready endpoint is an active target; one that is serving and terminating is a target with
// Drain set (no new connections while it finishes); the others are left out. An endpoint listed
// by two slices (as during an update) counts once, active if either says so. FQDN slices and
// ports without a number are skipped; an endpoint's first address is its address, as kube-proxy
// takes it.
func EndpointTargets(endpointSlices []*discoveryv1.EndpointSlice, port v1.ServicePort) []Target {
	wantProto := cmp.Or(port.Protocol, v1.ProtocolTCP)
	byKey := map[string]Target{}
	for _, s := range endpointSlices {
		if s == nil || s.AddressType == discoveryv1.AddressTypeFQDN {
			continue
		}
		num, ok := slicePort(s, port.Name, wantProto)
		if !ok {
			continue
		}
		for _, e := range s.Endpoints {
			if len(e.Addresses) == 0 {
				continue
			}
			ready := e.Conditions.Ready == nil || *e.Conditions.Ready
			serving := e.Conditions.Serving == nil || *e.Conditions.Serving
			terminating := e.Conditions.Terminating != nil && *e.Conditions.Terminating
			var t Target
			switch {
			case ready:
				t = Target{IP: e.Addresses[0], Port: num}
			case serving && terminating:
				t = Target{IP: e.Addresses[0], Port: num, Drain: true}
			default:
				continue
			}
			if prev, seen := byKey[t.Name()]; seen && !prev.Drain {
				continue
			}
			byKey[t.Name()] = t
		}
	}
	out := make([]Target, 0, len(byKey))
	for _, t := range byKey {
		out = append(out, t)
	}
	sortTargets(out)
	return out
}

// slicePort is the number of the slice's port named name with protocol proto.
func slicePort(s *discoveryv1.EndpointSlice, name string, proto v1.Protocol) (int, bool) {
	for _, p := range s.Ports {
		pname := ""
		if p.Name != nil {
			pname = *p.Name
		}
		pproto := v1.ProtocolTCP
		if p.Protocol != nil {
			pproto = *p.Protocol
		}
		if pname == name && pproto == proto && p.Port != nil {
			return int(*p.Port), true
		}
	}
	return 0, false
}

// sortTargets orders targets by address (numerically) and port.
func sortTargets(ts []Target) {
	slices.SortFunc(ts, func(a, b Target) int {
		return cmp.Or(ipaddr.Compare(a.IP, b.IP), cmp.Compare(a.Port, b.Port))
	})
}
