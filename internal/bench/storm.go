// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	k8stesting "k8s.io/client-go/testing"
	cloudprovider "k8s.io/cloud-provider"
	servicecontroller "k8s.io/cloud-provider/controllers/service"
	"k8s.io/component-base/featuregate"
	controllersmetrics "k8s.io/component-base/metrics/prometheus/controllers"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/internal/drift"
	"github.com/oci-ccm/oci-ccm/lb"
	"github.com/oci-ccm/oci-ccm/lb/engine"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// StormOptions shape a storm.
type StormOptions struct {
	Services, Nodes, Added int
	// Workers is the service controller's --concurrent-service-syncs.
	Workers int
	// WriteQPS and ReadQPS are OCI's limits (real-time calls per second).
	WriteQPS, ReadQPS float64
	// Cap bounds the real time each phase may run; a phase cut short reports how far it got.
	Cap time.Duration
	// Scale is the clock's speed (0: Scale, 100 times faster than real time). The storm is
	// bound by this machine's CPU at 100×, where every millisecond of it counts as 0.1 s, and
	// at 5× on 2 cores; 1 runs it in real time (cmd/bench's defaultStormSpeed says more).
	Scale float64
	// Mode is the security-list management mode ("" = None). Mode All opens the node port
	// range (loadBalancer.openNodePortRange), without which 1,000 Services cannot fit OCI's
	// 200 rules per list.
	Mode config.SecurityListMode
	// NewServiceAt, if not zero, creates a new Service this long (in the clock's time) into the
	// node phase, and after the storm another one alone, and reports both times to an IP
	// (issue 31's fair storms: a new Service must not wait behind the storm's deferred updates).
	NewServiceAt time.Duration
	// FastRestart runs the restart at Scale too (tests: its times are then this machine's CPU
	// time multiplied).
	FastRestart bool
}

// NewService is how long new Services took to get their IP: Storm created during a storm,
// Alone once the storm was over, and CreateRun how long OCI ran the create work request of the
// one in the storm (the bound is Alone + CreateRun + 10 s). Zero where it got none.
type NewService struct {
	Storm, Alone, CreateRun time.Duration
}

// countingLB wraps the provider's load balancer interface to count finished reconciles.
type countingLB struct {
	cloudprovider.LoadBalancer
	clock                *Clock
	ok, failed, inflight atomic.Int64
	last                 atomic.Int64 // scaled time of the last finished reconcile, UnixNano
	busy                 atomic.Int64 // scaled time spent in reconciles, summed over them, ns
	firstErr             atomic.Value // the first failed reconcile's error message
	ensured              sync.Map     // Service name → the clock's time of its first successful EnsureLoadBalancer
}

func (c *countingLB) begin() time.Time {
	c.inflight.Add(1)
	return c.clock.Now()
}

func (c *countingLB) end(t0 time.Time, err error) {
	now := c.clock.Now()
	c.busy.Add(int64(now.Sub(t0)))
	c.last.Store(now.UnixNano())
	c.inflight.Add(-1)
	if err != nil {
		c.failed.Add(1)
		c.firstErr.CompareAndSwap(nil, err.Error())
		return
	}
	c.ok.Add(1)
}

func (c *countingLB) EnsureLoadBalancer(ctx context.Context, cluster string, s *v1.Service, n []*v1.Node) (*v1.LoadBalancerStatus, error) {
	t0 := c.begin()
	st, err := c.LoadBalancer.EnsureLoadBalancer(ctx, cluster, s, n)
	c.end(t0, err)
	if err == nil && st != nil && len(st.Ingress) > 0 {
		c.ensured.LoadOrStore(s.Name, c.clock.Now())
	}
	return st, err
}

func (c *countingLB) UpdateLoadBalancer(ctx context.Context, cluster string, s *v1.Service, n []*v1.Node) error {
	t0 := c.begin()
	err := c.LoadBalancer.UpdateLoadBalancer(ctx, cluster, s, n)
	c.end(t0, err)
	return err
}

// countingCloud is the Cloud with countingLB as its load balancer interface.
type countingCloud struct {
	cloudprovider.Interface
	lb *countingLB
}

