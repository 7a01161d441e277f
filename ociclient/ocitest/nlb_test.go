// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"
)

// basicNLB is a valid create request: one TCP listener on a backend set with one backend.
func (f *lbFixture) basicNLB(name string) nlbapi.CreateNetworkLoadBalancerDetails {
	return nlbapi.CreateNetworkLoadBalancerDetails{
		CompartmentId: common.String(f.comp),
		DisplayName:   common.String(name),
		SubnetId:      common.String(f.seeded.Subnets["public"]),
		IsPrivate:     common.Bool(false), // OCI's default is private
		Listeners: map[string]nlbapi.ListenerDetails{
			"TCP-80": {Name: common.String("TCP-80"), DefaultBackendSetName: common.String("TCP-80"), Port: common.Int(80), Protocol: nlbapi.ListenerProtocolsTcp},
		},
		BackendSets: map[string]nlbapi.BackendSetDetails{
			"TCP-80": {
				HealthChecker: &nlbapi.HealthChecker{Protocol: nlbapi.HealthCheckProtocolsHttp, Port: common.Int(10256), UrlPath: common.String("/healthz")},
				Backends:      []nlbapi.Backend{{IpAddress: common.String("10.0.10.1"), Port: common.Int(30080)}},
			},
		},
	}
}

func (f *lbFixture) createNLB(t *testing.T, d nlbapi.CreateNetworkLoadBalancerDetails) string {
	t.Helper()
	resp, err := f.nlb.CreateNetworkLoadBalancer(testCtx(t), nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: d})
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	f.nlbMustSucceed(t, resp.OpcWorkRequestId)
	return *resp.Id
}

func (f *lbFixture) getNLB(t *testing.T, id string) nlbapi.NetworkLoadBalancer {
	t.Helper()
	resp, err := f.nlb.GetNetworkLoadBalancer(testCtx(t), nlbapi.GetNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id})
	if err != nil {
		t.Fatalf("GetNetworkLoadBalancer: %v", err)
	}
	return resp.NetworkLoadBalancer
}

func TestCreateNetworkLoadBalancerAnswersWithItAndItsWorkRequest(t *testing.T) {
	f := newLBFixture(t, slowWork())
	ctx := testCtx(t)
	resp, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: f.basicNLB("svc")})
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	if resp.LifecycleState != nlbapi.LifecycleStateCreating || resp.Etag == nil || resp.OpcWorkRequestId == nil {
		t.Fatalf("create answer: state %s, etag %v, work request %v", resp.LifecycleState, resp.Etag, resp.OpcWorkRequestId)
	}
	wr, err := f.nlb.GetWorkRequest(ctx, nlbapi.GetWorkRequestRequest{WorkRequestId: resp.OpcWorkRequestId})
	if err != nil {
		t.Fatalf("GetWorkRequest: %v", err)
	}
	if wr.Status != nlbapi.OperationStatusAccepted || wr.OperationType != nlbapi.OperationTypeCreateNetworkLoadBalancer ||
		*wr.Resources[0].Identifier != *resp.Id || wr.Resources[0].ActionType != nlbapi.ActionTypeInProgress {
		t.Fatalf("fresh work request: %s %s %+v", wr.Status, wr.OperationType, wr.Resources)
	}
	f.srv.CompleteWorkRequests()
	wr, _ = f.nlb.GetWorkRequest(ctx, nlbapi.GetWorkRequestRequest{WorkRequestId: resp.OpcWorkRequestId})
	if wr.Status != nlbapi.OperationStatusSucceeded || *wr.PercentComplete != 100 || wr.Resources[0].ActionType != nlbapi.ActionTypeCreated {
		t.Errorf("finished work request: %s %v%% %s", wr.Status, *wr.PercentComplete, wr.Resources[0].ActionType)
	}
	got := f.getNLB(t, *resp.Id)
	if got.LifecycleState != nlbapi.LifecycleStateActive {
		t.Fatalf("state %s, want ACTIVE", got.LifecycleState)
	}
	wantAddrs := []nlbapi.IpAddress{{IpAddress: common.String("203.0.113.1"), IsPublic: common.Bool(true), IpVersion: nlbapi.IpVersionIpv4},
		{IpAddress: common.String("10.0.3.254"), IsPublic: common.Bool(false), IpVersion: nlbapi.IpVersionIpv4}} // a public NLB lists its private address too
	if diff := cmp.Diff(wantAddrs, got.IpAddresses); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}
	wantSet := nlbapi.BackendSet{
		Name: common.String("TCP-80"), Policy: nlbapi.NetworkLoadBalancingPolicyFiveTuple, IpVersion: nlbapi.IpVersionIpv4,
		IsPreserveSource: common.Bool(true), IsFailOpen: common.Bool(false), IsInstantFailoverEnabled: common.Bool(false),
		IsInstantFailoverTcpResetEnabled: common.Bool(false), AreOperationallyActiveBackendsPreferred: common.Bool(false),
		HealthChecker: &nlbapi.HealthChecker{Protocol: nlbapi.HealthCheckProtocolsHttp, Port: common.Int(10256), UrlPath: common.String("/healthz"),
			Retries: common.Int(3), TimeoutInMillis: common.Int(3000), IntervalInMillis: common.Int(10000), ReturnCode: common.Int(200)},
		Backends: []nlbapi.Backend{{Name: common.String("10.0.10.1:30080"), IpAddress: common.String("10.0.10.1"), Port: common.Int(30080),
			Weight: common.Int(1), IsDrain: common.Bool(false), IsBackup: common.Bool(false), IsOffline: common.Bool(false)}},
	}
	if diff := cmp.Diff(wantSet, got.BackendSets["TCP-80"]); diff != "" {
		t.Errorf("backend set with OCI's defaults (-want +got):\n%s", diff)
	}
}

