// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// healthView is what a health read answered, in one shape for both APIs, for go-cmp.
type healthView struct {
	Status                     string
	Results                    []string // healthCheckStatus of each result
	Warning, Critical, Unknown []string
	Total                      int
}

// healthAPI drives one API's balancer, backends and health reads through the SDK. Its backend
// set is "TCP-80", its backends on port 30080, named "<ip>:30080" in both APIs.
type healthAPI struct {
	name string
	// create makes an ACTIVE (network) load balancer whose set has backends at ips.
	create     func(t *testing.T, f *lbFixture, ips ...string) string
	addBackend func(t *testing.T, f *lbFixture, id, ip string)
	delBackend func(t *testing.T, f *lbFixture, id, name string)
	backend    func(ctx context.Context, f *lbFixture, id, set, name string) (healthView, error)
	set        func(ctx context.Context, f *lbFixture, id, set string) (healthView, error)
	balancer   func(ctx context.Context, f *lbFixture, id string) (healthView, error)
	op         func(string) string // the operation's name in Calls
}

func resultStatuses[R any](results []R, status func(R) string) []string {
	out := []string{}
	for _, r := range results {
		out = append(out, status(r))
	}
	return out
}

var lbHealthAPI = healthAPI{
	name: "LoadBalancer",
	create: func(t *testing.T, f *lbFixture, ips ...string) string {
		d := f.basicLB("health")
		d.BackendSets = map[string]loadbalancer.BackendSetDetails{"TCP-80": tcpBackendSet(ips...)}
		return f.createLB(t, d)
	},
	addBackend: func(t *testing.T, f *lbFixture, id, ip string) {
		resp, err := f.lb.CreateBackend(testCtx(t), loadbalancer.CreateBackendRequest{LoadBalancerId: &id, BackendSetName: common.String("TCP-80"),
			CreateBackendDetails: loadbalancer.CreateBackendDetails{IpAddress: &ip, Port: common.Int(30080)}})
		if err != nil {
			t.Fatalf("CreateBackend: %v", err)
		}
		f.mustSucceed(t, resp.OpcWorkRequestId)
	},
	delBackend: func(t *testing.T, f *lbFixture, id, name string) {
		resp, err := f.lb.DeleteBackend(testCtx(t), loadbalancer.DeleteBackendRequest{LoadBalancerId: &id, BackendSetName: common.String("TCP-80"), BackendName: &name})
		if err != nil {
			t.Fatalf("DeleteBackend: %v", err)
		}
		f.mustSucceed(t, resp.OpcWorkRequestId)
	},
	backend: func(ctx context.Context, f *lbFixture, id, set, name string) (healthView, error) {
		resp, err := f.lb.GetBackendHealth(ctx, loadbalancer.GetBackendHealthRequest{LoadBalancerId: &id, BackendSetName: &set, BackendName: &name})
		return healthView{Status: string(resp.Status), Results: resultStatuses(resp.HealthCheckResults,
			func(r loadbalancer.HealthCheckResult) string { return string(r.HealthCheckStatus) })}, err
	},
	set: func(ctx context.Context, f *lbFixture, id, set string) (healthView, error) {
		resp, err := f.lb.GetBackendSetHealth(ctx, loadbalancer.GetBackendSetHealthRequest{LoadBalancerId: &id, BackendSetName: &set})
		return healthView{Status: string(resp.Status), Warning: resp.WarningStateBackendNames, Critical: resp.CriticalStateBackendNames,
			Unknown: resp.UnknownStateBackendNames, Total: deref(resp.TotalBackendCount)}, err
	},
	balancer: func(ctx context.Context, f *lbFixture, id string) (healthView, error) {
		resp, err := f.lb.GetLoadBalancerHealth(ctx, loadbalancer.GetLoadBalancerHealthRequest{LoadBalancerId: &id})
		return healthView{Status: string(resp.Status), Warning: resp.WarningStateBackendSetNames, Critical: resp.CriticalStateBackendSetNames,
			Unknown: resp.UnknownStateBackendSetNames, Total: deref(resp.TotalBackendSetCount)}, err
	},
	op: func(op string) string { return op },
}

