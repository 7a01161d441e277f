// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"testing"

	"github.com/oci-ccm/oci-ccm/internal/compatdata"
)

// Each edge value of the machine-readable table matches its own sample Service and not the
// sample of its annotation's main row (whose companions it leaves out), and the table embedded
// in internal/compatdata is the one the rows give.
func TestEveryEdgeValueMatchesItsSampleAndNotTheMainRows(t *testing.T) {
	_, _, generated, err := render()
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := compatdata.Load()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := compatdata.Marshal(generated)
	if got, _ := compatdata.Marshal(embedded); got != want {
		t.Fatal("internal/compatdata/compatibility.json is stale: run go generate ./internal/compat")
	}
	main := map[string]upstreamAnnotation{}
	for _, a := range upstreamAnnotations {
		main[a.Key] = a
	}
	for _, a := range edgeAnnotations {
		var edge *compatdata.Edge
		for i, e := range generated.Annotations[a.Key].Edges {
			if e.Value == a.Value && len(e.With) == len(a.With) {
				edge = &generated.Annotations[a.Key].Edges[i]
				break
			}
		}
		if edge == nil {
			t.Errorf("edge %s=%q is not in the table", a.Key, a.Value)
			continue
		}
		if !edge.Matches(a.Key, sampleOf(a).Annotations) {
			t.Errorf("edge %s=%q does not match its own sample", a.Key, a.Value)
		}
		m := main[a.Key]
		m.Value = a.Value
		if len(edge.Without) > 0 && edge.Matches(a.Key, sampleOf(m).Annotations) {
			t.Errorf("edge %s=%q matches the main row's sample, which carries %v", a.Key, a.Value, edge.Without)
		}
	}
}
