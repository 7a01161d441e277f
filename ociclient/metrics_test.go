package ociclient

import (
	"context"
	"strings"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func TestMetricsCountRequestsRetriesPollsAndCacheLookups(t *testing.T) {
	env := newTestEnv(t, envConfig{client: Options{Poll: fastPoll}, fakeClock: true})
	ctx := context.Background()
	lb := env.srv.AddLoadBalancer(loadbalancer.LoadBalancer{})
	vcn := env.srv.AddVCN(core.Vcn{})
	subnet := env.srv.AddSubnet(core.Subnet{VcnId: vcn.Id, CidrBlock: common.String("10.0.1.0/24")})

	env.srv.InjectFault(ocitest.Fault{Operation: "GetLoadBalancer", Status: 429, RetryAfter: "1", Times: 1})
	if _, err := env.client.LoadBalancers.GetLoadBalancer(ctx, *lb.Id); err != nil {
		t.Fatal(err)
	}
	if _, err := env.client.LoadBalancers.GetLoadBalancer(ctx, env.srv.NewID("loadbalancer")); !IsNotFound(err) {
		t.Fatalf("GetLoadBalancer of a missing load balancer: %v; want not found", err)
	}
	for range 2 {
		if _, err := env.client.VirtualNetwork.GetSubnet(ctx, *subnet.Id); err != nil {
			t.Fatal(err)
		}
	}
	wr, err := env.client.LoadBalancers.UpdateLoadBalancer(ctx, *lb.Id, loadbalancer.UpdateLoadBalancerDetails{DisplayName: common.String("renamed")})
	if err != nil {
		t.Fatal(err)
	}
	env.srv.CompleteWorkRequests()
	if err := env.client.LoadBalancers.WaitForWorkRequest(ctx, wr); err != nil {
		t.Fatal(err)
	}

	want := `
# HELP ociclient_requests_total [ALPHA] Requests sent to OCI (every attempt), by service, operation and outcome.
# TYPE ociclient_requests_total counter
ociclient_requests_total{operation="GetLoadBalancer",outcome="not_found",service="loadbalancer"} 1
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
	if err := testutil.GatherAndCompare(env.registry, strings.NewReader(want),
		"ociclient_requests_total", "ociclient_retries_total", "ociclient_cache_lookups_total",
		"ociclient_work_request_polls_total", "ociclient_work_requests_total"); err != nil {
		t.Error(err)
	}

	// Histograms hold timings, so only their sample counts are fixed: one latency sample per
	// request and one limiter sample per bucket entry (six requests: five reads, one write).
	for _, h := range []struct {
		name   string
		labels map[string]string
		want   uint64
	}{
		{"ociclient_request_duration_seconds", map[string]string{"operation": "GetLoadBalancer"}, 3},
		{"ociclient_rate_limiter_wait_seconds", map[string]string{"class": "read"}, 5},
		{"ociclient_rate_limiter_wait_seconds", map[string]string{"class": "write"}, 1},
	} {
		vec, err := testutil.GetHistogramVecFromGatherer(env.registry, h.name, h.labels)
		if err != nil {
			t.Fatalf("%s: %v", h.name, err)
		}
		if got := vec.GetAggregatedSampleCount(); got != h.want {
			t.Errorf("%s%v samples = %d, want %d", h.name, h.labels, got, h.want)
		}
	}
}

func TestASecondClientOnTheSameRegistryIsRefused(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	reg := metrics.NewKubeRegistry()
	opts := Options{Provider: srv.ConfigurationProvider(), Host: srv.URL(), Metrics: reg}
	if _, err := New(opts); err != nil {
		t.Fatalf("first New: %v", err)
	}
	if _, err := New(opts); err == nil {
		t.Error("second New on the same registry succeeded; want a registration error")
	}
}

func TestAClientWithoutARegistryRecordsNothingAndWorks(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	defer srv.Close()
	c, err := New(Options{Provider: srv.ConfigurationProvider(), Host: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	lb := srv.AddLoadBalancer(loadbalancer.LoadBalancer{})
	if _, err := c.LoadBalancers.GetLoadBalancer(context.Background(), *lb.Id); err != nil {
		t.Fatal(err)
	}
}