func TestNetworkLoadBalancerRetryTokenMakesCreateIdempotent(t *testing.T) {
	f := newLBFixture(t, slowWork())
	ctx := testCtx(t)
	req := nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: f.basicNLB("svc"), OpcRetryToken: common.String("uid-1")}
	a, err := f.nlb.CreateNetworkLoadBalancer(ctx, req)
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	b, err := f.nlb.CreateNetworkLoadBalancer(ctx, req)
	if err != nil {
		t.Fatalf("retried CreateNetworkLoadBalancer: %v", err)
	}
	if *a.Id != *b.Id || *a.OpcWorkRequestId != *b.OpcWorkRequestId {
		t.Errorf("retry gave %s/%s, want %s/%s", *b.Id, *b.OpcWorkRequestId, *a.Id, *a.OpcWorkRequestId)
	}
	if n := len(f.srv.NetworkLoadBalancers()); n != 1 {
		t.Errorf("%d network load balancers, want 1", n)
	}
}

func TestNetworkLoadBalancerIsUpdatingWhileAChangeRuns(t *testing.T) {
	f := newLBFixture(t, slowWork())
	ctx := testCtx(t)
	resp, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: f.basicNLB("svc")})
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	id := *resp.Id
	rename := func(name string) error {
		_, err := f.nlb.UpdateNetworkLoadBalancer(ctx, nlbapi.UpdateNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id,
			UpdateNetworkLoadBalancerDetails: nlbapi.UpdateNetworkLoadBalancerDetails{DisplayName: &name}})
		return err
	}
	wantNLBTransition(t, rename("early"), "Creating", "Updating")
	f.srv.CompleteWorkRequests()
	if err := rename("renamed"); err != nil {
		t.Fatalf("UpdateNetworkLoadBalancer: %v", err)
	}
	if got := f.getNLB(t, id); got.LifecycleState != nlbapi.LifecycleStateUpdating || *got.DisplayName != "svc" {
		t.Errorf("while updating: %s %q, want UPDATING with the old name", got.LifecycleState, *got.DisplayName)
	}
	wantNLBTransition(t, rename("again"), "Updating", "Updating")
	_, err = f.nlb.DeleteNetworkLoadBalancer(ctx, nlbapi.DeleteNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id})
	wantNLBTransition(t, err, "Updating", "Deleting")
	f.srv.CompleteWorkRequests()
	if got := f.getNLB(t, id); got.LifecycleState != nlbapi.LifecycleStateActive || *got.DisplayName != "renamed" {
		t.Errorf("after the update: %s %q", got.LifecycleState, *got.DisplayName)
	}
}

