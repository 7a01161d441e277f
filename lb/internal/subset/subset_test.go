// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package subset

import (
	"crypto/sha256"
	"encoding/binary"
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
