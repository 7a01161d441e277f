// Package apicheck guards oci-ccm's public API: what importing it costs a library user
// (deps_test.go) and whether a change breaks the API recorded at the last release (api.txt
// files, compared by `make lint` with apidiff; `make api` records them again).
package apicheck
