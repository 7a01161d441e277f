// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// stepDeadline bounds each step: a step whose effect has not shown up by then fails the demo.
// Steps take well under two seconds; the margin is for a loaded machine.
const stepDeadline = 30 * time.Second

// run plays the demo, writing the narration to out.
func run(ctx context.Context, out io.Writer) error {
	_, err := play(ctx, out)
	return err
}

// play is run returning what each step measured, for the test.
func play(ctx context.Context, out io.Writer) (*outcome, error) {
	started := time.Now()
	// The controllers and the provider log through klog. For the demo's run, klog goes to a
	// recording that keeps the load balancer plans and recent errors and drops the rest.
	rec := &recording{}
	defer record(rec)()

	servicesDir, err := findServicesDir()
	if err != nil {
		return nil, err
	}
	n := &narrator{w: out}
	n.write("oci-ccm demo: the oci cloud provider with the upstream service and cloud-node controllers,\n" +
		"against an in-memory OCI and an in-process Kubernetes API. Nothing leaves this process.\n")
	c, err := startCluster(ctx)
	if err != nil {
		return nil, err
	}
	defer c.stop()

	d := &demo{cluster: c, rec: rec, n: n, servicesDir: servicesDir, out: &outcome{}}
	for _, s := range d.steps() {
		if err := d.do(ctx, s); err != nil {
			return d.out, err
		}
	}
	d.summary(time.Since(started))
	return d.out, d.n.err()
}

// demo is the state the steps share.
type demo struct {
	*cluster
	rec         *recording
	n           *narrator
	servicesDir string
	out         *outcome
}

// step is one section of the demo: it makes a change and shows its effect.
type step struct {
	title string
	run   func(ctx context.Context) error
}

// do runs a step under its deadline, then shows the OCI calls it caused.
func (d *demo) do(ctx context.Context, s step) error {
	d.n.title("%s", s.title)
	before := d.srv.Calls()
	d.rec.takePlans() // plans belong to the step that caused them
	ctx, cancel := context.WithTimeout(ctx, stepDeadline)
	defer cancel()
	if err := s.run(ctx); err != nil {
		return fmt.Errorf("step %d (%s): %w", d.n.section, s.title, err)
	}
	d.n.ociCalls(d.srv.Calls().Since(before))
	return d.n.err()
}

// waitFor polls cond until it holds or the step's deadline passes. On timeout the error says
// what was awaited and the last errors the controllers and the provider logged.
func (d *demo) waitFor(ctx context.Context, what string, cond func() bool) error {
	err := wait.PollUntilContextCancel(ctx, 25*time.Millisecond, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err == nil {
		return nil
	}
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("interrupted while waiting for %s", what)
	}
	msg := fmt.Sprintf("%s did not happen within %v", what, stepDeadline)
	if errs := d.rec.recentErrors(); len(errs) > 0 {
		msg += "; recent errors:\n  " + strings.Join(errs, "\n  ")
	}
	return errors.New(msg)
}

// settled waits until, for every service, the service controller has finished a successful
// load balancer call matching call since mark, no call is running, and cond holds in OCI.
func (d *demo) settled(ctx context.Context, what string, mark int, services []string, call func(lbCall) bool, cond func() bool) error {
	err := d.waitFor(ctx, what, func() bool {
		for _, s := range services {
			if !d.calls.succeeded(mark, s, call) {
				return false
			}
		}
		return d.calls.idle() && cond()
	})
	if err == nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	// Say where things stand: what the service controller asked of the provider, and what OCI has.
	var b strings.Builder
	fmt.Fprintf(&b, "%v\nprovider calls finished in this step:", err)
	finished := d.calls.since(mark)
	if len(finished) == 0 {
		b.WriteString(" none")
	}
	for _, c := range finished {
		result := "ok"
		if c.Err != nil {
			result = c.Err.Error()
		}
		fmt.Fprintf(&b, "\n  %s %s (nodes with a provider ID: %s): %s", c.Method, c.Service, strings.Join(c.Initialised, ","), result)
	}
	b.WriteString("\nload balancers in OCI:")
	for _, lb := range d.srv.LoadBalancers() {
		fmt.Fprintf(&b, "\n  %s %s, backends per set: %s", deref(lb.DisplayName), lb.LifecycleState, countsText(backendCounts(lb)))
	}
	return errors.New(b.String())
}

// nextStep is the demo's last line: where a newcomer goes from here.
const nextStep = "Next: run it on a cluster of your own: README.md's Quickstart, step by step in ccm/docs/tutorial.md."

// summary closes the demo with totals and where to go next.
func (d *demo) summary(took time.Duration) {
	calls := d.srv.Calls()
	failed := 0
	for _, wr := range d.srv.WorkRequests() {
		if wr.State != ocitest.WorkRequestSucceeded {
			failed++
		}
	}
	d.n.write("\nDone.\n")
	d.n.say("%d OCI calls in all (%d reads, %d writes, %d work-request polls); %d work requests, %d failed.",
		calls.Total(), calls.Class(ocitest.ClassRead), calls.Class(ocitest.ClassWrite), calls.Class(ocitest.ClassPoll),
		len(d.srv.WorkRequests()), failed)
	d.n.say("Took %.1fs. More: lb/README.md (every annotation), examples/embed (the library in your own program).", took.Seconds())
	d.n.write("\n" + nextStep + "\n")
}