func TestNetworkLoadBalancerPartsThroughTheirWholeLife(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	id := f.createNLB(t, f.basicNLB("svc"))
	set := common.String("TCP-443")
	vcn := f.srv.AddVCN(core.Vcn{})
	sn := f.srv.AddSubnet(core.Subnet{VcnId: vcn.Id, CidrBlock: common.String("10.0.10.0/24")})
	inst := f.srv.AddInstance(Instance{VNICs: []core.Vnic{{SubnetId: sn.Id, PrivateIp: common.String("10.0.10.9")}}})

	must := func(wr *string, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		f.nlbMustSucceed(t, wr)
	}
	r1, err := f.nlb.CreateBackendSet(ctx, nlbapi.CreateBackendSetRequest{NetworkLoadBalancerId: &id, CreateBackendSetDetails: nlbapi.CreateBackendSetDetails{
		Name: set, Policy: nlbapi.NetworkLoadBalancingPolicyTwoTuple,
		HealthChecker: &nlbapi.HealthCheckerDetails{Protocol: nlbapi.HealthCheckProtocolsTcp},
		Backends:      []nlbapi.BackendDetails{{TargetId: inst.Id, Port: common.Int(30443)}},
	}})
	must(r1.OpcWorkRequestId, err)
	r2, err := f.nlb.CreateBackend(ctx, nlbapi.CreateBackendRequest{NetworkLoadBalancerId: &id, BackendSetName: set,
		CreateBackendDetails: nlbapi.CreateBackendDetails{IpAddress: common.String("10.0.10.2"), Port: common.Int(30443)}})
	must(r2.OpcWorkRequestId, err)
	_, err = f.nlb.CreateBackend(ctx, nlbapi.CreateBackendRequest{NetworkLoadBalancerId: &id, BackendSetName: set,
		CreateBackendDetails: nlbapi.CreateBackendDetails{IpAddress: common.String("10.0.10.2"), Port: common.Int(30443)}})
	// OCI's code for a duplicate backend (terraform-provider-oci #1593), not the busy NLB's Conflict.
	wantServiceError(t, err, http.StatusConflict, "NotAuthorizedOrResourceAlreadyExists")
	r3, err := f.nlb.UpdateBackend(ctx, nlbapi.UpdateBackendRequest{NetworkLoadBalancerId: &id, BackendSetName: set, BackendName: common.String("10.0.10.2:30443"),
		UpdateBackendDetails: nlbapi.UpdateBackendDetails{IsDrain: common.Bool(true)}})
	must(r3.OpcWorkRequestId, err)
	r4, err := f.nlb.UpdateBackendSet(ctx, nlbapi.UpdateBackendSetRequest{NetworkLoadBalancerId: &id, BackendSetName: set,
		UpdateBackendSetDetails: nlbapi.UpdateBackendSetDetails{Policy: common.String("THREE_TUPLE")}})
	must(r4.OpcWorkRequestId, err)
	r5, err := f.nlb.CreateListener(ctx, nlbapi.CreateListenerRequest{NetworkLoadBalancerId: &id, CreateListenerDetails: nlbapi.CreateListenerDetails{
		Name: common.String("UDP-443"), DefaultBackendSetName: set, Port: common.Int(443), Protocol: nlbapi.ListenerProtocolsUdp}})
	must(r5.OpcWorkRequestId, err)
	r6, err := f.nlb.UpdateListener(ctx, nlbapi.UpdateListenerRequest{NetworkLoadBalancerId: &id, ListenerName: common.String("UDP-443"),
		UpdateListenerDetails: nlbapi.UpdateListenerDetails{Port: common.Int(8443)}})
	must(r6.OpcWorkRequestId, err)

	bsResp, err := f.nlb.GetBackendSet(ctx, nlbapi.GetBackendSetRequest{NetworkLoadBalancerId: &id, BackendSetName: set})
	if err != nil {
		t.Fatalf("GetBackendSet: %v", err)
	}
	var backends []string
	for _, b := range bsResp.Backends {
		backends = append(backends, fmt.Sprintf("%s %s drain=%v", *b.Name, *b.IpAddress, *b.IsDrain))
	}
	// The backend given by targetId shows the instance's address.
	if diff := cmp.Diff([]string{*inst.Id + ":30443 10.0.10.9 drain=false", "10.0.10.2:30443 10.0.10.2 drain=true"}, backends); diff != "" {
		t.Errorf("backends after a partial backend set update (-want +got):\n%s", diff)
	}
	if bsResp.Policy != nlbapi.NetworkLoadBalancingPolicyThreeTuple {
		t.Errorf("policy %s, want THREE_TUPLE", bsResp.Policy)
	}
	l, err := f.nlb.GetListener(ctx, nlbapi.GetListenerRequest{NetworkLoadBalancerId: &id, ListenerName: common.String("UDP-443")})
	if err != nil || *l.Port != 8443 || l.Protocol != nlbapi.ListenerProtocolsUdp {
		t.Errorf("listener after a port-only update: %+v %v", l.Listener, err)
	}
	sets, err := f.nlb.ListBackendSets(ctx, nlbapi.ListBackendSetsRequest{NetworkLoadBalancerId: &id})
	if err != nil || len(sets.Items) != 2 {
		t.Errorf("ListBackendSets: %d items, %v; want 2", len(sets.Items), err)
	}
	listeners, err := f.nlb.ListListeners(ctx, nlbapi.ListListenersRequest{NetworkLoadBalancerId: &id})
	if err != nil || len(listeners.Items) != 2 {
		t.Errorf("ListListeners: %d items, %v; want 2", len(listeners.Items), err)
	}
	bl, err := f.nlb.ListBackends(ctx, nlbapi.ListBackendsRequest{NetworkLoadBalancerId: &id, BackendSetName: set})
	if err != nil || len(bl.Items) != 2 {
		t.Errorf("ListBackends: %d items, %v; want 2", len(bl.Items), err)
	}
	b, err := f.nlb.GetBackend(ctx, nlbapi.GetBackendRequest{NetworkLoadBalancerId: &id, BackendSetName: set, BackendName: common.String("10.0.10.2:30443")})
	if err != nil || !*b.IsDrain {
		t.Errorf("GetBackend: %+v %v", b.Backend, err)
	}

	// Deleting the set while a listener uses it fails; in the right order it works.
	bad, err := f.nlb.DeleteBackendSet(ctx, nlbapi.DeleteBackendSetRequest{NetworkLoadBalancerId: &id, BackendSetName: set})
	if err != nil {
		t.Fatalf("DeleteBackendSet: %v", err)
	}
	if wr := f.waitNLBWork(t, bad.OpcWorkRequestId); wr.Status != nlbapi.OperationStatusFailed {
		t.Fatalf("deleting a backend set in use: %s, want FAILED", wr.Status)
	}
	errs, err := f.nlb.ListWorkRequestErrors(ctx, nlbapi.ListWorkRequestErrorsRequest{WorkRequestId: bad.OpcWorkRequestId, CompartmentId: &f.comp})
	if err != nil || len(errs.Items) != 1 || *errs.Items[0].Message != "Listener 'UDP-443' has unknown default backend set 'TCP-443'" {
		t.Errorf("work request errors: %+v %v", errs.Items, err)
	}
	r7, err := f.nlb.DeleteBackend(ctx, nlbapi.DeleteBackendRequest{NetworkLoadBalancerId: &id, BackendSetName: set, BackendName: common.String("10.0.10.2:30443")})
	must(r7.OpcWorkRequestId, err)
	r8, err := f.nlb.DeleteListener(ctx, nlbapi.DeleteListenerRequest{NetworkLoadBalancerId: &id, ListenerName: common.String("UDP-443")})
	must(r8.OpcWorkRequestId, err)
	r9, err := f.nlb.DeleteBackendSet(ctx, nlbapi.DeleteBackendSetRequest{NetworkLoadBalancerId: &id, BackendSetName: set})
	must(r9.OpcWorkRequestId, err)
	got := f.getNLB(t, id)
	if len(got.BackendSets) != 1 || len(got.Listeners) != 1 {
		t.Errorf("after the deletes: %d backend sets, %d listeners; want 1 and 1", len(got.BackendSets), len(got.Listeners))
	}
}

