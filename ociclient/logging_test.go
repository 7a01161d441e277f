// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

// lineRecorder is a logr sink (through funcr) that keeps every line.
type lineRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *lineRecorder) logger(verbosity int) logr.Logger {
	return funcr.New(func(prefix, args string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.lines = append(r.lines, prefix+" "+args)
	}, funcr.Options{Verbosity: verbosity})
}

// count returns how many lines contain every one of parts.
func (r *lineRecorder) count(parts ...string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
lines:
	for _, l := range r.lines {
		for _, p := range parts {
			if !strings.Contains(l, p) {
				continue lines
			}
		}
		n++
	}
	return n
}

func TestCallsLogToTheLoggerInTheirContextElseToOptionsLogger(t *testing.T) {
	var fallback, fromCtx lineRecorder
	env := newTestEnv(t, envConfig{client: Options{Logger: fallback.logger(4)}})
	lb := env.srv.AddLoadBalancer(loadbalancer.LoadBalancer{})

	ctx := logr.NewContext(context.Background(), fromCtx.logger(4).WithValues("controller", "mine"))
	if _, err := env.client.LoadBalancers.GetLoadBalancer(ctx, *lb.Id); err != nil {
		t.Fatal(err)
	}
	if _, err := env.client.LoadBalancers.ListLoadBalancers(context.Background(), env.srv.Seeded().Compartment, ""); err != nil {
		t.Fatal(err)
	}

	got := map[string]int{
		"ctx: GetLoadBalancer":       fromCtx.count("OCI call succeeded", `"GetLoadBalancer"`, `"controller"="mine"`, "ociclient"),
		"ctx: ListLoadBalancers":     fromCtx.count("ListLoadBalancers"),
		"options: GetLoadBalancer":   fallback.count("GetLoadBalancer"),
		"options: ListLoadBalancers": fallback.count("OCI call succeeded", `"ListLoadBalancers"`),
	}
	want := map[string]int{
		"ctx: GetLoadBalancer":       1,
		"ctx: ListLoadBalancers":     0,
		"options: GetLoadBalancer":   0,
		"options: ListLoadBalancers": 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log lines (-want +got):\n%s\nctx logger:\n%s\nOptions.Logger:\n%s", diff,
			strings.Join(fromCtx.lines, "\n"), strings.Join(fallback.lines, "\n"))
	}
}

func TestCallsLogNothingAtVerbosityZero(t *testing.T) {
	var rec lineRecorder
	env := newTestEnv(t, envConfig{})
	lb := env.srv.AddLoadBalancer(loadbalancer.LoadBalancer{})
	ctx := logr.NewContext(context.Background(), rec.logger(0))
	if _, err := env.client.LoadBalancers.GetLoadBalancer(ctx, *lb.Id); err != nil {
		t.Fatal(err)
	}
	if _, err := env.client.LoadBalancers.GetLoadBalancer(ctx, env.srv.NewID("loadbalancer")); !IsNotFound(err) {
		t.Fatalf("GetLoadBalancer of a missing load balancer: %v; want not found", err)
	}
	if len(rec.lines) != 0 {
		t.Errorf("logged at V(0):\n%s", strings.Join(rec.lines, "\n"))
	}
}
