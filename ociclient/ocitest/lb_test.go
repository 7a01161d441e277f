// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
)

func TestCreateLoadBalancerIsCreatingUntilItsWorkRequestSucceeds(t *testing.T) {
	f := newLBFixture(t, slowWork())
	ctx := testCtx(t)
	resp, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: f.basicLB("svc")})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	wr, err := f.lb.GetWorkRequest(ctx, loadbalancer.GetWorkRequestRequest{WorkRequestId: resp.OpcWorkRequestId})
	if err != nil {
		t.Fatalf("GetWorkRequest: %v", err)
	}
	if wr.LifecycleState != loadbalancer.WorkRequestLifecycleStateAccepted || *wr.Type != "CreateLoadBalancer" || wr.TimeFinished != nil {
		t.Fatalf("fresh work request: state %s type %s finished %v", wr.LifecycleState, *wr.Type, wr.TimeFinished)
	}
	id := *wr.LoadBalancerId
	if got := f.getLB(t, id); got.LifecycleState != loadbalancer.LoadBalancerLifecycleStateCreating {
		t.Fatalf("before the work request ends: %s, want CREATING", got.LifecycleState)
	}

	if n := f.srv.CompleteWorkRequests(); n != 1 {
		t.Fatalf("CompleteWorkRequests finished %d, want 1", n)
	}
	got := f.getLB(t, id)
	if got.LifecycleState != loadbalancer.LoadBalancerLifecycleStateActive {
		t.Fatalf("after the work request: %s, want ACTIVE", got.LifecycleState)
	}
	want := loadbalancer.LoadBalancer{
		Id: &id, CompartmentId: &f.comp, DisplayName: common.String("svc"),
		LifecycleState: loadbalancer.LoadBalancerLifecycleStateActive,
		TimeCreated:    got.TimeCreated,
		ShapeName:      common.String("flexible"),
		ShapeDetails:   &loadbalancer.ShapeDetails{MinimumBandwidthInMbps: common.Int(10), MaximumBandwidthInMbps: common.Int(100)},
		IpAddresses:    []loadbalancer.IpAddress{{IpAddress: common.String("203.0.113.1"), IsPublic: common.Bool(true)}},
		IsPrivate:      common.Bool(false), IsDeleteProtectionEnabled: common.Bool(false),
		SubnetIds:               f.seeded.LoadBalancerSubnets,
		NetworkSecurityGroupIds: []string{},
		Listeners: map[string]loadbalancer.Listener{"TCP-80": {
			Name: common.String("TCP-80"), DefaultBackendSetName: common.String("TCP-80"),
			Port: common.Int(80), Protocol: common.String("TCP"),
			HostnameNames: []string{}, RuleSetNames: []string{},
			ConnectionConfiguration: &loadbalancer.ConnectionConfiguration{IdleTimeout: common.Int64(300)},
		}},
		BackendSets: map[string]loadbalancer.BackendSet{"TCP-80": {
			Name: common.String("TCP-80"), Policy: common.String("ROUND_ROBIN"),
			Backends: []loadbalancer.Backend{{
				Name: common.String("10.0.10.1:30080"), IpAddress: common.String("10.0.10.1"), Port: common.Int(30080),
				Weight: common.Int(1), Drain: common.Bool(false), Backup: common.Bool(false), Offline: common.Bool(false),
			}},
			HealthChecker: &loadbalancer.HealthChecker{
				Protocol: common.String("TCP"), Port: common.Int(10256), ReturnCode: common.Int(0),
				ResponseBodyRegex: common.String(""), Retries: common.Int(3), TimeoutInMillis: common.Int(3000),
				IntervalInMillis: common.Int(10000), IsForcePlainText: common.Bool(false),
			},
		}},
		Hostnames: map[string]loadbalancer.Hostname{}, SslCipherSuites: map[string]loadbalancer.SslCipherSuite{},
		Certificates: map[string]loadbalancer.Certificate{}, PathRouteSets: map[string]loadbalancer.PathRouteSet{},
		RuleSets: map[string]loadbalancer.RuleSet{}, RoutingPolicies: map[string]loadbalancer.RoutingPolicy{},
		FreeformTags: map[string]string{"cluster": "test"}, DefinedTags: map[string]map[string]interface{}{},
		SystemTags: map[string]map[string]interface{}{}, IpMode: loadbalancer.LoadBalancerIpModeIpv4,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("load balancer (-want +got):\n%s", diff)
	}
}

func TestCreateLoadBalancerReachesActiveWithDefaultDuration(t *testing.T) {
	f := newLBFixture(t, Options{})
	resp, err := f.lb.CreateLoadBalancer(testCtx(t), loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: f.basicLB("svc")})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	wr, polls := f.waitLBWork(t, *resp.OpcWorkRequestId)
	if wr.LifecycleState != loadbalancer.WorkRequestLifecycleStateSucceeded || wr.TimeFinished == nil {
		t.Fatalf("work request %s finished %v", wr.LifecycleState, wr.TimeFinished)
	}
	if got := f.srv.Calls().Op("GetWorkRequest"); got != polls {
		t.Errorf("server counted %d GetWorkRequest calls, the test made %d", got, polls)
	}
	if got := f.getLB(t, *wr.LoadBalancerId).LifecycleState; got != loadbalancer.LoadBalancerLifecycleStateActive {
		t.Errorf("state %s, want ACTIVE", got)
	}
}

