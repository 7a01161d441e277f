// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package prommetrics_test

import (
	"context"
	"strings"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"

	"github.com/oci-ccm/oci-ccm/internal/prommetrics"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

var (
	_ ociclient.Metrics             = (*prommetrics.Metrics)(nil)
	_ ociclient.LimiterRateObserver = (*prommetrics.Metrics)(nil)
	_ ociclient.ConsistencyObserver = (*prommetrics.Metrics)(nil)
)

// The consistency waits' name, labels and help text are pinned too.
func TestConsistencyWaitsAreServedUnderTheDocumentedMetricName(t *testing.T) {
	reg := metrics.NewKubeRegistry()
	m, err := prommetrics.Register(reg.Register)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m.CountConsistencyWait(ctx, "lb", ociclient.ConsistencyListingLag)
	m.CountConsistencyWait(ctx, "instances", ociclient.ConsistencyAmbiguousNotFound)
	m.CountConsistencyWait(ctx, "instances", ociclient.ConsistencyAmbiguousNotFound)
	want := `
# HELP ociclient_consistency_waits_total [ALPHA] Waits and re-checks made because OCI is eventually consistent, by component (lb, instances) and reason (listing_lag: a listing too young to prove absence was waited out and made again; ambiguous_not_found: a 404 NotAuthorizedOrNotFound was checked against a fresh listing).
# TYPE ociclient_consistency_waits_total counter
ociclient_consistency_waits_total{component="instances",reason="ambiguous_not_found"} 2
ociclient_consistency_waits_total{component="lb",reason="listing_lag"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "ociclient_consistency_waits_total"); err != nil {
		t.Error(err)
	}
}

// The names, labels and help texts below are what dashboards read: this test pins them.
func TestClientCallsAreServedUnderTheDocumentedMetricNames(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	reg := metrics.NewKubeRegistry()
	m, err := prommetrics.Register(reg.Register)
	if err != nil {
		t.Fatal(err)
	}
	opts := ociclient.ForServer(srv)
	opts.Metrics = m
	opts.Retry.BaseDelay, opts.Retry.MaxDelay = 1, 1 // the injected 429 is retried at once
	c, err := ociclient.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lb := srv.AddLoadBalancer(loadbalancer.LoadBalancer{})
	vcn := srv.AddVCN(core.Vcn{})
	subnet := srv.AddSubnet(core.Subnet{VcnId: vcn.Id, CidrBlock: common.String("10.0.1.0/24")})

	srv.InjectFault(ocitest.Fault{Operation: "GetLoadBalancer", Status: 429, Times: 1})
	if _, err := c.LoadBalancers.GetLoadBalancer(ctx, *lb.Id); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := c.VirtualNetwork.GetSubnet(ctx, *subnet.Id); err != nil {
			t.Fatal(err)
		}
	}
	wr, err := c.LoadBalancers.UpdateLoadBalancer(ctx, *lb.Id, loadbalancer.UpdateLoadBalancerDetails{DisplayName: common.String("renamed")})
	if err != nil {
		t.Fatal(err)
	}
	srv.CompleteWorkRequests()
	if err := c.LoadBalancers.WaitForWorkRequest(ctx, wr); err != nil {
		t.Fatal(err)
	}

	want := `
# HELP ociclient_requests_total [ALPHA] Requests sent to OCI (every attempt), by service, operation and outcome.
# TYPE ociclient_requests_total counter
ociclient_requests_total{operation="GetLoadBalancer",outcome="ok",service="loadbalancer"} 1
ociclient_requests_total{operation="GetLoadBalancer",outcome="throttled",service="loadbalancer"} 1
ociclient_requests_total{operation="GetSubnet",outcome="ok",service="virtualnetwork"} 1
ociclient_requests_total{operation="GetWorkRequest",outcome="ok",service="loadbalancer"} 1
ociclient_requests_total{operation="UpdateLoadBalancer",outcome="ok",service="loadbalancer"} 1
# HELP ociclient_retries_total [ALPHA] Requests to OCI retried, by service, operation and reason.
# TYPE ociclient_retries_total counter
ociclient_retries_total{operation="GetLoadBalancer",reason="throttled",service="loadbalancer"} 1
# HELP ociclient_cache_lookups_total [ALPHA] Cached reads, by cache and result (hit, miss, or shared: joined a concurrent identical read).
# TYPE ociclient_cache_lookups_total counter
ociclient_cache_lookups_total{cache="subnet",result="hit"} 1
ociclient_cache_lookups_total{cache="subnet",result="miss"} 1
# HELP ociclient_work_request_polls_total [ALPHA] Work-request polls, by service.
# TYPE ociclient_work_request_polls_total counter
ociclient_work_request_polls_total{service="loadbalancer"} 1
# HELP ociclient_work_requests_total [ALPHA] Work requests waited for, by service and result.
# TYPE ociclient_work_requests_total counter
ociclient_work_requests_total{result="succeeded",service="loadbalancer"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"ociclient_requests_total", "ociclient_retries_total", "ociclient_cache_lookups_total",
		"ociclient_work_request_polls_total", "ociclient_work_requests_total"); err != nil {
		t.Error(err)
	}

	// The injected 429 cut the read bucket's rate below the configured 20/s (by 30%: no call had
	// been accepted yet); the calls after it may have raised it a little since.
	rates := map[string]float64{}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "ociclient_rate_limiter_rate" {
			if !strings.HasPrefix(f.GetHelp(), "[ALPHA] Calls per second the client-side rate limiter allows") {
				t.Errorf("ociclient_rate_limiter_rate help %q", f.GetHelp())
			}
			for _, m := range f.GetMetric() {
				rates[m.GetLabel()[0].GetName()+"="+m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
			}
		}
	}
	if r := rates["class=read"]; r < 14 || r >= 15 || rates["class=write"] != 5 || len(rates) != 2 {
		t.Errorf("ociclient_rate_limiter_rate = %v, want read cut from 20 to about 14, write at the configured 5", rates)
	}

	// Histograms hold timings, so only their sample counts are fixed: one latency sample per
	// request and one limiter sample per bucket entry (five requests: four reads, one write).
	for _, h := range []struct {
		name   string
		labels map[string]string
		want   uint64
	}{
		{"ociclient_request_duration_seconds", map[string]string{"operation": "GetLoadBalancer"}, 2},
		{"ociclient_rate_limiter_wait_seconds", map[string]string{"class": "read"}, 4},
		{"ociclient_rate_limiter_wait_seconds", map[string]string{"class": "write"}, 1},
	} {
		vec, err := testutil.GetHistogramVecFromGatherer(reg, h.name, h.labels)
		if err != nil {
			t.Fatalf("%s: %v", h.name, err)
		}
		if got := vec.GetAggregatedSampleCount(); got != h.want {
			t.Errorf("%s%v samples = %d, want %d", h.name, h.labels, got, h.want)
		}
	}
}

func TestASecondRegistrationOnTheSameRegistryIsRefused(t *testing.T) {
	reg := metrics.NewKubeRegistry()
	if _, err := prommetrics.Register(reg.Register); err != nil {
		t.Fatalf("first Register: %v", err)
	}
	if _, err := prommetrics.Register(reg.Register); err == nil {
		t.Error("second Register on the same registry succeeded; want a registration error")
	}
}
