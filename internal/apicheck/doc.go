// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package apicheck guards oci-ccm's public API. Its test checks what importing the library
// costs a user (no Prometheus client, no test server). api.zip is the API of the last release as
// apidiff export data: `make lint` fails on an incompatible change against it, and `make api`
// records the current API in its place (README.md, "API stability").
package apicheck
