// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

func TestEnsureCreatesLoadBalancerInOneCall(t *testing.T) {
	e := newEnv(t)
	svc := service()
	res, calls := e.ensure(t, svc, readyNodes(2), nil)

	if diff := cmp.Diff(map[string]int{"CreateLoadBalancer": 1}, writes(calls)); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	// One list to find no load balancer (the shared index), one read of the OCID the create's
	// work request names.
	if got := calls.Op("ListLoadBalancers"); got != 1 || calls.Op("GetLoadBalancer") != 1 {
		t.Errorf("reads: %d ListLoadBalancers, %d GetLoadBalancer; want 1, 1\n%s", got, calls.Op("GetLoadBalancer"), calls)
	}
	got := e.only(t)
	if diff := cmp.Diff([]string{"TCP-443", "TCP-80"}, slices.Sorted(maps.Keys(got.Listeners))); diff != "" {
		t.Errorf("listeners (-want +got):\n%s", diff)
	}
	if n := len(got.BackendSets["TCP-80"].Backends); n != 2 {
		t.Errorf("TCP-80 has %d backends, want 2", n)
	}
	if got.Name != string(svc.UID) {
		t.Errorf("display name %q, want the Service UID (upstream-compatible default)", got.Name)
	}
	wantTags := map[string]string{model.TagManagedBy: model.ManagedByValue, model.TagCluster: clusterName, model.TagService: "default/web", model.TagServiceUID: string(svc.UID)}
	if diff := cmp.Diff(wantTags, got.FreeformTags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	if len(res.Status.Ingress) != 1 || res.Status.Ingress[0].IP == "" {
		t.Errorf("status = %+v, want the load balancer's public IP", res.Status)
	}
	if res.Spec.ID != got.ID || !slices.Equal(res.Spec.Subnets, e.seeded.LoadBalancerSubnets) {
		t.Errorf("result spec ID %q subnets %v; want %q and the config subnets", res.Spec.ID, res.Spec.Subnets, got.ID)
	}
}

func TestEnsureOfUnchangedServiceMakesNoWrites(t *testing.T) {
	e := newEnv(t)
	svc := service(annotate(annotation.SSLPorts, "443"), annotate(annotation.TLSSecret, "web-tls"),
		annotate(annotation.HealthCheckInterval, "5000"), annotate(annotation.BackendProtocol, "HTTP"))
	secrets := lb.Secrets{webTLS: tlsSecret("v1")}
	e.ensure(t, svc, readyNodes(3), secrets)

	res, calls := e.ensure(t, svc, readyNodes(3), secrets)
	if !res.Plan.Empty() {
		t.Errorf("plan not empty:\n%s", res.Plan)
	}
	if calls.Class(ocitest.ClassWrite) != 0 || calls.Class(ocitest.ClassPoll) != 0 || calls.Class(ocitest.ClassRead) != 1 {
		t.Errorf("no-op ensure made %d reads, %d writes, %d polls; want 1, 0, 0\n%s",
			calls.Class(ocitest.ClassRead), calls.Class(ocitest.ClassWrite), calls.Class(ocitest.ClassPoll), calls)
	}

	// A restart within OCI's listing lag of the create: the first listing may lack the load
	// balancer, so the new Reconciler looks again once it would show it (by name, then a read).
	// No writes: a second create is the bug this guards against.
	e.r = newReconciler(t, e.oci, e.cfg, 0)
	res, calls = e.ensure(t, svc, readyNodes(3), secrets)
	if !res.Plan.Empty() || calls.Class(ocitest.ClassWrite) != 0 || calls.Op("ListLoadBalancers") > 2 || calls.Op("GetLoadBalancer") > 1 {
		t.Errorf("after a restart within the listing lag: plan\n%s\ncalls:\n%s", res.Plan, calls)
	}

	// A new Reconciler (a restarted CCM) has no cached OCID: one list, which also stands in for
	// the read (index_listed.go), still no writes.
	e.r = e.settledReconciler(t, engine.Options{})
	res, calls = e.ensure(t, svc, readyNodes(3), secrets)
	if !res.Plan.Empty() || calls.Class(ocitest.ClassWrite) != 0 || calls.Op("ListLoadBalancers") != 1 || calls.Op("GetLoadBalancer") != 0 {
		t.Errorf("after restart: plan\n%s\ncalls:\n%s", res.Plan, calls)
	}
}

func TestEnsureAfterNodeAddedOnlyUpdatesBackendSets(t *testing.T) {
	e := newEnv(t)
	svc := service()
	e.ensure(t, svc, readyNodes(2), nil)
	_, calls := e.ensure(t, svc, readyNodes(3), nil)
	if diff := cmp.Diff(map[string]int{"UpdateBackendSet": 2}, writes(calls)); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	for name, bs := range e.only(t).BackendSets {
		if len(bs.Backends) != 3 {
			t.Errorf("backend set %s has %d backends, want 3", name, len(bs.Backends))
		}
	}
}

func TestEnsureWithNoBackendsKeepsListeners(t *testing.T) {
	e := newEnv(t)
	svc := service()
	e.ensure(t, svc, readyNodes(2), nil)
	_, calls := e.ensure(t, svc, nil, nil)
	if diff := cmp.Diff(map[string]int{"UpdateBackendSet": 2}, writes(calls)); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	got := e.only(t)
	if len(got.Listeners) != 2 || len(got.BackendSets["TCP-80"].Backends) != 0 {
		t.Errorf("listeners %v, TCP-80 backends %v; want 2 listeners, no backends", slices.Sorted(maps.Keys(got.Listeners)), got.BackendSets["TCP-80"].Backends)
	}
}

func TestEnsurePortChange(t *testing.T) {
	e := newEnv(t)
	e.ensure(t, service(ports(80)), readyNodes(2), nil)
	_, calls := e.ensure(t, service(ports(8080)), readyNodes(2), nil)
	want := map[string]int{"CreateBackendSet": 1, "CreateListener": 1, "DeleteListener": 1, "DeleteBackendSet": 1}
	if diff := cmp.Diff(want, writes(calls)); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	got := e.only(t)
	if diff := cmp.Diff([]string{"TCP-8080"}, slices.Sorted(maps.Keys(got.Listeners))); diff != "" {
		t.Errorf("listeners (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"TCP-8080"}, slices.Sorted(maps.Keys(got.BackendSets))); diff != "" {
		t.Errorf("backend sets (-want +got):\n%s", diff)
	}
	assertNoFailedWorkRequests(t, e)
}

func TestEnsureProtocolChange(t *testing.T) {
	e := newEnv(t)
	e.ensure(t, service(ports(80)), readyNodes(1), nil)
	_, calls := e.ensure(t, service(ports(80), annotate(annotation.BackendProtocol, "HTTP")), readyNodes(1), nil)
	if diff := cmp.Diff(map[string]int{"DeleteListener": 1, "CreateListener": 1}, writes(calls)); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	got := e.only(t)
	if l, ok := got.Listeners["HTTP-80"]; !ok || l.Protocol != "HTTP" || l.BackendSet != "TCP-80" || len(got.Listeners) != 1 {
		t.Errorf("listeners = %+v, want only HTTP-80 → TCP-80", got.Listeners)
	}
	assertNoFailedWorkRequests(t, e)
}

func TestEnsureTLSRotationSwitchesCertificateWithoutConflicts(t *testing.T) {
	e := newEnv(t)
	svc := service(annotate(annotation.SSLPorts, "443"), annotate(annotation.TLSSecret, "web-tls"))
	first, _ := e.ensure(t, svc, readyNodes(2), lb.Secrets{webTLS: tlsSecret("v1")})
	oldCert := first.Spec.Listeners["TCP-443"].TLS.Certificate

	res, calls := e.ensure(t, svc, readyNodes(2), lb.Secrets{webTLS: tlsSecret("v2")})
	want := map[string]int{"CreateCertificate": 1, "UpdateListener": 1, "DeleteCertificate": 1}
	if diff := cmp.Diff(want, writes(calls)); diff != "" {
		t.Errorf("writes (-want +got):\n%s\nplan:\n%s", diff, res.Plan)
	}
	if n := calls.Status(http.StatusConflict); n != 0 {
		t.Errorf("%d calls answered 409", n)
	}
	got := e.only(t)
	newCert := got.Listeners["TCP-443"].TLS.Certificate
	if newCert == oldCert || !slices.Equal(slices.Sorted(maps.Keys(got.Certificates)), []string{newCert}) {
		t.Errorf("listener uses %q (was %q), certificates %v; want only the new one", newCert, oldCert, slices.Sorted(maps.Keys(got.Certificates)))
	}
	assertNoFailedWorkRequests(t, e)
}

func TestEnsureShapeAndNSGChangesUpdateInPlace(t *testing.T) {
	e := newEnv(t)
	e.ensure(t, service(), readyNodes(1), nil)
	nsg := e.nsgs(1)[0]
	_, calls := e.ensure(t, service(annotate(annotation.ShapeFlexMax, "400"),
		annotate(annotation.NetworkSecurityGroups, nsg)), readyNodes(1), nil)
	// UpdateLoadBalancer records the NSG oci-ccm attached, so that only it is ever detached.
	if diff := cmp.Diff(map[string]int{"UpdateLoadBalancer": 1, "UpdateLoadBalancerShape": 1, "UpdateNetworkSecurityGroups": 1}, writes(calls)); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	got := e.only(t)
	if got.Shape != (model.Shape{Name: "flexible", MinMbps: 10, MaxMbps: 400}) || !slices.Equal(got.NetworkSecurityGroups, []string{nsg}) {
		t.Errorf("shape %v, NSGs %v", got.Shape, got.NetworkSecurityGroups)
	}
}

func TestEnsureRefusesImmutableChangesAndChangesNothing(t *testing.T) {
	e := newEnv(t)
	e.ensure(t, service(), readyNodes(1), nil)
	before := e.srv.Calls()
	_, err := e.r.Ensure(ctx, service(annotate(annotation.Subnet1, "ocid1.subnet.oc1.phx.other"), ports(8080)), readyNodes(1), nil)
	var ierr *lb.ImmutableError
	if !errors.As(err, &ierr) {
		t.Fatalf("Ensure = %v, want *ImmutableError", err)
	}
	if n := e.srv.Calls().Since(before).Class(ocitest.ClassWrite); n != 0 {
		t.Errorf("a refused change made %d writes", n)
	}
}

func TestEnsureWithReservedIP(t *testing.T) {
	e := newEnv(t)
	ip := e.srv.AddPublicIP(core.PublicIp{CompartmentId: common.String(e.cfg.CompartmentID), Lifetime: core.PublicIpLifetimeReserved,
		LifecycleState: core.PublicIpLifecycleStateAvailable})
	res, _ := e.ensure(t, service(func(s *v1.Service) { s.Spec.LoadBalancerIP = *ip.IpAddress }), readyNodes(1), nil)
	if len(res.Status.Ingress) != 1 || res.Status.Ingress[0].IP != *ip.IpAddress {
		t.Errorf("status %+v, want the reserved IP %s", res.Status, *ip.IpAddress)
	}

	other := newEnv(t)
	_, err := other.r.Ensure(ctx, service(func(s *v1.Service) { s.Spec.LoadBalancerIP = "192.0.2.99" }), readyNodes(1), nil)
	var verr *lb.ValidationError
	if !errors.As(err, &verr) || verr.Problems[0].Field != "spec.loadBalancerIP" {
		t.Errorf("Ensure with an unknown reserved IP = %v, want a ValidationError on spec.loadBalancerIP", err)
	}
	if n := len(other.srv.LoadBalancers()); n != 0 {
		t.Errorf("%d load balancers created", n)
	}
}

// TestReservedIPOfAnotherLoadBalancerIsRefusedBeforeAnyWrite: a second Service asking for the
// reserved IP the first one's load balancer holds (ASSIGNED) is refused with a ValidationError on
// spec.loadBalancerIP before any write, since OCI would leave a FAILED load balancer; the first
// Service keeps its load balancer and re-syncs without a change.
func TestReservedIPOfAnotherLoadBalancerIsRefusedBeforeAnyWrite(t *testing.T) {
	e := newEnv(t)
	ip := e.srv.AddPublicIP(core.PublicIp{CompartmentId: common.String(e.cfg.CompartmentID), Lifetime: core.PublicIpLifetimeReserved})
	holder := service(func(s *v1.Service) { s.Spec.LoadBalancerIP = *ip.IpAddress })
	e.ensure(t, holder, readyNodes(1), nil)

	other := service(func(s *v1.Service) {
		s.Name, s.UID, s.Spec.LoadBalancerIP = "other", types.UID("0d7f3c55-1b2a-4c6e-9f80-7a6b5c4d3e2f"), *ip.IpAddress
	})
	before := e.srv.Calls()
	_, err := e.r.Ensure(ctx, other, readyNodes(1), nil)
	var verr *lb.ValidationError
	if !errors.As(err, &verr) || len(verr.Problems) != 1 || verr.Problems[0].Field != "spec.loadBalancerIP" || verr.Problems[0].Value != *ip.IpAddress {
		t.Fatalf("Ensure with an assigned reserved IP = %v, want a ValidationError on spec.loadBalancerIP naming %s", err, *ip.IpAddress)
	}
	if msg := err.Error(); !strings.Contains(msg, "ASSIGNED") || !strings.Contains(msg, "assigned to another resource") {
		t.Errorf("error %q does not say the IP is assigned to another resource", msg)
	}
	if n := e.srv.Calls().Since(before).Class(ocitest.ClassWrite); n != 0 {
		t.Errorf("the refused Service made %d writes, want none", n)
	}
	if n := len(e.srv.LoadBalancers()); n != 1 {
		t.Errorf("%d load balancers, want the holder's only", n)
	}

	res, calls := e.ensure(t, holder, readyNodes(1), nil)
	if len(res.Status.Ingress) != 1 || res.Status.Ingress[0].IP != *ip.IpAddress {
		t.Errorf("holder's status %+v, want the reserved IP %s", res.Status, *ip.IpAddress)
	}
	if n := calls.Class(ocitest.ClassWrite); n != 0 {
		t.Errorf("the holder's re-sync made %d writes, want none", n)
	}
}

func TestEnsureInternalReportsPrivateAddressAndIPMode(t *testing.T) {
	e := newEnv(t)
	res, _ := e.ensure(t, service(annotate(annotation.Internal, "true"), annotate(annotation.IngressIPMode, "Proxy")), readyNodes(1), nil)
	got := e.only(t)
	if !got.Internal || len(got.Subnets) != 1 {
		t.Errorf("internal %v subnets %v; want internal with one subnet", got.Internal, got.Subnets)
	}
	if len(res.Status.Ingress) != 1 || res.Status.Ingress[0].IPMode == nil || *res.Status.Ingress[0].IPMode != v1.LoadBalancerIPModeProxy {
		t.Errorf("status %+v, want one private address with ipMode Proxy", res.Status)
	}
	got2, exists, err := e.r.Get(ctx, service(annotate(annotation.IngressIPMode, "Proxy")))
	if err != nil || !exists || !cmp.Equal(got2.Status, res.Status) || got2.LoadBalancerID != res.LoadBalancerID {
		t.Errorf("Get = %+v, %v, %v; want status %+v of %s", got2, exists, err, res.Status, res.LoadBalancerID)
	}
}

func TestDeleteRemovesOwnedLoadBalancerAndAbsentIsSuccess(t *testing.T) {
	e := newEnv(t)
	svc := service()
	e.ensure(t, svc, readyNodes(1), nil)
	if err := e.r.Delete(ctx, svc); err != nil {
		t.Fatal(err)
	}
	if n := len(e.srv.LoadBalancers()); n != 0 {
		t.Errorf("%d load balancers left", n)
	}
	if err := e.r.Delete(ctx, svc); err != nil {
		t.Errorf("deleting an absent load balancer: %v", err)
	}
	if _, exists, err := e.r.Get(ctx, svc); exists || err != nil {
		t.Errorf("Get after delete = exists %v, %v", exists, err)
	}
}

func TestOwnershipIsNeverTakenFromAnotherClusterOrUntaggedLoadBalancer(t *testing.T) {
	e := newEnv(t, withNaming(config.NamingName))
	foreign := e.srv.AddLoadBalancer(loadbalancer.LoadBalancer{
		CompartmentId: common.String(e.cfg.CompartmentID), DisplayName: common.String("default-web"),
		FreeformTags: model.Owner{Cluster: "staging", Service: "default/web", UID: "other-uid"}.Tags(),
	})
	svc := service()

	// Same name, another cluster's tags: left alone, and a load balancer of our own is created.
	e.ensure(t, svc, readyNodes(1), nil)
	all := e.srv.LoadBalancers()
	if len(all) != 2 {
		t.Fatalf("%d load balancers, want the foreign one and ours", len(all))
	}
	if still, _ := e.srv.LoadBalancer(*foreign.Id); !cmp.Equal(still.FreeformTags, foreign.FreeformTags) || len(still.Listeners) != 0 {
		t.Errorf("the foreign load balancer was changed: %+v", still)
	}

	// Explicit adoption of another cluster's load balancer is refused.
	_, err := e.r.Ensure(ctx, service(annotate(annotation.AdoptLoadBalancerID, *foreign.Id)), readyNodes(1), nil)
	if !errors.Is(err, engine.ErrNotOwned) {
		t.Errorf("adopting a foreign load balancer: %v, want ErrNotOwned", err)
	}

	// Deleting the Service deletes ours only.
	if err := e.r.Delete(ctx, svc); err != nil {
		t.Fatal(err)
	}
	if left := e.srv.LoadBalancers(); len(left) != 1 || *left[0].Id != *foreign.Id {
		t.Errorf("after delete: %d load balancers left, want only the foreign one", len(left))
	}

	// An untagged load balancer found by name alone is refused, and survives Delete.
	e2 := newEnv(t, withNaming(config.NamingName))
	untagged := e2.srv.AddLoadBalancer(loadbalancer.LoadBalancer{CompartmentId: common.String(e2.cfg.CompartmentID), DisplayName: common.String("default-web")})
	if _, err := e2.r.Ensure(ctx, svc, readyNodes(1), nil); !errors.Is(err, engine.ErrNotOwned) {
		t.Errorf("Ensure over an untagged same-name load balancer: %v, want ErrNotOwned", err)
	}
	if err := e2.r.Delete(ctx, svc); err != nil {
		t.Errorf("Delete: %v", err)
	}
	if _, ok := e2.srv.LoadBalancer(*untagged.Id); !ok {
		t.Error("an untagged load balancer this Service does not own was deleted")
	}
}

func TestUpstreamLoadBalancerIsAdoptedByUIDAndRenamedUnderNameScheme(t *testing.T) {
	e := newEnv(t, withNaming(config.NamingName))
	svc := service(ports(80))
	// What the upstream CCM left: named by UID, no ownership tags, a user's tag.
	upstream := e.srv.AddLoadBalancer(loadbalancer.LoadBalancer{
		CompartmentId: common.String(e.cfg.CompartmentID), DisplayName: common.String(string(svc.UID)),
		ShapeName: common.String("100Mbps"), SubnetIds: e.seeded.LoadBalancerSubnets, FreeformTags: map[string]string{"team": "web"},
	})
	res, calls := e.ensure(t, svc, readyNodes(1), nil)
	if calls.Op("CreateLoadBalancer") != 0 || calls.Op("UpdateLoadBalancer") != 1 || calls.Op("UpdateLoadBalancerShape") != 0 {
		t.Errorf("writes %v: want the upstream load balancer adopted (tagged, renamed), its fixed shape kept\n%s", writes(calls), res.Plan)
	}
	got, _ := e.srv.LoadBalancer(*upstream.Id)
	if *got.DisplayName != "default-web" || got.FreeformTags["team"] != "web" || got.FreeformTags[model.TagCluster] != clusterName {
		t.Errorf("adopted load balancer: name %q tags %v", *got.DisplayName, got.FreeformTags)
	}
	// A restarted CCM finds it by its new name with one list.
	e.r = newReconciler(t, e.oci, e.cfg, 0)
	res, calls = e.ensure(t, svc, readyNodes(1), nil)
	if !res.Plan.Empty() || calls.Op("ListLoadBalancers") != 1 {
		t.Errorf("after restart: plan\n%s\ncalls\n%s", res.Plan, calls)
	}
}

func assertNoFailedWorkRequests(t *testing.T, e *env) {
	t.Helper()
	for _, wr := range e.srv.WorkRequests() {
		if wr.State == ocitest.WorkRequestFailed {
			t.Errorf("work request %s (%s) failed: %v", wr.ID, wr.Operation, wr.Errors)
		}
	}
}

func TestEnsureReportsLoadBalancerThatIsNotReady(t *testing.T) {
	for _, state := range []loadbalancer.LoadBalancerLifecycleStateEnum{loadbalancer.LoadBalancerLifecycleStateCreating, loadbalancer.LoadBalancerLifecycleStateFailed} {
		t.Run(string(state), func(t *testing.T) {
			e := newEnv(t)
			svc := service()
			tags := model.Owner{Cluster: clusterName, Service: "default/web", UID: string(svc.UID)}.Tags()
			if state == loadbalancer.LoadBalancerLifecycleStateFailed {
				// Untagged, as the upstream CCM left it: a FAILED one oci-ccm created itself is
				// deleted and made again (TestEnsureRecreatesALoadBalancerOCIFailedToCreate).
				tags = nil
			}
			e.srv.AddLoadBalancer(loadbalancer.LoadBalancer{
				CompartmentId: common.String(e.cfg.CompartmentID), DisplayName: common.String(string(svc.UID)),
				LifecycleState: state, FreeformTags: tags,
			})
			before := e.srv.Calls()
			_, err := e.r.Ensure(ctx, svc, readyNodes(1), nil)
			var serr *engine.StateError
			if !errors.Is(err, engine.ErrUnavailable) || !errors.As(err, &serr) || serr.State != string(state) {
				t.Errorf("Ensure = %v, want a StateError for %s", err, state)
			}
			if n := e.srv.Calls().Since(before).Class(ocitest.ClassWrite); n != 0 || len(e.srv.LoadBalancers()) != 1 {
				t.Errorf("%d writes, %d load balancers; want none and the one", n, len(e.srv.LoadBalancers()))
			}
		})
	}
}

func TestAdoptionAnnotationTakesOverAnUntaggedLoadBalancer(t *testing.T) {
	e := newEnv(t)
	existing := e.srv.AddLoadBalancer(loadbalancer.LoadBalancer{
		CompartmentId: common.String(e.cfg.CompartmentID), DisplayName: common.String("hand-made"),
		ShapeName: common.String("flexible"), ShapeDetails: &loadbalancer.ShapeDetails{MinimumBandwidthInMbps: common.Int(10), MaximumBandwidthInMbps: common.Int(10)},
		SubnetIds: e.seeded.LoadBalancerSubnets,
	})
	svc := service(annotate(annotation.AdoptLoadBalancerID, *existing.Id))
	res, calls := e.ensure(t, svc, readyNodes(1), nil)
	if calls.Op("CreateLoadBalancer") != 0 || res.Spec.ID != *existing.Id {
		t.Fatalf("adoption created a load balancer or used another: %s\n%s", res.Spec.ID, res.Plan)
	}
	got := e.only(t)
	if got.Name != string(svc.UID) || got.Owner.Cluster != clusterName || len(got.Listeners) != 2 || got.Shape.MaxMbps != 10 {
		t.Errorf("adopted load balancer: name %q owner %+v listeners %v shape %v; want renamed, tagged, configured, shape kept",
			got.Name, got.Owner, slices.Sorted(maps.Keys(got.Listeners)), got.Shape)
	}

	// A Service whose adoption target is gone deletes cleanly, and cannot be ensured.
	gone := service(annotate(annotation.AdoptLoadBalancerID, "ocid1.loadbalancer.oc1.phx.gone"))
	gone.UID = "another-uid"
	if err := e.r.Delete(ctx, gone); err != nil {
		t.Errorf("Delete with a missing adoption target: %v", err)
	}
	var verr *lb.ValidationError
	if _, err := e.r.Ensure(ctx, gone, readyNodes(1), nil); !errors.As(err, &verr) {
		t.Errorf("Ensure with a missing adoption target = %v, want a ValidationError", err)
	}
}
