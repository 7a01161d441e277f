// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// driftEnv is an env with Services whose load balancers exist, as the service controller left
// them: each Service carries the address its reconcile reported.
type driftEnv struct {
	*env
	nodes    []*v1.Node
	services []*v1.Service
	lbIDs    map[string]string  // Service name → load balancer OCID
	checker  *engine.Reconciler // a second process's, sharing nothing with e's
}

func newDriftEnv(t *testing.T, names ...string) *driftEnv {
	t.Helper()
	e := &driftEnv{env: newEnv(t), nodes: readyNodes(3), lbIDs: map[string]string{}}
	for i, name := range names {
		svc := service(func(s *v1.Service) {
			s.Name = name
			s.UID = types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1))
		})
		res, _ := e.ensure(t, svc, e.nodes, nil)
		svc.Status.LoadBalancer = *res.Status
		e.services = append(e.services, svc)
		e.lbIDs[name] = res.Spec.ID
	}
	e.checker = e.settledReconciler(t, engine.Options{}) // checks run a while after the creates
	return e
}

// check runs one drift check and returns its report and the OCI calls it made.
func (e *driftEnv) check(t *testing.T) (*engine.DriftReport, ocitest.Calls, error) {
	t.Helper()
	before := e.srv.Calls()
	report, err := e.checker.Drift(ctx, e.services, e.nodes, nil)
	return report, e.srv.Calls().Since(before), err
}

