// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package nlb

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"

	"github.com/oci-ccm/oci-ccm/lb/model"
)

// backendSetCalls is a Client that keeps the backend set bodies it is sent; it is called for
// nothing else.
type backendSetCalls struct {
	Client
	created nlbapi.CreateBackendSetDetails
	updated nlbapi.UpdateBackendSetDetails
}

func (c *backendSetCalls) CreateBackendSet(_ context.Context, _ string, d nlbapi.CreateBackendSetDetails, _ string) (string, error) {
	c.created = d
	return "wr-create", nil
}

func (c *backendSetCalls) UpdateBackendSet(_ context.Context, _, _ string, d nlbapi.UpdateBackendSetDetails) (string, error) {
	c.updated = d
	return "wr-update", nil
}

func TestABackendSetIsSentTheSameWayInCreateNetworkLoadBalancerCreateBackendSetAndUpdateBackendSet(t *testing.T) {
	set := model.BackendSet{
		Name: "TCP-443", Policy: "TWO_TUPLE", PreserveSource: true, IPv6: true,
		Backends:    []model.Backend{{IP: "fd00::5", Port: 30443}, {TargetID: "ocid1.instance.oc1..a", Port: 30443}},
		HealthCheck: model.HealthCheck{Protocol: "HTTP", Port: 10256, Path: "/healthz", ReturnCode: 200, Retries: 3, IntervalMillis: 10000, TimeoutMillis: 3000},
	}
	health := &nlbapi.HealthCheckerDetails{Protocol: nlbapi.HealthCheckProtocolsHttp, Port: common.Int(10256), UrlPath: common.String("/healthz"),
		ReturnCode: common.Int(200), Retries: common.Int(3), IntervalInMillis: common.Int(10000), TimeoutInMillis: common.Int(3000)}
	backends := []nlbapi.BackendDetails{
		{IpAddress: common.String("fd00::5"), Port: common.Int(30443), Weight: common.Int(1)},
		{TargetId: common.String("ocid1.instance.oc1..a"), Port: common.Int(30443), Weight: common.Int(1)},
	}
	c := &backendSetCalls{}
	p := New(c)
	for _, op := range []model.Op{model.OpCreate, model.OpUpdate} {
		if _, err := p.Change(context.Background(), "ocid1.networkloadbalancer.oc1..n", model.Change{Op: op, Name: set.Name, After: set}); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
	}
	wantCreate := nlbapi.CreateBackendSetDetails{Name: common.String("TCP-443"), Policy: nlbapi.NetworkLoadBalancingPolicyTwoTuple,
		HealthChecker: health, IsPreserveSource: common.Bool(true), IpVersion: nlbapi.IpVersionIpv6, Backends: backends}
	if diff := cmp.Diff(wantCreate, c.created); diff != "" {
		t.Errorf("CreateBackendSet body (-want +got):\n%s", diff)
	}
	wantUpdate := nlbapi.UpdateBackendSetDetails{Policy: common.String("TWO_TUPLE"), HealthChecker: health,
		IsPreserveSource: common.Bool(true), IpVersion: nlbapi.IpVersionIpv6, Backends: backends}
	if diff := cmp.Diff(wantUpdate, c.updated); diff != "" {
		t.Errorf("UpdateBackendSet body (-want +got):\n%s", diff)
	}

	created := nlbCreateDetails(&model.Spec{Kind: model.KindNetworkLoadBalancer, Name: "web",
		BackendSets: map[string]model.BackendSet{set.Name: set}}, "").BackendSets[set.Name]
	want := nlbapi.BackendSetDetails{Policy: nlbapi.NetworkLoadBalancingPolicyTwoTuple, IpVersion: nlbapi.IpVersionIpv6,
		IsPreserveSource: common.Bool(true),
		HealthChecker: &nlbapi.HealthChecker{Protocol: health.Protocol, Port: health.Port, UrlPath: health.UrlPath,
			ReturnCode: health.ReturnCode, Retries: health.Retries, IntervalInMillis: health.IntervalInMillis, TimeoutInMillis: health.TimeoutInMillis},
		Backends: []nlbapi.Backend{
			{IpAddress: common.String("fd00::5"), Port: common.Int(30443), Weight: common.Int(1)},
			{TargetId: common.String("ocid1.instance.oc1..a"), Port: common.Int(30443), Weight: common.Int(1)},
		}}
	if diff := cmp.Diff(want, created); diff != "" {
		t.Errorf("CreateNetworkLoadBalancer's backend set (-want +got):\n%s", diff)
	}
}
