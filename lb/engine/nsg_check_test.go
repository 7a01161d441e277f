// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package engine_test

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// unknownNSG is a well-formed NSG OCID that no ocitest server knows.
const unknownNSG = "ocid1.networksecuritygroup.oc1.phx.doesnotexist"

// wantNSGRefusal fails t unless err is a *ValidationError with a problem on annotation a naming
// id whose text contains each of want.
func wantNSGRefusal(t *testing.T, err error, a annotation.Name, id string, want ...string) {
	t.Helper()
	var verr *lb.ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("Ensure = %v, want a *lb.ValidationError naming %s and %s", err, a, id)
	}
	for _, p := range verr.Problems {
		if p.Field == string(a) && p.Value == id {
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			return
		}
	}
	t.Fatalf("Ensure = %v, want a problem on %s naming %s", err, a, id)
}

// wantNoWrites fails t if calls hold any write (a create, update or delete of anything).
func wantNoWrites(t *testing.T, calls ocitest.Calls) {
	t.Helper()
	if n := calls.Class(ocitest.ClassWrite); n != 0 {
		t.Errorf("%d writes, want none:\n%s", n, calls)
	}
}

// policyWithout is the default policy without the grants that contain any of drop, plus add.
func policyWithout(drop []string, add ...string) []string {
	var out []string
	for _, s := range ocitest.DefaultPolicy() {
		if !slices.ContainsFunc(drop, func(d string) bool { return strings.Contains(s, " to "+d+" in ") }) {
			out = append(out, s)
		}
	}
	return append(out, add...)
}

// TestNSGTheVCNAPIDoesNotKnowIsRefusedBeforeAnyWrite: a Service naming an NSG that does not
// exist gets an error naming the annotation and the OCID, and neither the create nor, for an
// existing load balancer, any of the plan's other changes is sent (OCI would refuse the NSG
// update with 400 RelatedResourceNotAuthorizedOrNotFound after them).
func TestNSGTheVCNAPIDoesNotKnowIsRefusedBeforeAnyWrite(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind svcOpt
		a    annotation.Name
	}{
		{"lb", func(*v1.Service) {}, annotation.NetworkSecurityGroups},
		{"nlb", asNLB, annotation.NLBNetworkSecurityGroups},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, withNLBs())
			good := e.nsgs(1)[0]

			before := e.srv.Calls()
			_, err := e.r.Ensure(ctx, service(tc.kind, annotate(tc.a, good+","+unknownNSG)), readyNodes(1), nil)
			calls := e.srv.Calls().Since(before)
			wantNSGRefusal(t, err, tc.a, unknownNSG, "404", "use network-security-groups")
			wantNoWrites(t, calls)
			if n := len(e.srv.LoadBalancers()) + len(e.srv.NetworkLoadBalancers()); n != 0 {
				t.Errorf("%d load balancers created, want none", n)
			}
			if n := calls.Op("GetNetworkSecurityGroup"); n != 2 {
				t.Errorf("%d GetNetworkSecurityGroup, want 2 (one per NSG named)", n)
			}

			// An existing load balancer: the unknown NSG comes with a port change.
			e.ensure(t, service(tc.kind, annotate(tc.a, good)), readyNodes(1), nil)
			before = e.srv.Calls()
			_, err = e.r.Ensure(ctx, service(tc.kind, annotate(tc.a, good+","+unknownNSG), ports(80, 8080)), readyNodes(1), nil)
			calls = e.srv.Calls().Since(before)
			wantNSGRefusal(t, err, tc.a, unknownNSG)
			wantNoWrites(t, calls)
			if n := calls.Op("GetNetworkSecurityGroup"); n != 1 {
				t.Errorf("%d GetNetworkSecurityGroup, want 1 (only the NSG not attached yet)", n)
			}
		})
	}
}

// TestNSGThePolicyHidesIsRefusedBeforeAnyWrite: without a grant on network security groups
// (neither read virtual-network-family nor use network-security-groups), the NSG exists but OCI
// answers 404 for it, as for a missing one: the error names the annotation, the OCID and the
// statement that is needed.
func TestNSGThePolicyHidesIsRefusedBeforeAnyWrite(t *testing.T) {
	e := newEnv(t)
	id := e.nsgs(1)[0]
	if err := e.srv.SetPolicy(policyWithout([]string{"read virtual-network-family", "manage network-security-groups"})...); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(ocitest.DefaultPolicyDelay) // the new policy is in force
	before := e.srv.Calls()
	_, err := e.r.Ensure(ctx, service(annotate(annotation.NetworkSecurityGroups, id)), readyNodes(1), nil)
	calls := e.srv.Calls().Since(before)
	wantNSGRefusal(t, err, annotation.NetworkSecurityGroups, id, "Allow dynamic-group <dg> to use network-security-groups in compartment")
	wantNoWrites(t, calls)
	if n := len(e.srv.LoadBalancers()); n != 0 {
		t.Errorf("%d load balancers created, want none", n)
	}
}

