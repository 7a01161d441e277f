// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// computeEnv is an env with a VCN, one subnet and n instances, each with one VNIC.
func computeEnv(t testing.TB, cfg envConfig, n int) (*testEnv, []core.Instance) {
	t.Helper()
	env := newTestEnv(t, cfg)
	vcn := env.srv.AddVCN(core.Vcn{})
	subnet := env.srv.AddSubnet(core.Subnet{VcnId: vcn.Id, CidrBlock: common.String("10.0.1.0/24")})
	var instances []core.Instance
	for i := range n {
		instances = append(instances, env.srv.AddInstance(ocitest.Instance{
			Instance: core.Instance{DisplayName: common.String(fmt.Sprintf("node-%d", i))},
			VNICs:    []core.Vnic{{SubnetId: subnet.Id}},
		}))
	}
	return env, instances
}

func TestGetInstanceIsCached(t *testing.T) {
	env, instances := computeEnv(t, envConfig{}, 1)
	id := *instances[0].Id
	for range 3 {
		got, err := env.client.Compute.GetInstance(context.Background(), id)
		if err != nil || *got.Id != id {
			t.Fatalf("GetInstance = %v, %v", got.Id, err)
		}
	}
	if calls := env.srv.Calls().Op("GetInstance"); calls != 1 {
		t.Errorf("GetInstance calls = %d, want 1", calls)
	}
}