func TestNetworkLoadBalancersAreListedInPages(t *testing.T) {
	// Paging and filters of NLBs just created, not when they are listed (the lag is
	// consistency_test.go's).
	f := newLBFixture(t, Options{PageSize: 2, ListingLag: NoLag})
	ctx := testCtx(t)
	for i := range 5 {
		f.createNLB(t, f.basicNLB(fmt.Sprintf("nlb-%d", i)))
	}
	pages, names := 0, []string{}
	req := nlbapi.ListNetworkLoadBalancersRequest{CompartmentId: &f.comp}
	for {
		resp, err := f.nlb.ListNetworkLoadBalancers(ctx, req)
		if err != nil {
			t.Fatalf("ListNetworkLoadBalancers: %v", err)
		}
		pages++
		for _, n := range resp.Items {
			names = append(names, *n.DisplayName)
		}
		if resp.OpcNextPage == nil {
			break
		}
		req.Page = resp.OpcNextPage
	}
	if pages != 3 || len(names) != 5 || names[0] != "nlb-0" {
		t.Errorf("%d pages with %v, want 3 pages of nlb-0..nlb-4", pages, names)
	}
	one, err := f.nlb.ListNetworkLoadBalancers(ctx, nlbapi.ListNetworkLoadBalancersRequest{CompartmentId: &f.comp, DisplayName: common.String("nlb-3")})
	if err != nil || len(one.Items) != 1 {
		t.Errorf("displayName filter: %d items, %v", len(one.Items), err)
	}
	wrs, total := nlbapi.ListWorkRequestsRequest{CompartmentId: &f.comp}, 0
	for {
		resp, err := f.nlb.ListWorkRequests(ctx, wrs)
		if err != nil {
			t.Fatalf("ListWorkRequests: %v", err)
		}
		total += len(resp.Items)
		if resp.OpcNextPage == nil {
			break
		}
		wrs.Page = resp.OpcNextPage
	}
	if total != 5 {
		t.Errorf("%d work requests listed, want 5", total)
	}
}

