// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"errors"
	"strconv"
	"strings"
)

// The words loadBalancer.backendSubset takes besides a number.
const (
	// BackendSubsetAuto chooses a subset of the eligible Nodes for a Service only when all of
	// them would exceed OCI's backend limits (the default).
	BackendSubsetAuto = "auto"
	// BackendSubsetOff makes every eligible Node a backend; a Service whose load balancer would
	// then exceed OCI's backend limits is refused before any change.
	BackendSubsetOff = "off"
)

// backendSubsetDetail is what Validate says about a bad loadBalancer.backendSubset.
const backendSubsetDetail = "must be auto, off, or a whole number of Nodes from 1 (at most that many Nodes per Service)"

var errBadBackendSubset = errors.New("not a backend subset: " + backendSubsetDetail)

// ParseBackendSubset parses loadBalancer.backendSubset. on reports whether Nodes are chosen at
// all ("" and "auto": on, size 0, meaning as many as OCI's limits allow; "off": not on); size is
// the number a Service's load balancer takes at most when the value is a number.
func ParseBackendSubset(s string) (size int, on bool, err error) {
	switch s = strings.TrimSpace(s); s {
	case "", BackendSubsetAuto:
		return 0, true, nil
	case BackendSubsetOff:
		return 0, false, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, false, errBadBackendSubset
	}
	return n, true, nil
}
