// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package nlb

import (
	"testing"

	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"

	"github.com/oci-ccm/oci-ccm/lb/oci"
)

func TestEveryLifecycleStateOfTheSDKIsKnown(t *testing.T) {
	for _, state := range nlbapi.GetLifecycleStateEnumValues() {
		if got := Found(nlbapi.NetworkLoadBalancer{LifecycleState: state}).State; got == oci.LifecycleOther {
			t.Errorf("%s reads as LifecycleOther", state)
		}
	}
	if got := Found(nlbapi.NetworkLoadBalancer{LifecycleState: nlbapi.LifecycleStateUpdating}).State; got != oci.LifecycleUpdating {
		t.Errorf("UPDATING reads as %v", got)
	}
}