func TestDeleteNetworkLoadBalancerIsDeletingThenDeletedThenGone(t *testing.T) {
	clk := &Clock{}
	f := newLBFixture(t, Options{Now: clk.Now, WorkRequestDuration: time.Hour})
	ctx := testCtx(t)
	resp, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: f.basicNLB("svc")})
	if err != nil {
		t.Fatalf("CreateNetworkLoadBalancer: %v", err)
	}
	f.srv.CompleteWorkRequests()
	nsgs := []string{*f.srv.AddNetworkSecurityGroup(core.NetworkSecurityGroup{VcnId: &f.seeded.VCN}).Id}
	u, err := f.nlb.UpdateNetworkSecurityGroups(ctx, nlbapi.UpdateNetworkSecurityGroupsRequest{NetworkLoadBalancerId: resp.Id,
		UpdateNetworkSecurityGroupsDetails: nlbapi.UpdateNetworkSecurityGroupsDetails{NetworkSecurityGroupIds: nsgs}})
	if err != nil {
		t.Fatalf("UpdateNetworkSecurityGroups: %v", err)
	}
	f.srv.CompleteWorkRequests()
	if wr := f.waitNLBWork(t, u.OpcWorkRequestId); wr.OperationType != nlbapi.OperationTypeUpdateNsgs {
		t.Errorf("operation type %s, want UPDATE_NSGS", wr.OperationType)
	}
	if diff := cmp.Diff(nsgs, f.getNLB(t, *resp.Id).NetworkSecurityGroupIds); diff != "" {
		t.Errorf("NSGs (-want +got):\n%s", diff)
	}
	if _, err := f.nlb.DeleteNetworkLoadBalancer(ctx, nlbapi.DeleteNetworkLoadBalancerRequest{NetworkLoadBalancerId: resp.Id}); err != nil {
		t.Fatalf("DeleteNetworkLoadBalancer: %v", err)
	}
	if got := f.getNLB(t, *resp.Id).LifecycleState; got != nlbapi.LifecycleStateDeleting {
		t.Errorf("state %s while deleting, want DELETING", got)
	}
	f.srv.CompleteWorkRequests()
	clk.Advance(DefaultListingLag) // old enough to be listed
	// OCI still shows it, DELETED, to Get and List for a while; it takes no change or delete.
	if got := f.getNLB(t, *resp.Id).LifecycleState; got != nlbapi.LifecycleStateDeleted {
		t.Errorf("state %s after the delete, want DELETED", got)
	}
	list, err := f.nlb.ListNetworkLoadBalancers(ctx, nlbapi.ListNetworkLoadBalancersRequest{CompartmentId: &f.comp, DisplayName: common.String("svc")})
	if err != nil || len(list.Items) != 1 || list.Items[0].LifecycleState != nlbapi.LifecycleStateDeleted {
		t.Errorf("ListNetworkLoadBalancers by name after the delete: %+v, %v; want it, DELETED", list.Items, err)
	}
	if n := len(f.srv.NetworkLoadBalancers()); n != 0 {
		t.Errorf("NetworkLoadBalancers() lists %d, want 0: a DELETED one no longer exists", n)
	}
	_, err = f.nlb.DeleteNetworkLoadBalancer(ctx, nlbapi.DeleteNetworkLoadBalancerRequest{NetworkLoadBalancerId: resp.Id})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
	_, err = f.nlb.UpdateNetworkLoadBalancer(ctx, nlbapi.UpdateNetworkLoadBalancerRequest{NetworkLoadBalancerId: resp.Id,
		UpdateNetworkLoadBalancerDetails: nlbapi.UpdateNetworkLoadBalancerDetails{DisplayName: common.String("x")}})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
	clk.Advance(nlbDefaultDeletedRetention)
	_, err = f.nlb.GetNetworkLoadBalancer(ctx, nlbapi.GetNetworkLoadBalancerRequest{NetworkLoadBalancerId: resp.Id})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
	list, err = f.nlb.ListNetworkLoadBalancers(ctx, nlbapi.ListNetworkLoadBalancersRequest{CompartmentId: &f.comp})
	if err != nil || len(list.Items) != 0 {
		t.Errorf("ListNetworkLoadBalancers after the retention: %d items, %v; want none", len(list.Items), err)
	}
}

