// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package subset chooses a stable, spread subset of backends when OCI's limits cannot take them
// all: the Nodes of a Service's load balancer (package lb) and the Node targets of a backend-set
// binding (lb/binding) are chosen by the same rule.
package subset

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
)

// The Node labels a subset is spread over: the availability domain the cloud node controller
// sets as the zone, and the fault domain oci-ccm's instances package sets
// (instances.FaultDomainLabel; lb does not import instances).
const (
	LabelZone        = v1.LabelTopologyZone
	LabelFaultDomain = "oci.oraclecloud.com/fault-domain"
)

// NodePlace is where a Node is, for spreading: its zone and fault domain.
func NodePlace(n *v1.Node) string { return n.Labels[LabelZone] + "/" + n.Labels[LabelFaultDomain] }

// NodePlaces returns NodePlace for one pass over many Nodes: the few places' names are made
// once each rather than once per Node.
func NodePlaces() func(*v1.Node) string {
	names := map[[2]string]string{}
	return func(n *v1.Node) string {
		at := [2]string{n.Labels[LabelZone], n.Labels[LabelFaultDomain]}
		name, ok := names[at]
		if !ok {
			name = at[0] + "/" + at[1]
			names[at] = name
		}
		return name
	}
}

// Pick returns k of items (all of them when k ≥ len(items)), each item named by key and placed by
// place: each place gets an even share, and within a place the items that rank first for salt. A
// place with fewer items than its share gives all of them and the rest is shared by the others;
// the remainder of the division goes to places in an order of their own for salt. The shares
// depend on the sizes of the places only where a place is smaller than its share, so an item
// joining or leaving a place that has more than its share moves nothing but its own rank.
func Pick[T any](items []T, k int, salt string, key, place func(T) string) []T {
	if k >= len(items) {
		return items
	}
	if k <= 0 {
		return nil
	}
	type ranked struct {
		item T
		key  string
		rank uint64
	}
	byPlace := map[string][]ranked{}
	for _, it := range items {
		name, at := key(it), place(it)
		byPlace[at] = append(byPlace[at], ranked{it, name, Rank(name, salt)})
	}
	share := map[string]int{}
	open := slices.Sorted(maps.Keys(byPlace))
	left := k
	for {
		// Places smaller than an even share of what is left give all their items.
		even := left / len(open)
		small := slices.DeleteFunc(slices.Clone(open), func(p string) bool { return len(byPlace[p]) > even })
		if len(small) == 0 {
			break
		}
		for _, p := range small {
			share[p] = len(byPlace[p])
			left -= share[p]
		}
		open = slices.DeleteFunc(open, func(p string) bool { return slices.Contains(small, p) })
		if len(open) == 0 {
			break
		}
	}
	if len(open) > 0 {
		slices.SortFunc(open, func(a, b string) int { return cmp.Or(cmp.Compare(Rank(a, salt), Rank(b, salt)), cmp.Compare(a, b)) })
		for i, p := range open {
			share[p] = left / len(open)
			if i < left%len(open) {
				share[p]++
			}
		}
	}
	out := make([]T, 0, k)
	for _, p := range slices.Sorted(maps.Keys(byPlace)) {
		first := smallest(byPlace[p], share[p], func(a, b ranked) int {
			if a.rank != b.rank { // almost always: the keys are compared only on a tie
				return cmp.Compare(a.rank, b.rank)
			}
			return cmp.Compare(a.key, b.key)
		})
		for _, m := range first {
			out = append(out, m.item)
		}
	}
	return out
}

// smallest returns the first k of s in the order of compare (a total order), sorted. It moves
// them to the front of s, leaving the rest in no order: a subset takes a few hundred out of
// thousands of Nodes, and sorting them all would be wasted.
func smallest[E any](s []E, k int, compare func(a, b E) int) []E {
	k = min(k, len(s))
	lo, hi := 0, len(s) // s[:lo] holds the lo smallest, s[hi:] none of the k smallest
	for lo < k && k < hi {
		// Ranks are hashes, in no order: the middle one is as good a pivot as any.
		pivot := s[lo+(hi-lo)/2]
		// Three ways: s[lo:lt] before the pivot, s[lt:gt] equal to it, s[gt:hi] after it.
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch c := compare(s[i], pivot); {
			case c < 0:
				s[lt], s[i] = s[i], s[lt]
				lt, i = lt+1, i+1
			case c > 0:
				gt--
				s[i], s[gt] = s[gt], s[i]
			default:
				i++
			}
		}
		switch {
		case k <= lt:
			hi = lt
		case k >= gt:
			lo = gt
		default:
			lo, hi = k, k // the k-th falls among the pivot's equals
		}
	}
	slices.SortFunc(s[:k], compare)
	return s[:k]
}

// Rank is an item's place in a ranking for salt: the first 8 bytes of SHA-256 over the item's
// name and salt. A hash of both, rather than of the item alone, gives each salt (a Service, a
// binding) its own order (rendezvous hashing): the Services of a cluster spread over all its
// Nodes.
func Rank(name, salt string) uint64 {
	var buf [256]byte // on the stack for the usual names: no allocation per item
	b := append(append(append(buf[:0], name...), 0), salt...)
	sum := sha256.Sum256(b)
	return binary.BigEndian.Uint64(sum[:8])
}
