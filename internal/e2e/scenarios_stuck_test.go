// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/ccm/service"
)

// stuckMaxWait is --load-balancer-max-wait in testStuckWorkRequest: short, so the scenario sees
// several syncs of the stuck Service within a few seconds.
const stuckMaxWait = 3 * time.Second

// holdWorkRequest holds the next work request of operation in ocitest (it runs until
// completeWorkRequests) and returns a function that stops holding new ones.
func (v *ociView) holdWorkRequest(ctx context.Context, t *testing.T, operation string) (stop func()) {
	t.Helper()
	var out struct {
		ID int `json:"id"`
	}
	if err := v.admin(ctx, http.MethodPost, "/ocitest/workrequests/hold", map[string]any{"operation": operation, "times": 1}, &out); err != nil {
		t.Fatal(err)
	}
	stop = func() {
		_ = v.admin(context.WithoutCancel(ctx), http.MethodDelete, "/ocitest/workrequests/hold/"+strconv.Itoa(out.ID), nil, nil)
	}
	t.Cleanup(stop)
	return stop
}

// completeWorkRequests finishes every running work request now, held ones included.
func (v *ociView) completeWorkRequests(ctx context.Context) error {
	return v.admin(ctx, http.MethodPost, "/ocitest/workrequests/complete", nil, nil)
}

// testStuckWorkRequest: with one service-controller worker, a Service whose create work request
// never finishes does not stall the others. Its syncs return after --load-balancer-max-wait
// (then at once, while the work runs) with a LoadBalancerPending Event saying what is pending,
// another Service created meanwhile converges, and once OCI finishes the work request the stuck
// Service converges too, with a LoadBalancerPendingDone Event.
func testStuckWorkRequest(t *testing.T, s *suite) {
	const stuck, bystander = "stuck", "bystander"
	s.restartCCM(t, "--concurrent-service-syncs=1", "--load-balancer-max-wait="+stuckMaxWait.String())
	defer s.restartCCM(t)

	stopHolding := s.oci.holdWorkRequest(s.ctx, t, "CreateLoadBalancer")
	before, err := s.oci.calls(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	svc := loadService(t, "plain.yaml", testNamespace)
	svc.Name = stuck
	if _, err := s.kube.CoreV1().Services(testNamespace).Create(s.ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, s.ctx, convergeTimeout, "the stuck Service's create sent", func(ctx context.Context) (bool, string, error) {
		now, err := s.oci.calls(ctx)
		if err != nil {
			return false, "", err
		}
		d := now.Since(before)
		return d.Op("CreateLoadBalancer") >= 1, d.String(), nil
	})
	stopHolding()
	eventually(t, s.ctx, convergeTimeout, "a LoadBalancerPending Event on the stuck Service", func(ctx context.Context) (bool, string, error) {
		events, err := serviceEvents(ctx, s.kube, testNamespace, stuck)
		if err != nil {
			return false, "", err
		}
		for _, e := range events {
			if e.Reason == "LoadBalancerPending" && strings.Contains(e.Message, "still in progress") && strings.Contains(e.Message, "+ load balancer") {
				return true, "", nil
			}
		}
		return false, describeEvents(events), nil
	})

	// The only worker is not held: a Service created now converges while the create still runs.
	other := loadService(t, "plain.yaml", testNamespace)
	other.Name = bystander
	if _, err := s.kube.CoreV1().Services(testNamespace).Create(s.ctx, other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s.waitLBConverged(t, testNamespace, bystander, nil)
	current, err := s.kube.CoreV1().Services(testNamespace).Get(s.ctx, stuck, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ip := ingressIP(current); ip != "" {
		t.Fatalf("the stuck Service has IP %s: its create finished, so nothing was stuck", ip)
	}
	if c := meta.FindStatusCondition(current.Status.Conditions, service.ConditionPending); c == nil || c.Status != metav1.ConditionTrue ||
		!strings.Contains(c.Message, "+ load balancer") {
		t.Errorf("status condition %s of the stuck Service = %+v, want True naming the create", service.ConditionPending, c)
	}
	events, err := serviceEvents(s.ctx, s.kube, testNamespace, stuck)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("while stuck: %d LoadBalancerPending, %d SyncLoadBalancerFailed Events", eventCount(events, "LoadBalancerPending"), eventCount(events, "SyncLoadBalancerFailed"))

	if err := s.oci.completeWorkRequests(s.ctx); err != nil {
		t.Fatal(err)
	}
	s.waitLBConverged(t, testNamespace, stuck, nil)
	eventually(t, s.ctx, convergeTimeout, "the pending condition gone from the Service's status", func(ctx context.Context) (bool, string, error) {
		svc, err := s.kube.CoreV1().Services(testNamespace).Get(ctx, stuck, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		c := meta.FindStatusCondition(svc.Status.Conditions, service.ConditionPending)
		return c == nil, fmt.Sprintf("%+v", c), nil
	})
	eventually(t, s.ctx, convergeTimeout, "a LoadBalancerPendingDone Event on the stuck Service", func(ctx context.Context) (bool, string, error) {
		events, err := serviceEvents(ctx, s.kube, testNamespace, stuck)
		if err != nil {
			return false, "", err
		}
		return eventCount(events, "LoadBalancerPendingDone") > 0, describeEvents(events), nil
	})
	s.deleteService(t, testNamespace, stuck)
	s.deleteService(t, testNamespace, bystander)
}

// restartCCM replaces the running CCM with one started with extra flags (none: the suite's own).
func (s *suite) restartCCM(t *testing.T, extra ...string) {
	t.Helper()
	s.ccm.stop()
	s.ccm.extraArgs = extra
	if err := s.ccm.start(s.ctx); err != nil {
		t.Fatal(err)
	}
}
