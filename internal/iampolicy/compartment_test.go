// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package iampolicy_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/internal/iampolicy"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// lbCompartment names the compartment the Services of these tests put their load balancers in.
const lbCompartment = "lbs"

// documentedForCompartment returns the README's statements for a load balancer compartment,
// for dynamic group "ccm" and compartment lbCompartment.
func documentedForCompartment(t *testing.T) []string {
	t.Helper()
	st, err := iampolicy.FromFileUnder(readme, iampolicy.OtherCompartmentHeading)
	if err != nil {
		t.Fatal(err)
	}
	return iampolicy.Substitute(st, "ccm", lbCompartment)
}

// inCompartment returns svc annotated to put its load balancer in w's lbCompartment.
func (w *world) inCompartment(svc *v1.Service) *v1.Service {
	svc.Annotations[string(annotation.CompartmentID)] = w.srv.Compartments()[lbCompartment]
	return svc
}

// compartmentSuite is what the CCM does for Services in another compartment: a load balancer
// (with a reserved IP and an NSG, which stay in the cluster's compartment) and a network load
// balancer created there, found again by a restarted CCM without a second create, and deleted.
var compartmentSuite = []step{
	{"EnsureLoadBalancer (load balancer in another compartment)", func(ctx context.Context, w *world) error {
		_, err := w.lbs().EnsureLoadBalancer(ctx, "iam-cluster", w.inCompartment(w.service(80)), w.nodes[:2])
		return err
	}},
	{"EnsureLoadBalancer (network load balancer in another compartment)", func(ctx context.Context, w *world) error {
		_, err := w.lbs().EnsureLoadBalancer(ctx, "iam-cluster", w.inCompartment(w.nlbService()), w.nodes[:2])
		return err
	}},
	{"restart, GetLoadBalancer and EnsureLoadBalancer (both found there)", func(ctx context.Context, w *world) error {
		w.cloud = w.restart()
		for _, svc := range []*v1.Service{w.inCompartment(w.service(80)), w.inCompartment(w.nlbService())} {
			if _, exists, err := w.lbs().GetLoadBalancer(ctx, "iam-cluster", svc); err != nil || !exists {
				return fmt.Errorf("GetLoadBalancer of %s after a restart: exists %v, %w", svc.Name, exists, err)
			}
			if _, err := w.lbs().EnsureLoadBalancer(ctx, "iam-cluster", svc, w.nodes[:2]); err != nil {
				return err
			}
		}
		return nil
	}},
	{"EnsureLoadBalancerDeleted (both)", func(ctx context.Context, w *world) error {
		for _, svc := range []*v1.Service{w.inCompartment(w.service(80)), w.inCompartment(w.nlbService())} {
			if err := w.lbs().EnsureLoadBalancerDeleted(ctx, "iam-cluster", svc); err != nil {
				return err
			}
		}
		return nil
	}},
}

func TestDocumentedStatementsForAnotherCompartmentAreSufficient(t *testing.T) {
	w := newWorld(t, append(documented(t), documentedForCompartment(t)...), lbCompartment)
	if step, err := runSteps(t, w, compartmentSuite); err != nil {
		t.Fatalf("%s failed under the documented policy: %v\ndenials: %+v", step, err, w.srv.Denials())
	}
	if d := w.srv.Denials(); len(d) != 0 {
		t.Errorf("calls refused under the documented policy: %+v", d)
	}
	calls := w.srv.Calls()
	if n, m := calls.Op("CreateLoadBalancer"), calls.Op(ocitest.NLB("CreateNetworkLoadBalancer")); n != 1 || m != 1 {
		t.Errorf("%d CreateLoadBalancer, %d CreateNetworkLoadBalancer; want one each (a restart must find them):\n%s", n, m, calls)
	}
	if n, m := calls.Op("DeleteLoadBalancer"), calls.Op(ocitest.NLB("DeleteNetworkLoadBalancer")); n != 1 || m != 1 {
		t.Errorf("%d DeleteLoadBalancer, %d DeleteNetworkLoadBalancer; want one each:\n%s", n, m, calls)
	}
}

// needsInCompartment says, for each statement for another compartment, which call fails first
// without it.
var needsInCompartment = map[string]string{
	"manage load-balancers":         "ListLoadBalancers",
	"manage network-load-balancers": ocitest.NLB("ListNetworkLoadBalancers"),
	"use vnics":                     "CreateLoadBalancer",
}

func TestEveryStatementForAnotherCompartmentIsNeeded(t *testing.T) {
	extra := documentedForCompartment(t)
	for i, st := range extra {
		t.Run(grant(t, st), func(t *testing.T) {
			wantOp, ok := needsInCompartment[grant(t, st)]
			if !ok {
				t.Fatalf("no expectation for %q: add which call fails without it to needsInCompartment", st)
			}
			w := newWorld(t, append(documented(t), slices.Delete(slices.Clone(extra), i, i+1)...), lbCompartment)
			step, err := runSteps(t, w, compartmentSuite)
			assertDenied(t, w, step, err, wantOp)
		})
	}
}

// With only the cluster's compartment in the policy, a Service naming another fails with an
// error that names that compartment and the statement to add, and nothing is created.
func TestPolicyForTheClusterCompartmentAloneRefusesAnotherNamingIt(t *testing.T) {
	w := newWorld(t, documented(t), lbCompartment)
	step, err := runSteps(t, w, compartmentSuite)
	assertDenied(t, w, step, err, "ListLoadBalancers")
	id := w.srv.Compartments()[lbCompartment]
	want := fmt.Sprintf("\"Allow dynamic-group <the CCM's group> to manage load-balancers in compartment id %s\"", id)
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name the statement %s", err, want)
	}
	if n := len(w.srv.LoadBalancers()); n != 0 {
		t.Errorf("%d load balancers created", n)
	}
}
