// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// shapeFlexible is the name of OCI's flexible shape (model.Shape.IsFlexible).
const shapeFlexible = "flexible"

// parser reads annotations and collects every problem instead of stopping at the first, so a
// user sees all of them at once.
type parser struct {
	ann      map[string]string
	problems []*Problem
}

func (p *parser) add(pr *Problem) { p.problems = append(p.problems, pr) }

// has reports whether the annotation is present (even if empty).
func (p *parser) has(a annotation.Name) bool {
	_, ok := p.ann[string(a)]
	return ok
}

// str returns the trimmed value, or def when the annotation is absent.
func (p *parser) str(a annotation.Name, def string) string {
	v, ok := p.ann[string(a)]
	if !ok {
		return def
	}
	return strings.TrimSpace(v)
}

func (p *parser) boolean(a annotation.Name, def bool) bool {
	b, err := annotationBool(a, p.ann)
	switch {
	case errors.Is(err, errNotSet):
		return def
	case err != nil:
		p.add(problemf(a, p.ann[string(a)], "true or false"))
		return def
	}
	return b
}

// intRange parses an integer in [lo, hi]; unit is appended to the message (e.g. "milliseconds").
func (p *parser) intRange(a annotation.Name, def, lo, hi int, unit string) int {
	v, ok := p.ann[string(a)]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		p.add(problemf(a, v, "an integer from %d to %d%s", lo, hi, unit))
		return def
	}
	return n
}

// intAtLeast parses an integer of at least lo, or returns def when the annotation is absent: for
// values whose upper bound OCI keeps to itself.
func (p *parser) intAtLeast(a annotation.Name, def, lo int) int {
	v, ok := p.ann[string(a)]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo {
		p.add(problemf(a, v, "an integer of at least %d", lo))
		return def
	}
	return n
}

// intRangeOrEmpty is intRange, except that an empty value also means def, as the upstream CCM
// reads some annotations.
func (p *parser) intRangeOrEmpty(a annotation.Name, def, lo, hi int, unit string) int {
	if v, ok := p.ann[string(a)]; ok && strings.TrimSpace(v) == "" {
		return def
	}
	return p.intRange(a, def, lo, hi, unit)
}

// oneOf matches the value case-insensitively against allowed and returns the canonical
// spelling, or def when absent.
func (p *parser) oneOf(a annotation.Name, def string, allowed ...string) string {
	v, ok := p.ann[string(a)]
	if !ok {
		return def
	}
	for _, c := range allowed {
		if strings.EqualFold(strings.TrimSpace(v), c) {
			return c
		}
	}
	p.add(problemf(a, v, "one of %s", strings.Join(allowed, ", ")))
	return def
}

// oneOfOrEmpty is oneOf, except that an empty value also means def: the upstream CCM reads some
// annotations so, and a Service it accepted must not be refused here.
func (p *parser) oneOfOrEmpty(a annotation.Name, def string, allowed ...string) string {
	if v, ok := p.ann[string(a)]; ok && strings.TrimSpace(v) == "" {
		return def
	}
	return p.oneOf(a, def, allowed...)
}

