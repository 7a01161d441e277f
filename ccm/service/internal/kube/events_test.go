// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package kube

import (
	"context"
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"

	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/seclist"
)

func TestRecordAdoptedPutsOneEventOnEachServiceNeedingATakenOverRule(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	web := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	api := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "api"}}
	factory := informers.NewSharedInformerFactory(fake.NewClientset(web, api), 0)
	w := NewWatcher(ctx, nil, factory)
	factory.Start(ctx.Done())
	if !w.WaitForSync(ctx) {
		t.Fatal("caches did not sync")
	}
	events := record.NewFakeRecorder(10)
	rule := seclist.Rule{Direction: seclist.Ingress, CIDR: "10.0.1.0/24", Ports: seclist.PortRange{Min: 30080, Max: 30080}}
	RecordAdopted(events, w, []seclist.Adopted{
		{ListID: "ocid1.securitylist.oc1..nodes", Rule: rule, Services: []types.NamespacedName{{Namespace: "shop", Name: "api"},
			{Namespace: "shop", Name: "gone"}, {Namespace: "shop", Name: "web"}}},
		{ListID: "ocid1.securitylist.oc1..lb", Rule: rule, Services: []types.NamespacedName{{Namespace: "shop", Name: "web"}}},
	})
	got := map[string]bool{}
	for len(events.Events) > 0 {
		got[<-events.Events] = true
	}
	if len(got) != 2 {
		t.Fatalf("events %v, want one for shop/web and one for shop/api (shop/gone is not in the cache)", got)
	}
	for e := range got {
		if !strings.HasPrefix(e, "Normal "+EventRulesAdopted+" ") {
			t.Errorf("event %q, want a Normal %s", e, EventRulesAdopted)
		}
	}
	found := false
	for e := range got {
		found = found || strings.Contains(e, "Took over 2 security rule(s)")
	}
	if !found {
		t.Errorf("events %v: shop/web needs both rules, want one event naming 2", got)
	}
	RecordAdopted(nil, w, nil) // no recorder (before Initialize): nothing, no panic
}

// TestRecordPlanTellsAnAcceptedPlanFromAnAppliedOne: a node sync that returned once OCI
// accepted its changes is not reported as applied. No change, or an error before anything was
// applied (the service controller reports it), records nothing.
func TestRecordPlanTellsAnAcceptedPlanFromAnAppliedOne(t *testing.T) {
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cart"}}
	change := &model.Plan{Name: "shop-cart", LoadBalancerID: "ocid1.loadbalancer.oc1..a",
		Changes: []model.Change{{Op: model.OpUpdate, Name: "TCP-80"}}}
	for _, tc := range []struct {
		name string
		res  *engine.Result
		err  error
		want string // the Event's type and reason; "" for none
	}{
		{"applied", &engine.Result{Plan: change}, nil, "Normal " + EventPlanApplied},
		{"accepted", &engine.Result{Plan: change, Accepted: true}, nil, "Normal " + EventPlanAccepted},
		{"failed before any change", nil, errors.New("boom"), ""},
		{"no change", &engine.Result{Plan: &model.Plan{Name: "shop-cart"}}, nil, ""},
	} {
		events := record.NewFakeRecorder(1)
		RecordPlan(events, svc, tc.res, tc.err)
		got := ""
		select {
		case e := <-events.Events:
			f := strings.Fields(e)
			got = f[0] + " " + f[1]
		default:
		}
		if got != tc.want {
			t.Errorf("%s: Event %q, want %q", tc.name, got, tc.want)
		}
	}
}
