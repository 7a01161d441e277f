// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package ctxtime holds the one context-aware sleep the project's waits share (retry backoff,
// work-request polling, security-list contention, the benchmark clock).
package ctxtime

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx ends; it returns ctx's error if ctx ended first. A d of zero or
// less returns at once, with ctx's error if it has already ended.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