func TestRetryTokenMakesCreatesIdempotent(t *testing.T) {
	f := newLBFixture(t, slowWork())
	ctx := testCtx(t)
	create := func(token string) string {
		t.Helper()
		resp, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{
			CreateLoadBalancerDetails: f.basicLB("svc"), OpcRetryToken: common.String(token)})
		if err != nil {
			t.Fatalf("CreateLoadBalancer: %v", err)
		}
		return *resp.OpcWorkRequestId
	}
	first, again := create("service-uid-1"), create("service-uid-1")
	if first != again {
		t.Errorf("same token gave work requests %s and %s, want the same", first, again)
	}
	if n := len(f.srv.LoadBalancers()); n != 1 {
		t.Fatalf("%d load balancers after a retried create, want 1", n)
	}
	if create("service-uid-2") == first {
		t.Error("a new token returned the first work request")
	}
	if n := len(f.srv.LoadBalancers()); n != 2 {
		t.Fatalf("%d load balancers after a second token, want 2", n)
	}

	// A retried child create gets its first answer even though the load balancer is now busy
	// with the work request that first call started; another token is a new change, queued.
	f.srv.CompleteWorkRequests()
	id := f.lbOfWork(t, first)
	req := loadbalancer.CreateBackendSetRequest{
		LoadBalancerId: &id, OpcRetryToken: common.String("bs-token"),
		CreateBackendSetDetails: loadbalancer.CreateBackendSetDetails{
			Name: common.String("TCP-443"), Policy: common.String("IP_HASH"),
			HealthChecker: tcpBackendSet().HealthChecker,
		},
	}
	r1, err := f.lb.CreateBackendSet(ctx, req)
	if err != nil {
		t.Fatalf("CreateBackendSet: %v", err)
	}
	r2, err := f.lb.CreateBackendSet(ctx, req)
	if err != nil {
		t.Fatalf("retried CreateBackendSet: %v", err)
	}
	if *r1.OpcWorkRequestId != *r2.OpcWorkRequestId {
		t.Errorf("retried CreateBackendSet started %s, want %s", *r2.OpcWorkRequestId, *r1.OpcWorkRequestId)
	}
	req.OpcRetryToken = common.String("other-token")
	r3, err := f.lb.CreateBackendSet(ctx, req)
	if err != nil {
		t.Fatalf("CreateBackendSet with another token: %v", err)
	}
	if *r3.OpcWorkRequestId == *r1.OpcWorkRequestId {
		t.Errorf("another token replayed work request %s", *r1.OpcWorkRequestId)
	}
	f.srv.CompleteWorkRequests()
	f.mustSucceed(t, r1.OpcWorkRequestId)
	if msg := f.mustFail(t, r3.OpcWorkRequestId); msg != "Backend set 'TCP-443' already exists" {
		t.Errorf("the second create's work request failed with %q, want the duplicate found when it ran", msg)
	}
}

func TestRejectModeRefusesAChangeWhileAWorkRequestRuns(t *testing.T) {
	opts := slowWork()
	opts.LBBusy = LBBusyReject
	f := newLBFixture(t, opts)
	ctx := testCtx(t)
	resp, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: f.basicLB("svc")})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	id := f.lbOfWork(t, *resp.OpcWorkRequestId)
	rename := func(name string) error {
		_, err := f.lb.UpdateLoadBalancer(ctx, loadbalancer.UpdateLoadBalancerRequest{LoadBalancerId: &id,
			UpdateLoadBalancerDetails: loadbalancer.UpdateLoadBalancerDetails{DisplayName: &name}})
		return err
	}
	wantServiceError(t, rename("while-creating"), http.StatusConflict, "IncorrectState")
	f.srv.CompleteWorkRequests()

	if err := rename("first"); err != nil {
		t.Fatalf("UpdateLoadBalancer on an idle load balancer: %v", err)
	}
	wantServiceError(t, rename("second"), http.StatusConflict, "IncorrectState")
	_, err = f.lb.DeleteListener(ctx, loadbalancer.DeleteListenerRequest{LoadBalancerId: &id, ListenerName: common.String("TCP-80")})
	wantServiceError(t, err, http.StatusConflict, "IncorrectState")
	if got := *f.getLB(t, id).DisplayName; got != "svc" {
		t.Errorf("name %q before the update's work request ended, want the old one", got)
	}
	f.srv.CompleteWorkRequests()
	if got := *f.getLB(t, id).DisplayName; got != "first" {
		t.Errorf("name %q after the work request, want %q", got, "first")
	}
	if err := rename("third"); err != nil {
		t.Errorf("UpdateLoadBalancer once idle again: %v", err)
	}
}