func TestNLBDeletedRetentionBelowZeroMakesADeletedNetworkLoadBalancerGoneAtOnce(t *testing.T) {
	f := newLBFixture(t, Options{NLBDeletedRetention: -1})
	id := f.createNLB(t, f.basicNLB("svc"))
	resp, err := f.nlb.DeleteNetworkLoadBalancer(testCtx(t), nlbapi.DeleteNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id})
	if err != nil {
		t.Fatalf("DeleteNetworkLoadBalancer: %v", err)
	}
	f.nlbMustSucceed(t, resp.OpcWorkRequestId)
	_, err = f.nlb.GetNetworkLoadBalancer(testCtx(t), nlbapi.GetNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id})
	wantServiceError(t, err, http.StatusNotFound, "NotAuthorizedOrNotFound")
}

func TestNetworkLoadBalancerRequestsAreRefusedAsOCIDoes(t *testing.T) {
	f := newLBFixture(t, Options{})
	ctx := testCtx(t)
	create := func(edit func(d *nlbapi.CreateNetworkLoadBalancerDetails)) func() error {
		return func() error {
			d := f.basicNLB("bad")
			edit(&d)
			_, err := f.nlb.CreateNetworkLoadBalancer(ctx, nlbapi.CreateNetworkLoadBalancerRequest{CreateNetworkLoadBalancerDetails: d})
			return err
		}
	}
	listener := func(edit func(l *nlbapi.ListenerDetails)) func() error {
		return create(func(d *nlbapi.CreateNetworkLoadBalancerDetails) {
			l := d.Listeners["TCP-80"]
			edit(&l)
			d.Listeners["TCP-80"] = l
		})
	}
	backendSet := func(edit func(b *nlbapi.BackendSetDetails)) func() error {
		return create(func(d *nlbapi.CreateNetworkLoadBalancerDetails) {
			b := d.BackendSets["TCP-80"]
			edit(&b)
			d.BackendSets["TCP-80"] = b
		})
	}
	id := f.createNLB(t, f.basicNLB("svc"))
	tests := []struct {
		name   string
		call   func() error
		status int
		code   string
	}{
		{"no subnet", create(func(d *nlbapi.CreateNetworkLoadBalancerDetails) { d.SubnetId = common.String("") }), 400, "InvalidParameter"},
		{"listener protocol HTTP", listener(func(l *nlbapi.ListenerDetails) { l.Protocol = "HTTP" }), 400, "InvalidParameter"},
		{"listener port 65536", listener(func(l *nlbapi.ListenerDetails) { l.Port = common.Int(65536) }), 400, "InvalidParameter"},
		{"listener key and name differ", listener(func(l *nlbapi.ListenerDetails) { l.Name = common.String("other") }), 400, "InvalidParameter"},
		{"proxy protocol on UDP", listener(func(l *nlbapi.ListenerDetails) {
			l.Protocol, l.IsPpv2Enabled = nlbapi.ListenerProtocolsUdp, common.Bool(true)
		}), 400, "InvalidParameter"},
		{"unknown policy", backendSet(func(b *nlbapi.BackendSetDetails) { b.Policy = "ROUND_ROBIN" }), 400, "InvalidParameter"},
		{"UDP health check without data", backendSet(func(b *nlbapi.BackendSetDetails) { b.HealthChecker.Protocol = nlbapi.HealthCheckProtocolsUdp }), 400, "InvalidParameter"},
		{"backend without address or target", backendSet(func(b *nlbapi.BackendSetDetails) { b.Backends = []nlbapi.Backend{{Port: common.Int(80)}} }), 400, "InvalidParameter"},
		{"too many backends", func() error {
			f.srv.SetLBLimits(LBLimits{BackendsPerNLBSet: 1})
			defer f.srv.SetLBLimits(LBLimits{})
			return backendSet(func(b *nlbapi.BackendSetDetails) {
				b.Backends = append(b.Backends, nlbapi.Backend{IpAddress: common.String("10.0.0.2"), Port: common.Int(80)})
			})()
		}, 400, "LimitExceeded"},
		{"six NSGs", create(func(d *nlbapi.CreateNetworkLoadBalancerDetails) {
			d.NetworkSecurityGroupIds = strings.Split("a,b,c,d,e,f", ",")
		}), 400, "LimitExceeded"},
		{"duplicate listener", func() error {
			_, err := f.nlb.CreateListener(ctx, nlbapi.CreateListenerRequest{NetworkLoadBalancerId: &id, CreateListenerDetails: nlbapi.CreateListenerDetails{
				Name: common.String("TCP-80"), DefaultBackendSetName: common.String("TCP-80"), Port: common.Int(81), Protocol: nlbapi.ListenerProtocolsTcp}})
			return err
		}, 409, "Conflict"},
		{"listener name with a space", func() error {
			_, err := f.nlb.CreateListener(ctx, nlbapi.CreateListenerRequest{NetworkLoadBalancerId: &id, CreateListenerDetails: nlbapi.CreateListenerDetails{
				Name: common.String("TCP 81"), DefaultBackendSetName: common.String("TCP-80"), Port: common.Int(81), Protocol: nlbapi.ListenerProtocolsTcp}})
			return err
		}, 400, "InvalidParameter"},
		{"missing listener", func() error {
			_, err := f.nlb.GetListener(ctx, nlbapi.GetListenerRequest{NetworkLoadBalancerId: &id, ListenerName: common.String("nope")})
			return err
		}, 404, "NotAuthorizedOrNotFound"},
		{"missing network load balancer", func() error {
			_, err := f.nlb.DeleteNetworkLoadBalancer(ctx, nlbapi.DeleteNetworkLoadBalancerRequest{NetworkLoadBalancerId: common.String("nope")})
			return err
		}, 404, "NotAuthorizedOrNotFound"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantServiceError(t, tc.call(), tc.status, tc.code) })
	}
	if n := len(f.srv.NetworkLoadBalancers()); n != 1 {
		t.Errorf("%d network load balancers, want only the valid one", n)
	}
}

