// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

// The defaults a stored resource gets for what the caller left out: a seeded resource's
// compartment and name, and the empty lists and maps OCI answers for nothing (JSON [] and {},
// which the SDK tells apart from a missing field).

// orDefault sets *field to v when it is nil.
func orDefault[T any](field **T, v *T) {
	if *field == nil {
		*field = v
	}
}

// orEmpty makes a nil list empty.
func orEmpty[S ~[]E, E any](list *S) {
	if *list == nil {
		*list = S{}
	}
}

// orEmptyMap makes a nil map empty.
func orEmptyMap[M ~map[K]V, K comparable, V any](m *M) {
	if *m == nil {
		*m = M{}
	}
}