var nlbHealthAPI = healthAPI{
	name: "NetworkLoadBalancer",
	create: func(t *testing.T, f *lbFixture, ips ...string) string {
		d := f.basicNLB("health")
		bs := d.BackendSets["TCP-80"]
		bs.Backends = []nlbapi.Backend{}
		for _, ip := range ips {
			bs.Backends = append(bs.Backends, nlbapi.Backend{IpAddress: common.String(ip), Port: common.Int(30080)})
		}
		d.BackendSets["TCP-80"] = bs
		return f.createNLB(t, d)
	},
	addBackend: func(t *testing.T, f *lbFixture, id, ip string) {
		resp, err := f.nlb.CreateBackend(testCtx(t), nlbapi.CreateBackendRequest{NetworkLoadBalancerId: &id, BackendSetName: common.String("TCP-80"),
			CreateBackendDetails: nlbapi.CreateBackendDetails{IpAddress: &ip, Port: common.Int(30080)}})
		if err != nil {
			t.Fatalf("CreateBackend: %v", err)
		}
		f.nlbMustSucceed(t, resp.OpcWorkRequestId)
	},
	delBackend: func(t *testing.T, f *lbFixture, id, name string) {
		resp, err := f.nlb.DeleteBackend(testCtx(t), nlbapi.DeleteBackendRequest{NetworkLoadBalancerId: &id, BackendSetName: common.String("TCP-80"), BackendName: &name})
		if err != nil {
			t.Fatalf("DeleteBackend: %v", err)
		}
		f.nlbMustSucceed(t, resp.OpcWorkRequestId)
	},
	backend: func(ctx context.Context, f *lbFixture, id, set, name string) (healthView, error) {
		resp, err := f.nlb.GetBackendHealth(ctx, nlbapi.GetBackendHealthRequest{NetworkLoadBalancerId: &id, BackendSetName: &set, BackendName: &name})
		return healthView{Status: string(resp.Status), Results: resultStatuses(resp.HealthCheckResults,
			func(r nlbapi.HealthCheckResult) string { return string(r.HealthCheckStatus) })}, err
	},
	set: func(ctx context.Context, f *lbFixture, id, set string) (healthView, error) {
		resp, err := f.nlb.GetBackendSetHealth(ctx, nlbapi.GetBackendSetHealthRequest{NetworkLoadBalancerId: &id, BackendSetName: &set})
		return healthView{Status: string(resp.Status), Warning: resp.WarningStateBackendNames, Critical: resp.CriticalStateBackendNames,
			Unknown: resp.UnknownStateBackendNames, Total: deref(resp.TotalBackendCount)}, err
	},
	balancer: func(ctx context.Context, f *lbFixture, id string) (healthView, error) {
		resp, err := f.nlb.GetNetworkLoadBalancerHealth(ctx, nlbapi.GetNetworkLoadBalancerHealthRequest{NetworkLoadBalancerId: &id})
		return healthView{Status: string(resp.Status), Warning: resp.WarningStateBackendSetNames, Critical: resp.CriticalStateBackendSetNames,
			Unknown: resp.UnknownStateBackendSetNames, Total: deref(resp.TotalBackendSetCount)}, err
	},
	op: NLB,
}

var healthAPIs = []healthAPI{lbHealthAPI, nlbHealthAPI}

// mustHealth takes a health read's answer, mustHealth(t)(api.set(...)), and fails the test on
// its error.
func mustHealth(t *testing.T) func(healthView, error) healthView {
	return func(v healthView, err error) healthView {
		t.Helper()
		if err != nil {
			t.Fatalf("health read: %v", err)
		}
		return v
	}
}

