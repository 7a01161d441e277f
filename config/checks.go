// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// OCIDs have the shape ocid1.<resource type>.<realm>.[region][.future use].<unique id>; the
// region part is empty for global resources such as tenancies, users and compartments.
var (
	ocidPart       = regexp.MustCompile(`^[a-z0-9]+$`)
	ocidRegionPart = regexp.MustCompile(`^[a-z0-9-]*$`)
)

// ocidType returns the resource type of an OCID, or false when s is not shaped like one.
func ocidType(s string) (string, bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 5 && len(parts) != 6 {
		return "", false
	}
	if parts[0] != "ocid1" || !ocidPart.MatchString(parts[1]) || !ocidPart.MatchString(parts[2]) ||
		!ocidRegionPart.MatchString(parts[3]) || !ocidPart.MatchString(parts[len(parts)-1]) {
		return "", false
	}
	if len(parts) == 6 && !ocidRegionPart.MatchString(parts[4]) {
		return "", false
	}
	return parts[1], true
}

// ocid records an error unless value is an OCID of one of the wanted resource types.
func (v *validator) ocid(field, value string, want ...string) {
	typ, ok := ocidType(value)
	kinds := strings.Join(want, " or ")
	switch {
	case !ok:
		v.add(field, value, fmt.Sprintf("must be a %s OCID: ocid1.%s.<realm>.[region].<unique id>", kinds, want[0]))
	case !slices.Contains(want, typ):
		v.add(field, value, fmt.Sprintf("is a %s OCID; want a %s OCID", typ, kinds))
	}
}

// Region names look like us-phoenix-1 or us-gov-ashburn-1; region keys like phx.
var regionPattern = regexp.MustCompile(`^[a-z]+(-[a-z0-9]+)*$`)

func validRegion(s string) bool { return len(s) <= 64 && regionPattern.MatchString(s) }

// API-key fingerprints are the MD5 of the public key: 16 hex bytes joined by colons.
var fingerprintPattern = regexp.MustCompile(`^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){15}$`)

func validFingerprint(s string) bool { return fingerprintPattern.MatchString(s) }

// checkCIDR returns what is wrong with cidr, or "" when it is a canonical IPv4 or IPv6 prefix.
// A prefix with host bits set is refused rather than silently masked: 10.0.0.1/8 is far more
// likely a typo for 10.0.0.1/32 than a wish for 10.0.0.0/8.
func checkCIDR(cidr string) string {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return "must be a CIDR such as 10.0.0.0/16, 0.0.0.0/0 or 2001:db8::/32"
	}
	if p.Masked() != p {
		return fmt.Sprintf("has host bits set; did you mean %s?", p.Masked())
	}
	return ""
}

var dnsLabelPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

func dnsLabel(s string) bool { return dnsLabelPattern.MatchString(s) }

// OCI tag limits: key and namespace names up to 100 characters without spaces (namespaces and
// defined keys also without periods), values up to 256 characters.
const (
	maxTagNameLength  = 100
	maxTagValueLength = 256
)

func validateTags(v *validator, path string, t *Tags) {
	for _, k := range slices.Sorted(maps.Keys(t.FreeformTags)) {
		field := fmt.Sprintf("%s.freeformTags[%s]", path, k)
		if detail := checkTagName(k, false); detail != "" {
			v.add(field, k, "key "+detail)
		}
		if val := t.FreeformTags[k]; len(val) > maxTagValueLength {
			v.add(field, val, fmt.Sprintf("value must be at most %d characters", maxTagValueLength))
		}
	}
	for _, ns := range slices.Sorted(maps.Keys(t.DefinedTags)) {
		nsField := fmt.Sprintf("%s.definedTags[%s]", path, ns)
		if detail := checkTagName(ns, true); detail != "" {
			v.add(nsField, ns, "namespace "+detail)
		}
		keys := t.DefinedTags[ns]
		if len(keys) == 0 {
			v.add(nsField, "", "must hold at least one key")
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			field := fmt.Sprintf("%s[%s]", nsField, k)
			if detail := checkTagName(k, true); detail != "" {
				v.add(field, k, "key "+detail)
			}
			switch val := keys[k].(type) {
			case string:
				if len(val) > maxTagValueLength {
					v.add(field, val, fmt.Sprintf("value must be at most %d characters", maxTagValueLength))
				}
			case bool, int, int64, uint64, float64:
			default:
				v.add(field, fmt.Sprintf("%T", val), "value must be a string, number or boolean")
			}
		}
	}
}

// checkTagName returns what is wrong with a tag key or namespace name, or "".
func checkTagName(name string, noPeriods bool) string {
	switch {
	case name == "":
		return "must not be empty"
	case len(name) > maxTagNameLength:
		return fmt.Sprintf("must be at most %d characters", maxTagNameLength)
	case strings.ContainsFunc(name, unicode.IsSpace):
		return "must not contain spaces"
	case noPeriods && strings.Contains(name, "."):
		return "must not contain periods"
	}
	return ""
}
