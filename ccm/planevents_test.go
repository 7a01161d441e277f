// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"strings"
	"testing"

	"k8s.io/client-go/tools/record"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func TestAppliedPlansAreEventsOnTheService(t *testing.T) {
	e := newEnv(t)
	recorder := record.NewFakeRecorder(10)
	e.cloud.svc.Initialize(nil, recorder, nil)
	lbs, _ := e.cloud.LoadBalancer()
	svc := service("web", nil, 80)

	if _, err := lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes[:2]); err != nil {
		t.Fatal(err)
	}
	if err := lbs.UpdateLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes[:2]); err != nil {
		t.Fatal(err)
	}
	if err := lbs.UpdateLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes); err != nil {
		t.Fatal(err)
	}
	// A port added whose backend set's work request fails: the listener is not attempted.
	defer e.srv.FailWorkRequests(func(wr ocitest.WorkRequestInfo) bool { return wr.Operation == "CreateBackendSet" }, "quota exceeded")()
	if err := lbs.UpdateLoadBalancer(ctxFor(t), "test-cluster", service("web", nil, 80, 8080), e.nodes); err == nil {
		t.Fatal("the failed work request did not fail the update")
	}

	want := []string{
		"Normal LoadBalancerPlanApplied load balancer \"uid-web\": + load balancer uid-web: 1 listener, 1 backend set, 0 certificates",
		// The unchanged update records nothing.
		"Normal LoadBalancerPlanApplied load balancer \"uid-web\": ~ backend set TCP-80: +1 backend",
		"Warning LoadBalancerPlanFailed load balancer ocid1.loadbalancer.",
	}
	for i, w := range want {
		select {
		case got := <-recorder.Events:
			if !strings.HasPrefix(got, w) {
				t.Errorf("event %d = %q, want it to begin with %q", i+1, got, w)
			}
			if i == 2 && (!strings.Contains(got, "FAILED + backend set TCP-8080 (") || !strings.Contains(got, "quota exceeded") ||
				!strings.Contains(got, "not attempted + listener TCP-8080")) {
				t.Errorf("failure event %q does not say what failed, why, and what was not attempted", got)
			}
		default:
			t.Fatalf("event %d missing, want one beginning with %q", i+1, w)
		}
	}
	if len(recorder.Events) > 0 {
		t.Errorf("unexpected event %q", <-recorder.Events)
	}
}