func TestNewBackendsAreUnknownUntilTheTestSetsTheirHealth(t *testing.T) {
	for _, api := range healthAPIs {
		t.Run(api.name, func(t *testing.T) {
			f := newLBFixture(t, Options{})
			ctx := testCtx(t)
			id := api.create(t, f, "10.0.10.2", "10.0.10.3")
			const a, b = "10.0.10.2:30080", "10.0.10.3:30080"

			unknown := healthView{Status: "UNKNOWN", Results: []string{}}
			if diff := cmp.Diff(unknown, mustHealth(t)(api.backend(ctx, f, id, "TCP-80", a))); diff != "" {
				t.Errorf("a new backend (-want +got):\n%s", diff)
			}
			wantSet := healthView{Status: "UNKNOWN", Warning: []string{}, Critical: []string{}, Unknown: []string{a, b}, Total: 2}
			if diff := cmp.Diff(wantSet, mustHealth(t)(api.set(ctx, f, id, "TCP-80"))); diff != "" {
				t.Errorf("a new backend set (-want +got):\n%s", diff)
			}
			wantLB := healthView{Status: "UNKNOWN", Warning: []string{}, Critical: []string{}, Unknown: []string{"TCP-80"}, Total: 1}
			if diff := cmp.Diff(wantLB, mustHealth(t)(api.balancer(ctx, f, id))); diff != "" {
				t.Errorf("a new balancer (-want +got):\n%s", diff)
			}

			// A test says what the health checks found.
			for _, name := range []string{a, b} {
				if err := f.srv.SetBackendHealth(id, "TCP-80", name, BackendHealthOK); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(healthView{Status: "OK", Results: []string{"OK", "OK"}}, mustHealth(t)(api.backend(ctx, f, id, "TCP-80", a))); diff != "" {
				t.Errorf("an OK backend (-want +got):\n%s", diff)
			}
			wantLB = healthView{Status: "OK", Warning: []string{}, Critical: []string{}, Unknown: []string{}, Total: 1}
			if diff := cmp.Diff(wantLB, mustHealth(t)(api.balancer(ctx, f, id))); diff != "" {
				t.Errorf("a balancer of OK backends (-want +got):\n%s", diff)
			}
			if err := f.srv.SetBackendHealth(id, "TCP-80", b, BackendHealthCritical); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(healthView{Status: "CRITICAL", Results: []string{"CONNECT_FAILED", "CONNECT_FAILED"}},
				mustHealth(t)(api.backend(ctx, f, id, "TCP-80", b))); diff != "" {
				t.Errorf("a CRITICAL backend (-want +got):\n%s", diff)
			}
			wantLB = healthView{Status: "WARNING", Warning: []string{"TCP-80"}, Critical: []string{}, Unknown: []string{}, Total: 1}
			if diff := cmp.Diff(wantLB, mustHealth(t)(api.balancer(ctx, f, id))); diff != "" {
				t.Errorf("a balancer with a WARNING set (-want +got):\n%s", diff)
			}

			// A backend removed and added again starts over.
			api.delBackend(t, f, id, b)
			api.addBackend(t, f, id, "10.0.10.3")
			if diff := cmp.Diff(unknown, mustHealth(t)(api.backend(ctx, f, id, "TCP-80", b))); diff != "" {
				t.Errorf("a backend added again (-want +got):\n%s", diff)
			}
			for _, op := range []string{"GetBackendHealth", "GetBackendSetHealth"} {
				if got := f.srv.Calls().Op(api.op(op)); got == 0 {
					t.Errorf("%s not counted", api.op(op))
				}
			}
		})
	}
}

func TestBackendSetHealthFollowsTheSDKRules(t *testing.T) {
	ips := []string{"10.0.10.2", "10.0.10.3", "10.0.10.4", "10.0.10.5"}
	names := []string{"10.0.10.2:30080", "10.0.10.3:30080", "10.0.10.4:30080", "10.0.10.5:30080"}
	const (
		ok, warn, crit, unk = BackendHealthOK, BackendHealthWarning, BackendHealthCritical, BackendHealthUnknown
	)
	tests := []struct {
		name    string
		backend []BackendHealthStatus // of names, in order
		// lb and nlb are the set's status in each API; they differ where the rules do.
		lb, nlb string
	}{
		{"all OK", []BackendHealthStatus{ok, ok, ok, ok}, "OK", "OK"},
		{"half OK, one CRITICAL", []BackendHealthStatus{ok, ok, crit, warn}, "WARNING", "WARNING"},
		{"three OK, one UNKNOWN", []BackendHealthStatus{ok, ok, ok, unk}, "WARNING", "WARNING"},
		{"fewer than half OK", []BackendHealthStatus{ok, crit, crit, warn}, "CRITICAL", "CRITICAL"},
		{"none OK", []BackendHealthStatus{crit, crit, crit, crit}, "CRITICAL", "CRITICAL"},
		{"half UNKNOWN, half OK", []BackendHealthStatus{ok, ok, unk, unk}, "WARNING", "WARNING"},
		{"most UNKNOWN", []BackendHealthStatus{ok, unk, unk, unk}, "UNKNOWN", "CRITICAL"},
		{"all UNKNOWN", []BackendHealthStatus{unk, unk, unk, unk}, "UNKNOWN", "UNKNOWN"},
	}
	for _, api := range healthAPIs {
		t.Run(api.name, func(t *testing.T) {
			f := newLBFixture(t, Options{})
			ctx := testCtx(t)
			id := api.create(t, f, ips...)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					want := healthView{Status: tt.lb, Warning: []string{}, Critical: []string{}, Unknown: []string{}, Total: len(names)}
					if api.name == nlbHealthAPI.name {
						want.Status = tt.nlb
					}
					for i, h := range tt.backend {
						if err := f.srv.SetBackendHealth(id, "TCP-80", names[i], h); err != nil {
							t.Fatal(err)
						}
						switch h {
						case warn:
							want.Warning = append(want.Warning, names[i])
						case crit:
							want.Critical = append(want.Critical, names[i])
						case unk:
							want.Unknown = append(want.Unknown, names[i])
						}
					}
					if diff := cmp.Diff(want, mustHealth(t)(api.set(ctx, f, id, "TCP-80"))); diff != "" {
						t.Errorf("GetBackendSetHealth (-want +got):\n%s", diff)
					}
				})
			}
		})
	}
}