func TestListLoadBalancersPagesFiltersAndSorts(t *testing.T) {
	// Paging, filters and order of load balancers just created, not when they are listed (the
	// lag is consistency_test.go's).
	// No lags: this is about pages and filters, not when a grant or a new load balancer shows.
	f := newLBFixture(t, Options{PageSize: 2, WorkRequestDuration: slowWork().WorkRequestDuration, ListingLag: NoLag, PolicyDelay: NoLag})
	ctx := testCtx(t)
	other := f.srv.AddCompartment("other")
	if err := f.srv.SetPolicy(append(DefaultPolicy(), "Allow dynamic-group ccm to manage load-balancers in compartment other",
		"Allow dynamic-group ccm to use vnics in compartment other")...); err != nil {
		t.Fatal(err)
	}
	var created []string
	for i := range 7 {
		resp, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{
			CreateLoadBalancerDetails: f.basicLB(fmt.Sprintf("lb-%d", 6-i))})
		if err != nil {
			t.Fatalf("CreateLoadBalancer: %v", err)
		}
		created = append(created, f.lbOfWork(t, *resp.OpcWorkRequestId))
	}
	f.srv.CompleteWorkRequests()
	elsewhere := f.basicLB("elsewhere")
	elsewhere.CompartmentId = common.String(other)
	if _, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: elsewhere}); err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}

	list := func(req loadbalancer.ListLoadBalancersRequest) (ids, names []string, pages int) {
		t.Helper()
		req.CompartmentId = &f.comp
		for {
			resp, err := f.lb.ListLoadBalancers(ctx, req)
			if err != nil {
				t.Fatalf("ListLoadBalancers: %v", err)
			}
			pages++
			for _, lb := range resp.Items {
				ids, names = append(ids, *lb.Id), append(names, *lb.DisplayName)
			}
			if resp.OpcNextPage == nil {
				return ids, names, pages
			}
			req.Page = resp.OpcNextPage
		}
	}
	ids, _, pages := list(loadbalancer.ListLoadBalancersRequest{})
	if pages != 4 {
		t.Errorf("%d pages of 2 for 7 load balancers, want 4", pages)
	}
	if diff := cmp.Diff(created, ids); diff != "" {
		t.Errorf("listed ids in creation order (-want +got):\n%s", diff)
	}
	_, names, _ := list(loadbalancer.ListLoadBalancersRequest{SortBy: loadbalancer.ListLoadBalancersSortByDisplayname})
	if diff := cmp.Diff([]string{"lb-0", "lb-1", "lb-2", "lb-3", "lb-4", "lb-5", "lb-6"}, names); diff != "" {
		t.Errorf("sorted by name (-want +got):\n%s", diff)
	}
	if ids, _, _ := list(loadbalancer.ListLoadBalancersRequest{DisplayName: common.String("lb-3")}); len(ids) != 1 || ids[0] != created[3] {
		t.Errorf("displayName filter gave %v, want [%s]", ids, created[3])
	}
	if ids, _, _ := list(loadbalancer.ListLoadBalancersRequest{LifecycleState: loadbalancer.LoadBalancerLifecycleStateCreating}); len(ids) != 0 {
		t.Errorf("lifecycleState CREATING in this compartment gave %v, want none", ids)
	}
	_, err := f.lb.ListLoadBalancers(ctx, loadbalancer.ListLoadBalancersRequest{CompartmentId: common.String("")})
	wantServiceError(t, err, http.StatusBadRequest, "MissingParameter")
}

func TestUpdateLoadBalancerShapeAndNetworkSecurityGroups(t *testing.T) {
	// A new tenancy may have no fixed-shape load balancers at all; this one has one.
	f := newLBFixture(t, Options{LBLimits: LBLimits{FixedShapes: map[string]int{"100Mbps": 1}}})
	ctx := testCtx(t)
	fixed := f.basicLB("fixed")
	fixed.ShapeName, fixed.ShapeDetails = common.String("100Mbps"), nil
	fixedID := f.createLB(t, fixed)
	flexID := f.createLB(t, f.basicLB("flex"))
	shape := func(id, name string, lo, hi int) error {
		d := loadbalancer.UpdateLoadBalancerShapeDetails{ShapeName: &name}
		if lo > 0 {
			d.ShapeDetails = &loadbalancer.ShapeDetails{MinimumBandwidthInMbps: &lo, MaximumBandwidthInMbps: &hi}
		}
		resp, err := f.lb.UpdateLoadBalancerShape(ctx, loadbalancer.UpdateLoadBalancerShapeRequest{LoadBalancerId: &id, UpdateLoadBalancerShapeDetails: d})
		if err == nil {
			f.mustSucceed(t, resp.OpcWorkRequestId)
		}
		return err
	}
	if err := shape(fixedID, "flexible", 10, 400); err != nil {
		t.Fatalf("fixed to flexible: %v", err)
	}
	if got := f.getLB(t, fixedID); *got.ShapeName != "flexible" || *got.ShapeDetails.MaximumBandwidthInMbps != 400 {
		t.Errorf("after the shape change: %s %+v", *got.ShapeName, got.ShapeDetails)
	}
	for _, tc := range []struct {
		name, shape string
		lo, hi      int
	}{
		{"flexible back to fixed", "100Mbps", 0, 0},
		{"minimum above maximum", "flexible", 100, 50},
		{"maximum above 8000", "flexible", 10, 8001},
		{"minimum below 10", "flexible", 5, 100},
		{"flexible without details", "flexible", 0, 0},
		{"unknown shape", "1Gbps", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantServiceError(t, shape(flexID, tc.shape, tc.lo, tc.hi), http.StatusBadRequest, "InvalidParameter")
		})
	}

	var nsgs []string
	for range 2 {
		nsgs = append(nsgs, *f.srv.AddNetworkSecurityGroup(core.NetworkSecurityGroup{VcnId: &f.seeded.VCN}).Id)
	}
	resp, err := f.lb.UpdateNetworkSecurityGroups(ctx, loadbalancer.UpdateNetworkSecurityGroupsRequest{LoadBalancerId: &flexID,
		UpdateNetworkSecurityGroupsDetails: loadbalancer.UpdateNetworkSecurityGroupsDetails{NetworkSecurityGroupIds: nsgs}})
	if err != nil {
		t.Fatalf("UpdateNetworkSecurityGroups: %v", err)
	}
	f.mustSucceed(t, resp.OpcWorkRequestId)
	if diff := cmp.Diff(nsgs, f.getLB(t, flexID).NetworkSecurityGroupIds); diff != "" {
		t.Errorf("NSGs (-want +got):\n%s", diff)
	}
	_, err = f.lb.UpdateNetworkSecurityGroups(ctx, loadbalancer.UpdateNetworkSecurityGroupsRequest{LoadBalancerId: &flexID,
		UpdateNetworkSecurityGroupsDetails: loadbalancer.UpdateNetworkSecurityGroupsDetails{NetworkSecurityGroupIds: strings.Split("a,b,c,d,e,f", ",")}})
	wantServiceError(t, err, http.StatusBadRequest, "LimitExceeded")
}

