// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/common"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// nlbClient is an SDK client of ocitest's Network Load Balancer API, built like the view's others.
func (v *ociView) nlbClient() (nlbapi.NetworkLoadBalancerClient, error) {
	a := v.config.Auth
	key, err := os.ReadFile(a.KeyFile)
	if err != nil {
		return nlbapi.NetworkLoadBalancerClient{}, err
	}
	provider := common.NewRawConfigurationProvider(a.Tenancy, a.User, a.Region, a.Fingerprint, string(key), nil)
	c, err := nlbapi.NewNetworkLoadBalancerClientWithConfigurationProvider(provider)
	if err != nil {
		return c, err
	}
	noRetry := common.NoRetryPolicy()
	c.Host, c.HTTPClient = v.url, v.http
	c.Configuration.RetryPolicy, c.Configuration.CircuitBreaker = &noRetry, nil
	return c, nil
}

// networkLoadBalancersNamed lists the network load balancers with this display name.
func (v *ociView) networkLoadBalancersNamed(ctx context.Context, name string) ([]nlbapi.NetworkLoadBalancerSummary, error) {
	c, err := v.nlbClient()
	if err != nil {
		return nil, err
	}
	resp, err := c.ListNetworkLoadBalancers(ctx, nlbapi.ListNetworkLoadBalancersRequest{CompartmentId: &v.seeded.Compartment, DisplayName: &name})
	return resp.Items, err
}

// testNLBServiceUDPAndTCP: a Service asking for a network load balancer, with a UDP and a TCP
// port, gets one in OCI (listeners UDP-53 and TCP-80, every node a backend) and its address in
// the Service status, under the documented IAM policy; deleting the Service deletes it and
// leaves no network load balancer behind.
func testNLBServiceUDPAndTCP(t *testing.T, s *suite) {
	const name = "dns"
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace,
			Annotations: map[string]string{"oci.oraclecloud.com/load-balancer-type": "nlb"}},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeLoadBalancer,
			Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{
				{Name: "dns", Protocol: corev1.ProtocolUDP, Port: 53, TargetPort: intstr.FromInt32(5353)},
				{Name: "web", Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromInt32(8080)},
			},
		},
	}
	created, err := s.kube.CoreV1().Services(testNamespace).Create(s.ctx, svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	served := waitIngressIP(t, s, testNamespace, name)

	nodes, err := s.kube.CoreV1().Nodes().List(s.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var n nlbapi.NetworkLoadBalancerSummary
	eventually(t, s.ctx, convergeTimeout, "network load balancer of "+name+" converged", func(ctx context.Context) (bool, string, error) {
		found, err := s.oci.networkLoadBalancersNamed(ctx, string(created.UID))
		if err != nil || len(found) != 1 {
			return false, fmt.Sprintf("%d named %s", len(found), created.UID), err
		}
		n = found[0]
		var listeners []string
		for name, l := range n.Listeners {
			listeners = append(listeners, fmt.Sprintf("%s:%s/%d", name, l.Protocol, *l.Port))
		}
		slices.Sort(listeners)
		want := []string{"TCP-80:TCP/80", "UDP-53:UDP/53"}
		backends := len(n.BackendSets["UDP-53"].Backends)
		return n.LifecycleState == nlbapi.LifecycleStateActive && slices.Equal(listeners, want) && backends > 0 && backends <= len(nodes.Items),
			fmt.Sprintf("state %s, listeners %v, %d UDP backends", n.LifecycleState, listeners, backends), nil
	})
	var addrs []string
	for _, a := range n.IpAddresses {
		addrs = append(addrs, *a.IpAddress)
	}
	if ip := ingressIP(served); !slices.Contains(addrs, ip) {
		t.Errorf("the Service's address %s is not one of its network load balancer's %v", ip, addrs)
	}

	s.deleteService(t, testNamespace, name)
	if left, err := s.oci.networkLoadBalancersNamed(s.ctx, string(created.UID)); err != nil || len(left) != 0 {
		t.Errorf("%d network load balancers named %s after the Service is gone (err %v)", len(left), created.UID, err)
	}
}