func TestDriftCheckFindsExactlyTheLoadBalancersChangedOutOfBand(t *testing.T) {
	tests := []struct {
		name string
		// outOfBand changes OCI behind the CCM's back, as a person in the console would.
		outOfBand func(t *testing.T, e *driftEnv)
		want      []engine.Drift
	}{
		{
			name:      "nothing changed: nothing to requeue",
			outOfBand: func(*testing.T, *driftEnv) {},
		},
		{
			name: "a listener deleted",
			outOfBand: func(t *testing.T, e *driftEnv) {
				driftEdit(t, e, "api", func(l *loadbalancer.LoadBalancer) { delete(l.Listeners, "TCP-80") })
			},
			want: []engine.Drift{{Service: types.NamespacedName{Namespace: "default", Name: "api"}, Reasons: []string{"listener TCP-80 missing"}}},
		},
		{
			name: "a whole load balancer deleted",
			outOfBand: func(t *testing.T, e *driftEnv) {
				if !e.srv.RemoveLoadBalancer(e.lbIDs["web"]) {
					t.Fatal("no load balancer to remove")
				}
			},
			want: []engine.Drift{{Service: types.NamespacedName{Namespace: "default", Name: "web"}, Deleted: true, Reasons: []string{"load balancer deleted"}}},
		},
		{
			name: "a backend removed and a listener added",
			outOfBand: func(t *testing.T, e *driftEnv) {
				driftEdit(t, e, "web", func(l *loadbalancer.LoadBalancer) {
					bs := l.BackendSets["TCP-443"]
					bs.Backends = bs.Backends[1:]
					l.BackendSets["TCP-443"] = bs
					extra := l.Listeners["TCP-80"]
					extra.Name, extra.Port = driftPtr("TCP-8080"), driftPtr(8080)
					l.Listeners["TCP-8080"] = extra
				})
			},
			want: []engine.Drift{{Service: types.NamespacedName{Namespace: "default", Name: "web"},
				Reasons: []string{"backend set TCP-443 changed", "listener TCP-8080 not asked for"}}},
		},
		{
			name: "a load balancer renamed",
			outOfBand: func(t *testing.T, e *driftEnv) {
				driftEdit(t, e, "db", func(l *loadbalancer.LoadBalancer) { l.DisplayName = driftPtr("renamed-in-console") })
			},
			want: []engine.Drift{{Service: types.NamespacedName{Namespace: "default", Name: "db"},
				Reasons: []string{"load balancer renamed to renamed-in-console"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newDriftEnv(t, "web", "api", "db")
			tt.outOfBand(t, e)
			report, calls, err := e.check(t)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.want {
				tt.want[i].UID = driftUID(e.services, tt.want[i].Service.Name)
				if !tt.want[i].Deleted {
					tt.want[i].LoadBalancerID = e.lbIDs[tt.want[i].Service.Name]
				}
			}
			if diff := cmp.Diff(tt.want, report.Drifted, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("drifted (-want +got):\n%s", diff)
			}
			if report.Checked != 3 {
				t.Errorf("checked %d Services, want 3 (skipped: %v)", report.Checked, report.Skipped)
			}
			if got := calls.Total(); got != 1 || calls.Op("ListLoadBalancers") != 1 {
				t.Errorf("a check of one compartment made %d calls, want 1 ListLoadBalancers:\n%s", got, calls)
			}
		})
	}
}

func TestDriftCheckRequeuedServiceConvergesAndIsNotDriftedAgain(t *testing.T) {
	e := newDriftEnv(t, "web")
	driftEdit(t, e, "web", func(l *loadbalancer.LoadBalancer) { delete(l.Listeners, "TCP-443") })
	report, _, err := e.check(t)
	if err != nil || len(report.Drifted) != 1 {
		t.Fatalf("check = %+v, %v; want the web Service drifted", report, err)
	}
	// The requeue makes the service controller reconcile the Service.
	res, _ := e.ensure(t, e.services[0], e.nodes, nil)
	if res.Plan.Empty() {
		t.Fatal("the reconcile after a drift planned nothing")
	}
	report, _, err = e.check(t)
	if err != nil || len(report.Drifted) != 0 {
		t.Errorf("after the reconcile, check = %+v, %v; want no drift", report.Drifted, err)
	}
}

func TestDriftCheckNeverRequeuesServicesItDoesNotManageOrCannotProveGone(t *testing.T) {
	e := newDriftEnv(t, "web")
	class := "example.com/other"
	withAddress := v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{IP: "203.0.113.9"}}}
	others := []*v1.Service{
		// Another controller's Service (spec.loadBalancerClass), with an address of its own.
		service(func(s *v1.Service) {
			s.Name, s.UID, s.Spec.LoadBalancerClass, s.Status.LoadBalancer = "classy", "uid-classy", &class, withAddress
		}),
		// Not of type LoadBalancer.
		service(func(s *v1.Service) { s.Name, s.UID, s.Spec.Type = "plain", "uid-plain", v1.ServiceTypeClusterIP }),
		// Not created yet (no address): the service controller retries its create itself.
		service(func(s *v1.Service) { s.Name, s.UID = "pending", "uid-pending" }),
		// Invalid: its reconcile reports that already.
		service(func(s *v1.Service) {
			s.Name, s.UID, s.Status.LoadBalancer = "invalid", "uid-invalid", withAddress
			s.Annotations[string(annotation.Shape)] = "huge"
		}),
		// Adopted from a compartment that is not listed.
		service(func(s *v1.Service) {
			s.Name, s.UID, s.Status.LoadBalancer = "adopted", "uid-adopted", withAddress
			s.Annotations[string(annotation.AdoptLoadBalancerID)] = "ocid1.loadbalancer.oc1.phx.elsewhere"
		}),
	}
	e.services = append(e.services, others...)
	report, _, err := e.check(t)
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Drifted) != 0 {
		t.Errorf("drifted = %+v, want none", report.Drifted)
	}
	want := map[string]int{"no load balancer yet": 1, "invalid Service": 1, "adopted load balancer not in the listing": 1}
	if diff := cmp.Diff(want, report.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

func TestDriftCheckDeniedListingProvesNothing(t *testing.T) {
	e := newDriftEnv(t, "web", "api")
	// Both load balancers are gone, but the listing answers as a missing IAM policy does.
	for _, id := range e.lbIDs {
		e.srv.RemoveLoadBalancer(id)
	}
	e.srv.InjectFault(ocitest.Fault{Operation: "ListLoadBalancers", Status: http.StatusNotFound, Code: "NotAuthorizedOrNotFound"})
	report, _, err := e.check(t)
	if err == nil {
		t.Fatal("a refused listing returned no error")
	}
	if len(report.Drifted) != 0 {
		t.Errorf("a refused listing requeued %+v; it proves nothing", report.Drifted)
	}
	if report.Skipped["compartment not listed"] != 2 {
		t.Errorf("skipped = %v, want both Services under \"compartment not listed\"", report.Skipped)
	}
}

// TestDriftCheckCostsOneListPerPage: 1,000 load balancers at OCI's page size of 100 are checked
// with 10 calls, all ListLoadBalancers, and the two changed out of band are found.
func TestDriftCheckCostsOneListPerPage(t *testing.T) {
	const n = 1000
	e := newDriftEnvOf(t, n)

	report, calls, err := e.check(t)
	if err != nil {
		t.Fatal(err)
	}
	if report.Checked != n || len(report.Drifted) != 0 {
		t.Fatalf("checked %d, drifted %+v; want %d checked and none drifted (skipped %v)", report.Checked, report.Drifted, n, report.Skipped)
	}
	if got, lists := calls.Total(), calls.Op("ListLoadBalancers"); got != n/100 || lists != got {
		t.Errorf("a check of %d load balancers made %d calls (%d lists), want %d lists:\n%s", n, got, lists, n/100, calls)
	}
	t.Logf("%d load balancers checked with %d calls", n, calls.Total())

	driftEdit(t, e, "svc-500", func(l *loadbalancer.LoadBalancer) { delete(l.Listeners, "TCP-80") })
	e.srv.RemoveLoadBalancer(e.lbIDs["svc-900"])
	report, calls, err = e.check(t)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range report.Drifted {
		got = append(got, d.Service.Name+": "+d.Reason())
	}
	if diff := cmp.Diff([]string{"svc-500: listener TCP-80 missing", "svc-900: load balancer deleted"}, got); diff != "" {
		t.Errorf("drifted (-want +got):\n%s", diff)
	}
	if calls.Total() != n/100 {
		t.Errorf("the second check made %d calls, want %d", calls.Total(), n/100)
	}
}

// newDriftEnvOf is a driftEnv with n Services svc-0 … svc-<n-1> and their load balancers: the
// first made by a reconcile, the others copies of it stored in OCI as if made earlier.
func newDriftEnvOf(t *testing.T, n int) *driftEnv {
	t.Helper()
	e := newDriftEnv(t, "svc-0")
	template, _ := e.srv.LoadBalancer(e.lbIDs["svc-0"])
	for i := 1; i < n; i++ {
		svc := service(func(s *v1.Service) {
			s.Name = fmt.Sprintf("svc-%d", i)
			s.UID = types.UID(fmt.Sprintf("00000000-0000-4000-9000-%012d", i))
		})
		svc.Status = e.services[0].Status
		copied := template
		copied.Id = nil
		copied.DisplayName = driftPtr(string(svc.UID))
		copied.FreeformTags = model.Owner{Cluster: clusterName, Service: "default/" + svc.Name, UID: string(svc.UID)}.Tags()
		e.lbIDs[svc.Name] = *e.srv.AddLoadBalancer(copied).Id
		e.services = append(e.services, svc)
	}
	return e
}

func driftEdit(t *testing.T, e *driftEnv, name string, fn func(*loadbalancer.LoadBalancer)) {
	t.Helper()
	if !e.srv.EditLoadBalancer(e.lbIDs[name], fn) {
		t.Fatalf("no load balancer for %s", name)
	}
}

func driftUID(svcs []*v1.Service, name string) types.UID {
	for _, s := range svcs {
		if s.Name == name {
			return s.UID
		}
	}
	return ""
}

func driftPtr[T any](v T) *T { return &v }
