// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"fmt"
	"io"
	"time"
)

// secs formats a real-time-equivalent duration.
func secs(d time.Duration) string {
	if d == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// Goal checks a single-Service scenario against the goal: at most 0.75× upstream's calls
// (polls included) and converged within 1.1× the floor (floor + 1 s under 10 s work requests).
func (m Measure) Goal(wr time.Duration) string {
	var miss []string
	if m.Upstream > 0 && float64(m.Calls()) > 0.75*float64(m.Upstream) {
		miss = append(miss, "calls")
	}
	limit := time.Duration(1.1 * float64(m.Floor))
	if wr > 0 && wr < 10*time.Second {
		limit = m.Floor + time.Second
	}
	if m.Floor > 0 && m.Net > limit {
		miss = append(miss, "time")
	}
	if m.Err != nil {
		miss = append(miss, "error")
	}
	if len(miss) == 0 {
		return "met"
	}
	return fmt.Sprintf("miss: %v", miss)
}

// WriteSingle writes the single-Service table of one sweep point.
func WriteSingle(out io.Writer, title string, wr time.Duration, ms []Measure) {
	fmt.Fprintf(out, "\n#### %s\n\n", title)
	fmt.Fprintln(out, "| scenario | reads | writes | polls | 429s | calls | upstream calls | ratio | time | waiting | floor | upstream time | goal |")
	fmt.Fprintln(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, m := range ms {
		up, ratio := "—", "—"
		if m.Upstream > 0 {
			up, ratio = fmt.Sprint(m.Upstream), fmt.Sprintf("%.2f", float64(m.Calls())/float64(m.Upstream))
		}
		fmt.Fprintf(out, "| %s | %d | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s |\n", m.Scenario, m.Reads, m.Writes, m.Polls,
			m.Status429, m.Calls(), up, ratio, secs(m.Took), secs(m.Net), secs(m.Floor), secs(m.UpstreamTook), m.Goal(wr))
		if m.Err != nil {
			fmt.Fprintf(out, "|   error: %v |||||||||||\n", m.Err)
		}
	}
}