func TestDeleteLoadBalancerIsDeletingThenGone(t *testing.T) {
	f := newLBFixture(t, slowWork())
	ctx := testCtx(t)
	d := f.basicLB("svc")
	d.ReservedIps = []loadbalancer.ReservedIp{{Id: common.String(f.seeded.ReservedPublicIPs["reserved-1"])}}
	resp, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: d})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	id := f.lbOfWork(t, *resp.OpcWorkRequestId)
	f.srv.CompleteWorkRequests()

	del, err := f.lb.DeleteLoadBalancer(ctx, loadbalancer.DeleteLoadBalancerRequest{LoadBalancerId: &id})
	if err != nil {
		t.Fatalf("DeleteLoadBalancer: %v", err)
	}
	if got := f.getLB(t, id).LifecycleState; got != loadbalancer.LoadBalancerLifecycleStateDeleting {
		t.Errorf("state %s while deleting, want DELETING", got)
	}
	_, err = f.lb.DeleteLoadBalancer(ctx, loadbalancer.DeleteLoadBalancerRequest{LoadBalancerId: &id})
	wantServiceError(t, err, http.StatusConflict, "IncorrectState")
	f.srv.CompleteWorkRequests()

	_, err = f.lb.GetLoadBalancer(ctx, loadbalancer.GetLoadBalancerRequest{LoadBalancerId: &id})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
	list, err := f.lb.ListLoadBalancers(ctx, loadbalancer.ListLoadBalancersRequest{CompartmentId: &f.comp})
	if err != nil || len(list.Items) != 0 {
		t.Errorf("ListLoadBalancers after delete: %d items, %v; want none", len(list.Items), err)
	}
	wr, err := f.lb.GetWorkRequest(ctx, loadbalancer.GetWorkRequestRequest{WorkRequestId: del.OpcWorkRequestId})
	if err != nil || wr.LifecycleState != loadbalancer.WorkRequestLifecycleStateSucceeded {
		t.Errorf("delete work request after the load balancer is gone: %v %v", wr.LifecycleState, err)
	}
	// The reserved IP is free again.
	if _, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: d}); err != nil {
		t.Errorf("reusing the reserved IP of a deleted load balancer: %v", err)
	}
}

func TestDeleteProtectionRefusesDelete(t *testing.T) {
	f := newLBFixture(t, Options{})
	d := f.basicLB("svc")
	d.IsDeleteProtectionEnabled = common.Bool(true)
	id := f.createLB(t, d)
	_, err := f.lb.DeleteLoadBalancer(testCtx(t), loadbalancer.DeleteLoadBalancerRequest{LoadBalancerId: &id})
	wantServiceError(t, err, http.StatusConflict, "IncorrectState")
}

