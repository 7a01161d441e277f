// Command bench runs oci-ccm's performance scenarios against ocitest at OCI's real
// work-request durations (run 100 times faster) and prints markdown tables: make bench.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/internal/bench"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func main() {
	quick := flag.Bool("quick", false, "one sweep point only (2 s work requests)")
	flag.Parse()
	klog.SetLogger(logr.Discard())
	if err := run(*quick); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func fixed(d time.Duration) ocitest.WorkRequestDurations {
	return func(string, string, uint64) time.Duration { return d }
}

func run(quick bool) error {
	out := os.Stdout
	sweep := []time.Duration{500 * time.Millisecond, 2 * time.Second, 10 * time.Second, 30 * time.Second, 120 * time.Second}
	if quick {
		sweep = sweep[1:2]
	}
	fmt.Fprintln(out, "### Single Service, work-request duration sweep")
	for _, d := range sweep {
		ms, err := bench.SingleService(d.String(), fixed(d))
		if err != nil {
			return err
		}
		bench.WriteSingle(out, fmt.Sprintf("Every work request %v", d), d, ms)
	}
	ms, err := bench.SingleService("realistic", ocitest.RealisticDurations(1))
	if err != nil {
		return err
	}
	bench.WriteSingle(out, "OCI's realistic profile (create 60–120 s, delete 30–60 s, other changes 20–40 s)", 0, ms)
	fmt.Fprintln(out, "\n### Concurrency")
	if err := bench.Concurrency(out, ocitest.RealisticDurations(1), "OCI's realistic profile"); err != nil {
		return err
	}
	return nil
}
