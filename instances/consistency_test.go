// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2/ktesting"

	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// The node lifecycle controller deletes a Node the moment InstanceExists answers (false, nil),
// and taints it when InstanceShutdown answers (true, nil); an error makes it try again later
// (k8s.io/cloud-provider v0.37.2, controllers/nodelifecycle/node_lifecycle_controller.go,
// MonitorNodes and shutdownInCloudProvider). These tests run on ocitest with its default policy
// delay: a policy just written still answers 404 NotAuthorizedOrNotFound to every call it grants
// for ocitest.DefaultPolicyDelay, and a grant withdrawn is refused at once.

// nodeCase is a Node and what InstanceExists and InstanceShutdown answer for it once the policy
// is in force.
type nodeCase struct {
	name             string
	node             *v1.Node
	exists, shutdown bool
	// shutdownNotFound: InstanceShutdown answers an error wrapping cloudprovider.InstanceNotFound
	// (the instance is proven gone) instead of shutdown.
	shutdownNotFound bool
}

// seedNodes adds a running, a stopped and a removed instance in compartment, and the Nodes
// the CCM could be asked about: with providerID (annotated with the compartment or not, as OKE
// sets it), and one registered by name only.
func (e *env) seedNodes(compartment string) []nodeCase {
	live := e.addInstance("live", inCompartment(compartment))
	stopped := e.addInstance("stopped", inCompartment(compartment))
	e.srv.SetInstanceState(*stopped.Id, core.InstanceLifecycleStateStopped)
	gone := e.addInstance("gone", inCompartment(compartment))
	e.srv.RemoveInstance(*gone.Id)
	cases := []nodeCase{
		{name: "running, annotated", node: withCompartment(nodeFor(live), compartment), exists: true},
		{name: "stopped, annotated", node: withCompartment(nodeFor(stopped), compartment), exists: true, shutdown: true},
		{name: "removed, annotated", node: withCompartment(nodeFor(gone), compartment), shutdownNotFound: true},
	}
	if compartment == e.compartment {
		// Without the annotation only the configured compartment is listed: these answer only
		// there, and a removed instance is then never proven gone (absence_test.go).
		cases = append(cases,
			nodeCase{name: "running, providerID only", node: nodeFor(live), exists: true},
			nodeCase{name: "running, by name", node: namedNode("live"), exists: true})
	}
	return cases
}

// askDuringPropagation checks that no Node is reported gone or shut down while the policy
// propagates (or is missing): every answer is an error, never one wrapping
// cloudprovider.InstanceNotFound.
func askDuringPropagation(t *testing.T, e *env, cases []nodeCase, when string) {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	for _, c := range cases {
		if exists, err := e.inst.InstanceExists(ctx, c.node); err == nil {
			t.Errorf("%s: InstanceExists(%s) = %v, nil; want an error (the answer is a policy still propagating, not the instance)", when, c.name, exists)
		} else if exists {
			t.Errorf("%s: InstanceExists(%s) = true, %v; want false with the error", when, c.name, err)
		}
		if down, err := e.inst.InstanceShutdown(ctx, c.node); err == nil || errors.Is(err, cloudprovider.InstanceNotFound) {
			t.Errorf("%s: InstanceShutdown(%s) = %v, %v; want an error that is not InstanceNotFound", when, c.name, down, err)
		} else if down {
			t.Errorf("%s: InstanceShutdown(%s) = true, %v; want false with the error", when, c.name, err)
		}
	}
}

// askInForce checks the answers once the policy is in force.
func askInForce(t *testing.T, e *env, cases []nodeCase) {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	for _, c := range cases {
		if exists, err := e.inst.InstanceExists(ctx, c.node); exists != c.exists || err != nil {
			t.Errorf("in force: InstanceExists(%s) = %v, %v; want %v, nil", c.name, exists, err, c.exists)
		}
		down, err := e.inst.InstanceShutdown(ctx, c.node)
		switch {
		case c.shutdownNotFound:
			if !errors.Is(err, cloudprovider.InstanceNotFound) {
				t.Errorf("in force: InstanceShutdown(%s) = %v, %v; want an error wrapping InstanceNotFound", c.name, down, err)
			}
		case down != c.shutdown || err != nil:
			t.Errorf("in force: InstanceShutdown(%s) = %v, %v; want %v, nil", c.name, down, err, c.shutdown)
		}
	}
}