func TestCreateLoadBalancerRefusesInvalidRequests(t *testing.T) {
	long := strings.Repeat("x", 33)
	tests := []struct {
		name   string
		edit   func(d *loadbalancer.CreateLoadBalancerDetails)
		status int
		code   string
	}{
		{"no compartment", func(d *loadbalancer.CreateLoadBalancerDetails) { d.CompartmentId = nil }, 400, "InvalidParameter"},
		{"no display name", func(d *loadbalancer.CreateLoadBalancerDetails) { d.DisplayName = common.String("") }, 400, "InvalidParameter"},
		{"unknown shape", func(d *loadbalancer.CreateLoadBalancerDetails) { d.ShapeName = common.String("1Gbps") }, 400, "InvalidParameter"},
		{"flexible without details", func(d *loadbalancer.CreateLoadBalancerDetails) { d.ShapeDetails = nil }, 400, "InvalidParameter"},
		{"flexible minimum 9", func(d *loadbalancer.CreateLoadBalancerDetails) { d.ShapeDetails.MinimumBandwidthInMbps = common.Int(9) }, 400, "InvalidParameter"},
		{"flexible maximum 8001", func(d *loadbalancer.CreateLoadBalancerDetails) {
			d.ShapeDetails.MaximumBandwidthInMbps = common.Int(8001)
		}, 400, "InvalidParameter"},
		{"flexible minimum above maximum", func(d *loadbalancer.CreateLoadBalancerDetails) {
			d.ShapeDetails.MinimumBandwidthInMbps = common.Int(200)
		}, 400, "InvalidParameter"},
		{"fixed shape with details", func(d *loadbalancer.CreateLoadBalancerDetails) { d.ShapeName = common.String("400Mbps") }, 400, "InvalidParameter"},
		{"no subnets", func(d *loadbalancer.CreateLoadBalancerDetails) { d.SubnetIds = []string{} }, 400, "InvalidParameter"},
		{"three subnets", func(d *loadbalancer.CreateLoadBalancerDetails) { d.SubnetIds = []string{"a", "b", "c"} }, 400, "InvalidParameter"},
		{"listener name too long", func(d *loadbalancer.CreateLoadBalancerDetails) {
			d.Listeners[long] = d.Listeners["TCP-80"]
			delete(d.Listeners, "TCP-80")
		}, 400, "InvalidParameter"},
		{"listener name with a space", func(d *loadbalancer.CreateLoadBalancerDetails) {
			d.Listeners["TCP 80"] = d.Listeners["TCP-80"]
			delete(d.Listeners, "TCP-80")
		}, 400, "InvalidParameter"},
		{"listener port 0", func(d *loadbalancer.CreateLoadBalancerDetails) {
			setListener(d, func(l *loadbalancer.ListenerDetails) { l.Port = common.Int(0) })
		}, 400, "InvalidParameter"},
		{"listener port 65536", func(d *loadbalancer.CreateLoadBalancerDetails) {
			setListener(d, func(l *loadbalancer.ListenerDetails) { l.Port = common.Int(65536) })
		}, 400, "InvalidParameter"},
		{"listener protocol UDP", func(d *loadbalancer.CreateLoadBalancerDetails) {
			setListener(d, func(l *loadbalancer.ListenerDetails) { l.Protocol = common.String("UDP") })
		}, 400, "InvalidParameter"},
		{"HTTP2 without TLS", func(d *loadbalancer.CreateLoadBalancerDetails) {
			setListener(d, func(l *loadbalancer.ListenerDetails) { l.Protocol = common.String("HTTP2") })
		}, 400, "InvalidParameter"},
		{"backend set name too long", func(d *loadbalancer.CreateLoadBalancerDetails) { d.BackendSets[long] = tcpBackendSet() }, 400, "InvalidParameter"},
		{"unknown policy", func(d *loadbalancer.CreateLoadBalancerDetails) {
			setBackendSet(d, func(b *loadbalancer.BackendSetDetails) { b.Policy = common.String("RANDOM") })
		}, 400, "InvalidParameter"},
		{"HTTPS health check", func(d *loadbalancer.CreateLoadBalancerDetails) {
			setBackendSet(d, func(b *loadbalancer.BackendSetDetails) { b.HealthChecker.Protocol = common.String("HTTPS") })
		}, 400, "InvalidParameter"},
		{"HTTP health check without path", func(d *loadbalancer.CreateLoadBalancerDetails) {
			setBackendSet(d, func(b *loadbalancer.BackendSetDetails) { b.HealthChecker.Protocol = common.String("HTTP") })
		}, 400, "InvalidParameter"},
		{"backend with a bad address", func(d *loadbalancer.CreateLoadBalancerDetails) { d.BackendSets["TCP-80"] = tcpBackendSet("10.0.0.300") }, 400, "InvalidParameter"},
		{"backend listed twice", func(d *loadbalancer.CreateLoadBalancerDetails) {
			d.BackendSets["TCP-80"] = tcpBackendSet("10.0.0.3", "10.0.0.3")
		}, 400, "InvalidParameter"},
		{"six NSGs", func(d *loadbalancer.CreateLoadBalancerDetails) {
			d.NetworkSecurityGroupIds = strings.Split("a,b,c,d,e,f", ",")
		}, 400, "LimitExceeded"},
		{"reserved IP on a private load balancer", func(d *loadbalancer.CreateLoadBalancerDetails) {
			d.IsPrivate = common.Bool(true)
			d.ReservedIps = []loadbalancer.ReservedIp{{Id: common.String("ocid1.publicip.oc1..r")}}
		}, 400, "InvalidParameter"},
		{"more listeners than the limit", func(d *loadbalancer.CreateLoadBalancerDetails) {
			for i := range 17 {
				d.Listeners[fmt.Sprintf("L%d", i)] = loadbalancer.ListenerDetails{DefaultBackendSetName: common.String("TCP-80"), Port: common.Int(1000 + i), Protocol: common.String("TCP")}
			}
		}, 400, "LimitExceeded"},
	}
	f := newLBFixture(t, Options{})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := f.basicLB("bad")
			tc.edit(&d)
			_, err := f.lb.CreateLoadBalancer(testCtx(t), loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: d})
			wantServiceError(t, err, tc.status, tc.code)
		})
	}
	if n, w := len(f.srv.LoadBalancers()), len(f.srv.WorkRequests()); n != 0 || w != 0 {
		t.Errorf("refused creates left %d load balancers and %d work requests, want none", n, w)
	}
}

