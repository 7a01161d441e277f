// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"fmt"
	"io"
	"strings"
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
// A miss names the figures; a scenario upstream cannot do (TLS rotation) is checked on time
// only, and says so rather than counting as met.
func (m Measure) Goal(wr time.Duration) string {
	var miss []string
	if limit := 0.75 * float64(m.Upstream); m.Upstream > 0 && float64(m.Calls()) > limit {
		miss = append(miss, fmt.Sprintf("calls %d > %.1f (0.75×%d)", m.Calls(), limit, m.Upstream))
	}
	limit, how := time.Duration(1.1*float64(m.Floor)), "1.1× floor"
	if wr > 0 && wr < 10*time.Second {
		limit, how = m.Floor+time.Second, "floor + 1 s"
	}
	if m.Floor > 0 && m.Net > limit {
		miss = append(miss, fmt.Sprintf("waiting %s > %s (%s)", secs(m.Net), secs(limit), how))
	}
	if m.Err != nil {
		miss = append(miss, "error")
	}
	switch {
	case len(miss) > 0:
		return "**miss**: " + strings.Join(miss, "; ")
	case m.Upstream == 0:
		return "time met (no upstream calls to compare)"
	}
	return "met"
}

// Missed says whether Goal reports a miss.
func (m Measure) Missed(wr time.Duration) bool { return strings.HasPrefix(m.Goal(wr), "**miss**") }

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
