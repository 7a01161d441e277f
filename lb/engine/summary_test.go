// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oci-ccm/oci-ccm/lb/internal/text"
	"github.com/oci-ccm/oci-ccm/lb/model"
)

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
	if len(got) > text.MaxSummary {
		t.Errorf("summary is %d bytes, want at most %d", len(got), text.MaxSummary)
	}
	shown := strings.Count(got, "+ listener")
	if want := fmt.Sprintf("; … and %d more", 100-shown); !strings.HasSuffix(got, want) || shown == 0 {
		t.Errorf("summary %q shows %d changes and does not end in %q", got, shown, want)
	}
}

func TestTheSummaryEventSaysTheBackendsAreASubset(t *testing.T) {
	plan := &model.Plan{Name: "web", Target: &model.Spec{Subset: model.Subset{Nodes: 256, Eligible: 500}},
		Changes: []model.Change{{Op: model.OpCreate, Name: "web", After: &model.Spec{Name: "web"}}}}
	if got := Summary(plan, nil); !strings.Contains(got, "(backends: 256 of 500 eligible Nodes, a subset within OCI's limits or loadBalancer.backendSubset)") {
		t.Errorf("Summary = %q, want it to say the backends are 256 of 500 Nodes", got)
	}
}
