// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package drift runs lb's drift check periodically and requeues the Services whose load
// balancers were changed or deleted out of band.
//
// The service controller reconciles a Service only when it or the set of Nodes changes, so a
// listener deleted in the OCI console stays deleted. Every period the Loop asks engine.Reconciler.Drift,
// which lists each compartment once (paged), and hands every drifted Service to a requeue
// function: the provider patches an annotation on the Service, which makes the service
// controller reconcile it, and records an Event saying what drifted.
package drift

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/engine"
)

// DefaultPeriod is how often the Loop checks when Options.Period is zero. A check costs one
// ListLoadBalancers call per 100 load balancers, so even a large cluster can afford this.
const DefaultPeriod = 5 * time.Minute

// maxBackoff bounds how many periods a Service whose drift persists (its reconcile keeps failing)
// waits between requeues: the service controller retries failures itself, a requeue only adds
// an Event.
const maxBackoff = 12

// Checker is what the Loop calls every period: engine.Reconciler's Drift method.
type Checker func(ctx context.Context, services []*v1.Service, nodes []*v1.Node, secrets func(*v1.Service) lb.Secrets) (*engine.DriftReport, error)

// RequeueFunc makes the service controller reconcile a Service and says why (reason is e.g.
// "listener TCP-80 missing"). It is called for drifted Services only.
type RequeueFunc func(ctx context.Context, namespace, name, reason string) error

// Options configure a Loop.
type Options struct {
	// Checker compares load balancers with their Services (required).
	Checker Checker
	// Services lists every Service of the cluster, e.g. from an informer's lister (required).
	Services func() ([]*v1.Service, error)
	// Nodes lists every Node, e.g. from an informer's lister (required), as the provider's
	// reconcile sees them (a provider that completes Nodes before reconciling completes them
	// here too). The Loop passes on those the service controller passes to a reconcile.
	Nodes func(context.Context) ([]*v1.Node, error)
	// Secrets returns the TLS Secrets a Service references; nil when none can be read.
	Secrets func(*v1.Service) lb.Secrets
	// Requeue requeues a drifted Service (required).
	Requeue RequeueFunc
	// Period is the time between checks (default DefaultPeriod).
	Period time.Duration
}

// Loop checks for drift every period. Safe for concurrent use; checks never overlap.
type Loop struct {
	opts Options

	running sync.Mutex // held by the check in progress

	mu     sync.Mutex
	checks int
	seen   map[types.UID]*backoff // Services drifted at the last check
}

// backoff is what the Loop remembers of a Service whose load balancer drifted.
type backoff struct {
	reason   string
	next     int // the check from which it may be requeued again
	interval int // periods to the next requeue for the same drift
}

// ErrBusy is returned by Check while another check runs.
var ErrBusy = errors.New("drift: a check is already running")

// New returns a Loop.
func New(opts Options) (*Loop, error) {
	if opts.Checker == nil || opts.Services == nil || opts.Nodes == nil || opts.Requeue == nil {
		return nil, errors.New("drift: Options.Checker, Services, Nodes and Requeue are required")
	}
	if opts.Period <= 0 {
		opts.Period = DefaultPeriod
	}
	return &Loop{opts: opts, seen: map[types.UID]*backoff{}}, nil
}

// Run checks every period until ctx ends. The first check runs one period after the start: at
// start-up the service controller reconciles every Service anyway.
func (l *Loop) Run(ctx context.Context) {
	logger := klog.FromContext(ctx).WithName("drift")
	logger.Info("Checking load balancers for out-of-band changes", "period", l.opts.Period)
	t := time.NewTicker(l.opts.Period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := l.Check(klog.NewContext(ctx, logger)); err != nil && !errors.Is(err, ErrBusy) {
			logger.Error(err, "Drift check incomplete")
		}
	}
}

// Result is what one check did.
type Result struct {
	// Report is the checker's report.
	Report *engine.DriftReport
	// Requeued are the Services requeued, as "namespace/name".
	Requeued []string
}

