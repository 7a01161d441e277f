// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"fmt"
	"net/http"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// The benchmarks use the scenario of the upstream comparison in README.md: P=2 ports, L=2
// load-balancer subnets, a Service with no TLS. They report OCI calls per reconcile (reads,
// writes, work-request polls) from ocitest's counters, with ocitest's default 30 ms work requests
// and ociclient's default adaptive polling.
// Security-list calls are not part of package lb and are not counted.

// callTotals sums the calls of the measured steps.
type callTotals struct{ reads, writes, polls, conflicts int }

func (t *callTotals) add(c ocitest.Calls) {
	t.reads += c.Class(ocitest.ClassRead)
	t.writes += c.Class(ocitest.ClassWrite)
	t.polls += c.Class(ocitest.ClassPoll)
	t.conflicts += c.Status(http.StatusConflict)
}

func (t callTotals) report(b *testing.B) {
	n := float64(b.N)
	b.ReportMetric(float64(t.reads)/n, "reads/op")
	b.ReportMetric(float64(t.writes)/n, "writes/op")
	b.ReportMetric(float64(t.polls)/n, "polls/op")
	b.ReportMetric(float64(t.conflicts)/n, "409s/op")
}

func BenchmarkEnsureCreate(b *testing.B) {
	e := newEnv(b, withProductionTiming())
	var total callTotals
	for i := 0; b.Loop(); i++ {
		svc := service()
		svc.UID = types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i))
		before := e.srv.Calls()
		if _, err := e.r.Ensure(ctx, svc, readyNodes(3), nil); err != nil {
			b.Fatal(err)
		}
		total.add(e.srv.Calls().Since(before))
		b.StopTimer()
		if err := e.r.Delete(ctx, svc); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	total.report(b)
}

func BenchmarkEnsureNoop(b *testing.B) {
	e := newEnv(b, withProductionTiming())
	svc := service()
	if _, err := e.r.Ensure(ctx, svc, readyNodes(3), nil); err != nil {
		b.Fatal(err)
	}
	before := e.srv.Calls()
	for b.Loop() {
		if _, err := e.r.Ensure(ctx, svc, readyNodes(3), nil); err != nil {
			b.Fatal(err)
		}
	}
	var total callTotals
	total.add(e.srv.Calls().Since(before))
	total.report(b)
}

// BenchmarkEnsureNodeAdded alternates between 3 and 4 ready nodes: every reconcile is a node-set
// change that updates each of the P=2 backend sets once. With concurrency 2 both updates are sent
// at once; OCI (and ocitest by default) queue the second behind the first work request, while
// ocitest's LBBusyReject answers it 409 IncorrectState and ociclient retries it.
func BenchmarkEnsureNodeAdded(b *testing.B) {
	for _, concurrency := range []int{1, 2} {
		b.Run(fmt.Sprintf("concurrency=%d", concurrency), func(b *testing.B) {
			e := newEnv(b, withProductionTiming(), withConcurrency(concurrency))
			svc := service()
			if _, err := e.r.Ensure(ctx, svc, readyNodes(3), nil); err != nil {
				b.Fatal(err)
			}
			before := e.srv.Calls()
			for i := 0; b.Loop(); i++ {
				if _, err := e.r.Ensure(ctx, svc, readyNodes(3+(i+1)%2), nil); err != nil {
					b.Fatal(err)
				}
			}
			var total callTotals
			total.add(e.srv.Calls().Since(before))
			total.report(b)
		})
	}
}