func (c countingCloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) { return c.lb, true }

// stormService is Service i of a storm: 2 ports, node ports unique in the cluster.
func stormService(i int) *v1.Service {
	s := svc(fmt.Sprintf("storm-%04d", i), 80, 443)
	s.Spec.Ports[0].NodePort, s.Spec.Ports[1].NodePort = int32(30000+2*i), int32(30001+2*i)
	return s
}

// Storm seeds Services load balancers (the first created through the Cloud, the others copied
// from it into ocitest's state, with their own names, tags and node ports: creating 1,000
// through the API takes too long for `make bench`), then measures two phases through the
// upstream service controller: its start (a restart: every Service is synced against existing
// load balancers) and Added nodes joining at once.
func Storm(o StormOptions) ([]Phase, error) {
	ctx, cancel := context.WithCancel(quiet)
	c, err := newStormCluster(ctx, o)
	if err != nil {
		cancel()
		return nil, err
	}
	defer c.w.Close()
	defer cancel() // the controller stops before the server
	var phases []Phase
	nodes := c.w.Nodes[:o.Nodes]
	p, err := c.measure("restart: service controller starts", int64(o.Services), nodes, func() error {
		c.run(ctx)
		return nil
	})
	if err != nil {
		return nil, err
	}
	phases = append(phases, p)
	c.w.Clock.SetScale(c.w.scale)
	c.limits()
	var created chan time.Time // when the Service created in the storm was
	p, err = c.measure(fmt.Sprintf("%d nodes added at once", o.Added), int64(o.Services), c.w.Nodes, func() error {
		for _, n := range c.w.Nodes[o.Nodes:] {
			if _, err := c.w.Kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
				return err
			}
		}
		if o.NewServiceAt > 0 {
			created = make(chan time.Time, 1)
			go func() {
				if c.w.Clock.Sleep(ctx, o.NewServiceAt) == nil {
					created <- c.create(ctx, stormService(o.Services))
				}
			}()
		}
		return nil
	})
	if err != nil {
		return phases, err
	}
	phases = append(phases, p)
	p, err = driftCheck(ctx, c.w, c.services)
	phases = append(phases, p)
	if err != nil || created == nil {
		return phases, err
	}
	newp, err := c.fairStorm(ctx, created)
	return append(phases, newp), err
}

// create creates s in the fake API and returns when, in the clock's time (the zero time if it
// could not).
func (c *stormCluster) create(ctx context.Context, s *v1.Service) time.Time {
	s = s.DeepCopy()
	s.Status = v1.ServiceStatus{}
	t := c.w.Clock.Now()
	if _, err := c.w.Kube.CoreV1().Services(s.Namespace).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		return time.Time{}
	}
	return t
}

// timeToIP waits (up to o.Cap of real time) for the first successful EnsureLoadBalancer of the
// Service named name, created at t0, and returns how long after t0 it was; 0 if none came.
func (c *stormCluster) timeToIP(name string, t0 time.Time) time.Duration {
	for start := time.Now(); time.Since(start) < c.o.Cap; time.Sleep(20 * time.Millisecond) {
		if t, ok := c.counting.ensured.Load(name); ok && !t0.IsZero() {
			return t.(time.Time).Sub(t0)
		}
	}
	return 0
}

// fairStorm reports the Service created in the storm's node phase (its creation time comes on
// created), and creates another once all is quiet and reports it alone.
func (c *stormCluster) fairStorm(ctx context.Context, created chan time.Time) (Phase, error) {
	var f NewService
	stormSvc := stormService(c.o.Services)
	select {
	case t0 := <-created:
		f.Storm = c.timeToIP(stormSvc.Name, t0)
	default: // the node phase ended before NewServiceAt
	}
	for _, wr := range c.w.Srv.WorkRequests() {
		if wr.Operation == "CreateLoadBalancer" && !wr.TimeFinished.IsZero() {
			if l, ok := c.w.Srv.LoadBalancer(wr.ResourceID); ok && l.FreeformTags[model.TagService] == stormSvc.Namespace+"/"+stormSvc.Name {
				f.CreateRun = wr.TimeFinished.Sub(wr.TimeStarted)
			}
		}
	}
	alone := stormService(c.o.Services + 1)
	f.Alone = c.timeToIP(alone.Name, c.create(ctx, alone))
	return Phase{Name: "a new Service created during the storm, and one alone", New: &f}, nil
}

