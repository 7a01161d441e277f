// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// The log messages the demo narrates. They are lb's (see engine.Reconciler): the plan it applies is
// what a user most wants to see, and it is only available as that log's "plan" value.
const (
	msgApplyingPlan = "Applying load balancer plan"
	msgDeletingLB   = "Deleting load balancer"
)

// maxErrors is how many recent error logs the recording keeps to explain a step that does not
// converge.
const maxErrors = 5

// plan is one load balancer plan the provider logged.
type plan struct {
	Service string // namespace/name
	Text    string // model.Plan.String()
}

// recording keeps what the demo shows from the logs of the provider and the controllers: the
// plans, and the last few errors. Everything else is dropped. Safe for concurrent use.
type recording struct {
	mu     sync.Mutex
	plans  []plan
	errors []string
}

// takePlans returns the plans logged since the last call.
func (r *recording) takePlans() []plan {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.plans
	r.plans = nil
	return p
}

// recentErrors returns the last errors logged, oldest first.
func (r *recording) recentErrors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...)
}

// klog's logger is process-wide and may only be replaced while nothing logs, and goroutines of
// a finished run (informers, the provider's watchers) may still log. So klog is pointed once at
// a sink that writes into the recording of the run in progress, and drops everything between runs.
var (
	routeOnce sync.Once
	current   atomic.Pointer[recording]
)

// record routes klog into r until the returned function is called.
func record(r *recording) (stop func()) {
	routeOnce.Do(func() { klog.SetLoggerWithOptions(logr.New(&sink{}), klog.ContextualLogger(true)) })
	current.Store(r)
	return func() { current.CompareAndSwap(r, nil) }
}

// sink is the logr.LogSink klog writes to. Only level-0 messages are considered: everything the
// controllers log at higher verbosity is dropped before it is formatted.
type sink struct {
	values []any // from WithValues, oldest first
}

var _ logr.LogSink = (*sink)(nil)

func (s *sink) Init(logr.RuntimeInfo) {}

func (s *sink) Enabled(level int) bool { return level == 0 }

func (s *sink) Info(_ int, msg string, kv ...any) {
	switch msg {
	case msgApplyingPlan, msgDeletingLB:
	default:
		return
	}
	text, _ := s.value("plan", kv).(string)
	if text == "" {
		return
	}
	rec := current.Load()
	if rec == nil {
		return
	}
	service := fmt.Sprint(s.value("service", kv))
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.plans = append(rec.plans, plan{Service: service, Text: text})
}

func (s *sink) Error(err error, msg string, kv ...any) {
	rec := current.Load()
	if rec == nil {
		return
	}
	line := msg
	if err != nil {
		line += ": " + err.Error()
	}
	line = strings.Join(strings.Fields(line), " ") // one line, whatever the error's shape
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.errors = append(rec.errors, line)
	if len(rec.errors) > maxErrors {
		rec.errors = rec.errors[len(rec.errors)-maxErrors:]
	}
}

func (s *sink) WithValues(kv ...any) logr.LogSink {
	values := append(append([]any(nil), s.values...), kv...)
	return &sink{values: values}
}

func (s *sink) WithName(string) logr.LogSink { return s }

// value returns the value of key in the call's key/value pairs, else in WithValues', else nil.
func (s *sink) value(key string, kv []any) any {
	for _, pairs := range [][]any{kv, s.values} {
		for i := 0; i+1 < len(pairs); i += 2 {
			if k, ok := pairs[i].(string); ok && k == key {
				return pairs[i+1]
			}
		}
	}
	return nil
}