func TestEditNetworkLoadBalancerActsAtOnce(t *testing.T) {
	f := newLBFixture(t, Options{})
	id := f.createNLB(t, f.basicNLB("svc"))
	before, err := f.nlb.GetNetworkLoadBalancer(testCtx(t), nlbapi.GetNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id})
	if err != nil {
		t.Fatalf("GetNetworkLoadBalancer: %v", err)
	}
	if !f.srv.EditNetworkLoadBalancer(id, func(n *nlbapi.NetworkLoadBalancer) {
		n.Id = common.String("ignored")
		delete(n.Listeners, "TCP-80")
	}) {
		t.Fatal("EditNetworkLoadBalancer found nothing")
	}
	after, err := f.nlb.GetNetworkLoadBalancer(testCtx(t), nlbapi.GetNetworkLoadBalancerRequest{NetworkLoadBalancerId: &id})
	if err != nil {
		t.Fatalf("GetNetworkLoadBalancer after the edit: %v", err)
	}
	if len(after.Listeners) != 0 || *after.Etag == *before.Etag {
		t.Errorf("after the edit: %d listeners, etag changed %v; want 0 and true", len(after.Listeners), *after.Etag != *before.Etag)
	}
	if n := len(f.srv.WorkRequests()); n != 1 {
		t.Errorf("%d work requests, want only the create's", n)
	}
}

