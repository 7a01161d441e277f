// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package lb

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

func TestSummaryListsPlanChangesInAFewWords(t *testing.T) {
	tls := func(v string) Secrets { return Secrets{webTLS: testTLS(v)} }
	name := string(testService().UID)
	tests := []struct {
		name          string
		before, after *model.Spec // before nil: create
		want          string
	}{
		{"no change says nothing",
			mustDesired(t, testService(), nodes(1), nil), mustDesired(t, testService(), nodes(1), nil), ""},
		{"create counts what is created",
			nil, mustDesired(t, testService(), nodes(1, 2), nil),
			fmt.Sprintf(`load balancer %q: + load balancer %s: 1 listener, 1 backend set, 0 certificates`, name, name)},
		{"a node joining adds one backend",
			mustDesired(t, testService(), nodes(1, 2), nil), mustDesired(t, testService(), nodes(1, 2, 3), nil),
			fmt.Sprintf(`load balancer %q: ~ backend set TCP-80: +1 backend`, name)},
		{"a node swapped for another",
			mustDesired(t, testService(), nodes(1, 2), nil), mustDesired(t, testService(), nodes(1, 3), nil),
			fmt.Sprintf(`load balancer %q: ~ backend set TCP-80: +1 backend, -1 backend`, name)},
		{"a port added is a backend set and a listener",
			mustDesired(t, testService(), nodes(1), nil),
			mustDesired(t, testService(withPorts(tcpPort("http", 80, 30080), tcpPort("alt", 8080, 30880))), nodes(1), nil),
			fmt.Sprintf(`load balancer %q: + backend set TCP-8080; + listener TCP-8080`, name)},
		{"a rotated certificate is created, switched to, and the old one deleted",
			mustDesired(t, tlsService(), nodes(1), tls("v1")), mustDesired(t, tlsService(), nodes(1), tls("v2")),
			fmt.Sprintf(`load balancer %q: + certificate %s; ~ listener TCP-443: TLS.Certificate: %q → %q; - certificate %s`,
				name, certName("v2"), certName("v1"), certName("v2"), certName("v1"))},
		{"a health check change names the field",
			mustDesired(t, testService(), nodes(1), nil),
			mustDesired(t, testService(withAnnotation(annotation.HealthCheckRetries, "5")), nodes(1), nil),
			fmt.Sprintf(`load balancer %q: ~ backend set TCP-80: HealthCheck.Retries: 3 → 5`, name)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var observed *model.Spec
			if tc.before != nil {
				observed = asObserved(tc.before)
			}
			plan, err := Diff(observed, tc.after)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, Summary(plan, nil)); diff != "" {
				t.Errorf("Summary (-want +got):\n%s\nplan:\n%s", diff, plan)
			}
		})
	}
}

func TestSummaryOfFailedApplySaysWhatWasAndWasNotApplied(t *testing.T) {
	add := model.Change{Op: model.OpCreate, Name: "TCP-8080", After: model.BackendSet{Name: "TCP-8080"}}
	listener := model.Change{Op: model.OpCreate, Name: "TCP-8080", After: model.Listener{Name: "TCP-8080"}}
	nodes := model.Change{Op: model.OpUpdate, Name: "TCP-80",
		Before: model.BackendSet{Name: "TCP-80", Backends: []model.Backend{{IP: "10.0.0.1", Port: 30080}}},
		After:  model.BackendSet{Name: "TCP-80", Backends: []model.Backend{{IP: "10.0.0.1", Port: 30080}, {IP: "10.0.0.2", Port: 30080}}}}
	aerr := &applyError{LoadBalancerID: "ocid1.loadbalancer.oc1.phx.x", Completed: []model.Change{nodes},
		Failed: []failedChange{{Change: add, Err: errors.New("work request failed: quota")}}, Skipped: []model.Change{listener}}

	got := Summary(nil, fmt.Errorf("ensure: %w", aerr))
	want := "load balancer ocid1.loadbalancer.oc1.phx.x: 1 of 3 change(s) failed: applied ~ backend set TCP-80: +1 backend; " +
		"FAILED + backend set TCP-8080 (work request failed: quota); not attempted + listener TCP-8080"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Summary (-want +got):\n%s", diff)
	}
	if got := Summary(&model.Plan{Changes: []model.Change{add}}, errors.New("list load balancers: 500")); got != "" {
		t.Errorf("Summary of an error that applied nothing = %q, want empty (the caller reports the error)", got)
	}
}

func TestSummaryIsCutToOneKiBWithACountOfTheRest(t *testing.T) {
	plan := &model.Plan{Name: "web"}
	for i := range 100 {
		plan.Changes = append(plan.Changes, model.Change{Op: model.OpCreate, Name: fmt.Sprintf("TCP-%d", 10000+i),
			After: model.Listener{Name: fmt.Sprintf("TCP-%d", 10000+i)}})
	}
	got := Summary(plan, nil)
	if len(got) > maxSummaryBytes {
		t.Errorf("summary is %d bytes, want at most %d", len(got), maxSummaryBytes)
	}
	shown := strings.Count(got, "+ listener")
	if want := fmt.Sprintf("; … and %d more", 100-shown); !strings.HasSuffix(got, want) || shown == 0 {
		t.Errorf("summary %q shows %d changes and does not end in %q", got, shown, want)
	}
}
