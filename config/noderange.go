// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"errors"
	"strconv"
	"strings"
)

// DefaultNodePortRange is Kubernetes' default --service-node-port-range, used for
// loadBalancer.nodePortRange when it is empty.
const DefaultNodePortRange = "30000-32767"

// nodePortRangeDetail is what Validate says about a bad loadBalancer.nodePortRange.
const nodePortRangeDetail = "must be MIN-MAX (or BASE+SIZE) within 1-65535 with MIN <= MAX, as given to kube-apiserver's --service-node-port-range, e.g. 30000-32767"

// errBadPortRange is returned by ParseNodePortRange; Validate reports it with the field's path.
var errBadPortRange = errors.New("not a port range: " + nodePortRangeDetail)

// ParseNodePortRange parses a node port range in the syntax of kube-apiserver's
// --service-node-port-range: "MIN-MAX" (both inclusive) or "BASE+SIZE" (SIZE ports from BASE).
// An empty string means DefaultNodePortRange.
func ParseNodePortRange(s string) (lo, hi int, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = DefaultNodePortRange
	}
	if base, size, ok := strings.Cut(s, "+"); ok {
		b, err1 := strconv.Atoi(base)
		n, err2 := strconv.Atoi(size)
		if err1 != nil || err2 != nil || n < 1 {
			return 0, 0, errBadPortRange
		}
		lo, hi = b, b+n-1
	} else {
		a, b, ok := strings.Cut(s, "-")
		if !ok {
			return 0, 0, errBadPortRange
		}
		var err1, err2 error
		lo, err1 = strconv.Atoi(a)
		hi, err2 = strconv.Atoi(b)
		if err1 != nil || err2 != nil {
			return 0, 0, errBadPortRange
		}
	}
	if lo < 1 || hi > 65535 || lo > hi {
		return 0, 0, errBadPortRange
	}
	return lo, hi, nil
}
