// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package testcluster

import (
	"errors"
	"strings"
)

// errExited reports that a process ended while it was still expected to
// come up. Start retries such a start with fresh ports, because the usual
// cause on a busy machine is a port taken between picking it and binding it.
var errExited = errors.New("process exited during startup")

// environWithout returns env without the variables whose names start with
// prefix. etcd reads every ETCD_* variable as configuration, so a stray one
// in the test's environment must not reach it.
func environWithout(env []string, prefix string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, prefix) {
			out = append(out, kv)
		}
	}
	return out
}
