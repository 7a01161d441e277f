// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// plan runs Reconciler.Plan and returns the plan and the OCI calls it made.
func (e *env) plan(tb testing.TB, svc *v1.Service, nodes []*v1.Node, secrets lb.Secrets) (*model.Plan, ocitest.Calls) {
	tb.Helper()
	return counted(tb, e, "Plan", func() (*model.Plan, error) { return e.r.Plan(ctx, svc, nodes, secrets) })
}

// steps names a plan's changes, e.g. `+ listener "TCP-80"`.
func steps(p *model.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, c.String())
	}
	return out
}

func TestPlanIsADryRunOfEnsureAndWritesNothing(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name      string
		svc       *v1.Service
		nodes     []*v1.Node
		wantEmpty bool
	}{
		{name: "no load balancer yet: one create", svc: service(), nodes: readyNodes(2)},
		{name: "unchanged: nothing to do", svc: service(), nodes: readyNodes(2), wantEmpty: true},
		{name: "node added: backend sets change", svc: service(), nodes: readyNodes(3)},
		{name: "port 80 moves to 8080", svc: service(ports(8080, 443)), nodes: readyNodes(3)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lbsBefore := len(e.srv.LoadBalancers())
			planned, calls := e.plan(t, tc.svc, tc.nodes, nil)
			if w := writes(calls); len(w) != 0 {
				t.Errorf("Plan made writes %v, want none\n%s", w, calls)
			}
			if n := len(e.srv.LoadBalancers()); n != lbsBefore {
				t.Errorf("Plan changed the number of load balancers from %d to %d", lbsBefore, n)
			}
			if planned.Empty() != tc.wantEmpty {
				t.Fatalf("Plan empty = %v, want %v:\n%s", planned.Empty(), tc.wantEmpty, planned)
			}
			// What Plan promised is what Ensure does.
			res, _ := e.ensure(t, tc.svc, tc.nodes, nil)
			if diff := cmp.Diff(steps(planned), steps(res.Plan)); diff != "" {
				t.Errorf("Ensure applied another plan than Plan showed (-planned +applied):\n%s", diff)
			}
			if again, _ := e.plan(t, tc.svc, tc.nodes, nil); !again.Empty() {
				t.Errorf("Plan after Ensure is not empty:\n%s", again)
			}
		})
	}
}

func TestPlanRefusesWhatEnsureRefusesAndWritesNothing(t *testing.T) {
	e := newEnv(t)
	e.ensure(t, service(), readyNodes(1), nil)
	mine := e.only(t).ID
	other := newReconcilerFor(t, e, "other-cluster")
	tests := []struct {
		name  string
		r     *engine.Reconciler
		svc   *v1.Service
		check func(error) bool
	}{
		{"another cluster's load balancer", other, service(annotate(annotation.AdoptLoadBalancerID, mine)),
			func(err error) bool { return errors.Is(err, engine.ErrNotOwned) }},
		{"an immutable change", e.r, service(annotate(annotation.Internal, "true")), func(err error) bool {
			var ierr *lb.ImmutableError
			return errors.As(err, &ierr)
		}},
		{"an invalid Service", e.r, service(annotate(annotation.ShapeFlexMax, "lots")), func(err error) bool {
			var verr *lb.ValidationError
			return errors.As(err, &verr)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := e.srv.Calls()
			p, err := tc.r.Plan(ctx, tc.svc, readyNodes(1), nil)
			calls := e.srv.Calls().Since(before)
			if p != nil || !tc.check(err) {
				t.Errorf("Plan = %v, %v; want the error Ensure gives", p, err)
			}
			if w := writes(calls); len(w) != 0 {
				t.Errorf("Plan made writes %v, want none", w)
			}
		})
	}
}

// newReconcilerFor is a second Reconciler on e's tenancy, for the cluster named cluster.
func newReconcilerFor(tb testing.TB, e *env, cluster string) *engine.Reconciler {
	tb.Helper()
	r, err := engine.NewReconciler(engine.Options{ListingLag: ocitest.DefaultListingLag, Config: withCluster(e.cfg, cluster), Client: e.oci.LoadBalancers, PublicIPs: e.oci.VirtualNetwork})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}
