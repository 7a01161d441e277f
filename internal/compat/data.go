// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"maps"
	"slices"
	"strings"

	"github.com/oci-ccm/oci-ccm/internal/compatdata"
)

// dataTable is the machine-readable form of the classified rows (internal/compatdata), for programs
// such as the preflight check: anns and edges are the rows of upstreamAnnotations and
// edgeAnnotations, keys those of upstreamConfigKeys, in order. A config key's note is its
// written difference, without the loader's warning.
func dataTable(anns, edges, keys []Row, env Row) *compatdata.Table {
	t := &compatdata.Table{
		Annotations: map[string]compatdata.Key{},
		Config:      map[string]compatdata.Key{},
		Environment: map[string]compatdata.Key{env.Key: {Status: env.Status, Note: env.Note}},
	}
	main := map[string]upstreamAnnotation{}
	for i, r := range anns {
		main[r.Key] = upstreamAnnotations[i]
		t.Annotations[r.Key] = compatdata.Key{Status: r.Status, Note: r.Note}
	}
	for i, r := range edges {
		a := edgeAnnotations[i]
		var without []string
		for _, k := range slices.Sorted(maps.Keys(main[a.Key].With)) {
			if _, ok := a.With[k]; !ok {
				without = append(without, k)
			}
		}
		conditions := slices.DeleteFunc([]string{a.SpecNote, a.ConfigNote}, func(s string) bool { return s == "" })
		k := t.Annotations[a.Key]
		k.Edges = append(k.Edges, compatdata.Edge{Value: a.Value, AnyValue: a.AnyValue, With: a.With, Without: without,
			Condition: strings.Join(conditions, ", "), Status: r.Status, Note: r.Note})
		t.Annotations[a.Key] = k
	}
	for i, r := range keys {
		// A warning's text is left out: the loader reports it to whoever loads the file.
		k := upstreamConfigKeys[i]
		note := r.Note
		if r.Status != Refused && r.Status != RefusedAsUpstream {
			note = strings.TrimSuffix(strings.TrimPrefix(k.Difference+"; "+k.Also, "; "), "; ")
		}
		t.Config[r.Key] = compatdata.Key{Status: r.Status, Note: note}
	}
	return t
}
