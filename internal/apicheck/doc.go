// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package apicheck guards oci-ccm's public API. Its tests check what importing the library
// costs a user (no Prometheus client, no test server) and that every exported name of a public
// package is listed in the "Public API" section of that package's README. api.zip is the API of the last release as
// apidiff export data: `make lint` fails on an incompatible change against it, and `make api`
// records the current API in its place (README.md, "API stability").
package apicheck