// stormCluster is a storm's World with its Services' load balancers seeded, the cluster as a
// restarted CCM finds it, and the upstream service controller over it (started by run).
type stormCluster struct {
	o        StormOptions
	w        *World
	services []*v1.Service
	counting *countingLB
	sc       *servicecontroller.Controller
}

// newStormCluster builds a storm's World of o.Nodes+o.Added instances, seeds o.Services load
// balancers (the first created through the Cloud, the others copied from it into ocitest's
// state), puts the Services and the first o.Nodes Nodes in the fake API, and builds a new Cloud
// (a restart) and the service controller, at real time with OCI's limits. Close c.w when done.
func newStormCluster(ctx context.Context, o StormOptions) (*stormCluster, error) {
	// The CCM's own limiter is set to OCI's limits, as an operator would for a tenancy with
	// these limits (rateLimiter in cloud-provider.yaml); the default 5 writes/s would make the
	// floor twice writes ÷ OCI's limit.
	mode := o.Mode
	if mode == "" {
		mode = config.SecurityListModeNone
	}
	w, err := NewWorld(WorldOptions{Nodes: o.Nodes + o.Added, Durations: ocitest.RealisticDurations(1),
		Mode: mode, OpenNodePortRange: mode == config.SecurityListModeAll, NoInformers: true, Scale: o.Scale,
		RateLimit: config.RateLimiter{ReadQPS: o.ReadQPS, ReadBurst: burstFor(o.ReadQPS), WriteQPS: o.WriteQPS, WriteBurst: burstFor(o.WriteQPS)}})
	if err != nil {
		return nil, err
	}
	c := &stormCluster{o: o, w: w}
	if err := c.seed(ctx); err != nil {
		w.Close()
		return nil, err
	}
	return c, nil
}

