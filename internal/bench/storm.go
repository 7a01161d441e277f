// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
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

// Phase is one phase of a storm: what it cost and how far it got.
type Phase struct {
	Name                            string
	Reads, Writes, Polls, Status429 int
	// Done counts the Services converged: reconciled by the service controller and their load
	// balancers as OCI has them holding the backends lb chooses (see ociConverged); Of is all of them.
	Done, Of    int
	Took, Floor time.Duration
	// Errors counts failed reconciles; FailedWorkRequests the work requests that ended FAILED.
	Errors             int64
	FailedWorkRequests int
	// MaxRules is the most ingress or egress rules any security list holds at the end.
	MaxRules int
	// FirstError is the error of the first failed reconcile of the storm, if any.
	FirstError string
	// CutShort says, for a phase stopped at the cap, what it was still waiting for.
	CutShort string
	// CPU is the CPU time this process (CCM, ocitest and harness together) spent in the phase,
	// CPUWait how long its threads were ready to run but waited for a CPU (the machine's other
	// work, or its own), Wall the real time the phase took: a fast clock is only faithful while
	// the CPU keeps up.
	CPU, CPUWait, Wall time.Duration
	// Reconciles counts the service controller's calls into the cloud provider that ended in the
	// phase; Busy is the clock's time they took, summed: with one worker, Busy near Took means
	// the worker set the pace, not OCI's limits.
	Reconciles int64
	Busy       time.Duration
	// LastAccepted is when, from the phase's start, OCI accepted its last work request, and
	// LastRan how long the work request that finished last ran: a storm cannot end before its
	// floor plus the run of a work request written last.
	LastAccepted, LastRan time.Duration
	// AcceptedPer10s counts the work requests OCI accepted in each 10 s of the clock from the
	// phase's start: a count under the write limit's 100 is write tokens unused.
	AcceptedPer10s []int
	// Accepted and Finished are when, from the phase's start, each work request of the phase
	// was accepted and finished (the finished ones), in order: StormChart draws them.
	Accepted, Finished []time.Duration
	// Drift, for the drift check after the storm, is what it was asked to find and found.
	Drift *DriftFigures
	// New, for the phase after the drift check, is the fair-storm figures (NewServiceAt).
	New *NewService
}

// DriftFigures are a drift check's: of LoadBalancers, Made were changed out of band, and Found
// of them reported drifted (with Reasons); Skipped are the Services not compared, by why.
type DriftFigures struct {
	LoadBalancers, Made, Found int
	Reasons                    []string
	Skipped                    map[string]int
}

// cpuBound is the share of the machine's CPUs above which a phase is reported as bound by
// them: the clock then runs ahead of the work, and every figure in time overstates OCI's.
const cpuBound = 0.7

// CPUShare is the CPU the phase wanted (used, and waited for) as a share of all the machine's
// CPUs over its real time.
func (p Phase) CPUShare() float64 {
	if p.Wall <= 0 {
		return 0
	}
	return (p.CPU + p.CPUWait).Seconds() / (p.Wall.Seconds() * float64(runtime.NumCPU()))
}

// CPUPerThousandCalls is the phase's CPU time per 1,000 OCI calls (reads, writes and polls),
// zero without calls or CPU figures. The process holds the harness and ocitest too, so it
// overstates the CCM's own share; it compares runs of the same bench.
func (p Phase) CPUPerThousandCalls() time.Duration {
	calls := p.Reads + p.Writes + p.Polls
	if calls == 0 || p.CPU <= 0 {
		return 0
	}
	return p.CPU * 1000 / time.Duration(calls)
}

// cpuWait is how long this process's threads have waited for a CPU while ready to run, from
// Linux's per-thread schedstat (0 where there is none).
func cpuWait() time.Duration {
	tasks, _ := os.ReadDir("/proc/self/task")
	var total time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) >= 2 {
			ns, _ := strconv.ParseInt(f[1], 10, 64)
			total += time.Duration(ns)
		}
	}
	return total
}

