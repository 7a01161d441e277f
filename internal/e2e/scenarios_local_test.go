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
	nodeOf := map[string]string{} // InternalIP → Node name
	addr := map[string]string{}   // Node name → InternalIP
	for _, n := range nodes.Items {
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP {
				nodeOf[a.Address], addr[n.Name] = n.Name, a.Address
			}
		}
	}
	// backends returns the load balancer's backend addresses, one list per backend set.
	backends := func(ctx context.Context) ([][]string, string, error) {
		l, ok, err := s.oci.loadBalancerNamed(ctx, string(created.UID))
		if err != nil || !ok {
			return nil, "no load balancer yet", err
		}
		var out [][]string
		for _, bs := range l.BackendSets {
			var ips []string
			for _, b := range bs.Backends {
				ips = append(ips, deref(b.IpAddress))
			}
			slices.Sort(ips)
			out = append(out, ips)
		}
		return out, describeLB(l), nil
	}
	// While its endpoints are unknown, every eligible Node is a backend: at least two here.
	var names []string
	eventually(t, s.ctx, convergeTimeout, "every Node a backend while the endpoints are unknown", func(ctx context.Context) (bool, string, error) {
		sets, state, err := backends(ctx)
		if err != nil || len(sets) == 0 || len(sets[0]) < 2 {
			return false, state, err
		}
		names = nil
		for _, ip := range sets[0] {
			if nodeOf[ip] != "" {
				names = append(names, nodeOf[ip])
			}
		}
		return len(names) >= 2, state, nil
	})
	slices.Sort(names)
	// backendsAre waits until every backend set holds exactly the addresses of the Nodes want.
	backendsAre := func(what string, want ...string) {
		t.Helper()
		var ips []string
		for _, n := range want {
			ips = append(ips, addr[n])
		}
		slices.Sort(ips)
		eventually(t, s.ctx, convergeTimeout, what, func(ctx context.Context) (bool, string, error) {
			sets, state, err := backends(ctx)
			done := err == nil && len(sets) > 0
			for _, got := range sets {
				done = done && slices.Equal(got, ips)
			}
			return done, state, err
		})
	}

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
	backendsAre("only the Node running the pod, "+names[0], names[0])

	// The pod moves: the new one is ready on another Node before the old one goes.
	slice.Endpoints = []discoveryv1.Endpoint{endpointOn(names[0]), endpointOn(names[1])}
	if slice, err = s.kube.DiscoveryV1().EndpointSlices(testNamespace).Update(s.ctx, slice, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	backendsAre(fmt.Sprintf("both Nodes during the move (%s, %s)", names[0], names[1]), names[0], names[1])
	slice.Endpoints = []discoveryv1.Endpoint{endpointOn(names[1])}
	if _, err = s.kube.DiscoveryV1().EndpointSlices(testNamespace).Update(s.ctx, slice, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	backendsAre("only the Node the pod moved to, "+names[1], names[1])

	s.deleteService(t, testNamespace, name)
}
