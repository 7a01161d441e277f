// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"time"
)

// Series is one line of a LineChart: points (x, y) in order of x.
type Series struct {
	Name   string
	Color  string
	Dashed bool
	Points [][2]float64
}

// Chart geometry, in SVG user units.
const (
	chartW, chartH   = 640, 360
	padL, padR       = 60, 20
	padT, padB       = 40, 50
	legendLineHeight = 16
)

// niceMax rounds v up to 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten, for the axis: a
// round top, and the lines using most of the height.
func niceMax(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// LineChart writes an SVG line chart of series, with x and y axes from zero.
func LineChart(w io.Writer, title, xLabel, yLabel string, series []Series) error {
	maxX, maxY := 0.0, 0.0
	for _, s := range series {
		for _, p := range s.Points {
			maxX, maxY = max(maxX, p[0]), max(maxY, p[1])
		}
	}
	maxX, maxY = niceMax(maxX), niceMax(maxY)
	plotW, plotH := float64(chartW-padL-padR), float64(chartH-padT-padB)
	x := func(v float64) float64 { return padL + v/maxX*plotW }
	y := func(v float64) float64 { return padT + plotH - v/maxY*plotH }
	var b strings.Builder
	header(&b, title)
	axes(&b, plotW, plotH, xLabel, yLabel)
	for i := 0; i <= 5; i++ {
		vx, vy := maxX*float64(i)/5, maxY*float64(i)/5
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x(vx), chartH-padB+16, num(vx))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", padL-6, y(vy)+4, num(vy))
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>`+"\n", padL, y(vy), chartW-padR, y(vy))
	}
	for i, s := range series {
		var pts []string
		for _, p := range s.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p[0]), y(p[1])))
		}
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", s.Color, dash, strings.Join(pts, " "))
		ly := padT + 8 + i*legendLineHeight
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", padL+10, ly, padL+30, ly, s.Color, dash)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", padL+36, ly+4, html.EscapeString(s.Name))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Bar is one group of a BarChart: ours and upstream's figure for Label (upstream 0: none).
type Bar struct {
	Label          string
	Ours, Upstream float64
}

// BarChart writes an SVG chart of horizontal bars, ours and upstream's for each group, on a
// shared scale.
func BarChart(w io.Writer, title, xLabel string, bars []Bar) error {
	maxV := 0.0
	for _, g := range bars {
		maxV = max(maxV, g.Ours, g.Upstream)
	}
	maxV = niceMax(maxV)
	const labelW, rowH, barH = 230, 34, 12
	height := padT + len(bars)*rowH + padB + 10
	plotW := float64(chartW - labelW - padR)
	x := func(v float64) float64 { return labelW + v/maxV*plotW }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		chartW, height, chartW, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", padL-50, html.EscapeString(title))
	for i := 0; i <= 5; i++ {
		v := maxV * float64(i) / 5
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>`+"\n", x(v), padT, x(v), padT+len(bars)*rowH)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x(v), padT+len(bars)*rowH+16, num(v))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", labelW+plotW/2, padT+len(bars)*rowH+34, html.EscapeString(xLabel))
	for i, g := range bars {
		top := padT + i*rowH
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelW-8, top+barH+6, html.EscapeString(g.Label))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="#1f77b4"/>`+"\n", labelW, top+2, x(g.Ours)-labelW, barH)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", x(g.Ours)+4, top+barH, num(g.Ours))
		if g.Upstream > 0 {
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="#ff7f0e"/>`+"\n", labelW, top+barH+4, x(g.Upstream)-labelW, barH)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", x(g.Upstream)+4, top+2*barH+2, num(g.Upstream))
		}
	}
	ly := height - 12
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="10" fill="#1f77b4"/><text x="%d" y="%d">oci-ccm</text>`+"\n", labelW, ly-9, labelW+16, ly)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="10" fill="#ff7f0e"/><text x="%d" y="%d">upstream's pattern</text>`+"\n", labelW+90, ly-9, labelW+106, ly)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func header(b *strings.Builder, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		chartW, chartH, chartW, chartH)
	fmt.Fprintf(b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(b, `<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", padL, html.EscapeString(title))
}

func axes(b *strings.Builder, plotW, plotH float64, xLabel, yLabel string) {
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%.1f" stroke="black"/>`+"\n", padL, padT, padL, padT+plotH)
	fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", padL, padT+plotH, padL+plotW, padT+plotH)
	fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", padL+plotW/2, chartH-12, html.EscapeString(xLabel))
	fmt.Fprintf(b, `<text x="14" y="%.1f" text-anchor="middle" transform="rotate(-90 14 %.1f)">%s</text>`+"\n",
		padT+plotH/2, padT+plotH/2, html.EscapeString(yLabel))
}

// num formats an axis or bar value: whole numbers without decimals.
func num(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// StormChart writes the chart of a storm phase's work requests over time: accepted and finished,
// counted as they go, against the write limit's floor (qps writes a second from the start).
func StormChart(w io.Writer, title string, p Phase, qps float64) error {
	// At most about maxPoints points a line (and always the last): thousands of work requests
	// would make a file of hundreds of kilobytes for the same picture.
	const maxPoints = 400
	cumulative := func(ts []time.Duration) [][2]float64 {
		pts := [][2]float64{{0, 0}}
		step := max(1, len(ts)/maxPoints)
		for i, t := range ts {
			if i%step == 0 || i == len(ts)-1 {
				pts = append(pts, [2]float64{t.Seconds(), float64(i + 1)})
			}
		}
		return pts
	}
	n := float64(len(p.Accepted))
	floor := [][2]float64{{0, 0}, {n / qps, n}}
	return LineChart(w, title, "seconds from the phase's start (OCI's time)", "work requests (each one write)", []Series{
		{Name: fmt.Sprintf("rate-limit floor (%g writes/s)", qps), Color: "#999", Dashed: true, Points: floor},
		{Name: "accepted by OCI", Color: "#1f77b4", Points: cumulative(p.Accepted)},
		{Name: "finished", Color: "#2ca02c", Points: cumulative(p.Finished)},
	})
}
