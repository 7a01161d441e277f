// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/common"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// workloadReconciler is a Reconciler on e's OCI whose workload identities are further users of
// the server, one per namespace/ServiceAccount, so the calls made as each can be told apart.
func workloadReconciler(t *testing.T, e *env) (*engine.Reconciler, map[string]ocitest.Principal, *int) {
	t.Helper()
	principals := map[string]ocitest.Principal{}
	asked := 0
	r := e.settledReconciler(t, engine.Options{WorkloadClients: func(_ context.Context, namespace, sa string) (*engine.WorkloadClients, error) {
		asked++
		if sa == "missing" {
			return nil, errors.New(`serviceaccounts "missing" not found`)
		}
		creds, err := e.srv.NewCredentials()
		if err != nil {
			return nil, err
		}
		principals[namespace+"/"+sa] = creds.Principal()
		p := common.NewRawConfigurationProvider(creds.TenancyID, creds.UserID, e.srv.Region(), creds.Fingerprint, string(creds.PrivateKeyPEM), nil)
		lbs, nlbs, err := e.oci.LoadBalancersAs(p)
		if err != nil {
			return nil, err
		}
		return &engine.WorkloadClients{LoadBalancers: lbs, NetworkLoadBalancers: nlbs}, nil
	}})
	return r, principals, &asked
}

func TestWorkloadServiceAccountMakesTheLoadBalancerCallsAsTheWorkload(t *testing.T) {
	e := newEnv(t)
	r, principals, asked := workloadReconciler(t, e)
	ccm := ocitest.Principal{Kind: ocitest.PrincipalUser, Name: mustUser(t, e)}

	svc := service(annotate(annotation.WorkloadServiceAccount, "lb-owner"))
	res, err := r.Ensure(ctx, svc, readyNodes(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	workload := principals["default/lb-owner"]
	by := e.srv.CallsBy(workload)
	if by.Op("CreateLoadBalancer") != 1 || by.Op("GetLoadBalancer")+by.Op("ListLoadBalancers") == 0 {
		t.Errorf("calls as the workload:\n%s\nwant the create and the reads", by)
	}
	for _, op := range e.srv.CallsBy(ccm).Ops() {
		if strings.Contains(op, "LoadBalancer") || strings.Contains(op, "WorkRequest") {
			t.Errorf("%s made as the CCM, want every load balancer call as the workload", op)
		}
	}
	// A second reconcile and the deletion go through the same workload clients.
	if _, err := r.Ensure(ctx, svc, readyNodes(3), nil); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(ctx, svc); err != nil {
		t.Fatal(err)
	}
	if got := e.srv.CallsBy(workload).Op("DeleteLoadBalancer"); got != 1 {
		t.Errorf("DeleteLoadBalancer as the workload = %d, want 1", got)
	}
	if *asked != 1 {
		t.Errorf("WorkloadClients asked %d times, want once for the ServiceAccount", *asked)
	}
	if res.LoadBalancerID == "" {
		t.Error("no load balancer OCID")
	}
}

func TestServicesWithoutTheAnnotationStayTheCCMs(t *testing.T) {
	e := newEnv(t)
	r, principals, asked := workloadReconciler(t, e)
	if _, err := r.Ensure(ctx, service(), readyNodes(1), nil); err != nil {
		t.Fatal(err)
	}
	if *asked != 0 || len(principals) != 0 || len(e.srv.Principals()) != 1 {
		t.Errorf("WorkloadClients asked %d times, principals %v; want no workload for a Service without the annotation", *asked, e.srv.Principals())
	}
}

func TestWorkloadClientsErrorChangesNothing(t *testing.T) {
	e := newEnv(t)
	r, _, _ := workloadReconciler(t, e)
	before := e.srv.Calls()
	_, err := r.Ensure(ctx, service(annotate(annotation.WorkloadServiceAccount, "missing")), readyNodes(1), nil)
	if err == nil || !strings.Contains(err.Error(), "default/missing") || !strings.Contains(err.Error(), string(annotation.WorkloadServiceAccount)) {
		t.Errorf("err = %v, want one naming the ServiceAccount and the annotation", err)
	}
	if calls := e.srv.Calls().Since(before); calls.Class(ocitest.ClassWrite) != 0 {
		t.Errorf("writes after the refusal:\n%s", calls)
	}
}

func TestWorkloadServiceAccountWithoutWorkloadClientsIsAnError(t *testing.T) {
	e := newEnv(t)
	_, err := e.r.Ensure(ctx, service(annotate(annotation.WorkloadServiceAccount, "lb-owner")), readyNodes(1), nil)
	if err == nil || !strings.Contains(err.Error(), "WorkloadClients") {
		t.Errorf("err = %v, want one saying the Reconciler has no WorkloadClients", err)
	}
	if n := e.srv.Calls().Class(ocitest.ClassWrite); n != 0 {
		t.Errorf("%d writes, want none", n)
	}
}

// mustUser is the user OCID of e's default credentials.
func mustUser(t *testing.T, e *env) string {
	t.Helper()
	u, err := e.srv.ConfigurationProvider().UserOCID()
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestDriftCheckSkipsServicesWhoseCallsAreAWorkloads(t *testing.T) {
	e := newEnv(t)
	r, _, _ := workloadReconciler(t, e)
	svc := service(annotate(annotation.WorkloadServiceAccount, "lb-owner"))
	res, err := r.Ensure(ctx, svc, readyNodes(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer = *res.Status
	report, err := r.Drift(ctx, []*v1.Service{svc}, readyNodes(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if report.Checked != 0 || report.Skipped["calls made as a workload identity"] != 1 || len(report.Drifted) != 0 {
		t.Errorf("report = %+v, want the Service skipped as a workload identity's", report)
	}
}