func (c *stormCluster) seed(ctx context.Context) error {
	w, o := c.w, c.o
	nodes := w.Nodes[:o.Nodes]
	first := stormService(0)
	if _, err := w.LB.EnsureLoadBalancer(quiet, "bench", first, nodes); err != nil {
		return fmt.Errorf("seeding: %w", err)
	}
	var template loadbalancer.LoadBalancer
	for _, l := range w.Srv.LoadBalancers() {
		template = l
	}
	services := []*v1.Service{withIngress(first, template)}
	for i := 1; i < o.Services; i++ {
		s := stormService(i)
		backends, err := backendsOf(s, nodes, w.cfg)
		if err != nil {
			return err
		}
		l, err := copyFor(template, first, s, w.LB.GetLoadBalancerName(quiet, "bench", s), backends)
		if err != nil {
			return err
		}
		services = append(services, withIngress(s, w.Srv.AddLoadBalancer(l)))
	}
	c.services = services
	// The cluster as the restarted controller finds it: the Services and the original Nodes.
	for _, s := range services {
		if _, err := w.Kube.CoreV1().Services("default").Create(ctx, s, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	for _, n := range w.Nodes[o.Nodes:] {
		if err := w.Kube.CoreV1().Nodes().Delete(ctx, n.Name, metav1.DeleteOptions{}); err != nil {
			return err
		}
	}
	// A new Cloud (a restart) with its informers, and the server's limits from now on.
	if err := w.newCloud(true); err != nil {
		return err
	}
	// The restart phase waits for nothing but this machine's CPU: it runs at real time (see
	// Clock.SetScale), so its figures are real time's, the one-minute window in which the
	// restart's listing stands in for reads included. The node phase runs at the storm's speed.
	if !o.FastRestart {
		w.Clock.SetScale(1)
	}
	c.limits()
	// Events cost the API server, not the CCM: the fake clientset's tracker spent a tenth of the
	// storm's CPU storing them, which the 100× clock multiplies. They are accepted and dropped.
	drop := func(a k8stesting.Action) (bool, k8sruntime.Object, error) {
		if c, ok := a.(k8stesting.CreateAction); ok {
			return true, c.GetObject(), nil
		}
		return true, &v1.Event{}, nil
	}
	w.Kube.PrependReactor("create", "events", drop)
	w.Kube.PrependReactor("patch", "events", drop)
	c.counting = &countingLB{LoadBalancer: w.LB, clock: w.Clock}
	factory := informers.NewSharedInformerFactory(w.Kube, 0)
	sc, err := servicecontroller.New(countingCloud{Interface: w.Cloud, lb: c.counting}, w.Kube,
		factory.Core().V1().Services(), factory.Core().V1().Nodes(), "bench", featuregate.NewFeatureGate())
	if err != nil {
		return err
	}
	c.sc = sc
	factory.Start(ctx.Done())
	return nil
}

// limits sets OCI's limits on the server for the clock's current speed.
func (c *stormCluster) limits() {
	scale := c.w.Clock.Scale()
	c.w.Srv.SetRateLimit(ocitest.ClassWrite, c.o.WriteQPS/scale, burstFor(c.o.WriteQPS))
	c.w.Srv.SetRateLimit(ocitest.ClassRead, c.o.ReadQPS/scale, burstFor(c.o.ReadQPS))
}

// run starts the service controller with o.Workers workers, until ctx ends.
func (c *stormCluster) run(ctx context.Context) {
	go c.sc.Run(ctx, c.o.Workers, controllersmetrics.NewControllerManagerMetrics("bench"))
}

// measure runs one phase: start, then waits until it converged (at least want reconciles, and
// OCI's state as lb chooses it for the Services on nodes) or o.Cap, and reports it.
func (c *stormCluster) measure(name string, want int64, nodes []*v1.Node, start func() error) (Phase, error) {
	w, o, counting, services := c.w, c.o, c.counting, c.services
	backends := map[string]map[string]bool{}
	for _, s := range services {
		b, err := backendsOf(s, nodes, w.cfg)
		if err != nil {
			return Phase{}, err
		}
		backends[s.Namespace+"/"+s.Name] = b
	}
	before := w.Srv.Calls()
	t0, r0, cpu0, wait0 := w.Clock.Now(), time.Now(), processCPU(), cpuWait()
	base, busy0, failed0 := counting.ok.Load(), counting.busy.Load(), counting.failed.Load()
	if err := start(); err != nil {
		return Phase{}, err
	}
	// Converged: at least want reconciles since the start, none running, none finished for
	// 500 ms of real time (50 s at the 100× clock: node syncs of later Node events); and then
	// OCI's state: every work request finished and every load balancer holding its backends.
	// The controller's calls returning is not enough: a node sync returns once OCI accepted
	// its changes (engine.Reconciler.Update).
	var oci ociProgress
	converged := false
	for time.Since(r0) < o.Cap && !converged {
		time.Sleep(20 * time.Millisecond)
		idle := w.Clock.Since(time.Unix(0, counting.last.Load()))
		if counting.ok.Load()-base < want || counting.inflight.Load() != 0 || idle <= 50*time.Second {
			continue
		}
		if oci = workProgress(w.Srv, t0); oci.pending > 0 {
			continue
		}
		// Nothing runs in OCI: its state is final unless a requeue comes. Reading every load
		// balancer costs this machine about a second: not every 20 ms.
		if converged = ociConverged(w.Srv, backends, &oci) == len(services); !converged {
			time.Sleep(2 * time.Second)
		}
	}
	calls := w.Srv.Calls().Since(before)
	cpu, waited, wall := processCPU()-cpu0, cpuWait()-wait0, time.Since(r0)
	if !converged {
		oci = workProgress(w.Srv, t0)
		ociConverged(w.Srv, backends, &oci)
	}
	p := Phase{Name: name, Start: t0, Reads: calls.Class(ocitest.ClassRead), Writes: calls.Class(ocitest.ClassWrite),
		Polls: calls.Class(ocitest.ClassPoll), Status429: calls.Status(429),
		Done: min(int(counting.ok.Load()-base), oci.holding), Of: int(want), Errors: counting.failed.Load(),
		FailedWorkRequests: oci.failed, MaxRules: maxRules(w), CPU: cpu, CPUWait: waited, Wall: wall}
	p.FirstError, _ = counting.firstErr.Load().(string)
	p.Reconciles = counting.ok.Load() - base + counting.failed.Load() - failed0
	p.AcceptedPer10s = acceptedPer10s(w.Srv, t0)
	p.Accepted, p.Finished = workTimes(w.Srv, t0)
	p.Busy = time.Duration(counting.busy.Load() - busy0)
	if !converged {
		p.CutShort = fmt.Sprintf("%d of %d reconciles since the phase began, %d running, %d work requests unfinished, %d load balancers holding their backends",
			counting.ok.Load()-base, want, counting.inflight.Load(), oci.pending, oci.holding)
	}
	// The later of the last reconcile and the last work request: both in the clock's time,
	// not when this loop looked.
	p.Took = time.Unix(0, counting.last.Load()).Sub(t0)
	if oci.lastFinished.After(t0) {
		p.Took = max(p.Took, oci.lastFinished.Sub(t0))
		p.LastAccepted, p.LastRan = oci.lastAccepted.Sub(t0), oci.lastRan
	}
	if !converged {
		p.Took = w.Clock.Since(t0) // cut short: the time it ran
	}
	p.Floor = time.Duration(float64(p.Writes) / o.WriteQPS * float64(time.Second))
	return p, nil
}

// driftCheck changes two of the storm's load balancers out of band, one listener deleted and one
// load balancer deleted, and runs one drift check over all of them, as the CCM's drift loop does
// every period (internal/drift's Loop.Check with engine.Reconciler.Drift, on a Reconciler of its own
// over the same OCI client; the World's own loop is off, so that it does not find and repair
// them first). Found counts the changed Services the check requeues.
func driftCheck(ctx context.Context, w *World, services []*v1.Service) (Phase, error) {
	r, err := engine.NewReconciler(engine.Options{Config: w.cfg, Client: w.OCI.LoadBalancers, Now: w.Clock.Now, Sleep: w.Clock.Sleep})
	if err != nil {
		return Phase{}, err
	}
	ids := map[string]string{} // display name → OCID
	for _, l := range w.Srv.LoadBalancers() {
		ids[*l.DisplayName] = *l.Id
	}
	idOf := func(s *v1.Service) string { return ids[w.LB.GetLoadBalancerName(quiet, "bench", s)] }
	edited, removed := services[len(services)/2], services[len(services)-1]
	if !w.Srv.EditLoadBalancer(idOf(edited), func(l *loadbalancer.LoadBalancer) { delete(l.Listeners, "TCP-80") }) ||
		!w.Srv.RemoveLoadBalancer(idOf(removed)) {
		return Phase{}, fmt.Errorf("drift: no load balancer for %s or %s", edited.Name, removed.Name)
	}
	// The drift loop's own check (internal/drift), over the cluster as the fake clientset has it;
	// a requeue is only recorded.
	loop, err := drift.New(drift.Options{Checker: r.Drift,
		Services: func() ([]*v1.Service, error) {
			list, err := w.Kube.CoreV1().Services("default").List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, err
			}
			return pointers(list.Items), nil
		},
		Nodes: func(ctx context.Context) ([]*v1.Node, error) {
			list, err := w.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, err
			}
			return pointers(list.Items), nil
		},
		Requeue: func(context.Context, string, string, string) error { return nil }})
	if err != nil {
		return Phase{}, err
	}
	// The CCM's follow-up may still be polling work requests OCI has finished: the check's calls
	// are counted once nothing else calls (10 s of the clock without a call, a minute at most).
	silence := time.Duration(float64(10*time.Second) * w.Clock.Scale()) // real time
	quietSince, last := time.Now(), w.Srv.Calls().Total()
	for start := time.Now(); time.Since(quietSince) < silence && time.Since(start) < time.Minute; {
		time.Sleep(100 * time.Millisecond)
		if n := w.Srv.Calls().Total(); n != last {
			quietSince, last = time.Now(), n
		}
	}
	before, t0 := w.Srv.Calls(), w.Clock.Now()
	res, err := loop.Check(ctx)
	if err != nil {
		return Phase{}, fmt.Errorf("drift check: %w", err)
	}
	calls, report := w.Srv.Calls().Since(before), res.Report
	f := &DriftFigures{LoadBalancers: len(services), Made: 2, Skipped: report.Skipped}
	for _, d := range report.Drifted {
		f.Reasons = append(f.Reasons, d.Service.Name+": "+d.Reason())
	}
	for _, key := range res.Requeued {
		if key == edited.Namespace+"/"+edited.Name || key == removed.Namespace+"/"+removed.Name {
			f.Found++
		}
	}
	return Phase{Name: "drift check: 1 listener and 1 load balancer deleted out of band", Reads: calls.Class(ocitest.ClassRead),
		Writes: calls.Class(ocitest.ClassWrite), Polls: calls.Class(ocitest.ClassPoll), Status429: calls.Status(429),
		Done: report.Checked, Of: len(services), Took: w.Clock.Since(t0), MaxRules: maxRules(w), Drift: f}, nil
}

