// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package instances

import (
	"errors"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/core"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2/ktesting"
)

// The node lifecycle controller asks InstanceExists and InstanceShutdown about a NotReady Node,
// which is when its instance may just have gone. Both answer from a read of OCI made for the
// question, never from ociclient's cache warmed by InstanceMetadata when the Node was added:
// one GetInstance, plus the fresh listing that settles a 404, and nothing else.
func TestExistsAndShutdownReadOCINotTheCacheWarmedByMetadata(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(e *env, id string)
		exists bool
		// shutdown is InstanceShutdown's answer; notFound means an error wrapping
		// cloudprovider.InstanceNotFound instead.
		shutdown, notFound bool
		// calls InstanceExists makes: GetInstance, ListInstances, in all.
		gets, lists int
	}{
		{name: "removed", change: func(e *env, id string) { e.srv.RemoveInstance(id) },
			exists: false, notFound: true, gets: 1, lists: 1},
		{name: "terminated", change: func(e *env, id string) { e.srv.SetInstanceState(id, core.InstanceLifecycleStateTerminated) },
			exists: false, shutdown: false, gets: 1},
		{name: "terminating", change: func(e *env, id string) { e.srv.SetInstanceState(id, core.InstanceLifecycleStateTerminating) },
			exists: false, shutdown: false, gets: 1},
		{name: "stopped", change: func(e *env, id string) { e.srv.SetInstanceState(id, core.InstanceLifecycleStateStopped) },
			exists: true, shutdown: true, gets: 1},
		{name: "unchanged", change: func(*env, string) {},
			exists: true, shutdown: false, gets: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			e := newEnv(t, envOptions{cacheTTL: time.Hour})
			inst := e.addInstance("node-a", nil)
			node := nodeFor(inst)
			if _, err := e.inst.InstanceMetadata(ctx, node); err != nil {
				t.Fatalf("InstanceMetadata while running: %v", err) // caches the instance, its attachments and VNIC
			}
			tc.change(e, *inst.Id)
			e.srv.ResetCalls()

			exists, err := e.inst.InstanceExists(ctx, node)
			if err != nil || exists != tc.exists {
				t.Errorf("InstanceExists = %v, %v; want %v, nil", exists, err, tc.exists)
			}
			if c := e.srv.Calls(); c.Op("GetInstance") != tc.gets || c.Op("ListInstances") != tc.lists || c.Total() != tc.gets+tc.lists {
				t.Errorf("InstanceExists calls:\n%v\nwant %d GetInstance and %d ListInstances, nothing else", c, tc.gets, tc.lists)
			}

			e.srv.ResetCalls()
			shutdown, err := e.inst.InstanceShutdown(ctx, node)
			switch {
			case tc.notFound:
				if !errors.Is(err, cloudprovider.InstanceNotFound) {
					t.Errorf("InstanceShutdown = %v, %v; want an error wrapping cloudprovider.InstanceNotFound", shutdown, err)
				}
			case err != nil || shutdown != tc.shutdown:
				t.Errorf("InstanceShutdown = %v, %v; want %v, nil", shutdown, err, tc.shutdown)
			}
			if c := e.srv.Calls(); c.Op("GetInstance") != tc.gets || c.Total() != tc.gets+tc.lists {
				t.Errorf("InstanceShutdown calls:\n%v\nwant %d GetInstance and %d ListInstances, nothing else", c, tc.gets, tc.lists)
			}

			// InstanceMetadata still answers from the cache when it can: a live instance's
			// metadata costs nothing more.
			if tc.exists {
				e.srv.ResetCalls()
				if _, err := e.inst.InstanceMetadata(ctx, node); err != nil {
					t.Fatalf("InstanceMetadata: %v", err)
				}
				if c := e.srv.Calls(); c.Total() != 0 {
					t.Errorf("InstanceMetadata calls after the fresh reads:\n%v\nwant none (cached)", c)
				}
			}
		})
	}
}

