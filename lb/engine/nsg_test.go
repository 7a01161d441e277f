// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// nsgs adds n network security groups to the tenancy's VCN and returns their OCIDs.
func (e *env) nsgs(n int) []string {
	var out []string
	for range n {
		out = append(out, *e.srv.AddNetworkSecurityGroup(core.NetworkSecurityGroup{VcnId: &e.seeded.VCN}).Id)
	}
	return out
}

func TestNSGsNotListedInTheAnnotationAreLeftAlone(t *testing.T) {
	// The groups' OCIDs, one server's, by name: the steps are written before the server exists.
	const (
		user = "user"
		a    = "a"
		b    = "b"
	)
	type step struct {
		name       string
		addUser    bool   // a user attaches an NSG of their own first
		annotation string // "-" leaves the annotation out
		want       []string
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{name: "created without the annotation", steps: []step{
			{name: "create", annotation: "-", want: nil},
			{name: "absent: the user's NSG stays", addUser: true, annotation: "-", want: []string{user}},
			{name: "listed NSGs join the user's", annotation: a + "," + b, want: []string{a, b, user}},
			{name: "one removed from the annotation is detached", annotation: a, want: []string{a, user}},
			{name: "annotation removed: ours detached, the user's stays", annotation: "-", want: []string{user}},
		}},
		{name: "created with the annotation", steps: []step{
			{name: "create", annotation: a, want: []string{a}},
			{name: "the user's NSG stays", addUser: true, annotation: a, want: []string{a, user}},
			{name: "empty annotation detaches ours only", annotation: "", want: []string{user}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ids := e.nsgs(3)
			ocid := strings.NewReplacer(user, ids[0], a, ids[1], b, ids[2])
			for _, s := range tc.steps {
				if s.addUser {
					e.srv.EditLoadBalancer(e.only(t).ID, func(l *loadbalancer.LoadBalancer) {
						l.NetworkSecurityGroupIds = append(l.NetworkSecurityGroupIds, ids[0])
					})
				}
				svc := service()
				if s.annotation != "-" {
					svc = service(annotate(annotation.NetworkSecurityGroups, ocid.Replace(s.annotation)))
				}
				e.ensure(t, svc, readyNodes(1), nil)
				var want []string
				for _, name := range s.want {
					want = append(want, ocid.Replace(name))
				}
				if diff := cmp.Diff(want, e.only(t).NetworkSecurityGroups, compareEmpty); diff != "" {
					t.Fatalf("%s: NSGs (-want +got):\n%s", s.name, diff)
				}
			}
		})
	}
}

// TestNSGsWithAUsersBeyondFiveAreAValidationErrorBeforeAnyWrite: the Service's NSGs and those a
// user attached together exceed OCI's five per load balancer; OCI (and ocitest) would refuse the
// UpdateNetworkSecurityGroups with 400 LimitExceeded, after the plan's other changes, so the
// plan is refused first, naming the annotation and how many it may list.
func TestNSGsWithAUsersBeyondFiveAreAValidationErrorBeforeAnyWrite(t *testing.T) {
	e := newEnv(t)
	e.ensure(t, service(), readyNodes(1), nil)
	users := e.nsgs(2)
	e.srv.EditLoadBalancer(e.only(t).ID, func(l *loadbalancer.LoadBalancer) {
		l.NetworkSecurityGroupIds = users
	})
	ours := e.nsgs(4)
	before := e.srv.Calls()
	_, err := e.r.Ensure(ctx, service(annotate(annotation.NetworkSecurityGroups, strings.Join(ours, ",")), ports(80, 8080)), readyNodes(1), nil)
	var verr *lb.ValidationError
	if !errors.As(err, &verr) || verr.Problems[0].Field != string(annotation.NetworkSecurityGroups) ||
		!strings.Contains(verr.Problems[0].Allowed, "at most 3 OCIDs") {
		t.Fatalf("Ensure = %v, want a ValidationError on %s allowing at most 3", err, annotation.NetworkSecurityGroups)
	}
	if n := e.srv.Calls().Since(before).Class(ocitest.ClassWrite); n != 0 {
		t.Errorf("the refused plan made %d writes, want none", n)
	}
	e.ensure(t, service(annotate(annotation.NetworkSecurityGroups, strings.Join(ours[:3], ","))), readyNodes(1), nil)
	if n := len(e.only(t).NetworkSecurityGroups); n != 5 {
		t.Errorf("%d NSGs after three of ours, want 5", n)
	}
}

// compareEmpty compares lists of NSG OCIDs as sets (the product sorts them; generated OCIDs sort
// in no order a test can write down), nil and empty alike.
var compareEmpty = cmp.Comparer(func(x, y []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(x)), slices.Sorted(slices.Values(y)))
})

