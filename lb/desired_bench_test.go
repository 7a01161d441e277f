// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkDesiredBigCluster is Desired for a two-port Service on 5,000 Nodes with
// backendSubset auto: what every Service's node sync computes in a big cluster.
func BenchmarkDesiredBigCluster(b *testing.B) {
	cfg, svc, nodes := subsetConfig("auto"), testService(twoPorts()), bigCluster(0, 5000)
	// An informer lists Nodes in no order.
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
	for b.Loop() {
		if _, err := Desired(svc, nodes, cfg, Known{}); err != nil {
			b.Fatal(err)
		}
	}
}
