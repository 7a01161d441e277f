// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding_test

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/oci-ccm/oci-ccm/lb/binding"
)

func itoa(i int) string { return strconv.Itoa(i) }

func node(name, ip string, labels map[string]string) *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Spec: v1.NodeSpec{ProviderID: "oci://ocid1.instance.oc1..x" + name}}
	if ip != "" {
		n.Status.Addresses = []v1.NodeAddress{{Type: v1.NodeExternalIP, Address: "203.0.113.1"}, {Type: v1.NodeInternalIP, Address: ip}}
	}
	return n
}

func TestNodeTargets(t *testing.T) {
	deleting := node("deleting", "10.0.10.7", nil)
	deleting.DeletionTimestamp = &metav1.Time{}
	uninitialised := node("new", "10.0.10.8", nil)
	uninitialised.Spec.ProviderID = ""
	nodes := []*v1.Node{
		node("n10", "10.0.10.10", map[string]string{"pool": "web"}),
		node("n2", "10.0.10.2", map[string]string{"pool": "web"}),
		node("excluded", "10.0.10.3", map[string]string{v1.LabelNodeExcludeBalancers: "", "pool": "web"}),
		node("other-pool", "10.0.10.4", map[string]string{"pool": "batch"}),
		deleting, uninitialised,
		node("no-ip", "", map[string]string{"pool": "web"}),
		node("same-ip", "10.0.10.2", map[string]string{"pool": "web"}),
		nil,
	}
	tests := []struct {
		name     string
		selector labels.Selector
		want     []binding.Target
	}{
		{"every eligible Node, sorted numerically", nil, []binding.Target{
			{IP: "10.0.10.2", Port: 30080}, {IP: "10.0.10.4", Port: 30080}, {IP: "10.0.10.10", Port: 30080}}},
		{"a selector narrows them", labels.SelectorFromSet(labels.Set{"pool": "web"}), []binding.Target{
			{IP: "10.0.10.2", Port: 30080}, {IP: "10.0.10.10", Port: 30080}}},
		{"no Node matches: no targets", labels.SelectorFromSet(labels.Set{"pool": "none"}), []binding.Target{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Place (zone and fault domain) is TestANodeBindingPastOCIsLimitsKeepsAStableSubset's.
			if diff := cmp.Diff(tt.want, binding.NodeTargets(nodes, 30080, tt.selector), cmpopts.EquateEmpty(),
				cmpopts.IgnoreFields(binding.Target{}, "Place")); diff != "" {
				t.Errorf("NodeTargets (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func endpoint(ip string, ready, serving, terminating *bool) discoveryv1.Endpoint {
	return discoveryv1.Endpoint{Addresses: []string{ip, "10.99.0.1"},
		Conditions: discoveryv1.EndpointConditions{Ready: ready, Serving: serving, Terminating: terminating}}
}

func TestEndpointTargets(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	httpPort := discoveryv1.EndpointPort{Name: ptr("http"), Port: ptr(int32(8080)), Protocol: ptr(v1.ProtocolTCP)}
	metrics := discoveryv1.EndpointPort{Name: ptr("metrics"), Port: ptr(int32(9090))}
	slice := &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4, Ports: []discoveryv1.EndpointPort{metrics, httpPort},
		Endpoints: []discoveryv1.Endpoint{
			endpoint("10.244.0.10", yes, yes, no),          // ready
			endpoint("10.244.0.2", nil, nil, nil),          // unknown conditions: ready, as kube-proxy takes them
			endpoint("10.244.0.3", no, yes, yes),           // terminating, still serving: drain
			endpoint("10.244.0.4", no, no, yes),            // terminating, no longer serving: out
			endpoint("10.244.0.5", no, yes, no),            // not ready, not terminating (starting): out
			endpoint("10.244.0.6", no, nil, yes),           // serving unknown while terminating: taken as serving
			{Conditions: discoveryv1.EndpointConditions{}}, // no address
		}}
	// The same pod listed by a second slice during an update, ready there.
	moved := &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4, Ports: []discoveryv1.EndpointPort{httpPort},
		Endpoints: []discoveryv1.Endpoint{endpoint("10.244.0.3", yes, yes, no)}}
	v6 := &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv6, Ports: []discoveryv1.EndpointPort{httpPort},
		Endpoints: []discoveryv1.Endpoint{endpoint("fd00::7", yes, yes, no)}}
	fqdn := &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeFQDN, Ports: []discoveryv1.EndpointPort{httpPort},
		Endpoints: []discoveryv1.Endpoint{endpoint("example.com", yes, yes, no)}}
	unnamed := &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4, Ports: []discoveryv1.EndpointPort{{Port: ptr(int32(5000))}},
		Endpoints: []discoveryv1.Endpoint{endpoint("10.244.1.1", yes, yes, no)}}
	udp := &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4,
		Ports:     []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(int32(8080)), Protocol: ptr(v1.ProtocolUDP)}},
		Endpoints: []discoveryv1.Endpoint{endpoint("10.244.2.1", yes, yes, no)}}

	tests := []struct {
		name   string
		slices []*discoveryv1.EndpointSlice
		port   v1.ServicePort
		want   []binding.Target
	}{
		{"ready endpoints are active, serving terminating ones drain, the rest are out", []*discoveryv1.EndpointSlice{slice, fqdn, nil},
			v1.ServicePort{Name: "http", Port: 80, TargetPort: intstr.FromString("web")}, []binding.Target{
				{IP: "10.244.0.2", Port: 8080}, {IP: "10.244.0.3", Port: 8080, Drain: true},
				{IP: "10.244.0.6", Port: 8080, Drain: true}, {IP: "10.244.0.10", Port: 8080}}},
		{"a pod in two slices counts once, active if either says so", []*discoveryv1.EndpointSlice{slice, moved},
			v1.ServicePort{Name: "http", Protocol: v1.ProtocolTCP}, []binding.Target{
				{IP: "10.244.0.2", Port: 8080}, {IP: "10.244.0.3", Port: 8080},
				{IP: "10.244.0.6", Port: 8080, Drain: true}, {IP: "10.244.0.10", Port: 8080}}},
		{"the port is matched by name: another port's number", []*discoveryv1.EndpointSlice{slice},
			v1.ServicePort{Name: "metrics"}, []binding.Target{
				{IP: "10.244.0.2", Port: 9090}, {IP: "10.244.0.3", Port: 9090, Drain: true},
				{IP: "10.244.0.6", Port: 9090, Drain: true}, {IP: "10.244.0.10", Port: 9090}}},
		{"a Service's only, unnamed port", []*discoveryv1.EndpointSlice{slice, unnamed}, v1.ServicePort{Port: 80},
			[]binding.Target{{IP: "10.244.1.1", Port: 5000}}},
		{"and by protocol", []*discoveryv1.EndpointSlice{udp, v6}, v1.ServicePort{Name: "http", Protocol: v1.ProtocolUDP},
			[]binding.Target{{IP: "10.244.2.1", Port: 8080}}},
		{"IPv6 slices too, after IPv4", []*discoveryv1.EndpointSlice{v6, unnamed, moved}, v1.ServicePort{Name: "http"},
			[]binding.Target{{IP: "10.244.0.3", Port: 8080}, {IP: "fd00::7", Port: 8080}}},
		{"no port of that name: nothing", []*discoveryv1.EndpointSlice{slice}, v1.ServicePort{Name: "grpc"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, binding.EndpointTargets(tt.slices, tt.port), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("EndpointTargets (-want +got):\n%s", diff)
			}
		})
	}
}

func TestServicePort(t *testing.T) {
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Spec: v1.ServiceSpec{Ports: []v1.ServicePort{
		{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}, {Name: "https", Port: 443, TargetPort: intstr.FromString("tls")}}}}
	for _, tt := range []struct {
		port intstr.IntOrString
		want string
	}{{intstr.FromString("https"), "https"}, {intstr.FromInt32(80), "http"}, {intstr.FromInt32(8080), ""}, {intstr.FromString("grpc"), ""}} {
		got, err := binding.ServicePort(svc, tt.port)
		if got.Name != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("ServicePort(%s) = %q, %v; want %q", tt.port.String(), got.Name, err, tt.want)
		}
	}
}