// An instance whose GetInstance answers the ambiguous 404 NotAuthorizedOrNotFound while the
// fresh listing holds it TERMINATED does not exist, and is not shut down, even though the cache
// holds it RUNNING.
func TestListedButTerminatedInstanceBehindAnAmbiguous404DoesNotExist(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{cacheTTL: time.Hour})
	inst := e.addInstance("node-a", nil)
	node := nodeFor(inst)
	if _, err := e.inst.InstanceMetadata(ctx, node); err != nil {
		t.Fatal(err)
	}
	e.srv.SetInstanceState(*inst.Id, core.InstanceLifecycleStateTerminated)
	e.srv.InjectFault(faultNoPolicy("GetInstance"))
	e.srv.ResetCalls()

	if exists, err := e.inst.InstanceExists(ctx, node); exists || err != nil {
		t.Errorf("InstanceExists = %v, %v; want false, nil", exists, err)
	}
	if c := e.srv.Calls(); c.Op("GetInstance") != 1 || c.Op("ListInstances") != 1 || c.Total() != 2 {
		t.Errorf("calls:\n%v\nwant one GetInstance (404) and one fresh ListInstances", c)
	}
	if down, err := e.inst.InstanceShutdown(ctx, node); down || err != nil {
		t.Errorf("InstanceShutdown = %v, %v; want false, nil", down, err)
	}
}

// A Node without providerID is matched in a listing, which InstanceMetadata cached while the
// instance ran. For InstanceExists and InstanceShutdown the instance it matched is read again
// fresh (one GetInstance); gone or going since, the Node is looked for again in fresh listings.
func TestNodeWithoutProviderIDIsJudgedOnFreshReads(t *testing.T) {
	for _, tc := range []struct {
		name     string
		state    core.InstanceLifecycleStateEnum
		exists   bool
		shutdown bool
		calls    map[string]int // InstanceExists makes
	}{
		{name: "stopped", state: core.InstanceLifecycleStateStopped, exists: true, shutdown: true,
			calls: map[string]int{"GetInstance": 1}},
		// The fresh search's hostname and IP steps list the VNIC attachments again.
		{name: "terminated", state: core.InstanceLifecycleStateTerminated, exists: false, shutdown: false,
			calls: map[string]int{"GetInstance": 1, "ListInstances": 1, "ListVnicAttachments": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			e := newEnv(t, envOptions{cacheTTL: time.Hour})
			inst := e.addInstance("node-a", nil)
			node := namedNode("node-a")
			if _, err := e.inst.InstanceMetadata(ctx, node); err != nil {
				t.Fatal(err) // caches the compartment's listing with the instance running
			}
			e.srv.SetInstanceState(*inst.Id, tc.state)
			e.srv.ResetCalls()

			if exists, err := e.inst.InstanceExists(ctx, node); exists != tc.exists || err != nil {
				t.Errorf("InstanceExists = %v, %v; want %v, nil", exists, err, tc.exists)
			}
			assertCalls(t, "InstanceExists", e.srv.Calls(), tc.calls)
			if down, err := e.inst.InstanceShutdown(ctx, node); down != tc.shutdown || err != nil {
				t.Errorf("InstanceShutdown = %v, %v; want %v, nil", down, err, tc.shutdown)
			}
		})
	}
}

// A Node without providerID whose instance was removed since the listing was cached matches
// nothing in fresh listings: not found, which is an error, not "gone" (a naming mismatch looks
// the same).
func TestNodeWithoutProviderIDWhoseInstanceWasRemovedIsNotFound(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	e := newEnv(t, envOptions{cacheTTL: time.Hour})
	inst := e.addInstance("node-a", nil)
	node := namedNode("node-a")
	if _, err := e.inst.InstanceMetadata(ctx, node); err != nil {
		t.Fatal(err)
	}
	e.srv.RemoveInstance(*inst.Id)

	if exists, err := e.inst.InstanceExists(ctx, node); exists || !errors.Is(err, cloudprovider.InstanceNotFound) {
		t.Errorf("InstanceExists = %v, %v; want false and an error wrapping cloudprovider.InstanceNotFound", exists, err)
	}
	if down, err := e.inst.InstanceShutdown(ctx, node); down || !errors.Is(err, cloudprovider.InstanceNotFound) {
		t.Errorf("InstanceShutdown = %v, %v; want false and an error wrapping cloudprovider.InstanceNotFound", down, err)
	}
}