func TestSharedOperationNamesAreCountedAndFaultedPerAPI(t *testing.T) {
	f := newLBFixture(t, Options{})
	// GetWorkRequest exists in both APIs; a fault on the Load Balancer one must not touch the
	// Network Load Balancer one, and each is counted under its own name.
	f.srv.InjectFault(Fault{Operation: "GetWorkRequest", Status: 500, Code: "InternalServerError"})

	_, err := f.nlb.GetWorkRequest(testCtx(t), nlbapi.GetWorkRequestRequest{WorkRequestId: common.String("ocid1.nlbworkrequest.oc1.phx.none")})
	wantServiceError(t, err, 404, "NotAuthorizedOrNotFound")
	_, err = f.lb.GetWorkRequest(testCtx(t), loadbalancer.GetWorkRequestRequest{WorkRequestId: common.String("ocid1.loadbalancerworkrequest.oc1.phx.none")})
	wantServiceError(t, err, 500, "InternalServerError")

	calls := f.srv.Calls()
	if lb, nlb := calls.Op("GetWorkRequest"), calls.Op(NLB("GetWorkRequest")); lb != 1 || nlb != 1 {
		t.Errorf("GetWorkRequest counted %d (LB) and %d (NLB), want 1 and 1", lb, nlb)
	}
}
