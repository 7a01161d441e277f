// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

import (
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/cloud-provider/api"

	orchestrator "github.com/oci-ccm/oci-ccm/ccm/service"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// TestEnsureLoadBalancerHandsBackTheWorkerWhileOCIWorks: with --load-balancer-max-wait, a sync
// whose create OCI has not finished returns the service controller's retry error after that wait
// (retry after the same), records a LoadBalancerPending Event and the pending condition in the
// Service's status; the first sync that completes once OCI finished removes the condition.
func TestEnsureLoadBalancerHandsBackTheWorkerWhileOCIWorks(t *testing.T) {
	e := newEnv(t)
	const maxWait = 200 * time.Millisecond
	cloud, err := New(e.cfg, Options{ClusterName: "test-cluster", Client: e.client, LoadBalancerMaxWait: maxWait, ListingLag: noListingLag})
	if err != nil {
		t.Fatal(err)
	}
	if err := cloud.svc.Rules().Prime(nil); err != nil {
		t.Fatal(err)
	}
	svc := service("web", nil, 80)
	client := fake.NewClientset(svc)
	recorder := record.NewFakeRecorder(10)
	cloud.svc.Initialize(client, recorder, nil)
	lbs, _ := cloud.LoadBalancer()
	e.srv.HoldWorkRequests(func(wr ocitest.WorkRequestInfo) bool { return wr.Operation == "CreateLoadBalancer" })

	_, err = lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", svc, e.nodes)
	var retry *api.RetryError
	if !errors.As(err, &retry) || retry.RetryAfter() != maxWait || !strings.Contains(err.Error(), "still in progress") {
		t.Fatalf("EnsureLoadBalancer with the create running: got %v, want a retry error after %s saying what is pending", err, maxWait)
	}
	select {
	case ev := <-recorder.Events:
		if !strings.HasPrefix(ev, "Normal "+orchestrator.EventPending+" ") || !strings.Contains(ev, "+ load balancer") {
			t.Errorf("Event %q, want a %s naming the create", ev, orchestrator.EventPending)
		}
	default:
		t.Errorf("no %s Event", orchestrator.EventPending)
	}
	current, err := client.CoreV1().Services("default").Get(ctxFor(t), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := meta.FindStatusCondition(current.Status.Conditions, orchestrator.ConditionPending)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != orchestrator.ReasonPending || !strings.Contains(c.Message, "+ load balancer") {
		t.Fatalf("status condition %+v, want %s True naming the create", c, orchestrator.ConditionPending)
	}

	e.srv.CompleteWorkRequests()
	var status error
	for range 100 { // the background work ends within a few polls of the completion
		if _, status = lbs.EnsureLoadBalancer(ctxFor(t), "test-cluster", current, e.nodes); status == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if status != nil {
		t.Fatalf("EnsureLoadBalancer once OCI finished: %v", status)
	}
	if got, err := client.CoreV1().Services("default").Get(ctxFor(t), "web", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else if c := meta.FindStatusCondition(got.Status.Conditions, orchestrator.ConditionPending); c != nil {
		t.Errorf("status condition %+v still there after a completed sync", c)
	}
}