func setListener(d *loadbalancer.CreateLoadBalancerDetails, edit func(*loadbalancer.ListenerDetails)) {
	l := d.Listeners["TCP-80"]
	edit(&l)
	d.Listeners["TCP-80"] = l
}

func setBackendSet(d *loadbalancer.CreateLoadBalancerDetails, edit func(*loadbalancer.BackendSetDetails)) {
	b := d.BackendSets["TCP-80"]
	edit(&b)
	d.BackendSets["TCP-80"] = b
}

func TestCreateLoadBalancerWithUnknownBackendSetFailsItsWorkRequest(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	d := f.basicLB("svc")
	setListener(&d, func(l *loadbalancer.ListenerDetails) { l.DefaultBackendSetName = common.String("TCP-8080") })
	resp, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: d})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	if msg, want := f.mustFail(t, resp.OpcWorkRequestId), "Listener 'TCP-80' has unknown default backend set 'TCP-8080'"; msg != want {
		t.Errorf("failure %q, want %q", msg, want)
	}
	id := f.lbOfWork(t, *resp.OpcWorkRequestId)
	if got := f.getLB(t, id).LifecycleState; got != loadbalancer.LoadBalancerLifecycleStateFailed {
		t.Fatalf("state %s, want FAILED", got)
	}
	_, err = f.lb.UpdateLoadBalancer(ctx, loadbalancer.UpdateLoadBalancerRequest{LoadBalancerId: &id,
		UpdateLoadBalancerDetails: loadbalancer.UpdateLoadBalancerDetails{DisplayName: common.String("x")}})
	wantServiceError(t, err, http.StatusConflict, "IncorrectState")
	del, err := f.lb.DeleteLoadBalancer(ctx, loadbalancer.DeleteLoadBalancerRequest{LoadBalancerId: &id})
	if err != nil {
		t.Fatalf("deleting a FAILED load balancer: %v", err)
	}
	f.mustSucceed(t, del.OpcWorkRequestId)
}

func TestLoadBalancerAddresses(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	public := f.getLB(t, f.createLB(t, f.basicLB("public")))
	private := f.basicLB("private")
	private.IsPrivate, private.SubnetIds = common.Bool(true), []string{f.seeded.Subnets["private"]}
	priv := f.getLB(t, f.createLB(t, private))
	reserved := f.basicLB("reserved")
	ip := f.srv.AddPublicIP(core.PublicIp{IpAddress: common.String("198.51.100.77")})
	reserved.ReservedIps = []loadbalancer.ReservedIp{{Id: ip.Id}}
	res := f.getLB(t, f.createLB(t, reserved))

	want := [][]loadbalancer.IpAddress{
		{{IpAddress: common.String("203.0.113.1"), IsPublic: common.Bool(true)}},
		{{IpAddress: common.String("10.0.4.254"), IsPublic: common.Bool(false)}}, // the private subnet's highest free address
		{{IpAddress: common.String("198.51.100.77"), IsPublic: common.Bool(true), ReservedIp: &loadbalancer.ReservedIp{Id: ip.Id}}},
	}
	if diff := cmp.Diff(want, [][]loadbalancer.IpAddress{public.IpAddresses, priv.IpAddresses, res.IpAddresses}); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}
	// A reserved IP another load balancer holds fails the create's work request (see
	// lb_reserved_test.go).
	again, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: reserved})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	f.mustFail(t, again.OpcWorkRequestId)
}