func TestFrontendNSGIsAttachedByTheCreateAndDetachedWhenNoLongerReturned(t *testing.T) {
	var calls []string
	var answer string
	e := newEnv(t, func(s *envSettings) {
		s.frontendNSG = func(_ context.Context, spec *model.Spec, create bool) (string, error) {
			calls = append(calls, fmt.Sprintf("%s create=%v", spec.Owner.Service, create))
			return answer, nil
		}
	})
	ids := e.nsgs(2)
	a, frontend := ids[0], ids[1]
	answer = frontend
	svc := service(annotate(annotation.NetworkSecurityGroups, a))
	_, created := e.ensure(t, svc, readyNodes(1), nil)
	if got := created.Op("UpdateNetworkSecurityGroups") + created.Op("UpdateLoadBalancer"); got != 0 {
		t.Errorf("create made %d NSG or settings updates, want 0: the create attaches the frontend NSG\ncalls:\n%s", got, created)
	}
	want := []string{a, frontend}
	if diff := cmp.Diff(want, e.only(t).NetworkSecurityGroups, compareEmpty); diff != "" {
		t.Errorf("NSGs after create (-want +got):\n%s", diff)
	}
	_, again := e.ensure(t, svc, readyNodes(1), nil)
	if again.Class(ocitest.ClassWrite) != 0 {
		t.Errorf("an unchanged Service wrote:\n%s", again)
	}
	answer = "" // e.g. the Service left mode NSG: the frontend NSG was oci-ccm's, so it is detached
	e.ensure(t, svc, readyNodes(1), nil)
	if diff := cmp.Diff(want[:1], e.only(t).NetworkSecurityGroups); diff != "" {
		t.Errorf("NSGs once no frontend NSG is returned (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(slices.Repeat([]string{"default/web create=true"}, 3), calls); diff != "" {
		t.Errorf("FrontendNSG calls, want one per Ensure for the Service, allowed to create (-want +got):\n%s", diff)
	}
}

// TestPlanAndDriftCheckNeverAskForAFrontendNSGToBeCreated: the dry run and the periodic check
// only read, so they ask Options.FrontendNSG to look the group up, never to make it; a Service
// whose group does not exist yet plans a load balancer without it, and Ensure creates both.
func TestPlanAndDriftCheckNeverAskForAFrontendNSGToBeCreated(t *testing.T) {
	var frontend string // the group Ensure's call "creates"
	var calls []string
	existing := ""
	e := newEnv(t, func(s *envSettings) {
		s.frontendNSG = func(_ context.Context, spec *model.Spec, create bool) (string, error) {
			calls = append(calls, fmt.Sprintf("create=%v", create))
			if create && existing == "" {
				existing = frontend
			}
			return existing, nil
		}
	})
	frontend = e.nsgs(1)[0]
	svc := service()
	e.srv.ResetCalls()
	plan, err := e.r.Plan(t.Context(), svc, readyNodes(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := e.srv.Calls().Class(ocitest.ClassWrite); n != 0 || existing != "" {
		t.Errorf("Plan wrote %d times, frontend NSG %q; want no writes and no group", n, existing)
	}
	if plan.LoadBalancerID != "" || len(plan.Target.NetworkSecurityGroups) != 0 {
		t.Errorf("Plan targets load balancer %q with NSGs %v; want a create without NSGs", plan.LoadBalancerID, plan.Target.NetworkSecurityGroups)
	}
	res, _ := e.ensure(t, svc, readyNodes(1), nil)
	if diff := cmp.Diff([]string{frontend}, e.only(t).NetworkSecurityGroups); diff != "" {
		t.Errorf("NSGs after Ensure (-want +got):\n%s", diff)
	}
	svc.Status.LoadBalancer = *res.Status
	e.clock.Advance(ocitest.DefaultListingLag) // the check runs once OCI's listings show the load balancer
	report, err := e.r.Drift(t.Context(), []*v1.Service{svc}, readyNodes(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Drifted) != 0 || report.Checked != 1 {
		t.Errorf("drift check: drifted %+v, checked %d; want none drifted of 1", report.Drifted, report.Checked)
	}
	if diff := cmp.Diff([]string{"create=false", "create=true", "create=false"}, calls); diff != "" {
		t.Errorf("FrontendNSG calls by Plan, Ensure, Drift (-want +got):\n%s", diff)
	}
}

func TestFrontendNSGBeyondTheLoadBalancersFiveIsAValidationError(t *testing.T) {
	e := newEnv(t, func(s *envSettings) {
		s.frontendNSG = func(context.Context, *model.Spec, bool) (string, error) {
			return "ocid1.networksecuritygroup.oc1.phx.frontend", nil
		}
	})
	svc := service(annotate(annotation.NetworkSecurityGroups, "ocid1.networksecuritygroup.oc1.phx.a,ocid1.networksecuritygroup.oc1.phx.b,"+
		"ocid1.networksecuritygroup.oc1.phx.c,ocid1.networksecuritygroup.oc1.phx.d,ocid1.networksecuritygroup.oc1.phx.e"))
	_, err := e.r.Ensure(t.Context(), svc, readyNodes(1), nil)
	var ve *lb.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Field != string(annotation.NetworkSecurityGroups) {
		t.Fatalf("Ensure = %v, want a ValidationError naming %s", err, annotation.NetworkSecurityGroups)
	}
	if n := len(e.srv.LoadBalancers()); n != 0 {
		t.Errorf("%d load balancers created, want none", n)
	}
}

func TestDriftCheckCountsTheFrontendNSGAsWanted(t *testing.T) {
	var frontend string
	e := newEnv(t, func(s *envSettings) {
		s.frontendNSG = func(context.Context, *model.Spec, bool) (string, error) {
			return frontend, nil
		}
	})
	frontend = e.nsgs(1)[0]
	svc := service()
	res, _ := e.ensure(t, svc, readyNodes(1), nil)
	svc.Status.LoadBalancer = *res.Status
	e.clock.Advance(ocitest.DefaultListingLag) // the check runs once OCI's listings show the load balancer
	report, err := e.r.Drift(t.Context(), []*v1.Service{svc}, readyNodes(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Drifted) != 0 || report.Checked != 1 {
		t.Errorf("drift check of an unchanged load balancer in its frontend NSG: drifted %+v, checked %d; want none drifted of 1", report.Drifted, report.Checked)
	}
}
