// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"errors"
	"fmt"
	"strings"

	"github.com/oci-ccm/oci-ccm/lb/internal/text"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

// maxSummaryBytes bounds Summary's text: a Kubernetes Event message is cut at 1 KiB by the API
// server, and a cut in the middle of a change would misreport it.
const maxSummaryBytes = 1024

// maxFailureEcho bounds one failed change's error in a Summary: OCI's reason comes last, after
// the work request's identifiers.
const maxFailureEcho = 400

// Summary is a one-line account of a reconcile for a Kubernetes Event on the Service, so that
// `kubectl describe service` shows what was done to its load balancer:
//
//	load balancer "default-web": + listener TCP-8080; ~ backend set TCP-80: +1 backend
//
// With err nil it lists plan's changes; when err is (or wraps) an *applyError it says what was
// applied, what failed and why, and what was not attempted. It returns "" when there is nothing
// to report: an empty plan, or an error that is not an *applyError (nothing was applied; the
// error itself is reported by the caller). Changes that do not fit in maxSummaryBytes end the
// text as "… and N more". Private keys never appear.
func Summary(plan *model.Plan, err error) string {
	var aerr *applyError
	if err != nil {
		if !errors.As(err, &aerr) {
			return ""
		}
		var parts []string
		for _, c := range aerr.Completed {
			parts = append(parts, "applied "+changeSummary(c))
		}
		for _, f := range aerr.Failed {
			parts = append(parts, fmt.Sprintf("FAILED %s (%s)", changeSummary(f.Change), text.Cut(f.Err.Error(), maxFailureEcho)))
		}
		for _, c := range aerr.Skipped {
			parts = append(parts, "not attempted "+changeSummary(c))
		}
		return fitSummary(fmt.Sprintf("load balancer %s: %d of %d change(s) failed: ", aerr.LoadBalancerID,
			len(aerr.Failed), len(parts)), parts)
	}
	if plan.Empty() {
		return ""
	}
	parts := make([]string, len(plan.Changes))
	for i, c := range plan.Changes {
		parts[i] = changeSummary(c)
	}
	head := fmt.Sprintf("load balancer %q: ", plan.Name)
	if sub := plan.Target; sub != nil && sub.Subset.Nodes > 0 {
		head = fmt.Sprintf("load balancer %q (backends: %d of %d eligible Nodes, a subset within OCI's limits or loadBalancer.backendSubset): ",
			plan.Name, sub.Subset.Nodes, sub.Subset.Eligible)
	}
	return fitSummary(head, parts)
}

// fitSummary joins parts after head with "; ", as many as fit in maxSummaryBytes with room left
// for "… and N more".
func fitSummary(head string, parts []string) string {
	var b strings.Builder
	b.WriteString(head)
	for i, p := range parts {
		sep := ""
		if i > 0 {
			sep = "; "
		}
		more := ""
		if rest := len(parts) - i - 1; rest > 0 {
			more = fmt.Sprintf("; … and %d more", rest)
		}
		if b.Len()+len(sep)+len(p)+len(more) > maxSummaryBytes {
			fmt.Fprintf(&b, "%s… and %d more", sep, len(parts)-i)
			break
		}
		b.WriteString(sep)
		b.WriteString(p)
	}
	return b.String()
}

// changeSummary is one change in a few words: `+ listener TCP-8080`,
// `~ backend set TCP-80: +1 backend`, `- certificate web-tls-0a1b2c3d4e5f`.
func changeSummary(c model.Change) string {
	s := fmt.Sprintf("%s %s %s", c.Op.Symbol(), c.Noun(), c.Name)
	var detail []string
	switch after := c.After.(type) {
	case *model.Spec:
		if after != nil {
			detail = []string{count(len(after.Listeners), "listener"), count(len(after.BackendSets), "backend set"),
				count(len(after.Certificates), "certificate")}
		}
	case model.BackendSet:
		if before, ok := c.Before.(model.BackendSet); ok {
			detail = backendSetDelta(before, after)
		}
	case model.Shape, model.NSGs:
		s = fmt.Sprintf("~ %s", strings.TrimSuffix(c.Noun(), " of"))
		detail = model.FieldDiffs(c.Before, c.After)
	case model.Settings, model.Listener:
		if c.Op == model.OpUpdate {
			detail = model.FieldDiffs(c.Before, c.After)
		}
	}
	if len(detail) == 0 {
		return s
	}
	return s + ": " + strings.Join(detail, ", ")
}

// backendSetDelta says how a backend set changes: backends added and removed by count, other
// fields by their diff.
func backendSetDelta(before, after model.BackendSet) []string {
	var out []string
	if n := countMissing(after.Backends, before.Backends); n > 0 {
		out = append(out, "+"+count(n, "backend"))
	}
	if n := countMissing(before.Backends, after.Backends); n > 0 {
		out = append(out, "-"+count(n, "backend"))
	}
	before.Backends, after.Backends = nil, nil
	return append(out, model.FieldDiffs(before, after)...)
}

// countMissing counts the backends of a that b lacks. Through a set: a node sync summarises
// backend sets of hundreds of backends, once per Service.
func countMissing(a, b []model.Backend) int {
	in := make(map[model.Backend]struct{}, len(b))
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