func TestShapesPoliciesAndWorkRequestsAreListed(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	shapes, err := f.lb.ListShapes(ctx, loadbalancer.ListShapesRequest{CompartmentId: &f.comp})
	if err != nil {
		t.Fatalf("ListShapes: %v", err)
	}
	policies, err := f.lb.ListPolicies(ctx, loadbalancer.ListPoliciesRequest{CompartmentId: &f.comp})
	if err != nil {
		t.Fatalf("ListPolicies: %v", err)
	}
	var names []string
	for _, s := range shapes.Items {
		names = append(names, *s.Name)
	}
	for _, p := range policies.Items {
		names = append(names, *p.Name)
	}
	want := []string{"flexible", "10Mbps", "10Mbps-Micro", "100Mbps", "400Mbps", "8000Mbps", "ROUND_ROBIN", "LEAST_CONNECTIONS", "IP_HASH"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("shapes and policies (-want +got):\n%s", diff)
	}

	id := f.createLB(t, f.basicLB("svc"))
	upd, err := f.lb.UpdateLoadBalancer(ctx, loadbalancer.UpdateLoadBalancerRequest{LoadBalancerId: &id,
		UpdateLoadBalancerDetails: loadbalancer.UpdateLoadBalancerDetails{FreeformTags: map[string]string{"a": "b"}}})
	if err != nil {
		t.Fatalf("UpdateLoadBalancer: %v", err)
	}
	f.mustSucceed(t, upd.OpcWorkRequestId)
	wrs, err := f.lb.ListWorkRequests(ctx, loadbalancer.ListWorkRequestsRequest{LoadBalancerId: &id})
	if err != nil {
		t.Fatalf("ListWorkRequests: %v", err)
	}
	var types []string
	for _, wr := range wrs.Items {
		types = append(types, *wr.Type+" "+string(wr.LifecycleState))
	}
	if diff := cmp.Diff([]string{"CreateLoadBalancer SUCCEEDED", "UpdateLoadBalancer SUCCEEDED"}, types); diff != "" {
		t.Errorf("work requests (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"a": "b"}, f.getLB(t, id).FreeformTags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	_, err = f.lb.GetWorkRequest(ctx, loadbalancer.GetWorkRequestRequest{WorkRequestId: common.String("ocid1.loadbalancerworkrequest.oc1..none")})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
	_, err = f.lb.GetLoadBalancer(ctx, loadbalancer.GetLoadBalancerRequest{LoadBalancerId: common.String("ocid1.loadbalancer.oc1..none")})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
}

func TestStaleIfMatchIsRefusedAndEditsChangeTheETag(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	id := f.createLB(t, f.basicLB("svc"))
	got, err := f.lb.GetLoadBalancer(ctx, loadbalancer.GetLoadBalancerRequest{LoadBalancerId: &id})
	if err != nil || got.ETag == nil {
		t.Fatalf("GetLoadBalancer: etag %v, %v", got.ETag, err)
	}
	if !f.srv.EditLoadBalancer(id, func(lb *loadbalancer.LoadBalancer) { delete(lb.Listeners, "TCP-80") }) {
		t.Fatal("EditLoadBalancer found no load balancer")
	}
	after := f.getLB(t, id)
	if len(after.Listeners) != 0 {
		t.Errorf("an edit from outside did not take effect at once: %d listeners", len(after.Listeners))
	}
	_, err = f.lb.UpdateLoadBalancer(ctx, loadbalancer.UpdateLoadBalancerRequest{LoadBalancerId: &id, IfMatch: got.ETag,
		UpdateLoadBalancerDetails: loadbalancer.UpdateLoadBalancerDetails{DisplayName: common.String("x")}})
	wantServiceError(t, err, http.StatusPreconditionFailed, "NoEtagMatch")
	fresh, _ := f.lb.GetLoadBalancer(ctx, loadbalancer.GetLoadBalancerRequest{LoadBalancerId: &id})
	if _, err := f.lb.UpdateLoadBalancer(ctx, loadbalancer.UpdateLoadBalancerRequest{LoadBalancerId: &id, IfMatch: fresh.ETag,
		UpdateLoadBalancerDetails: loadbalancer.UpdateLoadBalancerDetails{DisplayName: common.String("x")}}); err != nil {
		t.Errorf("UpdateLoadBalancer with the current etag: %v", err)
	}
}

// TestAnAcceptedChangeMakesTheETagStale: the ETag read before a change that is still queued or
// running guards nothing any more (README.md, ETags), so a guarded write cannot be queued behind
// a change its author never saw.
func TestAnAcceptedChangeMakesTheETagStale(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	id := f.createLB(t, f.basicLB("svc"))
	got, err := f.lb.GetLoadBalancer(ctx, loadbalancer.GetLoadBalancerRequest{LoadBalancerId: &id})
	if err != nil {
		t.Fatalf("GetLoadBalancer: %v", err)
	}
	defer f.srv.HoldWorkRequests(func(WorkRequestInfo) bool { return true })()
	if _, err := f.lb.UpdateBackendSet(ctx, loadbalancer.UpdateBackendSetRequest{LoadBalancerId: &id, BackendSetName: common.String("TCP-80"),
		IfMatch: got.ETag, UpdateBackendSetDetails: loadbalancer.UpdateBackendSetDetails{Policy: common.String("ROUND_ROBIN"),
			HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("TCP"), Port: common.Int(10256)},
			Backends:      []loadbalancer.BackendDetails{{IpAddress: common.String("10.0.10.2"), Port: common.Int(30080)}}}}); err != nil {
		t.Fatalf("UpdateBackendSet with the current etag: %v", err)
	}
	_, err = f.lb.UpdateLoadBalancer(ctx, loadbalancer.UpdateLoadBalancerRequest{LoadBalancerId: &id, IfMatch: got.ETag,
		UpdateLoadBalancerDetails: loadbalancer.UpdateLoadBalancerDetails{DisplayName: common.String("x")}})
	wantServiceError(t, err, http.StatusPreconditionFailed, "NoEtagMatch")
}

func TestConcurrentCreatesMakeDistinctLoadBalancers(t *testing.T) {
	f := newLBFixture(t, Options{})
	const n = 20
	ids := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			resp, err := f.lb.CreateLoadBalancer(testCtx(t), loadbalancer.CreateLoadBalancerRequest{
				CreateLoadBalancerDetails: f.basicLB(fmt.Sprintf("lb-%d", i))})
			if err != nil {
				errs <- err
				return
			}
			f.mustSucceed(t, resp.OpcWorkRequestId)
			ids[i] = f.lbOfWork(t, *resp.OpcWorkRequestId)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	seenID, seenIP := map[string]bool{}, map[string]bool{}
	for _, lb := range f.srv.LoadBalancers() {
		if lb.LifecycleState != loadbalancer.LoadBalancerLifecycleStateActive {
			t.Errorf("%s is %s, want ACTIVE", *lb.Id, lb.LifecycleState)
		}
		seenID[*lb.Id], seenIP[*lb.IpAddresses[0].IpAddress] = true, true
	}
	if len(seenID) != n || len(seenIP) != n {
		t.Errorf("%d ids and %d addresses for %d creates, want %d distinct of each", len(seenID), len(seenIP), n, n)
	}
	if got := f.srv.Calls().Op("CreateLoadBalancer"); got != n {
		t.Errorf("server counted %d creates, want %d", got, n)
	}
}

func TestAddressesComeFromTheVCNWhenItKnowsTheSubnetAndReservedIP(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	vcn := f.srv.AddVCN(core.Vcn{})
	subnet := f.srv.AddSubnet(core.Subnet{VcnId: vcn.Id, CidrBlock: common.String("10.0.7.0/24")})
	reserved := f.srv.AddPublicIP(core.PublicIp{})
	ephemeral := f.srv.AddPublicIP(core.PublicIp{Lifetime: core.PublicIpLifetimeEphemeral,
		Scope: core.PublicIpScopeRegion})

	private := f.basicLB("private")
	private.IsPrivate, private.SubnetIds = common.Bool(true), []string{*subnet.Id}
	first := f.getLB(t, f.createLB(t, private)).IpAddresses[0]
	second := f.getLB(t, f.createLB(t, private)).IpAddresses[0]
	// Each takes three addresses from the top (lbAddressesPerSubnet) and shows the first.
	if *first.IpAddress != "10.0.7.254" || *second.IpAddress != "10.0.7.251" {
		t.Errorf("private addresses %s and %s, want 10.0.7.254 and 10.0.7.251", *first.IpAddress, *second.IpAddress)
	}

	public := f.basicLB("reserved")
	public.ReservedIps = []loadbalancer.ReservedIp{{Id: reserved.Id}}
	got := f.getLB(t, f.createLB(t, public)).IpAddresses[0]
	if *got.IpAddress != *reserved.IpAddress || *got.ReservedIp.Id != *reserved.Id {
		t.Errorf("reserved address %s (%s), want %s (%s)", *got.IpAddress, *got.ReservedIp.Id, *reserved.IpAddress, *reserved.Id)
	}
	n := f.basicNLB("nlb")
	n.IsPrivate, n.SubnetId = common.Bool(true), subnet.Id
	if addr := f.getNLB(t, f.createNLB(t, n)).IpAddresses[0]; *addr.IpAddress != "10.0.7.248" {
		t.Errorf("NLB private address %s, want 10.0.7.248", *addr.IpAddress)
	}
	public.ReservedIps = []loadbalancer.ReservedIp{{Id: ephemeral.Id}}
	_, err := f.lb.CreateLoadBalancer(ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: public})
	wantServiceError(t, err, http.StatusBadRequest, "InvalidParameter")
}

