// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package text cuts text a user gave or OCI returned to a length fit for an error, an Event or
// a log line, without splitting a character and saying how long it was, and fits a list of
// changes into one Event's message (Fit).
package text

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Cut cuts free text to max bytes: "abc… (10240 bytes)".
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", CutUTF8(s, max), len(s))
}

// CutUTF8 is the longest prefix of s of at most max bytes that does not split a character.
func CutUTF8(s string, max int) string {
	for max > 0 && max < len(s) && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}

// MaxValue is how much of a value Quote shows: enough to recognise the value without flooding
// Events and logs.
const MaxValue = 128

// Quote quotes v, cut to MaxValue bytes: `"abc…" (10240 bytes)`.
func Quote(v string) string {
	if len(v) <= MaxValue {
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprintf("%q… (%d bytes)", CutUTF8(v, MaxValue), len(v))
}

// MaxSummary bounds a summary Fit makes: a Kubernetes Event message is cut at 1 KiB by the API
// server, and a cut in the middle of a change would misreport it.
const MaxSummary = 1024

// Fit joins parts after head with "; ", as many as fit in MaxSummary bytes with room left for
// "… and N more": a summary of changes for an Event (model.Plan.Summary, lb/engine's Summary).
func Fit(head string, parts []string) string {
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
		if b.Len()+len(sep)+len(p)+len(more) > MaxSummary {
			fmt.Fprintf(&b, "%s… and %d more", sep, len(parts)-i)
			break
		}
		b.WriteString(sep)
		b.WriteString(p)
	}
	return b.String()
}
