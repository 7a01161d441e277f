// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"strings"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// Reserved public IPs go AVAILABLE → ASSIGNED when a load balancer takes one and back when it is
// deleted; a second load balancer asking for an ASSIGNED one fails (issue 27, item 4).

// publicIPState reads a public IP through the Networking API, as a client sees it.
func (f *lbFixture) publicIPState(t *testing.T, id *string) core.PublicIp {
	t.Helper()
	vcn, err := core.NewVirtualNetworkClientWithConfigurationProvider(f.srv.ConfigurationProvider())
	if err != nil {
		t.Fatalf("virtual network client: %v", err)
	}
	vcn.Host = f.srv.URL()
	noRetry := common.NoRetryPolicy()
	vcn.Configuration.RetryPolicy, vcn.Configuration.CircuitBreaker = &noRetry, nil
	resp, err := vcn.GetPublicIp(testCtx(t), core.GetPublicIpRequest{PublicIpId: id})
	if err != nil {
		t.Fatalf("GetPublicIp: %v", err)
	}
	return resp.PublicIp
}

func (f *lbFixture) wantIPState(t *testing.T, id *string, state core.PublicIpLifecycleStateEnum, assigned bool) core.PublicIp {
	t.Helper()
	p := f.publicIPState(t, id)
	if p.LifecycleState != state || (p.AssignedEntityId != nil) != assigned {
		t.Fatalf("reserved IP %s, assignedEntityId %v; want %s, assigned %v", p.LifecycleState, deref(p.AssignedEntityId), state, assigned)
	}
	if assigned && (p.AssignedEntityType != core.PublicIpAssignedEntityTypePrivateIp || !strings.HasPrefix(*p.AssignedEntityId, "ocid1.privateip.")) {
		t.Errorf("assigned to %s %s, want a PRIVATE_IP", p.AssignedEntityType, *p.AssignedEntityId)
	}
	return p
}

func TestReservedIPIsAssignedToOneLoadBalancerAtATime(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	ip := f.srv.AddPublicIP(core.PublicIp{})
	f.wantIPState(t, ip.Id, core.PublicIpLifecycleStateAvailable, false)

	first := f.basicLB("first")
	first.ReservedIps = []loadbalancer.ReservedIp{{Id: ip.Id}}
	id := f.createLB(t, first)
	holder := f.wantIPState(t, ip.Id, core.PublicIpLifecycleStateAssigned, true).AssignedEntityId

	// The second create is accepted; its work request fails and leaves it FAILED, without an
	// address, and the IP stays with the first.
	second := f.basicLB("second")
	second.ReservedIps = first.ReservedIps
	resp, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: second})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	if msg := f.mustFail(t, resp.OpcWorkRequestId); msg != "Reserved public IP "+*ip.Id+" is already assigned to "+*holder {
		t.Errorf("work request error %q", msg)
	}
	failed := f.getLB(t, f.lbOfWork(t, *resp.OpcWorkRequestId))
	if failed.LifecycleState != loadbalancer.LoadBalancerLifecycleStateFailed || len(failed.IpAddresses) != 0 {
		t.Errorf("second load balancer %s with %d addresses, want FAILED with none", failed.LifecycleState, len(failed.IpAddresses))
	}
	if p := f.publicIPState(t, ip.Id); deref(p.AssignedEntityId) != *holder {
		t.Errorf("reserved IP moved to %s, want it still with %s", deref(p.AssignedEntityId), *holder)
	}

	del, err := f.lb.DeleteLoadBalancer(ctx, loadbalancer.DeleteLoadBalancerRequest{LoadBalancerId: &id})
	if err != nil {
		t.Fatalf("DeleteLoadBalancer: %v", err)
	}
	f.mustSucceed(t, del.OpcWorkRequestId)
	f.wantIPState(t, ip.Id, core.PublicIpLifecycleStateAvailable, false)

	// Free again, it serves a network load balancer, and is freed by RemoveNetworkLoadBalancer.
	n := f.basicNLB("nlb")
	n.ReservedIps = []nlbapi.ReservedIp{{Id: ip.Id}}
	nlbID := f.createNLB(t, n)
	f.wantIPState(t, ip.Id, core.PublicIpLifecycleStateAssigned, true)
	f.srv.RemoveNetworkLoadBalancer(nlbID)
	f.wantIPState(t, ip.Id, core.PublicIpLifecycleStateAvailable, false)
}

func TestNetworkLoadBalancerAskingForAnAssignedReservedIPFails(t *testing.T) {
	f := newLBFixture(t, Options{})
	ip := f.srv.AddPublicIP(core.PublicIp{})
	lb := f.basicLB("lb")
	lb.ReservedIps = []loadbalancer.ReservedIp{{Id: ip.Id}}
	f.createLB(t, lb)

	n := f.basicNLB("nlb")
	n.ReservedIps = []nlbapi.ReservedIp{{Id: ip.Id}}
	resp, err := f.nlb.CreateNetworkLoadBalancer(testCtx(t), nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: n})
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	if wr := f.waitNLBWork(t, resp.OpcWorkRequestId); wr.Status != nlbapi.OperationStatusFailed {
		t.Fatalf("work request %s, want FAILED", wr.Status)
	}
	if got := f.getNLB(t, *resp.Id); got.LifecycleState != nlbapi.LifecycleStateFailed || len(got.IpAddresses) != 0 {
		t.Errorf("network load balancer %s with %d addresses, want FAILED with none", got.LifecycleState, len(got.IpAddresses))
	}
	f.wantIPState(t, ip.Id, core.PublicIpLifecycleStateAssigned, true)
}