// maxRules is the most ingress or egress rules a security list of the World holds.
func maxRules(w *World) int {
	most := 0
	for _, id := range w.Seeded.SecurityLists {
		if l, ok := w.Srv.SecurityList(id); ok {
			most = max(most, len(l.IngressSecurityRules), len(l.EgressSecurityRules))
		}
	}
	return most
}

// backendsOf returns the addresses lb gives the backend sets of s's load balancer on nodes.
func backendsOf(s *v1.Service, nodes []*v1.Node, cfg *config.Config) (map[string]bool, error) {
	spec, err := lb.Desired(s, nodes, cfg, lb.Known{})
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, bs := range spec.BackendSets {
		for _, b := range bs.Backends {
			out[b.IP] = true
		}
	}
	return out, nil
}

// withIngress gives a Service the address its load balancer has, as the controller wrote it.
func withIngress(s *v1.Service, l loadbalancer.LoadBalancer) *v1.Service {
	s = s.DeepCopy()
	for _, a := range l.IpAddresses {
		if a.IpAddress != nil {
			s.Status.LoadBalancer.Ingress = append(s.Status.LoadBalancer.Ingress, v1.LoadBalancerIngress{IP: *a.IpAddress})
		}
	}
	return s
}

// copyFor turns the template Service's load balancer into s's: its name, ownership tags, node
// ports and backends (the addresses lb chooses for s: its own subset in a big cluster); ocitest
// assigns the OCID and address.
func copyFor(template loadbalancer.LoadBalancer, from, s *v1.Service, name string, backends map[string]bool) (loadbalancer.LoadBalancer, error) {
	b, err := json.Marshal(template)
	if err != nil {
		return template, err
	}
	var l loadbalancer.LoadBalancer
	if err := json.Unmarshal(b, &l); err != nil {
		return template, err
	}
	l.Id, l.IpAddresses, l.DisplayName = nil, nil, common.String(name)
	l.FreeformTags[model.TagService] = s.Namespace + "/" + s.Name
	l.FreeformTags[model.TagServiceUID] = string(s.UID)
	ports := map[int]int{}
	for i := range from.Spec.Ports {
		ports[int(from.Spec.Ports[i].NodePort)] = int(s.Spec.Ports[i].NodePort)
	}
	ips := slices.Sorted(maps.Keys(backends))
	for name, set := range l.BackendSets {
		if len(set.Backends) == 0 {
			continue
		}
		proto := set.Backends[0]
		port, ok := ports[*proto.Port]
		if !ok {
			return template, fmt.Errorf("seeding: backend set %s of the template has node port %d, not one of its Service's", name, *proto.Port)
		}
		set.Backends = make([]loadbalancer.Backend, 0, len(ips))
		for _, ip := range ips {
			be := proto
			be.IpAddress, be.Port, be.Name = common.String(ip), common.Int(port), common.String(ip+":"+strconv.Itoa(port))
			set.Backends = append(set.Backends, be)
		}
		l.BackendSets[name] = set
	}
	return l, nil
}

// pointers points at each item of a listing, in order.
func pointers[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}
