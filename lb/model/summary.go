// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package model

import (
	"fmt"
	"strings"

	"github.com/oci-ccm/oci-ccm/lb/internal/text"
)

// Summary is the plan in one line of at most text.MaxSummary bytes, for a Kubernetes Event on the
// Service, so that `kubectl describe service` shows what is done to its load balancer:
//
//	load balancer "default-web": + listener TCP-8080; ~ backend set TCP-80: +1 backend
//
// It is "" for an empty plan. Changes that do not fit end the text as "… and N more". Private
// keys never appear.
func (p *Plan) Summary() string {
	if p.Empty() {
		return ""
	}
	parts := make([]string, len(p.Changes))
	for i, c := range p.Changes {
		parts[i] = c.Summary()
	}
	head := fmt.Sprintf("load balancer %q: ", p.Name)
	if sub := p.Target; sub != nil && sub.Subset.Nodes > 0 {
		head = fmt.Sprintf("load balancer %q (backends: %d of %d eligible Nodes, a subset within OCI's limits or loadBalancer.backendSubset): ",
			p.Name, sub.Subset.Nodes, sub.Subset.Eligible)
	}
	return text.Fit(head, parts)
}

// Summary is the change in a few words: `+ listener TCP-8080`,
// `~ backend set TCP-80: +1 backend`, `- certificate web-tls-0a1b2c3d4e5f`.
func (c Change) Summary() string {
	s := fmt.Sprintf("%s %s %s", c.Op.Symbol(), c.Noun(), c.Name)
	var detail []string
	switch after := c.After.(type) {
	case *Spec:
		if after != nil {
			detail = []string{count(len(after.Listeners), "listener"), count(len(after.BackendSets), "backend set"),
				count(len(after.Certificates), "certificate")}
		}
	case BackendSet:
		if before, ok := c.Before.(BackendSet); ok {
			detail = backendSetDelta(before, after)
		}
	case Shape, NSGs:
		s = fmt.Sprintf("~ %s", strings.TrimSuffix(c.Noun(), " of"))
		detail = FieldDiffs(c.Before, c.After)
	case Settings, Listener:
		if c.Op == OpUpdate {
			detail = FieldDiffs(c.Before, c.After)
		}
	}
	if len(detail) == 0 {
		return s
	}
	return s + ": " + strings.Join(detail, ", ")
}

// backendSetDelta says how a backend set changes: backends added and removed by count, other
// fields by their diff.
func backendSetDelta(before, after BackendSet) []string {
	var out []string
	if n := countMissing(after.Backends, before.Backends); n > 0 {
		out = append(out, "+"+count(n, "backend"))
	}
	if n := countMissing(before.Backends, after.Backends); n > 0 {
		out = append(out, "-"+count(n, "backend"))
	}
	before.Backends, after.Backends = nil, nil
	return append(out, FieldDiffs(before, after)...)
}

// countMissing counts the backends of a that b lacks. Through a set: a node sync summarises
// backend sets of hundreds of backends, once per Service.
func countMissing(a, b []Backend) int {
	in := make(map[Backend]struct{}, len(b))
	for _, x := range b {
		in[x] = struct{}{}
	}
	n := 0
	for _, x := range a {
		if _, ok := in[x]; !ok {
			n++
		}
	}
	return n
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
