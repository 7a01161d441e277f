// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Command demo shows oci-ccm doing its main job with nothing configured: it starts an in-memory
// OCI (ocitest) seeded with a small tenancy, runs the upstream Kubernetes service and cloud-node
// controllers with the oci provider against an in-process Kubernetes API, applies the Services
// in examples/services, and narrates what happens: the plans, the OCI calls, the addresses and
// security rules. Then a node joins, a port changes, a certificate rotates and a Service goes.
//
//	make demo    # or: go run ./examples/demo
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "\ndemo failed: %v\n", err)
		os.Exit(1)
	}
}
