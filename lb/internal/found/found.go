// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package found is a Product's Get and List for either OCI API: call the Client, stop at its
// error, turn what it returned into oci.Found values. Only the SDK type and the conversion differ
// between lb/oci/loadbalancer and lb/oci/nlb, so both products read through these two functions.
package found

import (
	"context"

	"github.com/oci-ccm/oci-ccm/lb/oci"
)

// Get reads one load balancer with get and converts it with as.
func Get[T any](ctx context.Context, id string, get func(context.Context, string) (T, error), as func(T) oci.Found) (*oci.Found, error) {
	v, err := get(ctx, id)
	if err != nil {
		return nil, err
	}
	f := as(v)
	return &f, nil
}

// List lists a compartment's load balancers with list and converts each with as.
func List[T any](ctx context.Context, compartmentID, displayName string,
	list func(context.Context, string, string) ([]T, error), as func(T) oci.Found) ([]oci.Found, error) {
	items, err := list(ctx, compartmentID, displayName)
	if err != nil {
		return nil, err
	}
	out := make([]oci.Found, len(items))
	for i, v := range items {
		out[i] = as(v)
	}
	return out, nil
}
