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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// testNLBServiceUDPAndTCP: the network load balancer Service of examples/services/nlb.yaml (port
// 53 on UDP and TCP, and a TCP port) gets one in OCI (listeners TCP_AND_UDP-53 and TCP-8080, every
// node a backend, client addresses preserved) and its address in the Service status, under the
// documented IAM policy; deleting the Service deletes it and leaves no network load balancer.
func testNLBServiceUDPAndTCP(t *testing.T, s *suite) {
	const name = "dns"
	svc := loadService(t, "nlb.yaml", testNamespace)
	created, err := s.kube.CoreV1().Services(testNamespace).Create(s.ctx, svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	served := waitIngressIP(t, s, testNamespace, name)

	nodes, err := s.kube.CoreV1().Nodes().List(s.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A new network load balancer is named as the upstream CCM names it: <namespace>/<name>/<uid>.
	nlbName := created.Namespace + "/" + created.Name + "/" + string(created.UID)
	var n nlbapi.NetworkLoadBalancerSummary
	eventually(t, s.ctx, convergeTimeout, "network load balancer of "+name+" converged", func(ctx context.Context) (bool, string, error) {
		found, err := s.oci.networkLoadBalancersNamed(ctx, nlbName)
		if err != nil || len(found) != 1 {
			return false, fmt.Sprintf("%d named %s", len(found), nlbName), err
		}
		n = found[0]
		var listeners []string
		for name, l := range n.Listeners {
			listeners = append(listeners, fmt.Sprintf("%s:%s/%d", name, l.Protocol, *l.Port))
		}
		slices.Sort(listeners)
		want := []string{"TCP-8080:TCP/8080", "TCP_AND_UDP-53:TCP_AND_UDP/53"}
		set := n.BackendSets["TCP_AND_UDP-53"]
		backends, preserved := len(set.Backends), set.IsPreserveSource != nil && *set.IsPreserveSource
		return n.LifecycleState == nlbapi.LifecycleStateActive && slices.Equal(listeners, want) && backends > 0 && backends <= len(nodes.Items) && preserved,
			fmt.Sprintf("state %s, listeners %v, %d backends, source preserved %v", n.LifecycleState, listeners, backends, preserved), nil
	})
	var addrs []string
	for _, a := range n.IpAddresses {
		addrs = append(addrs, *a.IpAddress)
	}
	if ip := ingressIP(served); !slices.Contains(addrs, ip) {
		t.Errorf("the Service's address %s is not one of its network load balancer's %v", ip, addrs)
	}

	s.deleteService(t, testNamespace, name)
	// OCI lists a deleted network load balancer, DELETED, for a while: only other states are left.
	listed, err := s.oci.networkLoadBalancersNamed(s.ctx, nlbName)
	var left []string
	for _, n := range listed {
		if n.LifecycleState != nlbapi.LifecycleStateDeleted {
			left = append(left, fmt.Sprintf("%s (%s)", *n.Id, n.LifecycleState))
		}
	}
	if err != nil || len(left) != 0 {
		t.Errorf("network load balancers named %s after the Service is gone, not DELETED: %v (err %v)", nlbName, left, err)
	}
}
