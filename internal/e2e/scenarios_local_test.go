// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testLocalTrafficFollowsEndpoints: a Service with externalTrafficPolicy Local has every Node as a
// backend while its endpoints are unknown; once its EndpointSlice names the Nodes running its pods
// (written here: this cluster runs no kube-controller-manager), only those, and when the pod moves
// to another Node, the backends follow it without any change to the Service by the user.
func testLocalTrafficFollowsEndpoints(t *testing.T, s *suite) {
	const name = "local-web"
	svc := loadService(t, "plain.yaml", testNamespace)
	svc.Name = name
	svc.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	created, err := s.kube.CoreV1().Services(testNamespace).Create(s.ctx, svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitIngressIP(t, s, testNamespace, name)
	nodes, err := s.kube.CoreV1().Nodes().List(s.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	addr := map[string]string{}
	var names []string
	for _, n := range nodes.Items {
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP {
				addr[n.Name] = a.Address
			}
		}
		if addr[n.Name] != "" && nodeReady(&n) {
			names = append(names, n.Name)
		}
	}
	slices.Sort(names)
	if len(names) < 2 {
		t.Fatalf("%d Ready Nodes with an address, want at least 2", len(names))
	}
	// backendsAre waits until every backend set holds exactly the addresses of want, or with
	// atLeast at least those (other Nodes of the suite, NotReady ones included, may be backends
	// too while every Node is).
	backendsAre := func(what string, atLeast bool, want ...string) {
		t.Helper()
		var ips []string
		for _, n := range want {
			ips = append(ips, addr[n])
		}
		slices.Sort(ips)
		eventually(t, s.ctx, convergeTimeout, what, func(ctx context.Context) (bool, string, error) {
			l, ok, err := s.oci.loadBalancerNamed(ctx, string(created.UID))
			if err != nil || !ok {
				return false, "no load balancer yet", err
			}
			done := len(l.BackendSets) > 0
			for _, bs := range l.BackendSets {
				got := backendAddrs(bs)
				slices.Sort(got)
				if atLeast {
					done = done && !slices.ContainsFunc(ips, func(ip string) bool { return !slices.Contains(got, ip) })
				} else {
					done = done && slices.Equal(got, ips)
				}
			}
			return done, describeLB(l), nil
		})
	}
	backendsAre("every Node while the endpoints are unknown", true, names...)

	endpointOn := func(node string) discoveryv1.Endpoint {
		return discoveryv1.Endpoint{Addresses: []string{"10.244.7.7"}, NodeName: &node,
			Conditions: discoveryv1.EndpointConditions{Ready: new(true)}}
	}
	port, proto := int32(8080), corev1.ProtocolTCP
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: name + "-abcde", Namespace: testNamespace, Labels: map[string]string{discoveryv1.LabelServiceName: name}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{endpointOn(names[0])},
		Ports:       []discoveryv1.EndpointPort{{Port: &port, Protocol: &proto}},
	}
	if slice, err = s.kube.DiscoveryV1().EndpointSlices(testNamespace).Create(s.ctx, slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	backendsAre("only the Node running the pod, "+names[0], false, names[0])

	// The pod moves: the new one is ready on another Node before the old one goes.
	slice.Endpoints = []discoveryv1.Endpoint{endpointOn(names[0]), endpointOn(names[1])}
	if slice, err = s.kube.DiscoveryV1().EndpointSlices(testNamespace).Update(s.ctx, slice, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	backendsAre(fmt.Sprintf("both Nodes during the move (%s, %s)", names[0], names[1]), false, names[0], names[1])
	slice.Endpoints = []discoveryv1.Endpoint{endpointOn(names[1])}
	if _, err = s.kube.DiscoveryV1().EndpointSlices(testNamespace).Update(s.ctx, slice, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	backendsAre("only the Node the pod moved to, "+names[1], false, names[1])

	s.deleteService(t, testNamespace, name)
}