// processCPU is the CPU time, user and system, this process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
		RateLimit: config.RateLimiter{ReadQPS: o.ReadQPS, ReadBurst: max(1, int(o.ReadQPS)), WriteQPS: o.WriteQPS, WriteBurst: max(1, int(o.WriteQPS))}})
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
	c.w.Srv.SetRateLimit(ocitest.ClassWrite, c.o.WriteQPS/scale, max(1, int(c.o.WriteQPS)))
	c.w.Srv.SetRateLimit(ocitest.ClassRead, c.o.ReadQPS/scale, max(1, int(c.o.ReadQPS)))
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
	p := Phase{Name: name, Reads: calls.Class(ocitest.ClassRead), Writes: calls.Class(ocitest.ClassWrite),
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

// ociProgress is how far OCI is with a phase.
type ociProgress struct {
	// pending counts unfinished work requests, failed the FAILED ones accepted in the phase.
	pending, failed int
	// lastFinished is when the last work request accepted in the phase finished, lastRan how
	// long it ran; lastAccepted is when the last one was accepted.
	lastFinished, lastAccepted time.Time
	lastRan                    time.Duration
	// holding counts the load balancers whose every backend set holds the backends lb chooses
	// for its Service.
	holding int
}

// workProgress reads the work requests accepted since t0.
func workProgress(srv *ocitest.Server, t0 time.Time) ociProgress {
	var p ociProgress
	for _, wr := range srv.WorkRequests() {
		if wr.TimeAccepted.Before(t0) {
			continue
		}
		switch wr.State {
		case ocitest.WorkRequestAccepted, ocitest.WorkRequestInProgress, ocitest.WorkRequestCanceling:
			p.pending++
		case ocitest.WorkRequestFailed:
			p.failed++
		}
		if wr.TimeFinished.After(p.lastFinished) {
			p.lastFinished, p.lastRan = wr.TimeFinished, wr.TimeFinished.Sub(wr.TimeStarted)
		}
		if wr.TimeAccepted.After(p.lastAccepted) {
			p.lastAccepted = wr.TimeAccepted
		}
	}
	return p
}

// workTimes returns when, from t0, each work request accepted since t0 was accepted and
// finished (those finished), each in order.
func workTimes(srv *ocitest.Server, t0 time.Time) (accepted, finished []time.Duration) {
	for _, wr := range srv.WorkRequests() {
		if wr.TimeAccepted.Before(t0) {
			continue
		}
		accepted = append(accepted, wr.TimeAccepted.Sub(t0))
		if !wr.TimeFinished.IsZero() {
			finished = append(finished, wr.TimeFinished.Sub(t0))
		}
	}
	slices.Sort(accepted)
	slices.Sort(finished)
	return accepted, finished
}

// acceptedPer10s counts the work requests accepted in each 10 s of the clock since t0.
func acceptedPer10s(srv *ocitest.Server, t0 time.Time) []int {
	var out []int
	for _, wr := range srv.WorkRequests() {
		if wr.TimeAccepted.Before(t0) {
			continue
		}
		i := int(wr.TimeAccepted.Sub(t0) / (10 * time.Second))
		for len(out) <= i {
			out = append(out, 0)
		}
		out[i]++
	}
	return out
}

// ociConverged counts, into p.holding and as its result, the load balancers whose every backend
// set holds exactly the backends lb chooses for its Service (backends, by the Service's
// namespace/name: every Node, or a subset past OCI's limits), whatever their ports.
func ociConverged(srv *ocitest.Server, backends map[string]map[string]bool, p *ociProgress) int {
	p.holding = 0
	for _, l := range srv.LoadBalancers() {
		want := backends[l.FreeformTags[model.TagService]]
		ok := len(l.BackendSets) > 0 && want != nil
		for _, set := range l.BackendSets {
			have := make(map[string]bool, len(set.Backends))
			for _, b := range set.Backends {
				if b.IpAddress != nil {
					have[*b.IpAddress] = true
				}
			}
			ok = ok && maps.Equal(have, want)
		}
		if ok {
			p.holding++
		}
	}
	return p.holding
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

// PeakRSS is the process's peak resident memory (VmHWM), ocitest's state included.
func PeakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return "unknown"
}

// Storm goals (issue #15): the Services converge within stormGoal times the floor, with no
// failed reconcile and no list over OCI's rule limit; a restart's reads are O(list pages): at
// most one per page of listPage load balancers, plus restartOtherReads (the security lists and
// subnets, as many whatever the number of Services).
const (
	stormGoal         = 1.2
	listPage          = 100
	ociRuleLimit      = 200
	restartOtherReads = 5
)

// Goal checks a phase against the storm goals: "met", or "**miss**: " and what missed.
func (p Phase) Goal() string {
	var miss []string
	if p.CutShort != "" {
		miss = append(miss, "cut short")
	}
	if p.Errors > 0 {
		miss = append(miss, fmt.Sprintf("%d failed reconciles", p.Errors))
	}
	if p.MaxRules > ociRuleLimit {
		miss = append(miss, fmt.Sprintf("%d rules in a list > %d", p.MaxRules, ociRuleLimit))
	}
	switch {
	case p.Drift != nil:
		pages := (p.Drift.LoadBalancers + listPage - 1) / listPage
		if calls := p.Reads + p.Writes + p.Polls; calls > pages {
			miss = append(miss, fmt.Sprintf("%d calls > %d (one per %d load balancers)", calls, pages, listPage))
		}
		if p.Drift.Found < p.Drift.Made {
			miss = append(miss, fmt.Sprintf("found %d of %d", p.Drift.Found, p.Drift.Made))
		}
	case p.Floor > 0 && p.Took.Seconds() > stormGoal*p.Floor.Seconds():
		miss = append(miss, fmt.Sprintf("%s > %s (%.1f× floor)", secs(p.Took), secs(time.Duration(stormGoal*float64(p.Floor))), stormGoal))
	case p.Writes == 0:
		if pages := (p.Of + listPage - 1) / listPage; p.Reads > pages+restartOtherReads {
			miss = append(miss, fmt.Sprintf("%d reads > %d pages + %d", p.Reads, pages, restartOtherReads))
		}
	}
	if len(miss) == 0 {
		return "met"
	}
	return "**miss**: " + strings.Join(miss, "; ")
}

// WriteStorm writes a storm's phases.
func WriteStorm(out io.Writer, title string, ps []Phase) {
	fmt.Fprintf(out, "\n#### %s\n\n", title)
	fmt.Fprintln(out, "| phase | converged in OCI | reads | writes | polls | 429s | failed reconciles | failed work requests | most rules in a list | time | projected for all | floor (writes ÷ limit, projected) | ratio | goal |")
	fmt.Fprintln(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, p := range ps {
		if p.New != nil {
			continue // below the table
		}
		// A phase cut short is projected linearly to all Services, its floor too.
		done := min(max(p.Done, 1), p.Of)
		scale := float64(p.Of) / float64(done)
		projected := time.Duration(float64(p.Took) * scale)
		floor := time.Duration(float64(p.Floor) * scale)
		ratio := "—"
		if floor > 0 {
			ratio = fmt.Sprintf("%.2f", projected.Seconds()/floor.Seconds())
		}
		fmt.Fprintf(out, "| %s | %d of %d | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s | %s |\n", p.Name, p.Done, p.Of, p.Reads, p.Writes,
			p.Polls, p.Status429, p.Errors, p.FailedWorkRequests, p.MaxRules, secs(p.Took), secs(projected), secs(floor), ratio, p.Goal())
	}
	fmt.Fprintln(out)
	for _, p := range ps {
		if p.Wall == 0 {
			continue // the drift check: no CPU figures
		}
		bound := "not bound by the CPU"
		if p.CPUShare() > cpuBound {
			bound = fmt.Sprintf("**CPU-bound** (over %.0f%%: its times overstate OCI's)", cpuBound*100)
		}
		fmt.Fprintf(out, "%s: %.1f s of CPU used and %.1f s waited for in %.1f s of real time, %.0f%% of %d CPUs wanted, %s.\n",
			p.Name, p.CPU.Seconds(), p.CPUWait.Seconds(), p.Wall.Seconds(), 100*p.CPUShare(), runtime.NumCPU(), bound)
		// Only where calls are what the CPU went to: a restart's 2,000 syncs make a dozen calls.
		if per := p.CPUPerThousandCalls(); per > 0 && p.Reads+p.Writes+p.Polls >= 1000 {
			fmt.Fprintf(out, "%s: %.1f s of CPU per 1,000 OCI calls (the harness, ocitest and the CCM in one process).\n", p.Name, per.Seconds())
		}
	}
	for _, p := range ps {
		if p.Reconciles > 0 {
			fmt.Fprintf(out, "%s: %d reconciles took %.1f s of the clock in all, %.0f ms each on average.\n",
				p.Name, p.Reconciles, p.Busy.Seconds(), float64(p.Busy.Milliseconds())/float64(p.Reconciles))
		}
		if p.Drift != nil {
			reasons := p.Drift.Reasons
			if len(reasons) > 5 {
				reasons = append(reasons[:5:5], fmt.Sprintf("and %d more", len(p.Drift.Reasons)-5))
			}
			fmt.Fprintf(out, "%s: %d of %d load balancers checked, found drifted: %s.", p.Name, p.Done, p.Of, strings.Join(reasons, "; "))
			for _, why := range slices.Sorted(maps.Keys(p.Drift.Skipped)) {
				fmt.Fprintf(out, " Not checked: %d (%s).", p.Drift.Skipped[why], why)
			}
			fmt.Fprintln(out)
		}
		if len(p.AcceptedPer10s) > 0 {
			fmt.Fprintf(out, "%s: work requests accepted in each 10 s of the clock: %s.\n", p.Name, strings.Trim(fmt.Sprint(p.AcceptedPer10s), "[]"))
		}
		if p.LastAccepted > 0 {
			fmt.Fprintf(out, "%s: the last work request was accepted at %s (floor %s), the last to finish ran %s.\n",
				p.Name, secs(p.LastAccepted), secs(p.Floor), secs(p.LastRan))
		}
	}
	for _, p := range ps {
		if p.CutShort != "" {
			fmt.Fprintf(out, "\n%s, cut short: %s.\n", p.Name, p.CutShort)
		}
	}
	for _, p := range ps {
		if p.New != nil {
			fmt.Fprintf(out, "\n%s\n", p.New)
		}
	}
	for i := len(ps) - 1; i >= 0; i-- {
		if ps[i].FirstError != "" {
			fmt.Fprintf(out, "\nThe first failed reconcile: %s\n", ps[i].FirstError)
			break
		}
	}
}

// fairSlack is what a Service created in a storm may take beyond its time alone and one create
// work request (issue 31).
const fairSlack = 10 * time.Second

// Bound is the time to an IP a Service created in a storm should keep within: its time alone,
// plus one create work request, plus fairSlack; 0 without both figures.
func (n NewService) Bound() time.Duration {
	if n.Alone == 0 || n.CreateRun == 0 {
		return 0
	}
	return n.Alone + n.CreateRun + fairSlack
}

// String reports the fair-storm figures and the goal.
func (n NewService) String() string {
	if n.Storm == 0 {
		return "A new Service created during the storm: **miss**: it got no IP (or the node phase ended before it was created)."
	}
	goal := "met"
	switch b := n.Bound(); {
	case b == 0:
		goal = "**miss**: no figure alone or no create work request to bound it"
	case n.Storm > b:
		goal = fmt.Sprintf("**miss**: %s > %s", secs(n.Storm), secs(b))
	}
	return fmt.Sprintf("A new Service created during the storm's node phase got its IP in %s; one created alone after the storm in %s; "+
		"the first one's create work request ran %s, so the bound is %s + %s + %s = %s: %s.",
		secs(n.Storm), secs(n.Alone), secs(n.CreateRun), secs(n.Alone), secs(n.CreateRun), secs(fairSlack), secs(n.Bound()), goal)
}

// LoadAverage is the machine's 1-minute load average and CPU count, e.g. "3.86 on 2 CPUs": the
// 100× clock turns every millisecond this machine's other work takes from the harness into
// 0.1 s of scaled time, so a loaded machine shifts the figures (the storm most, which is
// CPU-bound; "waiting" least, which counts only waits).
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return "unknown"
	}
	return fmt.Sprintf("%s on %d CPUs", fields[0], runtime.NumCPU())
}

// pointers points at each item of a listing, in order.
func pointers[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}