// Check runs one check now and requeues the drifted Services, unless a check is running already
// (ErrBusy). A Service whose drift persists is requeued again after 1, 2, 4, ... periods (at most
// maxBackoff). An error from the checker (a compartment that could not be listed) is returned
// after the Services it did check were requeued: a refused listing proves nothing, so nothing
// in that compartment is requeued.
func (l *Loop) Check(ctx context.Context) (*Result, error) {
	if !l.running.TryLock() {
		return nil, ErrBusy
	}
	defer l.running.Unlock()
	logger := klog.FromContext(ctx)

	services, err := l.opts.Services()
	if err != nil {
		return nil, fmt.Errorf("drift: list Services: %w", err)
	}
	nodes, err := l.opts.Nodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("drift: list Nodes: %w", err)
	}
	report, checkErr := l.opts.Checker(ctx, services, ServiceControllerNodes(nodes), l.opts.Secrets)
	if report == nil {
		return nil, checkErr
	}
	if checkErr != nil {
		logger.Error(checkErr, "Could not list load balancers; their absence is not proven and nothing there is requeued")
	}
	logger.V(2).Info("Drift check done", "checked", report.Checked, "drifted", len(report.Drifted), "skipped", report.Skipped)

	res := &Result{Report: report}
	var errs []error
	for _, d := range l.due(report.Drifted) {
		reason := d.Reason()
		if err := l.opts.Requeue(ctx, d.Service.Namespace, d.Service.Name, reason); err != nil {
			errs = append(errs, fmt.Errorf("requeue %s: %w", d.Service, err))
			l.retry(d.UID)
			continue
		}
		logger.Info("Load balancer drifted; Service requeued", "service", d.Service.String(), "loadBalancer", d.LoadBalancerID, "drift", reason)
		res.Requeued = append(res.Requeued, d.Service.String())
	}
	return res, errors.Join(append([]error{checkErr}, errs...)...)
}

// due returns the drifted Services to requeue now and forgets the Services that no longer drift.
func (l *Loop) due(drifted []engine.Drift) []engine.Drift {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.checks++
	seen := make(map[types.UID]*backoff, len(drifted))
	var out []engine.Drift
	for _, d := range drifted {
		b := l.seen[d.UID]
		switch {
		case b == nil || b.reason != d.Reason():
			b = &backoff{reason: d.Reason(), next: l.checks + 1, interval: 2}
			out = append(out, d)
		case l.checks >= b.next:
			b.next = l.checks + b.interval
			b.interval = min(2*b.interval, maxBackoff)
			out = append(out, d)
		}
		seen[d.UID] = b
	}
	l.seen = seen
	return out
}

// retry makes a Service whose requeue failed due again at the next check.
func (l *Loop) retry(uid types.UID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.seen, uid)
}

// toBeDeletedTaint is the taint the cluster autoscaler puts on a Node it is about to remove
// (k8s.io/cloud-provider's service controller leaves such Nodes out: ToBeDeletedTaint).
const toBeDeletedTaint = "ToBeDeletedByClusterAutoscaler"

// ServiceControllerNodes returns the Nodes the service controller of k8s.io/cloud-provider
// v0.37 passes to a reconcile (its stableNodeSetPredicates): not being deleted, not labelled
// node.kubernetes.io/exclude-from-external-load-balancers (true or an unparsable value), not
// tainted for deletion by the cluster autoscaler. Comparing with any other set would report
// drift that a reconcile does not repair, and requeue the Service forever.
func ServiceControllerNodes(nodes []*v1.Node) []*v1.Node {
	out := make([]*v1.Node, 0, len(nodes))
	for _, n := range nodes {
		if n.DeletionTimestamp != nil || excluded(n) || tainted(n) {
			continue
		}
		out = append(out, n)
	}
	return out
}

func excluded(n *v1.Node) bool {
	v, ok := n.Labels[v1.LabelNodeExcludeBalancers]
	if !ok {
		return false
	}
	exclude, err := strconv.ParseBool(v)
	return err != nil || exclude
}

func tainted(n *v1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == toBeDeletedTaint {
			return true
		}
	}
	return false
}
