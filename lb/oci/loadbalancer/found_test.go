// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package loadbalancer

import (
	"testing"

	lbapi "github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/lb/oci"
)

func TestEveryLifecycleStateOfTheSDKIsKnown(t *testing.T) {
	for _, state := range lbapi.GetLoadBalancerLifecycleStateEnumValues() {
		if got := Found(lbapi.LoadBalancer{LifecycleState: state}).State; got == oci.LifecycleOther {
			t.Errorf("%s reads as LifecycleOther", state)
		}
	}
	if got := Found(lbapi.LoadBalancer{LifecycleState: lbapi.LoadBalancerLifecycleStateActive}).State; got != oci.LifecycleActive {
		t.Errorf("ACTIVE reads as %v", got)
	}
}
