// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// admin sends an unsigned request to the admin API and returns the status and body.
func admin(t *testing.T, srv *ocitest.Server, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp := rawDo(t, srv, req)
	var b []byte
	if resp.ContentLength != 0 {
		var raw json.RawMessage
		_ = json.NewDecoder(resp.Body).Decode(&raw)
		b = raw
	}
	return resp.StatusCode, b
}

func TestAdminAPIDrivesFaultsCallsInstancesAndRateLimits(t *testing.T) {
	f := newCoreFixture(t, ocitest.Options{})
	inst := f.srv.AddInstance(ocitest.Instance{})
	get := func() error {
		_, err := f.compute.GetInstance(t.Context(), core.GetInstanceRequest{InstanceId: inst.Id})
		return err
	}

	status, body := admin(t, f.srv, "POST", "/ocitest/faults", `{"operation":"GetInstance","status":503,"latency":"1ms"}`)
	var created struct{ ID int }
	if err := json.Unmarshal(body, &created); status != http.StatusCreated || err != nil || created.ID == 0 {
		t.Fatalf("inject: %d %s", status, body)
	}
	wantStatus(t, get(), 503, "ServiceUnavailable")
	if status, _ := admin(t, f.srv, "DELETE", "/ocitest/faults/"+strconv.Itoa(created.ID), ""); status != http.StatusNoContent {
		t.Errorf("remove fault: %d", status)
	}
	if status, _ := admin(t, f.srv, "DELETE", "/ocitest/faults/"+strconv.Itoa(created.ID), ""); status != http.StatusNotFound {
		t.Errorf("remove the same fault again: %d, want 404", status)
	}
	if err := get(); err != nil {
		t.Errorf("after removing the fault: %v", err)
	}
	admin(t, f.srv, "POST", "/ocitest/faults", `{"class":"read","status":500}`)
	admin(t, f.srv, "DELETE", "/ocitest/faults", "")
	if err := get(); err != nil {
		t.Errorf("after clearing faults: %v", err)
	}

	status, body = admin(t, f.srv, "GET", "/ocitest/calls", "")
	var calls ocitest.Calls
	if err := json.Unmarshal(body, &calls); status != 200 || err != nil {
		t.Fatalf("calls: %d %s", status, body)
	}
	if calls.Op("GetInstance") != 3 || calls.Status(503) != 1 || calls.Faulted() != 1 || calls.Total() != 3 {
		t.Errorf("calls over the admin API: %s\n(admin requests must not count)", body)
	}
	admin(t, f.srv, "DELETE", "/ocitest/calls", "")
	if n := f.srv.Calls().Total(); n != 0 {
		t.Errorf("after DELETE /ocitest/calls: total %d", n)
	}

	if status, _ := admin(t, f.srv, "POST", "/ocitest/instances/"+*inst.Id+"/state", `{"state":"TERMINATED"}`); status != http.StatusNoContent {
		t.Errorf("set state: %d", status)
	}
	if got, _ := f.srv.Instance(*inst.Id); got.LifecycleState != core.InstanceLifecycleStateTerminated {
		t.Errorf("state %s, want TERMINATED", got.LifecycleState)
	}
	if status, _ := admin(t, f.srv, "DELETE", "/ocitest/instances/"+*inst.Id, ""); status != http.StatusNoContent {
		t.Errorf("remove instance: %d", status)
	}
	wantStatus(t, get(), 404, "NotAuthorizedOrNotFound")

	if status, _ := admin(t, f.srv, "POST", "/ocitest/ratelimit", `{"class":"read","qps":0.001,"burst":1}`); status != http.StatusNoContent {
		t.Errorf("rate limit: %d", status)
	}
	wantStatus(t, get(), 404, "NotAuthorizedOrNotFound")
	wantStatus(t, get(), 429, "TooManyRequests")
}

func TestAdminAPIRejectsBadInput(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	t.Cleanup(srv.Close)
	tests := []struct{ method, path, body string }{
		{"POST", "/ocitest/faults", `{"status":200}`},
		{"POST", "/ocitest/faults", `{"status":500,"latency":"soon"}`},
		{"POST", "/ocitest/faults", `{"status":500,"probability":2}`},
		{"POST", "/ocitest/faults", `{"status":500,"times":-1}`},
		{"POST", "/ocitest/faults", `not json`},
		{"POST", "/ocitest/ratelimit", `{"class":"everything","qps":1}`},
		{"POST", "/ocitest/instances/x/state", `{"state":"DREAMING"}`},
	}
	for _, tt := range tests {
		if status, _ := admin(t, srv, tt.method, tt.path, tt.body); status != http.StatusBadRequest {
			t.Errorf("%s %s %s: %d, want 400", tt.method, tt.path, tt.body, status)
		}
	}
	if status, _ := admin(t, srv, "POST", "/ocitest/instances/x/state", `{"state":"STOPPED"}`); status != http.StatusNotFound {
		t.Errorf("unknown instance: %d, want 404", status)
	}
}

func TestAdminAPISetsBackendHealth(t *testing.T) {
	srv := ocitest.New(ocitest.Options{})
	t.Cleanup(srv.Close)
	lb := srv.AddLoadBalancer(loadbalancer.LoadBalancer{
		Listeners: map[string]loadbalancer.Listener{"TCP-80": {Name: common.String("TCP-80"), DefaultBackendSetName: common.String("TCP-80"),
			Port: common.Int(80), Protocol: common.String("TCP")}},
		BackendSets: map[string]loadbalancer.BackendSet{"TCP-80": {Name: common.String("TCP-80"), Policy: common.String("ROUND_ROBIN"),
			Backends: []loadbalancer.Backend{{Name: common.String("10.0.10.2:30080"), IpAddress: common.String("10.0.10.2"), Port: common.Int(30080)}}}},
	})
	body := func(backend, status string) string {
		return `{"id":"` + *lb.Id + `","backendSet":"TCP-80","backend":"` + backend + `","status":"` + status + `"}`
	}
	for _, tt := range []struct {
		body string
		want int
	}{
		{body("10.0.10.2:30080", "CRITICAL"), http.StatusNoContent},
		{body("10.0.10.2:30080", "HEALTHY"), http.StatusBadRequest},
		{body("10.0.10.9:30080", "OK"), http.StatusNotFound},
		{`not json`, http.StatusBadRequest},
	} {
		if status, got := admin(t, srv, "PUT", "/ocitest/health", tt.body); status != tt.want {
			t.Errorf("PUT /ocitest/health %s: %d %s, want %d", tt.body, status, got, tt.want)
		}
	}
	client, err := loadbalancer.NewLoadBalancerClientWithConfigurationProvider(srv.ConfigurationProvider())
	if err != nil {
		t.Fatal(err)
	}
	client.Host = srv.URL()
	resp, err := client.GetBackendHealth(t.Context(), loadbalancer.GetBackendHealthRequest{LoadBalancerId: lb.Id,
		BackendSetName: common.String("TCP-80"), BackendName: common.String("10.0.10.2:30080")})
	if err != nil || resp.Status != loadbalancer.BackendHealthStatusCritical {
		t.Errorf("GetBackendHealth after the admin API set CRITICAL: %v %v", resp.Status, err)
	}
}
