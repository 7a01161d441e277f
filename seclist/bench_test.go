// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/oci-ccm/oci-ccm/seclist"
)

// BenchmarkReconcile measures the OCI calls per Service reconcile when n Services reconcile at
// once (as after a node change, when the service controller updates every LB Service), against
// ocitest through the real SDK. "changed" moves every Service's node port each iteration, so
// both lists must be rewritten; "unchanged" reconciles the same claims, so nothing is written.
// Each Service has one listener port, one node port and the kube-proxy health port, one LB
// subnet and one node subnet, each with its own list (P=1, L=1, M=1, K=1).
func BenchmarkReconcile(b *testing.B) {
	for _, n := range []int{1, 50} {
		for _, changed := range []bool{true, false} {
			name := fmt.Sprintf("services=%d/unchanged", n)
			if changed {
				name = fmt.Sprintf("services=%d/changed", n)
			}
			b.Run(name, func(b *testing.B) { benchmarkReconcile(b, n, changed) })
		}
	}
}

func benchmarkReconcile(b *testing.B, n int, changed bool) {
	v := newVCN(b)
	m := v.manager(b, seclist.Options{})
	claims := func(iteration int) []seclist.Claim {
		out := make([]seclist.Claim, n)
		for i := range out {
			out[i] = v.claim(fmt.Sprintf("ns/svc-%02d", i), 1000+i, 30000+i+100*(iteration%2))
		}
		return out
	}
	reconcileAll := func(cs []seclist.Claim) {
		var wg sync.WaitGroup
		for _, c := range cs {
			wg.Go(func() {
				if err := m.Reconcile(b.Context(), c); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	reconcileAll(claims(0)) // the rules exist before measuring
	before := v.srv.Calls()

	iteration := 0
	for b.Loop() {
		iteration++
		if changed {
			reconcileAll(claims(iteration))
		} else {
			reconcileAll(claims(0))
		}
	}

	calls := v.srv.Calls().Since(before)
	reconciles := float64(iteration * n)
	b.ReportMetric(float64(calls.Op("GetSecurityList"))/reconciles, "GetSecurityList/reconcile")
	b.ReportMetric(float64(calls.Op("UpdateSecurityList"))/reconciles, "UpdateSecurityList/reconcile")
	b.ReportMetric(float64(calls.Op("GetSubnet"))/reconciles, "GetSubnet/reconcile")
	b.ReportMetric(float64(calls.Op("UpdateSecurityList"))/float64(iteration), "UpdateSecurityList/round")
}
