// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
)

// FaultDomainLabel is the Node label that carries the instance's fault domain, e.g.
// "FAULT-DOMAIN-1". Fault domains are anti-affinity groups inside an availability domain, so
// workloads can spread across them with topologySpreadConstraints on this key.
const FaultDomainLabel = "oci.oraclecloud.com/fault-domain"

// Zone returns the Kubernetes zone for an OCI availability domain: the name without its tenancy
// prefix ("Uocm:PHX-AD-1" → "PHX-AD-1"), made valid as a label value. The prefix differs between
// tenancies for the same physical AD, and ':' is not allowed in label values, so the raw name
// would both break topology.kubernetes.io/zone and make zones incomparable across clusters.
func Zone(availabilityDomain string) string {
	if i := strings.LastIndexByte(availabilityDomain, ':'); i >= 0 {
		availabilityDomain = availabilityDomain[i+1:]
	}
	return LabelValue(availabilityDomain)
}

// LabelValue turns s into a valid Kubernetes label value: every character outside
// [A-Za-z0-9-_.] becomes '-', the value is cut to 63 characters, and it is trimmed to begin and
// end with a letter or digit. A value that is already valid is returned unchanged; one with no
// letter or digit at all becomes "" (which a label may hold).
func LabelValue(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !isLabelValueByte(c) {
			b[i] = '-'
		}
	}
	v := trimToAlphanumeric(string(b))
	if len(v) > content.LabelValueMaxLength {
		v = trimToAlphanumeric(v[:content.LabelValueMaxLength])
	}
	return v
}

// isLabelValueByte reports whether c may appear inside a label value. Working on bytes is safe:
// every byte of a multi-byte UTF-8 rune is outside this set, so such a rune becomes dashes.
func isLabelValueByte(c byte) bool {
	return isAlphanumeric(c) || c == '-' || c == '_' || c == '.'
}

func isAlphanumeric(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func trimToAlphanumeric(s string) string {
	start, end := 0, len(s)
	for start < end && !isAlphanumeric(s[start]) {
		start++
	}
	for end > start && !isAlphanumeric(s[end-1]) {
		end--
	}
	return s[start:end]
}
