// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

// wireLB is a load balancer in its wire form with every kind of field deepCopy meets: pointers,
// maps of structs, nested maps of interfaces, lists of interfaces (rules), times, empty lists.
func wireLB() loadbalancer.LoadBalancer {
	return jsonClone(loadbalancer.LoadBalancer{
		Id: common.String("ocid1.loadbalancer.oc1..a"), TimeCreated: &common.SDKTime{Time: time.Date(2026, 12, 3, 9, 0, 0, 123456789, time.UTC)},
		FreeformTags: map[string]string{"a": "b"}, DefinedTags: map[string]map[string]interface{}{"ns": {"k": "v", "n": 1.5}},
		IpAddresses: []loadbalancer.IpAddress{{IpAddress: common.String("10.0.0.1"), IsPublic: common.Bool(true)}},
		BackendSets: map[string]loadbalancer.BackendSet{"TCP-80": {Name: common.String("TCP-80"), Policy: common.String("ROUND_ROBIN"),
			Backends:      []loadbalancer.Backend{{IpAddress: common.String("10.0.1.1"), Port: common.Int(30000), Weight: common.Int(1)}},
			HealthChecker: &loadbalancer.HealthChecker{Protocol: common.String("TCP"), Port: common.Int(10256)}}},
		RuleSets: map[string]loadbalancer.RuleSet{"rs": {Name: common.String("rs"), Items: []loadbalancer.Rule{
			loadbalancer.AddHttpRequestHeaderRule{Header: common.String("x"), Value: common.String("y")}}}},
		NetworkSecurityGroupIds: []string{},
	})
}

func TestDeepCopyEqualsJSONCloneAndSharesNothing(t *testing.T) {
	orig := wireLB()
	got := deepCopy(orig)
	if diff := cmp.Diff(jsonClone(orig), got); diff != "" {
		t.Fatalf("deepCopy differs from jsonClone (-jsonClone +deepCopy):\n%s", diff)
	}
	if got.NetworkSecurityGroupIds == nil || got.SubnetIds != nil {
		t.Errorf("deepCopy turned an empty list into nil or nil into a list: %#v, %#v", got.NetworkSecurityGroupIds, got.SubnetIds)
	}
	// Change everything reachable in the copy; the original must not move.
	*got.Id = "changed"
	got.TimeCreated.Time = time.Time{}
	got.FreeformTags["a"] = "changed"
	got.DefinedTags["ns"]["k"] = "changed"
	*got.IpAddresses[0].IpAddress = "changed"
	bs := got.BackendSets["TCP-80"]
	*bs.Backends[0].Port = 1
	*bs.HealthChecker.Port = 1
	if diff := cmp.Diff(wireLB(), orig); diff != "" {
		t.Errorf("changing the copy changed the original (-want +got):\n%s", diff)
	}
}

func BenchmarkCopyLoadBalancer(b *testing.B) {
	lb := wireLB()
	set := lb.BackendSets["TCP-80"]
	for i := range 1000 {
		set.Backends = append(set.Backends, loadbalancer.Backend{IpAddress: common.String("10.0.2.1"), Port: common.Int(30000 + i), Weight: common.Int(1),
			Backup: common.Bool(false), Drain: common.Bool(false), Offline: common.Bool(false), Name: common.String("10.0.2.1:30000")})
	}
	lb.BackendSets["TCP-80"] = set
	b.Run("jsonClone", func(b *testing.B) {
		for b.Loop() {
			jsonClone(lb)
		}
	})
	b.Run("deepCopy", func(b *testing.B) {
		for b.Loop() {
			deepCopy(lb)
		}
	})
}