func TestBalancerHealthStatus(t *testing.T) {
	tally := func(hs ...BackendHealthStatus) healthTally {
		t := newHealthTally()
		for i, h := range hs {
			t.add(string(rune('a'+i)), h)
		}
		return t
	}
	const ok, warn, crit, unk = BackendHealthOK, BackendHealthWarning, BackendHealthCritical, BackendHealthUnknown
	tests := []struct {
		name   string
		sets   healthTally
		active bool
		want   BackendHealthStatus
	}{
		{"no backend sets", tally(), true, unk},
		{"not ACTIVE", tally(ok, ok), false, unk},
		{"all OK", tally(ok, ok), true, ok},
		{"one CRITICAL", tally(ok, warn, crit), true, crit},
		{"one WARNING", tally(ok, warn, unk), true, warn},
		{"most UNKNOWN", tally(ok, unk, unk), true, unk},
		{"some UNKNOWN, the rest OK (assumed)", tally(ok, ok, unk), true, warn},
	}
	for _, tt := range tests {
		if got := balancerHealthStatus(tt.sets, tt.active); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestLBBackendSetWithoutAListenerIsUnknown(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	id := lbHealthAPI.create(t, f, "10.0.10.2")
	cr, err := f.lb.CreateBackendSet(ctx, loadbalancer.CreateBackendSetRequest{LoadBalancerId: &id,
		CreateBackendSetDetails: loadbalancer.CreateBackendSetDetails{Name: common.String("spare"), Policy: common.String("ROUND_ROBIN"),
			HealthChecker: tcpBackendSet().HealthChecker, Backends: tcpBackendSet("10.0.10.3").Backends}})
	if err != nil {
		t.Fatalf("CreateBackendSet: %v", err)
	}
	f.mustSucceed(t, cr.OpcWorkRequestId)
	for set, backend := range map[string]string{"TCP-80": "10.0.10.2:30080", "spare": "10.0.10.3:30080"} {
		if err := f.srv.SetBackendHealth(id, set, backend, BackendHealthOK); err != nil {
			t.Fatal(err)
		}
	}
	want := healthView{Status: "UNKNOWN", Warning: []string{}, Critical: []string{}, Unknown: []string{}, Total: 1}
	if diff := cmp.Diff(want, mustHealth(t)(lbHealthAPI.set(ctx, f, id, "spare"))); diff != "" {
		t.Errorf("a set no listener uses (-want +got):\n%s", diff)
	}
	// One OK set and one UNKNOWN of two: no rule of the SDK's covers it; WARNING is assumed.
	want = healthView{Status: "WARNING", Warning: []string{}, Critical: []string{}, Unknown: []string{"spare"}, Total: 2}
	if diff := cmp.Diff(want, mustHealth(t)(lbHealthAPI.balancer(ctx, f, id))); diff != "" {
		t.Errorf("GetLoadBalancerHealth (-want +got):\n%s", diff)
	}

	// A rule of the listener's routing policy that forwards to the set attaches it.
	f.srv.EditLoadBalancer(id, func(lb *loadbalancer.LoadBalancer) {
		lb.RoutingPolicies = map[string]loadbalancer.RoutingPolicy{"route": {Name: common.String("route"),
			ConditionLanguageVersion: loadbalancer.RoutingPolicyConditionLanguageVersionV1,
			Rules: []loadbalancer.RoutingRule{{Name: common.String("spare"), Condition: common.String("all(http.request.url.path sw '/spare')"),
				Actions: []loadbalancer.Action{loadbalancer.ForwardToBackendSet{BackendSetName: common.String("spare")}}}}}}
		l := lb.Listeners["TCP-80"]
		l.RoutingPolicyName = common.String("route")
		lb.Listeners["TCP-80"] = l
	})
	want = healthView{Status: "OK", Warning: []string{}, Critical: []string{}, Unknown: []string{}, Total: 1}
	if diff := cmp.Diff(want, mustHealth(t)(lbHealthAPI.set(ctx, f, id, "spare"))); diff != "" {
		t.Errorf("a set a routing policy forwards to (-want +got):\n%s", diff)
	}
}

func TestBackendHealthDelayMakesBackendsOKOnTheirOwn(t *testing.T) {
	for _, api := range healthAPIs {
		t.Run(api.name, func(t *testing.T) {
			clock := &Clock{}
			f := newLBFixture(t, Options{Now: clock.Now, BackendHealthDelay: 30 * time.Second})
			ctx := testCtx(t)
			id := api.create(t, f, "10.0.10.2")
			if got := mustHealth(t)(api.backend(ctx, f, id, "TCP-80", "10.0.10.2:30080")).Status; got != "UNKNOWN" {
				t.Errorf("before the delay: %s, want UNKNOWN", got)
			}
			clock.Advance(30 * time.Second)
			if got := mustHealth(t)(api.backend(ctx, f, id, "TCP-80", "10.0.10.2:30080")).Status; got != "OK" {
				t.Errorf("after the delay: %s, want OK", got)
			}
			api.addBackend(t, f, id, "10.0.10.3")
			if got := mustHealth(t)(api.set(ctx, f, id, "TCP-80")); got.Status != "WARNING" || !cmp.Equal(got.Unknown, []string{"10.0.10.3:30080"}) {
				t.Errorf("with a new backend: %+v, want WARNING with it UNKNOWN", got)
			}
			// What the test sets wins over the delay.
			if err := f.srv.SetBackendHealth(id, "TCP-80", "10.0.10.2:30080", BackendHealthCritical); err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Minute)
			want := healthView{Status: "WARNING", Warning: []string{}, Critical: []string{"10.0.10.2:30080"}, Unknown: []string{}, Total: 2}
			if diff := cmp.Diff(want, mustHealth(t)(api.set(ctx, f, id, "TCP-80"))); diff != "" {
				t.Errorf("later (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHealthReadsOfMissingPartsAre404(t *testing.T) {
	for _, api := range healthAPIs {
		t.Run(api.name, func(t *testing.T) {
			f := newLBFixture(t, Options{})
			ctx := testCtx(t)
			id := api.create(t, f, "10.0.10.2")
			missing := "ocid1.loadbalancer.oc1.phx.missing"
			tests := []struct {
				name string
				read func() (healthView, error)
			}{
				{"balancer of a missing balancer", func() (healthView, error) { return api.balancer(ctx, f, missing) }},
				{"set of a missing balancer", func() (healthView, error) { return api.set(ctx, f, missing, "TCP-80") }},
				{"missing set", func() (healthView, error) { return api.set(ctx, f, id, "nope") }},
				{"backend of a missing set", func() (healthView, error) { return api.backend(ctx, f, id, "nope", "10.0.10.2:30080") }},
				{"missing backend", func() (healthView, error) { return api.backend(ctx, f, id, "TCP-80", "10.0.10.9:30080") }},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					_, err := tt.read()
					wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
				})
			}
		})
	}
}

func TestHealthReadsNeedReadOnTheBalancer(t *testing.T) {
	for _, api := range healthAPIs {
		t.Run(api.name, func(t *testing.T) {
			f := newLBFixture(t, Options{PolicyDelay: NoLag}) // what a policy allows, not when
			ctx := testCtx(t)
			id := api.create(t, f, "10.0.10.2")
			rtype := map[string]string{lbHealthAPI.name: "load-balancers", nlbHealthAPI.name: "network-load-balancers"}[api.name]
			for _, tt := range []struct {
				verb string
				ok   bool
			}{{"inspect", false}, {"read", true}} {
				if err := f.srv.SetPolicy("Allow dynamic-group ccm to " + tt.verb + " " + rtype + " in compartment cluster"); err != nil {
					t.Fatal(err)
				}
				reads := map[string]func() (healthView, error){
					"GetBackendHealth":    func() (healthView, error) { return api.backend(ctx, f, id, "TCP-80", "10.0.10.2:30080") },
					"GetBackendSetHealth": func() (healthView, error) { return api.set(ctx, f, id, "TCP-80") },
					"balancer":            func() (healthView, error) { return api.balancer(ctx, f, id) },
				}
				for name, read := range reads {
					_, err := read()
					if tt.ok && err != nil {
						t.Errorf("%s with %s: %v", name, tt.verb, err)
					}
					if !tt.ok {
						wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
					}
				}
			}
		})
	}
}

func TestSetBackendHealthRefusesWhatIsNotThere(t *testing.T) {
	f := newLBFixture(t, Options{})
	id := lbHealthAPI.create(t, f, "10.0.10.2")
	tests := []struct {
		name             string
		id, set, backend string
		status           BackendHealthStatus
	}{
		{"no such load balancer", "ocid1.loadbalancer.oc1.phx.missing", "TCP-80", "10.0.10.2:30080", BackendHealthOK},
		{"no such set", id, "nope", "10.0.10.2:30080", BackendHealthOK},
		{"no such backend", id, "TCP-80", "10.0.10.9:30080", BackendHealthOK},
		{"no such status", id, "TCP-80", "10.0.10.2:30080", "HEALTHY"},
	}
	for _, tt := range tests {
		if err := f.srv.SetBackendHealth(tt.id, tt.set, tt.backend, tt.status); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

// TestBackendsAtPodIPs adds backends at addresses of a pod subnet, as OKE's VCN-native pod
// networking gives pods addresses of their own, not their node's: OCI takes any IP address as a
// backend, and so does ocitest.
func TestBackendsAtPodIPs(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	pods := f.srv.AddSubnet(core.Subnet{VcnId: common.String(f.seeded.VCN), CidrBlock: common.String("10.0.128.0/18"),
		DisplayName: common.String("pods"), ProhibitPublicIpOnVnic: common.Bool(true)})
	podIP := f.srv.AddPrivateIP(core.PrivateIp{SubnetId: pods.Id, IpAddress: common.String("10.0.128.20")})

	lbID := lbHealthAPI.create(t, f, "10.0.10.2")
	lbHealthAPI.addBackend(t, f, lbID, "10.0.128.10")
	lbBackend, err := f.lb.GetBackend(ctx, loadbalancer.GetBackendRequest{LoadBalancerId: &lbID, BackendSetName: common.String("TCP-80"),
		BackendName: common.String("10.0.128.10:30080")})
	if err != nil {
		t.Fatalf("GetBackend of a pod IP: %v", err)
	}
	if got := deref(lbBackend.IpAddress); got != "10.0.128.10" {
		t.Errorf("load balancer backend at %s, want the pod IP", got)
	}

	nlbID := nlbHealthAPI.create(t, f, "10.0.10.2")
	nlbHealthAPI.addBackend(t, f, nlbID, "10.0.128.10")
	byTarget, err := f.nlb.CreateBackend(ctx, nlbapi.CreateBackendRequest{NetworkLoadBalancerId: &nlbID, BackendSetName: common.String("TCP-80"),
		CreateBackendDetails: nlbapi.CreateBackendDetails{TargetId: podIP.Id, Port: common.Int(30080)}})
	if err != nil {
		t.Fatalf("CreateBackend by the pod IP's OCID: %v", err)
	}
	f.nlbMustSucceed(t, byTarget.OpcWorkRequestId)
	list, err := f.nlb.ListBackends(ctx, nlbapi.ListBackendsRequest{NetworkLoadBalancerId: &nlbID, BackendSetName: common.String("TCP-80")})
	if err != nil {
		t.Fatalf("ListBackends: %v", err)
	}
	var got []string
	for _, b := range list.Items {
		got = append(got, deref(b.Name)+"="+deref(b.IpAddress))
	}
	want := []string{"10.0.10.2:30080=10.0.10.2", "10.0.128.10:30080=10.0.128.10", *podIP.Id + ":30080=10.0.128.20"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NLB backends (-want +got):\n%s", diff)
	}
	// A pod backend's health is driven like any other's.
	if err := f.srv.SetBackendHealth(nlbID, "TCP-80", *podIP.Id+":30080", BackendHealthOK); err != nil {
		t.Fatal(err)
	}
	if got := mustHealth(t)(nlbHealthAPI.backend(ctx, f, nlbID, "TCP-80", *podIP.Id+":30080")).Status; got != "OK" {
		t.Errorf("pod backend health %s, want OK", got)
	}
}

func TestDeletedNLBBackendsAreUnknown(t *testing.T) {
	f := newLBFixture(t, Options{BackendHealthDelay: time.Nanosecond})
	ctx := testCtx(t)
	id := nlbHealthAPI.create(t, f, "10.0.10.2")
	if got := mustHealth(t)(nlbHealthAPI.backend(ctx, f, id, "TCP-80", "10.0.10.2:30080")).Status; got != "OK" {
		t.Fatalf("before the delete: %s, want OK", got)
	}
	del, err := f.nlb.DeleteNetworkLoadBalancer(ctx, nlbapi.DeleteNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id})
	if err != nil {
		t.Fatalf("DeleteNetworkLoadBalancer: %v", err)
	}
	f.nlbMustSucceed(t, del.OpcWorkRequestId)
	want := healthView{Status: "UNKNOWN", Warning: []string{}, Critical: []string{}, Unknown: []string{"TCP-80"}, Total: 1}
	if diff := cmp.Diff(want, mustHealth(t)(nlbHealthAPI.balancer(ctx, f, id))); diff != "" {
		t.Errorf("a DELETED NLB (-want +got):\n%s", diff)
	}
	if got := mustHealth(t)(nlbHealthAPI.backend(ctx, f, id, "TCP-80", "10.0.10.2:30080")).Status; got != "UNKNOWN" {
		t.Errorf("a DELETED NLB's backend: %s, want UNKNOWN", got)
	}
}

func TestLBHealthResultsComeFromItsTwoNodes(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	id := lbHealthAPI.create(t, f, "10.0.10.2")
	if err := f.srv.SetBackendHealth(id, "TCP-80", "10.0.10.2:30080", BackendHealthWarning); err != nil {
		t.Fatal(err)
	}
	resp, err := f.lb.GetBackendHealth(ctx, loadbalancer.GetBackendHealthRequest{LoadBalancerId: &id,
		BackendSetName: common.String("TCP-80"), BackendName: common.String("10.0.10.2:30080")})
	if err != nil {
		t.Fatalf("GetBackendHealth: %v", err)
	}
	lb := f.getLB(t, id)
	var sources []string
	for _, r := range resp.HealthCheckResults {
		if !slices.Contains(lb.SubnetIds, deref(r.SubnetId)) || r.Timestamp == nil {
			t.Errorf("result %+v: not from a subnet of the load balancer, or no timestamp", r)
		}
		sources = append(sources, deref(r.SourceIpAddress))
	}
	if len(sources) != 2 || sources[0] == sources[1] || sources[0] == "" || slices.Contains(sources, deref(lb.IpAddresses[0].IpAddress)) {
		t.Errorf("sources %v: want two node addresses, not the load balancer's own", sources)
	}
	if got := resultStatuses(resp.HealthCheckResults, func(r loadbalancer.HealthCheckResult) string { return string(r.HealthCheckStatus) }); !cmp.Equal(got, []string{"OK", "CONNECT_FAILED"}) {
		t.Errorf("WARNING backend results %v", got)
	}
}
