// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	nlbapi "github.com/oracle/oci-go-sdk/v65/networkloadbalancer"

	"github.com/oci-ccm/oci-ccm/lb/binding"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// racingLB and racingNLB run after once, right after the Syncer's first read of the set: what
// someone else does between a binding's read and its write.
type racingLB struct {
	*ociclient.LoadBalancerClient
	once  sync.Once
	after func()
}

func (r *racingLB) GetLoadBalancerWithETag(ctx context.Context, id string) (loadbalancer.LoadBalancer, string, error) {
	lb, etag, err := r.LoadBalancerClient.GetLoadBalancerWithETag(ctx, id)
	r.once.Do(r.after)
	return lb, etag, err
}

type racingNLB struct {
	*ociclient.NetworkLoadBalancerClient
	once  sync.Once
	after func()
}

func (r *racingNLB) GetBackendSet(ctx context.Context, id, name string) (nlbapi.BackendSet, string, error) {
	bs, etag, err := r.NetworkLoadBalancerClient.GetBackendSet(ctx, id, name)
	r.once.Do(r.after)
	return bs, etag, err
}

// TestAStaleETagMakesSyncReadAndPlanAgain: Terraform adds a backend to the bound set between the
// binding's read and its write. The write, guarded by the ETag read, is refused (412); the
// Syncer reads again and writes a list that keeps Terraform's new backend.
func TestAStaleETagMakesSyncReadAndPlanAgain(t *testing.T) {
	for _, p := range products {
		t.Run(p.name, func(t *testing.T) {
			e := newEnv(t, ocitest.LBBusyQueue)
			id := p.create(t, e, nil)
			terraformApplies := func() { p.addBackend(e, id, "web", "10.0.10.7", 8080) }
			s := binding.NewSyncer(binding.Options{
				LoadBalancers:        &racingLB{LoadBalancerClient: e.oci.LoadBalancers, after: terraformApplies},
				NetworkLoadBalancers: &racingNLB{NetworkLoadBalancerClient: e.oci.NetworkLoadBalancers, after: terraformApplies}})
			calls := e.srv.Calls()
			res, err := s.Sync(ctx, binding.Binding{Name: "shop/web", LoadBalancerID: id, BackendSet: "web"},
				[]binding.Target{{IP: "10.0.20.5", Port: 8080}}, nil)
			if err != nil {
				t.Fatalf("Sync: %v", err)
			}
			if res.Replans != 1 || res.Writes != 2 || e.srv.Calls().Since(calls).Status(412) != 1 {
				t.Errorf("Result %+v, calls %v; want one 412 and one plan made again", res, e.srv.Calls().Since(calls))
			}
			if diff := cmp.Diff([]string{"10.0.10.7:8080", "10.0.10.9:8080", "10.0.20.5:8080"}, p.backends(t, e, id, "web")); diff != "" {
				t.Errorf("backends (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTwoBindingsOnOneLoadBalancerBothConverge runs two bindings on the two backend sets of one
// load balancer at once, a few rounds each: whatever OCI does with the second change (queue it,
// refuse it as busy, refuse its ETag made stale by the first), both sets end as their bindings
// want, with Terraform's backends kept.
func TestTwoBindingsOnOneLoadBalancerBothConverge(t *testing.T) {
	for _, p := range products {
		for _, busy := range []ocitest.LBBusyMode{ocitest.LBBusyQueue, ocitest.LBBusyReject} {
			if p.name == "network" && busy == ocitest.LBBusyReject {
				continue // the Network Load Balancer API always refuses a busy one (409)
			}
			t.Run(p.name+"/"+busy.String(), func(t *testing.T) {
				e := newEnv(t, busy)
				id := p.create(t, e, nil)
				type run struct {
					b     binding.Binding
					port  int
					owned []string
				}
				runs := []*run{{b: binding.Binding{Name: "shop/web", LoadBalancerID: id, BackendSet: "web"}, port: 8080},
					{b: binding.Binding{Name: "shop/api", LoadBalancerID: id, BackendSet: "api"}, port: 9000}}
				targets := func(r *run, round int) []binding.Target {
					var out []binding.Target
					for i := range round + 1 {
						out = append(out, binding.Target{IP: fmt.Sprintf("10.0.30.%d", 10*round+i), Port: r.port})
					}
					return out
				}
				for round := range 3 {
					var wg sync.WaitGroup
					errs := make([]error, len(runs))
					for i, r := range runs {
						wg.Go(func() {
							res, err := e.s.Sync(ctx, r.b, targets(r, round), r.owned)
							r.owned, errs[i] = res.Owned, err
							t.Logf("round %d, %s: %d plans made again", round, r.b.Name, res.Replans)
						})
					}
					wg.Wait()
					if err := errors.Join(errs...); err != nil {
						t.Fatalf("round %d: %v", round, err)
					}
				}
				if diff := cmp.Diff([]string{"10.0.10.9:8080", "10.0.30.20:8080", "10.0.30.21:8080", "10.0.30.22:8080"}, p.backends(t, e, id, "web")); diff != "" {
					t.Errorf("web (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([]string{"10.0.10.8:9000", "10.0.30.20:9000", "10.0.30.21:9000", "10.0.30.22:9000"}, p.backends(t, e, id, "api")); diff != "" {
					t.Errorf("api (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestRefusals: what the Syncer refuses, before any write, with an error that names the load
// balancer, the backend set and why.
func TestRefusals(t *testing.T) {
	for _, p := range products {
		t.Run(p.name, func(t *testing.T) {
			e := newEnv(t, ocitest.LBBusyQueue)
			id := p.create(t, e, nil)
			owned := p.create(t, e, model.Owner{Cluster: clusterID, Service: "shop/web", UID: "uid-1"}.Tags())
			other := p.create(t, e, model.Owner{Cluster: "staging", Service: "shop/web"}.Tags())
			gone := id[:strings.LastIndexByte(id, '.')+1] + "gone" // of the product's OCID form
			many := make([]binding.Target, 512)
			for i := range many {
				many[i] = binding.Target{IP: fmt.Sprintf("10.1.%d.%d", i/250, i%250+1), Port: 8080}
			}
			tests := []struct {
				name   string
				b      binding.Binding
				want   []binding.Target
				reason binding.Reason
				says   []string
			}{
				{"a load balancer a Service of this cluster owns", binding.Binding{LoadBalancerID: owned, BackendSet: "web"}, nil,
					binding.ReasonManagedByService, []string{owned, `"web"`, `Service "shop/web" of this cluster ("prod")`}},
				{"one another cluster's Service owns", binding.Binding{LoadBalancerID: other, BackendSet: "web"}, nil,
					binding.ReasonManagedByService, []string{other, `cluster "staging"`}},
				{"a load balancer that does not exist", binding.Binding{LoadBalancerID: gone, BackendSet: "web"}, nil,
					binding.ReasonNoLoadBalancer, []string{gone, "OCI answers 404", "does not exist, or the CCM's IAM policy does not let it read it"}},
				{"a backend set it does not have", binding.Binding{LoadBalancerID: id, BackendSet: "admin"}, nil,
					binding.ReasonNoBackendSet, []string{id, `no backend set "admin"; it has ["api" "web"]`}},
				{"past 512 backends in the set (with Terraform's and one more)", binding.Binding{LoadBalancerID: id, BackendSet: "web"}, many,
					binding.ReasonTooManyBackends, []string{id, "514 backends (513 of them this binding's) would exceed OCI's limit of 512 per backend set"}},
				{"an OCID of neither API", binding.Binding{LoadBalancerID: "ocid1.instance.oc1..x", BackendSet: "web"}, nil,
					binding.ReasonInvalid, []string{"neither ocid1.loadbalancer"}},
				{"a weight past 100", binding.Binding{LoadBalancerID: id, BackendSet: "web", Weight: 101}, nil,
					binding.ReasonInvalid, []string{"weight 101"}},
				{"a target without a port", binding.Binding{LoadBalancerID: id, BackendSet: "web"}, []binding.Target{{IP: "10.0.20.7"}},
					binding.ReasonInvalid, []string{`target "10.0.20.7:0" is not an IP address and a port`}},
			}
			if p.name == "network" {
				tests = append(tests, struct {
					name   string
					b      binding.Binding
					want   []binding.Target
					reason binding.Reason
					says   []string
				}{"a connection cap on a network load balancer", binding.Binding{LoadBalancerID: id, BackendSet: "web", MaxConnections: 300}, nil,
					binding.ReasonInvalid, []string{"maxConnections is a classic load balancer's setting"}})
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					tt.b.Name = "shop/web"
					calls := e.srv.Calls()
					_, err := e.s.Sync(ctx, tt.b, append(tt.want, binding.Target{IP: "10.0.20.5", Port: 8080}), nil)
					var refused *binding.RefusedError
					if !errors.As(err, &refused) || refused.Reason != tt.reason {
						t.Fatalf("Sync: %v; want a RefusedError for %s", err, tt.reason)
					}
					for _, s := range append(tt.says, "shop/web") {
						if !strings.Contains(err.Error(), s) {
							t.Errorf("error %q does not say %q", err, s)
						}
					}
					if w := e.srv.Calls().Since(calls).Class(ocitest.ClassWrite); w != 0 {
						t.Errorf("%d writes", w)
					}
					// A refusal reads the same every time (no request ID in it), so the condition
					// and Events a controller makes of it change only when what it says does.
					if _, again := e.s.Sync(ctx, tt.b, append(tt.want, binding.Target{IP: "10.0.20.5", Port: 8080}), nil); again == nil || again.Error() != err.Error() {
						t.Errorf("the same Sync again refused with %q, want the same words as %q", again, err)
					}
				})
			}
		})
	}
}

// TestOverAllSetsTheLoadBalancersLimitHolds: a classic load balancer takes 512 backends over all
// its sets, so 400 in another set leave room for 112 here.
func TestOverAllSetsTheLoadBalancersLimitHolds(t *testing.T) {
	e := newEnv(t, ocitest.LBBusyQueue)
	id := classicLB.create(t, e, nil)
	for i := range 399 {
		classicLB.addBackend(e, id, "api", fmt.Sprintf("10.2.%d.%d", i/250, i%250+1), 9000)
	}
	b := binding.Binding{Name: "shop/web", LoadBalancerID: id, BackendSet: "web"}
	want := func(n int) []binding.Target {
		out := make([]binding.Target, n)
		for i := range out {
			out[i] = binding.Target{IP: fmt.Sprintf("10.1.0.%d", i+1), Port: 8080}
		}
		return out
	}
	res, err := e.s.Sync(ctx, b, want(111), nil) // 400 + 1 + 111 = 512
	if err != nil {
		t.Fatalf("Sync to the limit: %v", err)
	}
	_, err = e.s.Sync(ctx, b, want(112), res.Owned)
	var refused *binding.RefusedError
	if !errors.As(err, &refused) || refused.Reason != binding.ReasonTooManyBackends ||
		!strings.Contains(err.Error(), "513 backends over all backend sets would exceed OCI's limit of 512 per load balancer") {
		t.Fatalf("Sync past the limit: %v", err)
	}
	// Shrinking is never refused.
	if _, err := e.s.Sync(ctx, b, want(10), res.Owned); err != nil {
		t.Fatalf("Sync down: %v", err)
	}
}

// TestReleaseOfAGoneBackendSetIsDone: nothing is left to release. A load balancer OCI answers 404
// for is not taken for gone (the policy may hide it): the release is refused.
func TestReleaseOfAGoneBackendSetIsDone(t *testing.T) {
	for _, p := range products {
		t.Run(p.name, func(t *testing.T) {
			e := newEnv(t, ocitest.LBBusyQueue)
			id := p.create(t, e, nil)
			b := binding.Binding{Name: "shop/admin", LoadBalancerID: id, BackendSet: "admin"}
			if _, err := e.s.Release(ctx, b, []string{"10.0.20.5:8080"}); err != nil {
				t.Errorf("Release: %v", err)
			}
			b.LoadBalancerID = id[:strings.LastIndexByte(id, '.')+1] + "gone"
			var refused *binding.RefusedError
			if _, err := e.s.Release(ctx, b, []string{"10.0.20.5:8080"}); !errors.As(err, &refused) || refused.Reason != binding.ReasonNoLoadBalancer {
				t.Errorf("Release of a load balancer OCI answers 404 for: %v; want a NoLoadBalancer refusal", err)
			}
		})
	}
}

// TestOwnedSurvivesAFailedOrUnfinishedWrite: after a work request that failed, the binding owns
// what it owned before (nothing changed); after one whose end it did not see (the context
// ended), it also owns what the write adds, so a backend it may have added is never taken for
// someone else's; the next Sync sorts it out.
func TestOwnedSurvivesAFailedOrUnfinishedWrite(t *testing.T) {
	for _, p := range products {
		t.Run(p.name, func(t *testing.T) {
			e := newEnv(t, ocitest.LBBusyQueue)
			id := p.create(t, e, nil)
			b := binding.Binding{Name: "shop/web", LoadBalancerID: id, BackendSet: "web"}
			res, err := e.s.Sync(ctx, b, []binding.Target{{IP: "10.0.20.5", Port: 8080}}, nil)
			if err != nil {
				t.Fatalf("Sync: %v", err)
			}
			owned := res.Owned
			want := []binding.Target{{IP: "10.0.20.5", Port: 8080}, {IP: "10.0.20.6", Port: 8080}}

			undo := e.srv.FailWorkRequests(func(ocitest.WorkRequestInfo) bool { return true }, "backend set update failed")
			res, err = e.s.Sync(ctx, b, want, owned)
			undo()
			var failed *ociclient.WorkRequestError
			if !errors.As(err, &failed) {
				t.Fatalf("Sync with a failing work request: %v", err)
			}
			if diff := cmp.Diff(owned, res.Owned); diff != "" {
				t.Errorf("Owned after a failed work request (-want +got):\n%s", diff)
			}

			undo = e.srv.HoldWorkRequests(func(ocitest.WorkRequestInfo) bool { return true })
			short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			res, err = e.s.Sync(short, b, want, owned)
			cancel()
			undo()
			e.srv.CompleteWorkRequests()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Sync whose work request does not end: %v", err)
			}
			if diff := cmp.Diff([]string{"10.0.20.5:8080", "10.0.20.6:8080"}, res.Owned); diff != "" {
				t.Errorf("Owned after an unfinished work request (-want +got):\n%s", diff)
			}
			if res, err = e.s.Sync(ctx, b, want, res.Owned); err != nil || !res.Empty() {
				t.Errorf("the next Sync: %+v, %v; want nothing left to do", res.Change, err)
			}
		})
	}
}

// TestABusyNetworkLoadBalancerIsWaitedForBeforeWriting: Terraform's change is still running
// when the binding reads (the network load balancer is UPDATING); the binding waits for it and
// writes once, rather than sending a write the API refuses with 409.
func TestABusyNetworkLoadBalancerIsWaitedForBeforeWriting(t *testing.T) {
	e := newEnv(t, ocitest.LBBusyQueue)
	id := networkLB.create(t, e, nil)
	undo := e.srv.HoldWorkRequests(func(ocitest.WorkRequestInfo) bool { return true })
	if _, err := e.nlbSDK.UpdateListener(ctx, nlbapi.UpdateListenerRequest{NetworkLoadBalancerId: &id, ListenerName: new("https"),
		UpdateListenerDetails: nlbapi.UpdateListenerDetails{DefaultBackendSetName: new("web"), Port: new(8443), Protocol: nlbapi.ListenerProtocolsTcp}}); err != nil {
		t.Fatalf("Terraform's UpdateListener: %v", err)
	}
	undo()
	calls := e.srv.Calls()
	done := make(chan struct{})
	var res binding.Result
	var err error
	go func() {
		defer close(done)
		res, err = e.s.Sync(ctx, binding.Binding{Name: "shop/web", LoadBalancerID: id, BackendSet: "web"}, []binding.Target{{IP: "10.0.20.5", Port: 8080}}, nil)
	}()
	// Once the binding has read it UPDATING and read it again, waiting, let Terraform's change end.
	for deadline := time.Now().Add(10 * time.Second); e.srv.Calls().Since(calls).Op(ocitest.NLB("GetNetworkLoadBalancer")) < 2; {
		if time.Now().After(deadline) {
			t.Fatal("the binding did not read the network load balancer twice")
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.srv.CompleteWorkRequests()
	<-done
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if res.Writes != 1 || res.Replans != 1 {
		t.Errorf("Result %+v; want one write, after one wait", res)
	}
	if diff := cmp.Diff([]string{"10.0.10.9:8080", "10.0.20.5:8080"}, networkLB.backends(t, e, id, "web")); diff != "" {
		t.Errorf("backends (-want +got):\n%s", diff)
	}
}
