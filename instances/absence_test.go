// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/core"
	"golang.org/x/sync/errgroup"
	v1 "k8s.io/api/core/v1"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/oci-ccm/oci-ccm/ociclient"
)

// inCompartment is an addInstance edit that puts the instance in another compartment.
func inCompartment(id string) func(*core.Instance, *core.Vnic) {
	return func(i *core.Instance, _ *core.Vnic) { i.CompartmentId = &id }
}

// withCompartment returns the node with the compartment annotation set to id.
func withCompartment(node *v1.Node, id string) *v1.Node {
	if node.Annotations == nil {
		node.Annotations = map[string]string{}
	}
	node.Annotations[CompartmentAnnotation] = id
	return node
}

// A live instance in a compartment the policy does not cover (GetInstance answers 404
// NotAuthorizedOrNotFound) must never be reported gone after a restart, when nothing in this
// process has seen it yet: the configured compartment's listing lacking it proves nothing.
// With the Node's compartment annotation, its own compartment's listing decides.
func TestLiveInstanceInAnotherCompartmentIsNeverReportedGoneOnAnAmbiguous404(t *testing.T) {
	type want struct {
		exists bool
		err    bool
	}
	for _, tc := range []struct {
		name       string
		annotate   bool
		remove     bool // the instance really is gone
		denyListed bool // the policy does not allow listing its compartment either
		want       want
	}{
		{name: "compartment unknown after a restart", want: want{err: true}},
		{name: "compartment unknown, instance really gone", remove: true, want: want{err: true}},
		{name: "annotated compartment lists it", annotate: true, want: want{exists: true}},
		{name: "annotated compartment lists it not", annotate: true, remove: true, want: want{exists: false}},
		{name: "annotated compartment cannot be listed", annotate: true, remove: true, denyListed: true, want: want{err: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			e := newEnv(t, envOptions{})
			other := e.otherCompartment(t)
			inst := e.addInstance("node-x", inCompartment(other))
			node := nodeFor(inst)
			if tc.annotate {
				withCompartment(node, other)
			}
			if tc.remove {
				e.srv.RemoveInstance(*inst.Id)
			}
			e.srv.InjectFault(faultNoPolicy("GetInstance"))
			if tc.denyListed {
				e.srv.InjectFault(faultNoPolicy("ListInstances"))
			}

			exists, err := e.inst.InstanceExists(ctx, node) // a fresh Instances: just restarted
			if got := (want{exists: exists, err: err != nil}); got != tc.want {
				t.Fatalf("InstanceExists = %v, %v; want exists=%v, error=%v", exists, err, tc.want.exists, tc.want.err)
			}
			if err == nil {
				return
			}
			if errors.Is(err, errConfirmedAbsent) || ociclient.IsRetryable(err) {
				t.Errorf("error %v: confirmed absent or retryable; want neither", err)
			}
			if !tc.annotate {
				// It says why: the ambiguous 404, what was listed, and how to settle it.
				for _, part := range []string{"NotAuthorizedOrNotFound", "IAM policy", e.compartment, CompartmentAnnotation} {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("error %q does not mention %q", err, part)
					}
				}
			}
		})
	}
}

// An instance created after the configured compartment's listing was cached, whose GetInstance
// answers 404 NotAuthorizedOrNotFound, is found in a fresh listing: a cached listing never
// proves absence.
func TestInstanceNewerThanTheCachedListingIsNotReportedGoneOnAnAmbiguous404(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{cacheTTL: time.Hour})
	e.addInstance("node-a", nil)
	if exists, err := e.inst.InstanceExists(ctx, namedNode("node-a")); !exists || err != nil {
		t.Fatalf("InstanceExists(node-a) = %v, %v", exists, err) // caches the compartment's listing
	}
	late := e.addInstance("node-b", nil)
	e.srv.InjectFault(faultNoPolicy("GetInstance"))

	if exists, err := e.inst.InstanceExists(ctx, nodeFor(late)); !exists || err != nil {
		t.Errorf("InstanceExists(node-b) = %v, %v; want true, nil", exists, err)
	}
}

