// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"context"
	"fmt"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// resyncWorkers is how many Nodes are asked about at once, like the cloud node controller's
// workers; concurrency is what ociclient's singleflight must absorb.
const resyncWorkers = 8

// resync asks for every Node's metadata, as the cloud node controller does periodically.
func resync(ctx context.Context, inst *Instances, nodes []*v1.Node) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(resyncWorkers)
	for _, node := range nodes {
		g.Go(func() error {
			md, err := inst.InstanceMetadata(ctx, node)
			if err == nil && len(md.NodeAddresses) == 0 {
				err = fmt.Errorf("node %s: no addresses", node.Name)
			}
			return err
		})
	}
	return g.Wait()
}

// TestMetadataOf500NodesCostsBoundedCalls pins the cost of a resync of N=500 Nodes in one
// compartment with list pages of P=100, through ociclient's caches:
//
//	with providerID, cold: N GetInstance + N ListVnicAttachments (of the instance) + N GetVnic = 1500
//	without providerID (named by IP), cold: ⌈N/P⌉ ListInstances + ⌈N/P⌉ ListVnicAttachments + N GetVnic = 510
//	warm (within the cache TTL), either: 0
//	InstanceExists, either, warm or not: one fresh GetInstance per Node = 500
//
// Why: a Node with a providerID is read by ID, so its cost does not depend on how many other
// instances share its compartment (a 2,000-instance compartment costs a cold Node 3 calls, not
// 41; see TestNodeWithProviderIDCostsConstantCallsInA2000InstanceCompartment). The price is 3
// calls per Node on a cold resync where a cluster owning its whole compartment paid
// 2⌈N/P⌉ + N before; the upstream CCM pays 3N on every resync, warm or not. A Node without a
// providerID is matched against the compartment's listings, whose VNIC attachments then also
// serve its metadata; each primary VNIC is read once, as OCI has no list of VNICs.
func TestMetadataOf500NodesCostsBoundedCalls(t *testing.T) {
	const n, page = 500, 100
	const lists = (n + page - 1) / page
	e := newEnv(t, envOptions{cacheTTL: time.Hour, pageSize: page})
	insts := e.addInstances(n)
	byID := make([]*v1.Node, n)
	byIP := make([]*v1.Node, n)
	for k, inst := range insts {
		byID[k] = nodeFor(inst)
		byIP[k] = namedNode(*e.srv.InstanceVNICs(*inst.Id)[0].PrivateIp)
	}

	for _, tc := range []struct {
		name  string
		nodes []*v1.Node
		cold  map[string]int
	}{
		{"with providerID", byID, map[string]int{"GetInstance": n, "ListInstances": 0, "ListVnicAttachments": n, "GetVnic": n}},
		{"without providerID, named by IP", byIP, map[string]int{"GetInstance": 0, "ListInstances": lists, "ListVnicAttachments": lists, "GetVnic": n}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.client = e.newClient(t, time.Hour)
			e.inst = e.newInstances(t) // fresh caches: a cold start
			ctx := context.Background()

			e.srv.ResetCalls()
			if err := resync(ctx, e.inst, tc.nodes); err != nil {
				t.Fatal(err)
			}
			assertCalls(t, "cold resync", e.srv.Calls(), tc.cold)

			e.srv.ResetCalls()
			if err := resync(ctx, e.inst, tc.nodes); err != nil {
				t.Fatal(err)
			}
			assertCalls(t, "warm resync", e.srv.Calls(), map[string]int{})

			// InstanceExists reads each instance fresh: the one read it cannot take from the cache.
			e.srv.ResetCalls()
			for _, node := range tc.nodes {
				if exists, err := e.inst.InstanceExists(ctx, node); !exists || err != nil {
					t.Fatalf("InstanceExists(%s) = %v, %v", node.Name, exists, err)
				}
			}
			assertCalls(t, "exists checks", e.srv.Calls(), map[string]int{"GetInstance": n})
		})
	}
}

// assertCalls checks the calls per operation and that no other operation was called.
func assertCalls(t *testing.T, what string, got ocitest.Calls, want map[string]int) {
	t.Helper()
	total := 0
	for op, n := range want {
		total += n
		if got.Op(op) != n {
			t.Errorf("%s: %s calls = %d, want %d", what, op, got.Op(op), n)
		}
	}
	if got.Total() != total {
		t.Errorf("%s: %d OCI calls (%v), want %d", what, got.Total(), got, total)
	}
}

// BenchmarkInstanceMetadata measures a resync of N Nodes with providerIDs (metadata for each, 8
// at a time) and reports OCI calls per Node: "cold" starts every iteration with empty caches (a
// CCM restart, or every resync once the cache TTL has passed), 3 per Node; "warm" reuses them,
// 0. The upstream CCM's pattern is 3 calls per Node on every resync.
func BenchmarkInstanceMetadata(b *testing.B) {
	for _, n := range []int{50, 500} {
		e := newEnv(b, envOptions{cacheTTL: time.Hour})
		insts := e.addInstances(n)
		nodes := make([]*v1.Node, n)
		for k, inst := range insts {
			nodes[k] = nodeFor(inst)
		}
		for _, cold := range []bool{true, false} {
			name := fmt.Sprintf("nodes=%d/cache=%s", n, map[bool]string{true: "cold", false: "warm"}[cold])
			b.Run(name, func(b *testing.B) {
				benchmarkResync(b, e, nodes, cold)
			})
		}
	}
}

func benchmarkResync(b *testing.B, e *env, nodes []*v1.Node, cold bool) {
	ctx := context.Background()
	inst := e.newInstances(b)
	if err := resync(ctx, inst, nodes); err != nil { // warm the caches for the warm case
		b.Fatal(err)
	}
	e.srv.ResetCalls()
	b.ResetTimer()
	for range b.N {
		if cold {
			b.StopTimer()
			e.client = e.newClient(b, time.Hour)
			inst = e.newInstances(b)
			b.StartTimer()
		}
		if err := resync(ctx, inst, nodes); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	calls := e.srv.Calls()
	perNode := float64(b.N * len(nodes))
	b.ReportMetric(float64(calls.Total())/perNode, "oci-calls/node")
	b.ReportMetric(float64(calls.Op("GetInstance")+calls.Op("GetVnic"))/perNode, "gets/node")
	b.ReportMetric(float64(calls.Op("ListInstances")+calls.Op("ListVnicAttachments"))/float64(b.N), "lists/resync")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/perNode, "ns/node")
}
