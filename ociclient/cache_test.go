// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ociclient

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// subnetEnv is an env with one VCN and subnets with the given CIDRs.
func subnetEnv(t *testing.T, cfg envConfig, cidrs ...string) (*testEnv, core.Vcn, []core.Subnet) {
	t.Helper()
	env := newTestEnv(t, cfg)
	vcn := env.srv.AddVCN(core.Vcn{CidrBlock: common.String("10.0.0.0/16")})
	var subnets []core.Subnet
	for _, c := range cidrs {
		subnets = append(subnets, env.srv.AddSubnet(core.Subnet{VcnId: vcn.Id, CidrBlock: common.String(c)}))
	}
	return env, vcn, subnets
}

func TestGetSubnetIsServedFromTheCacheUntilTheTTLPasses(t *testing.T) {
	env, _, subnets := subnetEnv(t, envConfig{client: Options{CacheTTL: time.Minute}, fakeClock: true}, "10.0.1.0/24")
	ctx := context.Background()
	id := *subnets[0].Id
	for range 3 {
		if _, err := env.client.VirtualNetwork.GetSubnet(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if calls := env.srv.Calls().Op("GetSubnet"); calls != 1 {
		t.Errorf("GetSubnet calls within the TTL = %d, want 1", calls)
	}
	env.clock.advance(time.Minute)
	if _, err := env.client.VirtualNetwork.GetSubnet(ctx, id); err != nil {
		t.Fatal(err)
	}
	if calls := env.srv.Calls().Op("GetSubnet"); calls != 2 {
		t.Errorf("GetSubnet calls after the TTL = %d, want 2", calls)
	}
}

func TestConcurrentIdenticalReadsMakeOneCall(t *testing.T) {
	env, _, subnets := subnetEnv(t, envConfig{}, "10.0.1.0/24")
	id := *subnets[0].Id
	// Hold the first request at the server so the other readers arrive while it is in flight.
	env.srv.InjectFault(ocitest.Fault{Operation: "GetSubnet", Latency: 200 * time.Millisecond, Times: 1})
	const readers = 100
	var wg sync.WaitGroup
	errs := make([]error, readers)
	for i := range readers {
		wg.Go(func() {
			got, err := env.client.VirtualNetwork.GetSubnet(context.Background(), id)
			if err == nil && *got.Id != id {
				err = errors.New("wrong subnet " + *got.Id)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if calls := env.srv.Calls().Op("GetSubnet"); calls != 1 {
		t.Errorf("GetSubnet calls = %d, want 1 for %d concurrent readers", calls, readers)
	}
}

func TestFailedReadsAreNotCached(t *testing.T) {
	env, _, subnets := subnetEnv(t, envConfig{}, "10.0.1.0/24")
	id := *subnets[0].Id
	env.srv.InjectFault(ocitest.Fault{Operation: "GetSubnet", Status: 404, Times: 1})
	ctx := context.Background()
	if _, err := env.client.VirtualNetwork.GetSubnet(ctx, id); !IsNotFound(err) {
		t.Fatalf("first GetSubnet error %v; want not found", err)
	}
	if _, err := env.client.VirtualNetwork.GetSubnet(ctx, id); err != nil {
		t.Fatalf("second GetSubnet: %v", err)
	}
	if calls := env.srv.Calls().Op("GetSubnet"); calls != 2 {
		t.Errorf("GetSubnet calls = %d, want 2", calls)
	}
}

func TestInvalidateSubnetForcesARead(t *testing.T) {
	env, _, subnets := subnetEnv(t, envConfig{}, "10.0.1.0/24")
	id := *subnets[0].Id
	ctx := context.Background()
	for _, invalidate := range []bool{false, true} {
		if invalidate {
			env.client.VirtualNetwork.InvalidateSubnet(id)
		}
		if _, err := env.client.VirtualNetwork.GetSubnet(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if calls := env.srv.Calls().Op("GetSubnet"); calls != 2 {
		t.Errorf("GetSubnet calls = %d, want 2", calls)
	}
}

func TestNegativeCacheTTLTurnsCachingOff(t *testing.T) {
	env, _, subnets := subnetEnv(t, envConfig{client: Options{CacheTTL: -1}}, "10.0.1.0/24")
	for range 3 {
		if _, err := env.client.VirtualNetwork.GetSubnet(context.Background(), *subnets[0].Id); err != nil {
			t.Fatal(err)
		}
	}
	if calls := env.srv.Calls().Op("GetSubnet"); calls != 3 {
		t.Errorf("GetSubnet calls = %d, want 3", calls)
	}
}

func TestListSubnetsFillsTheSubnetCache(t *testing.T) {
	env, vcn, subnets := subnetEnv(t, envConfig{}, "10.0.1.0/24", "10.0.2.0/24")
	ctx := context.Background()
	if _, err := env.client.VirtualNetwork.ListSubnets(ctx, *vcn.CompartmentId, *vcn.Id); err != nil {
		t.Fatal(err)
	}
	for _, s := range subnets {
		if _, err := env.client.VirtualNetwork.GetSubnet(ctx, *s.Id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := env.client.VirtualNetwork.ListSubnets(ctx, *vcn.CompartmentId, *vcn.Id); err != nil {
		t.Fatal(err)
	}
	calls := env.srv.Calls()
	if calls.Op("ListSubnets") != 1 || calls.Op("GetSubnet") != 0 {
		t.Errorf("ListSubnets calls = %d, GetSubnet calls = %d; want 1 and 0", calls.Op("ListSubnets"), calls.Op("GetSubnet"))
	}
}

func TestSubnetForIPFindsTheSubnetByCIDR(t *testing.T) {
	env, vcn, subnets := subnetEnv(t, envConfig{}, "10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/24")
	tests := []struct {
		ip      string
		want    string // subnet OCID; "" when an error is expected
		wantErr error
	}{
		{ip: "10.0.2.17", want: *subnets[1].Id},
		{ip: "10.0.3.255", want: *subnets[2].Id},
		{ip: "::ffff:10.0.1.5", want: *subnets[0].Id},
		{ip: "10.0.4.1", wantErr: ErrNoSubnetForIP},
		{ip: "192.168.1.1", wantErr: ErrNoSubnetForIP},
	}
	ctx := context.Background()
	for _, tt := range tests {
		got, err := env.client.VirtualNetwork.SubnetForIP(ctx, *vcn.CompartmentId, *vcn.Id, tt.ip)
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("SubnetForIP(%s) error %v; want %v", tt.ip, err, tt.wantErr)
			}
			continue
		}
		if err != nil || *got.Id != tt.want {
			t.Errorf("SubnetForIP(%s) = %v, %v; want %s", tt.ip, got.Id, err, tt.want)
		}
	}
	if _, err := env.client.VirtualNetwork.SubnetForIP(ctx, *vcn.CompartmentId, *vcn.Id, "not-an-ip"); err == nil {
		t.Error("SubnetForIP(not-an-ip) succeeded; want an error")
	}
	if calls := env.srv.Calls().Op("ListSubnets"); calls != 1 {
		t.Errorf("ListSubnets calls = %d, want 1 for all lookups", calls)
	}
}

func TestCacheDropsALoadThatRacedWithAnInvalidation(t *testing.T) {
	c := &caller{cacheTTL: time.Minute, clock: realClock(), metrics: NopMetrics{}}
	cache := newCache[string]("test", c)
	ctx := context.Background()
	v, err := cache.get(ctx, "k", func(context.Context) (string, error) {
		cache.invalidate("k") // the value being loaded is already stale
		return "stale", nil
	})
	if err != nil || v != "stale" {
		t.Fatalf("get = %q, %v", v, err)
	}
	loads := 0
	v, err = cache.get(ctx, "k", func(context.Context) (string, error) {
		loads++
		return "fresh", nil
	})
	if diff := cmp.Diff([]any{"fresh", 1}, []any{v, loads}); diff != "" || err != nil {
		t.Errorf("second get (-want +got):\n%s err %v", diff, err)
	}
}

func TestCacheJoinerWhoseLeaderWasCancelledLoadsItself(t *testing.T) {
	c := &caller{cacheTTL: time.Minute, clock: realClock(), metrics: NopMetrics{}}
	cache := newCache[string]("test", c)
	leaderCtx, cancelLeader := context.WithCancel(context.Background())
	started := make(chan struct{})
	leaderDone := make(chan error, 1)
	go func() {
		_, err := cache.get(leaderCtx, "k", func(ctx context.Context) (string, error) {
			close(started)
			<-ctx.Done()
			return "", ctx.Err()
		})
		leaderDone <- err
	}()
	<-started
	joined := make(chan string, 1)
	go func() {
		v, err := cache.get(context.Background(), "k", func(context.Context) (string, error) { return "mine", nil })
		if err != nil {
			v = err.Error()
		}
		joined <- v
	}()
	time.Sleep(10 * time.Millisecond) // let the joiner join the leader's flight (it passes either way if not)
	cancelLeader()
	if err := <-leaderDone; !errors.Is(err, context.Canceled) {
		t.Errorf("leader error %v; want context.Canceled", err)
	}
	if v := <-joined; v != "mine" {
		t.Errorf("joiner got %q; want its own load, %q", v, "mine")
	}
}

// TestAMissThatRacesALandingFlightMakesNoSecondCall pins the cause of a flaky call count under
// CPU load: a reader that misses the cache, is descheduled, and resumes after another reader's
// flight for the same key has landed and left the singleflight group, must find the value that
// flight stored instead of loading it again.
func TestAMissThatRacesALandingFlightMakesNoSecondCall(t *testing.T) {
	env, _, subnets := subnetEnv(t, envConfig{client: Options{CacheTTL: time.Hour}}, "10.0.1.0/24")
	id := *subnets[0].Id
	inHook, release := make(chan struct{}), make(chan struct{})
	var stalledOnce atomic.Bool
	env.client.VirtualNetwork.subnets.afterMiss = func(string) {
		if stalledOnce.CompareAndSwap(false, true) { // only the first reader stalls
			close(inHook)
			<-release
		}
	}
	ctx := context.Background()
	stalled := make(chan error, 1)
	go func() {
		_, err := env.client.VirtualNetwork.GetSubnet(ctx, id)
		stalled <- err
	}()
	<-inHook
	if _, err := env.client.VirtualNetwork.GetSubnet(ctx, id); err != nil { // lands and stores
		t.Fatal(err)
	}
	close(release)
	if err := <-stalled; err != nil {
		t.Fatal(err)
	}
	if calls := env.srv.Calls().Op("GetSubnet"); calls != 1 {
		t.Errorf("GetSubnet calls = %d, want 1: the stalled reader loaded again what the other had just stored", calls)
	}
}

// size is the number of entries the cache holds, expired or not: what it costs in memory.
func (c *cache[V]) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries.Len()
}

// TestCachesStayBoundedUnderInstanceChurn: 10,000 instances come and go in waves of 100, one
// wave per TTL, each wave listed and some of its instances read one by one, as Nodes come and go
// in an autoscaled cluster. No key is ever looked up again once its instance is gone, so only a
// cache that sweeps expired entries stays at about two waves; one that drops an entry only when
// its key is read again ends up holding every instance ever seen.
func TestCachesStayBoundedUnderInstanceChurn(t *testing.T) {
	const total, wave = 10_000, 100
	env := newTestEnv(t, envConfig{client: Options{CacheTTL: time.Minute, RateLimit: noLimit}, fakeClock: true,
		server: ocitest.Options{PageSize: 1000}})
	vcn := env.srv.AddVCN(core.Vcn{})
	subnet := env.srv.AddSubnet(core.Subnet{VcnId: vcn.Id, CidrBlock: common.String("10.0.0.0/20")})
	compartment := env.srv.Seeded().Compartment
	ctx := context.Background()
	var live []string
	for n := 0; n < total; n += wave {
		for _, id := range live {
			env.srv.RemoveInstance(id)
		}
		live = live[:0]
		for range wave {
			inst := env.srv.AddInstance(ocitest.Instance{VNICs: []core.Vnic{{SubnetId: subnet.Id}}})
			live = append(live, *inst.Id)
		}
		if _, err := env.client.Compute.ListInstances(ctx, compartment); err != nil {
			t.Fatal(err)
		}
		if _, err := env.client.Compute.ListVnicAttachments(ctx, compartment, ""); err != nil {
			t.Fatal(err)
		}
		for _, id := range live[:3] { // a few new Nodes looked up by ID
			if _, err := env.client.Compute.GetInstance(ctx, id); err != nil {
				t.Fatal(err)
			}
			atts, err := env.client.Compute.ListVnicAttachments(ctx, compartment, id)
			if err != nil || len(atts) != 1 {
				t.Fatalf("ListVnicAttachments(%s) = %v, %v", id, atts, err)
			}
			if _, err := env.client.VirtualNetwork.GetVnic(ctx, *atts[0].VnicId); err != nil {
				t.Fatal(err)
			}
		}
		env.clock.advance(time.Minute)
	}
	for name, size := range map[string]int{
		"instances":                 env.client.Compute.instances.size(),
		"instance lists":            env.client.Compute.instanceLists.size(),
		"VNIC attachments":          env.client.Compute.vnicAttachmentLists.size(),
		"instance VNIC attachments": env.client.Compute.instanceVnicAttachments.size(),
		"VNICs":                     env.client.VirtualNetwork.vnics.size(),
	} {
		if size > 2*wave {
			t.Errorf("%s cache holds %d entries after %d instances came and went in waves of %d; want at most %d",
				name, size, total, wave, 2*wave)
		}
	}
}