func TestRetriedCreateAfterALostResponseMakesOneLoadBalancer(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	remove := f.srv.InjectFault(Fault{Operation: "CreateLoadBalancer", Status: http.StatusBadGateway, AfterHandler: true, Times: 1})
	defer remove()
	req := loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: f.basicLB("svc"), OpcRetryToken: common.String("uid")}
	_, err := f.lb.CreateLoadBalancer(ctx, req)
	wantServiceError(t, err, http.StatusBadGateway, "InternalServerError")
	resp, err := f.lb.CreateLoadBalancer(ctx, req)
	if err != nil {
		t.Fatalf("retried CreateLoadBalancer: %v", err)
	}
	f.mustSucceed(t, resp.OpcWorkRequestId)
	if n := len(f.srv.LoadBalancers()); n != 1 {
		t.Errorf("%d load balancers after a lost response and a retry, want 1", n)
	}
}

func TestSeededLoadBalancerIsServedAndSnapshotsAreCopies(t *testing.T) {
	f := newLBFixture(t, Options{})
	seeded := f.srv.AddLoadBalancer(loadbalancer.LoadBalancer{
		DisplayName:  common.String("other-cluster"),
		FreeformTags: map[string]string{"cluster": "other"},
		Listeners: map[string]loadbalancer.Listener{"TCP-80": {Name: common.String("TCP-80"),
			DefaultBackendSetName: common.String("TCP-80"), Port: common.Int(80), Protocol: common.String("TCP")}},
	})
	got := f.getLB(t, *seeded.Id)
	if got.LifecycleState != loadbalancer.LoadBalancerLifecycleStateActive || *got.CompartmentId != f.comp ||
		*got.IpAddresses[0].IpAddress != "203.0.113.1" || got.BackendSets == nil || len(got.Listeners) != 1 {
		t.Errorf("seeded load balancer as served: %+v", got)
	}
	snap, ok := f.srv.LoadBalancer(*seeded.Id)
	if !ok {
		t.Fatal("LoadBalancer found no seeded load balancer")
	}
	snap.FreeformTags["cluster"] = "mine"
	delete(snap.Listeners, "TCP-80")
	if again, _ := f.srv.LoadBalancer(*seeded.Id); again.FreeformTags["cluster"] != "other" || len(again.Listeners) != 1 {
		t.Error("changing a snapshot changed the server's state")
	}
	if _, ok := f.srv.LoadBalancer("ocid1.loadbalancer.oc1..none"); ok {
		t.Error("LoadBalancer found a load balancer that does not exist")
	}
	if f.srv.EditLoadBalancer("ocid1.loadbalancer.oc1..none", func(*loadbalancer.LoadBalancer) {}) {
		t.Error("EditLoadBalancer reported an edit of a load balancer that does not exist")
	}
}
