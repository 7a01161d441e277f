// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"context"
	"fmt"
	"io"

	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// Concurrency measures lb's apply concurrency (changes of one plan in flight) on the changes
// that have several: a node added to a 4-port Service, and a port change, with ocitest's
// default queueing of work requests per load balancer (as OCI does). It drives engine.Reconciler
// directly: the Cloud takes lb's default concurrency (1).
func Concurrency(out io.Writer, durations ocitest.WorkRequestDurations, label string) error {
	fmt.Fprintf(out, "\n#### lb apply concurrency, %s\n\n", label)
	fmt.Fprintln(out, "| concurrency | scenario | writes | polls | calls | waiting | floor |")
	fmt.Fprintln(out, "|---:|---|---:|---:|---:|---:|---:|")
	for _, c := range []int{1, 2, 4} {
		w, err := NewWorld(WorldOptions{Nodes: 11, Durations: durations, NoInformers: true})
		if err != nil {
			return err
		}
		r, err := engine.NewReconciler(engine.Options{Config: w.cfg, Client: w.OCI.LoadBalancers, PublicIPs: w.OCI.VirtualNetwork, Concurrency: c})
		if err != nil {
			w.Close()
			return err
		}
		s := svc("conc", 80, 443, 8443, 9443)
		ms := []Measure{w.step("create", label, func(ctx context.Context) error {
			_, err := r.Ensure(ctx, s, w.Nodes[:10], nil)
			return err
		})}
		ms = append(ms, w.step("node added (4 ports)", label, func(ctx context.Context) error {
			_, err := r.Ensure(ctx, s, w.Nodes[:11], nil)
			return err
		}))
		moved := s.DeepCopy()
		moved.Spec.Ports[0].Port, moved.Spec.Ports[1].Port = 8080, 4443
		ms = append(ms, w.step("2 ports changed", label, func(ctx context.Context) error {
			_, err := r.Ensure(ctx, moved, w.Nodes[:11], nil)
			return err
		}))
		w.Close()
		for _, m := range ms[1:] {
			if m.Err != nil {
				return fmt.Errorf("concurrency %d, %s: %w", c, m.Scenario, m.Err)
			}
			fmt.Fprintf(out, "| %d | %s | %d | %d | %d | %s | %s |\n", c, m.Scenario, m.Writes, m.Polls, m.Calls(), secs(m.Net), secs(m.Floor))
		}
	}
	return nil
}
