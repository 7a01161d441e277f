// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package subset

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestRankNeverChanges: a Service's subset is its Nodes ranked by Rank, so a Rank that changed
// between versions would move most backends of every big Service at an upgrade. It is the first
// 8 bytes, big-endian, of SHA-256 over the name, a NUL byte and the salt, for names of any length.
func TestRankNeverChanges(t *testing.T) {
	for _, tc := range []struct{ name, salt string }{
		{"worker-00001", "shop/web"},
		{"", ""},
		{strings.Repeat("n", 300), "shop/" + strings.Repeat("s", 300)}, // beyond Rank's stack buffer
	} {
		sum := sha256.Sum256([]byte(tc.name + "\x00" + tc.salt))
		if got, want := Rank(tc.name, tc.salt), binary.BigEndian.Uint64(sum[:8]); got != want {
			t.Errorf("Rank(%.20q, %.20q) = %d, want %d", tc.name, tc.salt, got, want)
		}
	}
	// The same figure from another implementation (Python's hashlib), so that the definition
	// above cannot drift together with Rank.
	if got := Rank("worker-00001", "shop/web"); got != 0x01571c7fde74ea92 {
		t.Errorf("Rank(worker-00001, shop/web) = %#016x, want 0x01571c7fde74ea92", got)
	}
}

// TestSmallestIsTheSortedPrefix holds smallest to what sorting all and keeping the first k gives,
// over every k, with repeated values and on sorted and reversed input.
func TestSmallestIsTheSortedPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 3, 10, 257} {
		inputs := map[string][]int{"random": nil, "sorted": nil, "reversed": nil, "few values": nil}
		for i := range n {
			inputs["random"] = append(inputs["random"], r.IntN(1000))
			inputs["sorted"] = append(inputs["sorted"], i)
			inputs["reversed"] = append(inputs["reversed"], n-i)
			inputs["few values"] = append(inputs["few values"], r.IntN(3))
		}
		for name, in := range inputs {
			want := slices.Sorted(slices.Values(in))
			for k := 0; k <= n+1; k++ {
				got := smallest(slices.Clone(in), k, cmp.Compare[int])
				if !slices.Equal(got, want[:min(k, n)]) {
					t.Fatalf("%s, %d items: smallest(k=%d) = %v, want %v", name, n, k, got, want[:min(k, n)])
				}
			}
		}
	}
}