// A gone instance is confirmed absent by a fresh listing of the compartment it is known to live
// in: learned from an earlier read in this process, or from the Node's annotation.
func TestGoneInstanceIsConfirmedAbsentWhereItIsKnownToLive(t *testing.T) {
	for _, tc := range []struct {
		name    string
		other   bool // in another compartment than the configured one
		seen    bool // read successfully before it went
		annoate bool
	}{
		{name: "configured compartment, seen before", seen: true},
		{name: "configured compartment, annotated", annoate: true},
		{name: "other compartment, seen before", other: true, seen: true},
		{name: "other compartment, annotated", other: true, annoate: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			e := newEnv(t, envOptions{cacheTTL: time.Hour})
			compartment := e.compartment
			if tc.other {
				compartment = e.otherCompartment(t)
			}
			inst := e.addInstance("node-a", inCompartment(compartment))
			node := nodeFor(inst)
			if tc.annoate {
				withCompartment(node, compartment)
			}
			if tc.seen {
				if exists, err := e.inst.InstanceExists(ctx, node); !exists || err != nil {
					t.Fatalf("InstanceExists while live = %v, %v", exists, err)
				}
			}
			e.srv.RemoveInstance(*inst.Id) // still in the cache when seen before
			e.srv.ResetCalls()

			if exists, err := e.inst.InstanceExists(ctx, node); exists || err != nil {
				t.Fatalf("InstanceExists once removed = %v, %v; want false, nil", exists, err)
			}
			if c := e.srv.Calls(); c.Op("GetInstance") != 1 || c.Op("ListInstances") != 1 {
				t.Errorf("calls = %v; want one GetInstance (404) and one fresh ListInstances", c)
			}
			if _, err := e.inst.InstanceShutdown(ctx, node); !errors.Is(err, cloudprovider.InstanceNotFound) {
				t.Errorf("InstanceShutdown error = %v; want one wrapping cloudprovider.InstanceNotFound", err)
			}
		})
	}
}

func TestMalformedCompartmentAnnotationIsAnErrorNamingIt(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{})
	inst := e.addInstance("node-a", nil)
	e.srv.RemoveInstance(*inst.Id)
	node := withCompartment(nodeFor(inst), "ocid1.vcn.oc1..aaaa")

	exists, err := e.inst.InstanceExists(ctx, node)
	if err == nil || !strings.Contains(err.Error(), CompartmentAnnotation) || !strings.Contains(err.Error(), "ocid1.vcn.oc1..aaaa") {
		t.Errorf("InstanceExists = %v, %v; want an error naming the annotation and its value", exists, err)
	}
}

// A Node name reused by a new instance must not resolve to the old, terminated one because a
// cached listing holds only that one.
func TestReusedNodeNameFindsTheNewInstanceNotTheCachedTerminatedOne(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{cacheTTL: time.Hour})
	old := e.addInstance("node-a", nil)
	e.srv.SetInstanceState(*old.Id, core.InstanceLifecycleStateTerminated)
	if exists, err := e.inst.InstanceExists(ctx, namedNode("node-a")); exists || err != nil {
		t.Fatalf("InstanceExists with only the terminated instance = %v, %v; want false, nil", exists, err)
	}
	fresh := e.addInstance("node-a", nil)

	md, err := e.inst.InstanceMetadata(ctx, namedNode("node-a"))
	if err != nil || md.ProviderID != ProviderID(*fresh.Id) {
		t.Errorf("InstanceMetadata = %+v, %v; want the new instance %s", md, err, *fresh.Id)
	}
	if exists, err := e.inst.InstanceExists(ctx, namedNode("node-a")); !exists || err != nil {
		t.Errorf("InstanceExists = %v, %v; want true, nil", exists, err)
	}
}