func TestHundredConcurrentGetInstancesMakeOneCall(t *testing.T) {
	env, instances := computeEnv(t, envConfig{}, 1)
	id := *instances[0].Id
	// Hold the first request at the server so every reader arrives while it is in flight.
	env.srv.InjectFault(ocitest.Fault{Operation: "GetInstance", Latency: 200 * time.Millisecond, Times: 1})
	const readers = 100
	var wg sync.WaitGroup
	errs := make([]error, readers)
	for i := range readers {
		wg.Go(func() {
			got, err := env.client.Compute.GetInstance(context.Background(), id)
			if err == nil && *got.Id != id {
				err = errors.New("wrong instance " + *got.Id)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if calls := env.srv.Calls().Op("GetInstance"); calls != 1 {
		t.Errorf("GetInstance calls = %d, want 1 for %d concurrent readers", calls, readers)
	}
}

func TestInvalidateInstanceForcesAReadAndANotFoundIsNotCached(t *testing.T) {
	env, instances := computeEnv(t, envConfig{}, 1)
	id := *instances[0].Id
	ctx := context.Background()
	if _, err := env.client.Compute.GetInstance(ctx, id); err != nil {
		t.Fatal(err)
	}
	env.client.Compute.InvalidateInstance(id)
	env.srv.InjectFault(ocitest.Fault{Operation: "GetInstance", Status: 404, Times: 1})
	if _, err := env.client.Compute.GetInstance(ctx, id); !IsNotFound(err) {
		t.Fatalf("GetInstance after invalidation: %v; want the injected 404", err)
	}
	if _, err := env.client.Compute.GetInstance(ctx, id); err != nil {
		t.Fatalf("GetInstance after the 404: %v", err)
	}
	if calls := env.srv.Calls().Op("GetInstance"); calls != 3 {
		t.Errorf("GetInstance calls = %d, want 3", calls)
	}
}

func TestListInstancesFollowsPagesAndFillsTheInstanceCache(t *testing.T) {
	env, instances := computeEnv(t, envConfig{server: ocitest.Options{PageSize: 2}}, 5)
	ctx := context.Background()
	compartment := *instances[0].CompartmentId
	list, err := env.client.Compute.ListInstances(ctx, compartment)
	if err != nil || len(list) != 5 {
		t.Fatalf("ListInstances = %d instances, %v; want 5", len(list), err)
	}
	for _, inst := range instances {
		if _, err := env.client.Compute.GetInstance(ctx, *inst.Id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := env.client.Compute.ListInstances(ctx, compartment); err != nil {
		t.Fatal(err)
	}
	calls := env.srv.Calls()
	if calls.Op("ListInstances") != 3 || calls.Op("GetInstance") != 0 {
		t.Errorf("ListInstances calls = %d (want 3 pages, once), GetInstance calls = %d (want 0)",
			calls.Op("ListInstances"), calls.Op("GetInstance"))
	}
}

func TestVnicAttachmentsAndVnicsAreCachedPerInstance(t *testing.T) {
	env, instances := computeEnv(t, envConfig{}, 2)
	ctx := context.Background()
	compartment := *instances[0].CompartmentId
	for range 2 {
		for _, inst := range instances {
			atts, err := env.client.Compute.ListVnicAttachments(ctx, compartment, *inst.Id)
			if err != nil || len(atts) != 1 || *atts[0].InstanceId != *inst.Id {
				t.Fatalf("ListVnicAttachments(%s) = %v, %v; want its one attachment", *inst.Id, atts, err)
			}
			if _, err := env.client.VirtualNetwork.GetVnic(ctx, *atts[0].VnicId); err != nil {
				t.Fatal(err)
			}
		}
	}
	calls := env.srv.Calls()
	if calls.Op("ListVnicAttachments") != 2 || calls.Op("GetVnic") != 2 {
		t.Errorf("ListVnicAttachments calls = %d, GetVnic calls = %d; want 2 and 2 (one per instance)",
			calls.Op("ListVnicAttachments"), calls.Op("GetVnic"))
	}
	// Invalidating one instance drops its attachments, not the other's.
	env.client.Compute.InvalidateInstance(*instances[0].Id)
	for _, inst := range instances {
		if _, err := env.client.Compute.ListVnicAttachments(ctx, compartment, *inst.Id); err != nil {
			t.Fatal(err)
		}
	}
	if got := env.srv.Calls().Op("ListVnicAttachments"); got != 3 {
		t.Errorf("ListVnicAttachments calls after invalidating one instance = %d, want 3", got)
	}
}

func TestReturnedListsAreCopies(t *testing.T) {
	env, instances := computeEnv(t, envConfig{}, 2)
	ctx := context.Background()
	compartment := *instances[0].CompartmentId
	first, err := env.client.Compute.ListInstances(ctx, compartment)
	if err != nil {
		t.Fatal(err)
	}
	first[0] = core.Instance{} // a caller sorting or editing its slice must not corrupt the cache
	second, err := env.client.Compute.ListInstances(ctx, compartment)
	if err != nil || second[0].Id == nil {
		t.Fatalf("second ListInstances = %v, %v; want the cached instances intact", second, err)
	}
}

// BenchmarkGetInstance compares a cached read with one that always calls ocitest, and reports
// OCI calls per read.
func BenchmarkGetInstance(b *testing.B) {
	for _, bc := range []struct {
		name string
		ttl  time.Duration
	}{{"cached", time.Hour}, {"uncached", -1}} {
		b.Run(bc.name, func(b *testing.B) {
			env, instances := computeEnv(b, envConfig{client: Options{CacheTTL: bc.ttl, RateLimit: noLimit}}, 1)
			id := *instances[0].Id
			ctx := context.Background()
			env.srv.ResetCalls()
			b.ResetTimer()
			for b.Loop() {
				if _, err := env.client.Compute.GetInstance(ctx, id); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(env.srv.Calls().Op("GetInstance"))/float64(b.N), "calls/op")
		})
	}
}

// ListInstancesFresh never answers from a listing that began before it was called, and callers
// asking at once share listings instead of making one each.
func TestListInstancesFreshRereadsACachedListingAndIsShared(t *testing.T) {
	env, _ := computeEnv(t, envConfig{client: Options{CacheTTL: time.Hour}}, 2)
	ctx := context.Background()
	compartment := env.srv.Seeded().Compartment
	if _, err := env.client.Compute.ListInstances(ctx, compartment); err != nil {
		t.Fatal(err)
	}
	late := env.srv.AddInstance(ocitest.Instance{})

	fresh, err := env.client.Compute.ListInstancesFresh(ctx, compartment)
	if err != nil || len(fresh) != 3 {
		t.Fatalf("ListInstancesFresh = %d instances, %v; want 3 with %s", len(fresh), err, *late.Id)
	}
	cached, err := env.client.Compute.ListInstances(ctx, compartment)
	if err != nil || len(cached) != 3 {
		t.Fatalf("ListInstances after a fresh listing = %d instances, %v; want 3 from the cache", len(cached), err)
	}
	if calls := env.srv.Calls().Op("ListInstances"); calls != 2 {
		t.Errorf("ListInstances calls = %d, want 2 (the first, then the fresh one, which the cache kept)", calls)
	}

	env.srv.ResetCalls()
	// The first listing takes a second, long enough for all the callers to ask while it runs even
	// on a loaded machine (200 ms was not, under -race on 2 busy cores).
	env.srv.InjectFault(ocitest.Fault{Operation: "ListInstances", Latency: time.Second, Times: 1})
	const callers = 20
	var wg sync.WaitGroup
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() { _, errs[i] = env.client.Compute.ListInstancesFresh(ctx, compartment) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	// Callers that asked before the first listing began share it; those that asked while it ran
	// share the next one.
	if calls := env.srv.Calls().Op("ListInstances"); calls > 2 {
		t.Errorf("ListInstances calls = %d for %d concurrent fresh listings, want at most 2", calls, callers)
	}
}

// GetInstanceFresh answers OCI's current state whatever the cache holds, makes one call each
// time, and leaves what it read in the cache for GetInstance.
func TestGetInstanceFreshBypassesTheCacheAndRefreshesIt(t *testing.T) {
	env, instances := computeEnv(t, envConfig{client: Options{CacheTTL: time.Hour}}, 1)
	ctx := context.Background()
	id := *instances[0].Id
	state := func(inst core.Instance, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return string(inst.LifecycleState)
	}
	if got := state(env.client.Compute.GetInstance(ctx, id)); got != string(core.InstanceLifecycleStateRunning) {
		t.Fatalf("GetInstance = %s, want RUNNING", got)
	}
	env.srv.SetInstanceState(id, core.InstanceLifecycleStateStopped)
	if got := state(env.client.Compute.GetInstance(ctx, id)); got != string(core.InstanceLifecycleStateRunning) {
		t.Fatalf("GetInstance once stopped = %s, want the cached RUNNING", got)
	}
	env.srv.ResetCalls()

	for range 2 {
		if got := state(env.client.Compute.GetInstanceFresh(ctx, id)); got != string(core.InstanceLifecycleStateStopped) {
			t.Errorf("GetInstanceFresh = %s, want STOPPED", got)
		}
	}
	if got := state(env.client.Compute.GetInstance(ctx, id)); got != string(core.InstanceLifecycleStateStopped) {
		t.Errorf("GetInstance after a fresh read = %s, want STOPPED", got)
	}
	if calls := env.srv.Calls(); calls.Op("GetInstance") != 2 || calls.Total() != 2 {
		t.Errorf("calls:\n%v\nwant 2 GetInstance: one per fresh read, none for the cached one", calls)
	}

	env.srv.RemoveInstance(id)
	if _, err := env.client.Compute.GetInstanceFresh(ctx, id); !IsNotFound(err) {
		t.Errorf("GetInstanceFresh of a removed instance: %v, want a 404", err)
	}
	env.srv.ResetCalls()
	if _, err := env.client.Compute.GetInstance(ctx, id); !IsNotFound(err) {
		t.Errorf("GetInstance after the fresh 404: %v, want a 404 (the entry dropped)", err)
	}
	if calls := env.srv.Calls().Op("GetInstance"); calls != 1 {
		t.Errorf("GetInstance calls after the fresh 404 = %d, want 1", calls)
	}
}

// A fresh read never joins a read already under way: that one may have read OCI before the
// change the caller asks about.
func TestGetInstanceFreshDoesNotJoinAReadUnderWay(t *testing.T) {
	env, instances := computeEnv(t, envConfig{client: Options{CacheTTL: time.Hour}}, 1)
	ctx := context.Background()
	id := *instances[0].Id
	env.srv.InjectFault(ocitest.Fault{Operation: "GetInstance", Latency: 200 * time.Millisecond, Times: 1})
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = env.client.Compute.GetInstance(ctx, id) })
	time.Sleep(50 * time.Millisecond) // the cached read is in flight
	if _, err := env.client.Compute.GetInstanceFresh(ctx, id); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if calls := env.srv.Calls().Op("GetInstance"); calls != 2 {
		t.Errorf("GetInstance calls = %d, want 2 (the fresh read made its own)", calls)
	}
}
