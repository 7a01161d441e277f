// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package sdkval converts between the optional fields of oci-go-sdk's structs (pointers, nil
// slices) and the plain values a model.Spec holds. Both products (lb/oci/...) convert with it,
// and package lb where it reads an SDK value itself (subnets, NSGs, public IPs).
package sdkval

import (
	"slices"

	"github.com/oracle/oci-go-sdk/v65/common"
)

// Deref is *p, or the zero value for nil.
func Deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// NameOr is *name, or key when name is nil or empty. Both APIs key a load balancer's parts
// (listeners, backend sets, certificates, rule sets) by name, and both products observe a part
// whose body leaves its name out under its key.
func NameOr(name *string, key string) string {
	if n := Deref(name); n != "" {
		return n
	}
	return key
}

// OptString is s for an optional field: nil when empty, so OCI sees the field as not set.
func OptString(s string) *string {
	if s == "" {
		return nil
	}
	return common.String(s)
}

// SortedCopy is xs sorted, without changing xs.
func SortedCopy(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// NonNilStrings is s, or an empty slice for nil: the SDK sends a nil slice as null, and a list
// meant to be empty (detaching every NSG) has to go as [].
func NonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
