// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"
)

// wellFormed fails t unless svg parses as XML.
func wellFormed(t *testing.T, svg string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := d.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("not well-formed: %v\n%s", err, svg)
			}
			return
		}
	}
}

// The storm chart draws the floor to the phase's last write and both counts, up to their totals.
func TestStormChartDrawsTheFloorAndBothCounts(t *testing.T) {
	s := time.Second
	p := Phase{Accepted: []time.Duration{0, s, 2 * s, 30 * s}, Finished: []time.Duration{20 * s, 40 * s}}
	var b strings.Builder
	if err := StormChart(&b, "storm <node phase>", p, 2); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	wellFormed(t, svg)
	for _, want := range []string{"rate-limit floor (2 writes/s)", "accepted by OCI", "finished", "storm &lt;node phase&gt;"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart without %q", want)
		}
	}
	// Axes to 40 s and 4 work requests: the floor ends at (2 s, 4), i.e. x = 60 + 2/40*560.
	if !strings.Contains(svg, "88.0,40.0") {
		t.Errorf("the floor does not end at 4 writes ÷ 2/s:\n%s", svg)
	}
	if got := strings.Count(svg, "<polyline"); got != 3 {
		t.Errorf("%d lines, want 3", got)
	}
}

// The calls chart has a bar for ours in every group and for upstream's only where it has a figure.
func TestBarChartDrawsUpstreamOnlyWhereItHasAFigure(t *testing.T) {
	var b strings.Builder
	if err := BarChart(&b, "calls", "calls", []Bar{{Label: "create", Ours: 26, Upstream: 33}, {Label: "TLS rotation", Ours: 22}}); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	wellFormed(t, svg)
	if got := strings.Count(svg, `fill="#1f77b4"/>`) - 1; got != 2 { // one is the legend's
		t.Errorf("%d bars of ours, want 2", got)
	}
	if got := strings.Count(svg, `fill="#ff7f0e"/>`) - 1; got != 1 {
		t.Errorf("%d bars of upstream's, want 1", got)
	}
}

func TestNiceMaxRoundsUpToARoundTop(t *testing.T) {
	for v, want := range map[float64]float64{0: 1, 3: 3, 3.5: 4, 7: 8, 12: 15, 180: 200, 2000: 2000, 2050: 2500, 8500: 10000} {
		if got := niceMax(v); got != want {
			t.Errorf("niceMax(%g) = %g, want %g", v, got, want)
		}
	}
}