// A Node with a providerID costs the same few calls whatever the size of its compartment: it is
// read by ID, never found by listing every instance and VNIC attachment. InstanceMetadata's
// reads are cached; InstanceExists and InstanceShutdown each read the instance fresh.
func TestNodeWithProviderIDCostsConstantCallsInA2000InstanceCompartment(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{cacheTTL: time.Hour, pageSize: 100})
	insts := e.addInstances(2000)
	node := nodeFor(insts[1234])
	e.srv.ResetCalls()

	if _, err := e.inst.InstanceMetadata(ctx, node); err != nil {
		t.Fatal(err)
	}
	if exists, err := e.inst.InstanceExists(ctx, node); !exists || err != nil {
		t.Fatalf("InstanceExists = %v, %v", exists, err)
	}
	if _, err := e.inst.InstanceShutdown(ctx, node); err != nil {
		t.Fatal(err)
	}
	c := e.srv.Calls()
	if c.Op("GetInstance") != 3 || c.Op("ListVnicAttachments") != 1 || c.Op("GetVnic") != 1 || c.Total() != 5 {
		t.Errorf("calls for one cold Node in a 2,000-instance compartment:\n%v\nwant three GetInstance (metadata's, then one fresh for each of exists and shutdown), one ListVnicAttachments (of the instance) and one GetVnic", c)
	}
}

// The compartments remembered for settling a later 404 are swept once they expire: 1,000
// instances coming and going in waves of 100, one wave per homeTTL, leave at most two waves.
func TestRememberedCompartmentsStayBoundedUnderChurn(t *testing.T) {
	const total, wave = 1000, 100
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{})
	clk := clocktesting.NewFakeClock(time.Now())
	e.inst.homes = utilcache.NewExpiringWithClock(clk)
	var live []core.Instance
	for n := 0; n < total; n += wave {
		for _, inst := range live {
			e.srv.RemoveInstance(*inst.Id)
		}
		live = live[:0]
		for range wave {
			live = append(live, e.addInstance("node", nil))
		}
		for _, inst := range live {
			if exists, err := e.inst.InstanceExists(ctx, nodeFor(inst)); !exists || err != nil {
				t.Fatalf("InstanceExists = %v, %v", exists, err)
			}
		}
		clk.Step(homeTTL)
	}
	if got := e.inst.homes.Len(); got > 2*wave {
		t.Errorf("%d remembered compartments after %d instances came and went in waves of %d; want at most %d", got, total, wave, 2*wave)
	}
}

// When GetInstance answers 404 for every Node of a compartment (its read policy is missing),
// Nodes asking at once share fresh listings: 100 Nodes, 8 at a time, cost one GetInstance each
// (InstanceExists reads fresh, never from the cache a listing fills) and at most one listing per
// two Nodes (measured: 30 to 34), not a listing per Node.
func TestManyNodesAnsweringAmbiguous404sShareFreshListings(t *testing.T) {
	const n = 100
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{cacheTTL: time.Hour})
	other := e.otherCompartment(t)
	nodes := make([]*v1.Node, n)
	for k := range nodes {
		nodes[k] = withCompartment(nodeFor(e.addInstance("node", inCompartment(other))), other)
	}
	e.srv.InjectFault(faultNoPolicy("GetInstance"))
	e.srv.ResetCalls()

	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(resyncWorkers)
	for _, node := range nodes {
		g.Go(func() error {
			if exists, err := e.inst.InstanceExists(ctx, node); !exists || err != nil {
				return fmt.Errorf("InstanceExists(%s) = %v, %v; want true, nil", node.Spec.ProviderID, exists, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	c := e.srv.Calls()
	if c.Op("GetInstance") != n || c.Op("ListInstances") > n/2 || c.Total() != c.Op("GetInstance")+c.Op("ListInstances") {
		t.Errorf("calls for %d Nodes, %d at a time:\n%v\nwant %d GetInstance and at most %d ListInstances, nothing else",
			n, resyncWorkers, c, n, n/2)
	}
}