// ports parses a comma-separated list of port numbers.
func (p *parser) ports(a annotation.Name) []int {
	items, err := annotationStrings(a, p.ann)
	if err != nil {
		return nil
	}
	var out []int
	for _, it := range items {
		n, err := strconv.Atoi(it)
		if err != nil || n < 1 || n > 65535 {
			p.add(problemf(a, p.ann[string(a)], "a comma-separated list of port numbers (1–65535); %q is not one", it))
			continue
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// mbps parses a bandwidth in Mbps, with or without a "Mbps" suffix.
func (p *parser) mbps(a annotation.Name, def int) int {
	v, ok := p.ann[string(a)]
	if !ok {
		return def
	}
	// As the upstream CCM reads it (load_balancer_util.go, parseFlexibleShapeBandwidth): only
	// letters and digits count ("1,000 Mbps" is 1000), a Mbps suffix is dropped, and a
	// bandwidth below OCI's minimum is the minimum.
	s := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, v)
	if len(s) > 4 && strings.EqualFold(s[len(s)-4:], "mbps") {
		s = s[:len(s)-4]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > maxFlexMbps {
		p.add(problemf(a, v, "a bandwidth in Mbps up to %d (below %d counts as %d)", maxFlexMbps, minFlexMbps, minFlexMbps))
		return def
	}
	return max(n, minFlexMbps)
}

// Flexible-shape bandwidth limits, in Mbps.
const (
	minFlexMbps        = 10
	maxFlexMbps        = 8000
	defaultFlexMinMbps = 10
	defaultFlexMaxMbps = 100
)

// fixedShapes are the fixed shapes OCI still accepts on existing load balancers.
var fixedShapes = []string{"10Mbps", "10Mbps-Micro", "100Mbps", "400Mbps", "8000Mbps"}

// shape parses the shape annotations. The second result is true when nothing was set, so an
// existing load balancer's shape is kept.
func (p *parser) shape() (model.Shape, bool) {
	name := p.str(annotation.Shape, "")
	flexSet := p.has(annotation.ShapeFlexMin) || p.has(annotation.ShapeFlexMax)
	switch {
	case name == "" && !p.has(annotation.Shape):
		if !flexSet {
			return model.Shape{Name: shapeFlexible, MinMbps: defaultFlexMinMbps, MaxMbps: defaultFlexMaxMbps}, true
		}
	case strings.EqualFold(name, shapeFlexible):
	default:
		for _, f := range fixedShapes {
			if strings.EqualFold(name, f) {
				// The flex annotations are not read beside a fixed shape, as upstream does not.
				return model.Shape{Name: f}, false
			}
		}
		p.add(problemf(annotation.Shape, p.ann[string(annotation.Shape)], "one of %s, %s", shapeFlexible, strings.Join(fixedShapes, ", ")))
		return model.Shape{Name: shapeFlexible, MinMbps: defaultFlexMinMbps, MaxMbps: defaultFlexMaxMbps}, true
	}
	lo := p.mbps(annotation.ShapeFlexMin, defaultFlexMinMbps)
	hi := p.mbps(annotation.ShapeFlexMax, defaultFlexMaxMbps)
	// A maximum below the minimum is the minimum, as upstream reads it (getLBShape).
	return model.Shape{Name: shapeFlexible, MinMbps: lo, MaxMbps: max(hi, lo)}, false
}

// sslConfigJSON is the value format of the listener/backend-set SSL config annotations.
type sslConfigJSON struct {
	CipherSuiteName string   `json:"CipherSuiteName"`
	Protocols       []string `json:"Protocols"`
}

var tlsProtocols = []string{"TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"}

// sslConfig parses an SSL config annotation into cipher suite and protocols.
func (p *parser) sslConfig(a annotation.Name) (cipher string, protocols []string) {
	v, ok := p.ann[string(a)]
	if !ok || strings.TrimSpace(v) == "" {
		return "", nil
	}
	var c sslConfigJSON
	dec := json.NewDecoder(strings.NewReader(v))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		p.add(problemf(a, v, `a JSON object {"CipherSuiteName": "...", "Protocols": ["TLSv1.2", ...]} (%v)`, err))
		return "", nil
	}
	for _, proto := range c.Protocols {
		if !slices.Contains(tlsProtocols, proto) {
			p.add(problemf(a, v, "Protocols from %s; %q is not one", strings.Join(tlsProtocols, ", "), proto))
			return "", nil
		}
	}
	protocols = slices.Clone(c.Protocols)
	slices.Sort(protocols)
	return strings.TrimSpace(c.CipherSuiteName), slices.Compact(protocols)
}

// freeformTags parses a JSON object of strings; ok is false when the annotation is absent.
func (p *parser) freeformTags(a annotation.Name) (map[string]string, bool) {
	v, ok := p.ann[string(a)]
	if !ok || strings.TrimSpace(v) == "" {
		return nil, false
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(v), &m); err != nil {
		p.add(problemf(a, v, `a JSON object of strings, e.g. {"team":"web"} (%v)`, err))
		return nil, false
	}
	return m, true
}

// definedTags parses a JSON object namespace → key → value; ok is false when absent.
func (p *parser) definedTags(a annotation.Name) (map[string]map[string]any, bool) {
	v, ok := p.ann[string(a)]
	if !ok || strings.TrimSpace(v) == "" {
		return nil, false
	}
	var m map[string]map[string]any
	if err := json.Unmarshal([]byte(v), &m); err != nil {
		p.add(problemf(a, v, `a JSON object of tag namespaces, e.g. {"Operations":{"CostCenter":"42"}} (%v)`, err))
		return nil, false
	}
	return m, true
}

// cidrs parses and normalises CIDRs ("10.0.0.1/8" → "10.0.0.0/8"); field names the source.
func (p *parser) cidrs(field string, raw []string) []string {
	out := make([]string, 0, len(raw))
	for _, r := range raw {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		pfx, err := netip.ParsePrefix(r)
		if err != nil {
			p.add(&Problem{Field: field, Value: r, Allowed: fmt.Sprintf("CIDRs such as 203.0.113.0/24 (%v)", err)})
			continue
		}
		out = append(out, pfx.Masked().String())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ocids parses a comma-separated list of OCIDs of one resource type, at most max of them.
func (p *parser) ocids(a annotation.Name, resourceType string, max int) []string {
	items, err := annotationStrings(a, p.ann)
	if err != nil {
		return nil
	}
	var out []string
	for _, it := range items {
		if !strings.HasPrefix(it, "ocid1."+resourceType+".") {
			p.add(problemf(a, p.ann[string(a)], "OCIDs of the form ocid1.%s.…; %q is not one", resourceType, it))
			continue
		}
		out = append(out, it)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > max {
		p.add(problemf(a, p.ann[string(a)], "at most %d OCIDs (OCI's limit per resource); it lists %d", max, len(out)))
	}
	return out
}