// A new install: the server starts refusing everything (no policy names the CCM yet), then the
// operator writes the documented policy. For ocitest.DefaultPolicyDelay every call still answers
// 404 NotAuthorizedOrNotFound. No Node is reported gone or shut down then, running, stopped or
// really removed alike; once the policy is in force every answer is right. ociclient's caches
// (its default TTL) keep nothing of the refusals.
func TestNewInstallsPropagatingPolicyNeverReportsANodeGone(t *testing.T) {
	clock := &ocitest.Clock{}
	e := newEnv(t, envOptions{clock: clock})
	e.client = e.newClient(t, 0) // ociclient.DefaultCacheTTL, as in production
	var counted ociclient.ConsistencyCounts
	inst, err := New(Options{Compute: e.client.Compute, VirtualNetwork: e.client.VirtualNetwork,
		CompartmentID: e.compartment, Region: e.srv.Region(), Consistency: &counted})
	if err != nil {
		t.Fatal(err)
	}
	e.inst = inst
	cases := e.seedNodes(e.compartment)
	e.srv.DenyAll()

	askDuringPropagation(t, e, cases, "before any policy")
	if err := e.srv.SetPolicy(e.policy...); err != nil {
		t.Fatal(err)
	}
	askDuringPropagation(t, e, cases, "policy just written")
	clock.Advance(ocitest.DefaultPolicyDelay / 2)
	askDuringPropagation(t, e, cases, "policy half-way")
	if d := e.srv.Denials(); len(d) == 0 || !slices.ContainsFunc(d, func(d ocitest.Denial) bool { return d.Propagating }) {
		t.Fatalf("denials = %v; want refusals of a policy still propagating (the test proves nothing otherwise)", d)
	}

	// Every question about a Node with providerID re-checked its 404 with a listing: 4 such Nodes,
	// 2 questions each, 3 times (the Node found by name answers from the listing alone).
	if got := counted.Count("instances", ociclient.ConsistencyAmbiguousNotFound); got != 3*2*4 {
		t.Errorf("ambiguous 404s counted during propagation: %d, want %d", got, 3*2*4)
	}

	clock.Advance(ocitest.DefaultPolicyDelay / 2)
	before := counted.Count("instances", ociclient.ConsistencyAmbiguousNotFound)
	askInForce(t, e, cases)
	// In force, only the removed instance's 404s are re-checked (InstanceExists and
	// InstanceShutdown).
	if got := counted.Count("instances", ociclient.ConsistencyAmbiguousNotFound) - before; got != 2 {
		t.Errorf("ambiguous 404s counted once in force: %d, want 2 (the removed instance's)", got)
	}
}

// A grant for a second compartment: withdrawn, it is refused at once; granted again, it is
// refused until it has propagated. Neither window reports a Node of that compartment gone or shut
// down, although this process had read every one of its instances before (it knows their
// compartment, so a 404 sends it to that compartment's listing, which is refused too).
func TestWithdrawnOrNewCompartmentGrantNeverReportsANodeGone(t *testing.T) {
	clock := &ocitest.Clock{}
	e := newEnv(t, envOptions{clock: clock})
	other := e.otherCompartment(t)
	cases := e.seedNodes(other)
	askInForce(t, e, cases) // this process has read them all

	withdrawn := slices.DeleteFunc(slices.Clone(e.policy), func(s string) bool { return strings.HasSuffix(s, otherCompartmentName) })
	if len(withdrawn) == len(e.policy) {
		t.Fatalf("policy %q has no statement for compartment %s", e.policy, otherCompartmentName)
	}
	if err := e.srv.SetPolicy(withdrawn...); err != nil {
		t.Fatal(err)
	}
	askDuringPropagation(t, e, cases, "grant withdrawn")

	if err := e.srv.SetPolicy(e.policy...); err != nil {
		t.Fatal(err)
	}
	askDuringPropagation(t, e, cases, "grant written again")
	clock.Advance(ocitest.DefaultPolicyDelay)
	askInForce(t, e, cases)
}