// TestNSGReadableButNotUsable: a policy that lets the CCM read an NSG (read
// virtual-network-family) but not use it. No read proves the use grant, so OCI refuses the
// create, or the NSG update of an existing load balancer, with 400
// RelatedResourceNotAuthorizedOrNotFound: the error names the annotation, the NSG and the
// statement for its compartment; no load balancer is created, and the NSG update runs before
// the plan's listener and backend set changes, which are not attempted.
func TestNSGReadableButNotUsable(t *testing.T) {
	e := newEnv(t, withConcurrency(4))
	attached := e.nsgs(1)[0]
	e.ensure(t, service(annotate(annotation.NetworkSecurityGroups, attached)), readyNodes(1), nil)
	id := e.nsgs(1)[0]
	if err := e.srv.SetPolicy(policyWithout([]string{"manage network-security-groups"})...); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(ocitest.DefaultPolicyDelay) // the new policy is in force
	statement := "Allow dynamic-group <dg> to use network-security-groups in compartment " + e.seeded.Compartment
	wantExplained := func(t *testing.T, err error) {
		t.Helper()
		if !ociclient.IsRelatedNotFound(err) {
			t.Fatalf("Ensure = %v, want OCI's 400 RelatedResourceNotAuthorizedOrNotFound, explained", err)
		}
		for _, w := range []string{string(annotation.NetworkSecurityGroups), id, statement} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not say %q", err, w)
			}
		}
	}

	t.Run("create", func(t *testing.T) {
		svc := service(annotate(annotation.NetworkSecurityGroups, id))
		svc.Name, svc.UID = "other", "0b7c54ad-5d3c-4b57-9a43-54a7b1d2c3e4"
		_, err := e.r.Ensure(ctx, svc, readyNodes(1), nil)
		wantExplained(t, err)
		if n := len(e.srv.LoadBalancers()); n != 1 {
			t.Errorf("%d load balancers, want the first Service's only", n)
		}
	})
	t.Run("existing load balancer", func(t *testing.T) {
		before := e.only(t)
		_, err := e.r.Ensure(ctx, service(annotate(annotation.NetworkSecurityGroups, attached+","+id), ports(80, 8080)), readyNodes(1), nil)
		wantExplained(t, err)
		after := e.only(t)
		if !slices.Equal(before.NetworkSecurityGroups, after.NetworkSecurityGroups) {
			t.Errorf("NSGs %v → %v, want unchanged", before.NetworkSecurityGroups, after.NetworkSecurityGroups)
		}
		if b, a := slices.Sorted(maps.Keys(before.Listeners)), slices.Sorted(maps.Keys(after.Listeners)); !slices.Equal(b, a) {
			t.Errorf("listeners %v → %v, want unchanged: the NSG update comes first", b, a)
		}
		if b, a := slices.Sorted(maps.Keys(before.BackendSets)), slices.Sorted(maps.Keys(after.BackendSets)); !slices.Equal(b, a) {
			t.Errorf("backend sets %v → %v, want unchanged: the NSG update comes first", b, a)
		}
	})
}

// TestSixNSGsAreRefusedBeforeAnyCall: OCI takes at most five NSGs per load balancer (a sixth is
// 400 LimitExceeded); the annotation is refused when the Service is read, before any call.
func TestSixNSGsAreRefusedBeforeAnyCall(t *testing.T) {
	e := newEnv(t)
	ids := e.nsgs(6)
	before := e.srv.Calls()
	_, err := e.r.Ensure(ctx, service(annotate(annotation.NetworkSecurityGroups, strings.Join(ids, ","))), readyNodes(1), nil)
	calls := e.srv.Calls().Since(before)
	var verr *lb.ValidationError
	if !errors.As(err, &verr) || verr.Problems[0].Field != string(annotation.NetworkSecurityGroups) ||
		!strings.Contains(err.Error(), "at most 5 OCIDs") || !strings.Contains(err.Error(), "it lists 6") || !strings.Contains(err.Error(), ids[0]) {
		t.Fatalf("Ensure = %v, want a ValidationError on %s allowing at most 5 OCIDs", err, annotation.NetworkSecurityGroups)
	}
	if calls.Total() != 0 {
		t.Errorf("%d calls, want none:\n%s", calls.Total(), calls)
	}
}

// TestNSGCheckCallBudget: the check reads only the NSGs a plan attaches. A Service without NSGs
// costs nothing more; one with N costs N GetNetworkSecurityGroup (and the subnet read for the
// VCN, which ociclient caches) when they are attached, and nothing once they are.
func TestNSGCheckCallBudget(t *testing.T) {
	e := newEnv(t)
	_, created := e.ensure(t, service(), readyNodes(1), nil)
	_, again := e.ensure(t, service(), readyNodes(1), nil)
	for _, c := range []ocitest.Calls{created, again} {
		if n := c.Op("GetNetworkSecurityGroup") + c.Op("GetSubnet"); n != 0 {
			t.Errorf("a Service without NSGs read %d NSGs or subnets, want 0:\n%s", n, c)
		}
	}

	ids := e.nsgs(3)
	svc := service(annotate(annotation.NetworkSecurityGroups, strings.Join(ids, ",")))
	_, attach := e.ensure(t, svc, readyNodes(1), nil)
	if n := attach.Op("GetNetworkSecurityGroup"); n != 3 {
		t.Errorf("attaching 3 NSGs read %d, want 3:\n%s", n, attach)
	}
	if n := attach.Op("GetSubnet"); n > 1 {
		t.Errorf("attaching 3 NSGs read the subnet %d times, want at most 1:\n%s", n, attach)
	}
	_, steady := e.ensure(t, svc, readyNodes(1), nil)
	if n := steady.Op("GetNetworkSecurityGroup") + steady.Op("GetSubnet"); n != 0 {
		t.Errorf("a Service whose NSGs are attached read %d NSGs or subnets, want 0:\n%s", n, steady)
	}
}
