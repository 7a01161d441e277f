// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ccm

// TestFaultSoak is issue 27's fault soak: a seeded random sequence of steps (1,000 by default)
// against the provider, on an ocitest server as hard as OCI: its default tenancy and IAM policy,
// the policy delay and listing lag on (ocitest.DefaultPolicyDelay, DefaultListingLag), and OCI's
// own work-request durations (ocitest.RealisticDurations).
//
// Why through this package: the soak drives the provider as the service and node controllers of
// k8s.io/cloud-provider do, through its public interface (LoadBalancer().EnsureLoadBalancer,
// UpdateLoadBalancer, EnsureLoadBalancerDeleted; InstancesV2().InstanceMetadata and
// InstanceExists), so what it sees is what a cluster sees: lb and seclist one after the other,
// the node addresses and subnets instances finds, TLS Secrets from the informers (Initialize and
// SetInformers run over a fake cluster, as in watcher_test.go). Driving engine.Reconciler and seclist
// directly would leave out the glue between them, which is where a lost claim or a stale Secret
// would hide. The test lives in package ccm, not in one of its own, only to wait for the
// provider's start-up priming (Cloud.primed) before the first step; every step goes through the
// public interface.
//
// Time: the server and the OCI client share one settable clock (ocitest.Clock). Every wait the
// client makes (work-request polls, retry backoff, rate limiting) jumps the clock forward instead
// of sleeping (soakClock), so a 90-second create costs a few polls, and the policy delay and
// listing lag pass when the steps advance the clock. The step sequence is fixed by the seed;
// the interleaving of OCI calls inside a step (lb applies a plan concurrently) is not.
//
// Steps: create, update (ports, TLS Secret, shape, product LB↔NLB, security-rule mode) and
// delete Services; add and remove nodes; inject one transient fault before a sync (429, 500, 503,
// a dropped connection standing in for a timeout, a 500 after the change was applied, a failed
// work request); set a new policy (a harmless rewording, which must cause no error while it
// propagates; or one withdrawing a grant, restored later); advance the clock.
//
// Invariants, checked every 100 steps and at the end:
//   - no sync fails unless its step injected a fault or a grant had been withdrawn (until the
//     restored policy has propagated); a retry error (engine.PendingError: work still running in OCI)
//     is not a failure, the Service is synced again later as the service controller would;
//   - no Service has two load balancers, two network load balancers or two frontend NSGs;
//   - a Service whose deletion succeeded has nothing left in OCI.
//
// At the end, with faults off and the policy restored and propagated, every Service must reach
// its desired state (listeners and backends matching its ports and the nodes, its certificate,
// shape and frontend NSG) within soakRounds reconciles; then every Service is deleted and nothing
// the provider made may remain: no load balancer, network load balancer, NSG or certificate, and
// every security list holds exactly its seeded rules.
//
// The seed is soakDefaultSeed unless -soak.seed or $OCI_CCM_SOAK_SEED gives another; -soak.steps
// changes the count (-short runs 200). A failure prints the seed and the step log.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/core"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/api"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb/annotation"
	"github.com/oci-ccm/oci-ccm/lb/model"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

var (
	soakSeedFlag  = flag.Uint64("soak.seed", 0, "seed of TestFaultSoak (0: $OCI_CCM_SOAK_SEED, else the fixed default)")
	soakStepsFlag = flag.Int("soak.steps", 0, "steps of TestFaultSoak (0: 1000, 200 with -short)")
)

const (
	soakDefaultSeed = 27
	soakCluster     = "soak"
	// soakRounds bounds the reconciles each Service gets to converge once faults stop.
	soakRounds = 4
	// soakScale scales OCI's work-request durations: a create runs 6–12 s of the shared clock,
	// long enough that a sync overlaps its own work and the listing lag, short enough that a
	// create stays well within the provider's one-minute MaxWait.
	soakScale = 0.1
)

// soakClock is the OCI client's clock: the server's settable clock, where a wait jumps the clock
// forward (and yields a moment of real time to whatever the wait would have let run).
type soakClock struct{ *ocitest.Clock }

func (c soakClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.Advance(d)
	time.Sleep(50 * time.Microsecond)
	return ctx.Err()
}

// soakSvc is one Service as the soak's Kubernetes knows it.
type soakSvc struct {
	name    string
	gen     int  // bumped at every create: the UID
	exists  bool // in Kubernetes
	deleted bool // deleted in Kubernetes, EnsureLoadBalancerDeleted not yet successful
	nlb     bool
	ports   []int32
	tls     string // the TLS Secret of port 443 ("" none); load balancers only
	flexMax int    // 100 or 200 Mbps; load balancers only
	nsg     bool   // security-rule-management-mode NSG; load balancers only
	dirty   bool   // its last sync did not finish: synced again at the next step
	// status is what the service controller wrote to the Service from the last successful
	// EnsureLoadBalancer: lb finds a former kind's load balancer by it.
	status v1.LoadBalancerStatus
}

func (s *soakSvc) uid() types.UID { return types.UID(fmt.Sprintf("uid-%s-%d", s.name, s.gen)) }

func (s *soakSvc) key() string { return "default/" + s.name }

func (s *soakSvc) String() string {
	kind := "lb"
	if s.nlb {
		kind = "nlb"
	}
	var extra []string
	if !s.nlb {
		extra = append(extra, fmt.Sprintf("flexMax=%d", s.flexMax))
		if s.tls != "" {
			extra = append(extra, "tls="+s.tls)
		}
		if s.nsg {
			extra = append(extra, "NSG")
		}
	}
	return fmt.Sprintf("%s(%s %v %s)", s.name, kind, s.ports, strings.Join(extra, " "))
}

// object is the Service as the service controller hands it to the provider.
func (s *soakSvc) object() *v1.Service {
	ann := map[string]string{}
	if s.nlb {
		ann[string(annotation.LoadBalancerType)] = "nlb"
		ann[string(annotation.NLBSecurityListManagementMode)] = "All"
	} else {
		ann[string(annotation.ShapeFlexMin)] = "10"
		ann[string(annotation.ShapeFlexMax)] = strconv.Itoa(s.flexMax)
		if s.tls != "" && slices.Contains(s.ports, 443) {
			ann[string(annotation.SSLPorts)] = "443"
			ann[string(annotation.TLSSecret)] = s.tls
		}
		if s.nsg {
			ann[string(annotation.SecurityRuleManagementMode)] = "NSG"
		}
	}
	svc := &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: s.name, Namespace: "default", UID: s.uid(), Annotations: ann},
		Spec:       v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, ExternalTrafficPolicy: v1.ServiceExternalTrafficPolicyCluster},
		Status:     v1.ServiceStatus{LoadBalancer: *s.status.DeepCopy()},
	}
	for _, p := range s.ports {
		svc.Spec.Ports = append(svc.Spec.Ports, v1.ServicePort{Name: fmt.Sprint("p", p), Protocol: v1.ProtocolTCP, Port: p,
			TargetPort: intstr.FromInt32(8080), NodePort: 30000 + p})
	}
	return svc
}

type soakNode struct{ name, id, ip string }

func (n soakNode) object() *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.name},
		Spec:       v1.NodeSpec{ProviderID: "oci://" + n.id},
		Status: v1.NodeStatus{
			Addresses:  []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: n.ip}},
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
}

// soak is the run's state.
type soak struct {
	t      *testing.T
	ctx    context.Context
	rng    *rand.Rand
	seed   uint64
	srv    *ocitest.Server
	seeded ocitest.Seeded
	clock  *ocitest.Clock
	cloud  *Cloud
	lbs    cloudprovider.LoadBalancer
	nodesV cloudprovider.InstancesV2
	kube   kubernetes.Interface

	svcs      []*soakSvc
	nodes     []soakNode
	nodeCount int // names node-N

	step int
	log  []string
	// faulted says the current step injected a fault; withdrawnUntil is when a withdrawn grant is
	// back in force (zero: none withdrawn; far future: not restored yet).
	faulted        bool
	faultWhat      string
	withdrawn      string
	withdrawnUntil time.Time

	failures       []string
	syncs, errs    int
	excused, retry int
	initialRules   map[string][]string // security list OCID → its seeded rules, as JSON
	initialNSGs    map[string]bool
	counts         map[string]int // steps by kind
}

func soakSeed() uint64 {
	if *soakSeedFlag != 0 {
		return *soakSeedFlag
	}
	if v := os.Getenv("OCI_CCM_SOAK_SEED"); v != "" {
		if n, err := strconv.ParseUint(v, 10, 64); err == nil {
			return n
		}
	}
	return soakDefaultSeed
}

func TestFaultSoak(t *testing.T) {
	steps := *soakStepsFlag
	if steps == 0 {
		steps = 1000
		if testing.Short() {
			steps = 200
		}
	}
	seed := soakSeed()
	s := newSoak(t, seed)
	started := time.Now()
	virtualStart := s.clock.Now()
	defer func() {
		if t.Failed() {
			t.Logf("seed %d (rerun with -soak.seed=%d or OCI_CCM_SOAK_SEED=%d); step log:\n%s", seed, seed, seed, strings.Join(s.log, "\n"))
		}
	}()

	for s.step = 1; s.step <= steps; s.step++ {
		s.randomStep()
		if s.step%100 == 0 {
			s.checkpoint()
		}
	}
	s.step = steps + 1
	s.converge()
	s.deleteAll()
	t.Logf("seed %d: %d steps %v, %d syncs (%d errors: %d excused by a fault or a withdrawn grant, %d retry later), %s real, %s of OCI's time",
		seed, steps, s.counts, s.syncs, s.errs, s.excused, s.retry, time.Since(started).Round(time.Millisecond), s.clock.Now().Sub(virtualStart).Round(time.Second))
	if len(s.failures) > 0 {
		t.Errorf("%d failures:\n%s", len(s.failures), strings.Join(s.failures, "\n"))
	}
}

func newSoak(t *testing.T, seed uint64) *soak {
	// The provider's logs (plans, retries) would bury the step log: every sync runs with a
	// discarding logger in its context. (klog's global logger is not replaced: earlier tests'
	// background goroutines may still read it, and writing it would race with them.)
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
	t.Cleanup(cancel)

	clock := &ocitest.Clock{}
	srv := ocitest.New(ocitest.Options{Now: clock.Now, WorkRequestDurations: ocitest.RealisticDurations(soakScale)})
	t.Cleanup(srv.Close)
	seeded := srv.Seeded()
	cfg := &config.Config{
		Auth:          config.Auth{Region: srv.Region()},
		CompartmentID: seeded.Compartment,
		VCNID:         seeded.VCN,
		LoadBalancer:  config.LoadBalancer{Subnet1: seeded.LoadBalancerSubnets[0], Subnet2: seeded.LoadBalancerSubnets[1]},
	}
	cfg.SetDefaults()
	// The client as production builds it (retries, polling, rate limits, caching at their
	// defaults), on the shared clock.
	client, err := ociclient.New(ociclient.Options{Provider: srv.ConfigurationProvider(), Region: srv.Region(), Host: srv.URL(),
		HTTPClient: srv.HTTPClient(), Clock: soakClock{clock}, Logger: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	cloud, err := New(cfg, Options{ClusterName: soakCluster, Client: client, DriftCheckPeriod: -1, ListingLag: ocitest.DefaultListingLag})
	if err != nil {
		t.Fatal(err)
	}
	// TLS Secrets the Services may name, and the provider started over a cluster holding them.
	kube := fake.NewClientset(tlsSecret("tls-a", "cert-a"), tlsSecret("tls-b", "cert-b"))
	factory := informers.NewSharedInformerFactory(kube, 0)
	t.Cleanup(func() { cancel(); factory.Shutdown() }) // informers stop with ctx
	cloud.Initialize(clientBuilder{kube}, ctx.Done())
	cloud.SetInformers(factory)
	factory.Start(ctx.Done())
	select {
	case <-cloud.svc.Primed():
	case <-time.After(30 * time.Second):
		t.Fatal("provider did not prime its security claims")
	}
	// The provider has run for the listing lag before the first Service, as a CCM has.
	clock.Advance(ocitest.DefaultListingLag)

	lbs, _ := cloud.LoadBalancer()
	nodesV, _ := cloud.InstancesV2()
	s := &soak{t: t, ctx: ctx, rng: rand.New(rand.NewPCG(seed, 0x27)), seed: seed, srv: srv, seeded: seeded, clock: clock,
		cloud: cloud, lbs: lbs, nodesV: nodesV, kube: kube, initialRules: map[string][]string{}, initialNSGs: map[string]bool{},
		counts: map[string]int{}}
	for _, name := range []string{"node-1", "node-2", "node-3"} {
		id := seeded.Instances[name]
		s.nodes = append(s.nodes, soakNode{name: name, id: id, ip: *srv.InstanceVNICs(id)[0].PrivateIp})
	}
	s.nodeCount = 3
	for i := range 8 {
		s.svcs = append(s.svcs, &soakSvc{name: fmt.Sprintf("svc-%d", i), flexMax: 100})
	}
	for _, id := range seeded.SecurityLists {
		s.initialRules[id] = s.rules(id)
	}
	for _, g := range srv.NetworkSecurityGroups() {
		s.initialNSGs[*g.Id] = true
	}
	return s
}

func (s *soak) logf(format string, args ...any) {
	s.log = append(s.log, fmt.Sprintf("%4d %s ", s.step, s.clock.Now().Format("15:04:05"))+fmt.Sprintf(format, args...))
}

// excusable says whether an error of a call begun at began may be put down to what the soak
// did: a fault this step injected, or a grant withdrawn and not back in force when the call
// began (any OCI call it made may have been refused before the policy took effect, however late
// it ended).
func (s *soak) excusable(began time.Time) bool {
	return s.faulted || (!s.withdrawnUntil.IsZero() && began.Before(s.withdrawnUntil))
}

// judge records the outcome of one call, begun at began.
func (s *soak) judge(what string, began time.Time, err error) error {
	s.syncs++
	if err == nil {
		s.logf("  %s: ok", what)
		return nil
	}
	s.errs++
	var retry *api.RetryError
	switch {
	case errors.As(err, &retry):
		s.retry++
		s.logf("  %s: retry later: %v", what, err)
	case s.excusable(began):
		s.excused++
		s.logf("  %s: excused (%s%s): %v", what, s.faultWhat, s.withdrawn, err)
	default:
		s.logf("  %s: FAILED: %v", what, err)
		s.failures = append(s.failures, fmt.Sprintf("step %d: %s: %v", s.step, what, err))
	}
	return err
}

func (s *soak) nodeObjects() []*v1.Node {
	out := make([]*v1.Node, len(s.nodes))
	for i, n := range s.nodes {
		out[i] = n.object()
	}
	return out
}

// ensure is the service controller's sync of a created or changed Service.
func (s *soak) ensure(sv *soakSvc) {
	svc := sv.object()
	s.kubeApply(svc)
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Minute)
	defer cancel()
	began := s.clock.Now()
	status, err := s.lbs.EnsureLoadBalancer(ctx, soakCluster, svc, s.nodeObjects())
	sv.dirty = s.judge("ensure "+sv.String(), began, err) != nil
	if err == nil && status != nil {
		sv.status = *status
	}
}

// update is the service controller's sync of a node-set change.
func (s *soak) update(sv *soakSvc) {
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Minute)
	defer cancel()
	began := s.clock.Now()
	err := s.lbs.UpdateLoadBalancer(ctx, soakCluster, sv.object(), s.nodeObjects())
	if s.judge("update "+sv.String(), began, err) != nil {
		sv.dirty = true
	}
}

// remove is the service controller's sync of a deleted Service.
func (s *soak) remove(sv *soakSvc) {
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Minute)
	defer cancel()
	began := s.clock.Now()
	err := s.lbs.EnsureLoadBalancerDeleted(ctx, soakCluster, sv.object())
	if s.judge("delete "+sv.name, began, err) == nil {
		sv.deleted, sv.dirty = false, false
		_ = s.kube.CoreV1().Services("default").Delete(s.ctx, sv.name, metav1.DeleteOptions{})
	} else {
		sv.dirty = true
	}
}

// kubeApply keeps the fake cluster's copy of the Service, which the provider patches.
func (s *soak) kubeApply(svc *v1.Service) {
	c := s.kube.CoreV1().Services("default")
	if cur, err := c.Get(s.ctx, svc.Name, metav1.GetOptions{}); err == nil {
		svc = svc.DeepCopy()
		svc.ResourceVersion = cur.ResourceVersion
		svc.Status = cur.Status
		_, _ = c.Update(s.ctx, svc, metav1.UpdateOptions{})
		return
	}
	_, _ = c.Create(s.ctx, svc, metav1.CreateOptions{})
}

// resync retries the Services whose last sync did not finish, as the service controller does.
func (s *soak) resync() {
	for _, sv := range s.svcs {
		switch {
		case sv.dirty && sv.deleted:
			s.remove(sv)
		case sv.dirty && sv.exists:
			s.ensure(sv)
		}
	}
}

func (s *soak) pick(match func(*soakSvc) bool) *soakSvc {
	var c []*soakSvc
	for _, sv := range s.svcs {
		if match(sv) {
			c = append(c, sv)
		}
	}
	if len(c) == 0 {
		return nil
	}
	return c[s.rng.IntN(len(c))]
}

var soakPorts = []int32{80, 443, 8080, 9000, 5432}

func (s *soak) randomPorts() []int32 {
	n := 1 + s.rng.IntN(3)
	perm := s.rng.Perm(len(soakPorts))
	out := make([]int32, n)
	for i := range out {
		out[i] = soakPorts[perm[i]]
	}
	slices.Sort(out)
	return out
}

// randomStep draws one step and runs it, then the retries of unfinished syncs.
func (s *soak) randomStep() {
	s.faulted, s.faultWhat = false, ""
	r := s.rng.IntN(100)
	switch {
	case r < 14:
		s.stepCreate()
	case r < 36:
		s.stepUpdate()
	case r < 44:
		s.stepDelete()
	case r < 52:
		s.stepAddNode()
	case r < 58:
		s.stepRemoveNode()
	case r < 80:
		s.stepFault()
	case r < 88:
		s.stepPolicy()
	default:
		d := time.Duration(1+s.rng.IntN(30)) * time.Second
		s.counts["advance"]++
		s.logf("advance the clock %s", d)
		s.clock.Advance(d)
	}
	s.resync()
	s.faulted, s.faultWhat = false, ""
}

func (s *soak) stepCreate() {
	sv := s.pick(func(sv *soakSvc) bool { return !sv.exists && !sv.deleted })
	if sv == nil {
		s.stepUpdate()
		return
	}
	s.counts["create"]++
	sv.gen++
	sv.exists, sv.status = true, v1.LoadBalancerStatus{}
	sv.nlb = s.rng.IntN(3) == 0
	sv.ports = s.randomPorts()
	sv.tls, sv.nsg, sv.flexMax = "", false, 100
	if !sv.nlb {
		if s.rng.IntN(2) == 0 {
			sv.tls = []string{"tls-a", "tls-b"}[s.rng.IntN(2)]
		}
		sv.nsg = s.rng.IntN(3) == 0
	}
	s.logf("create %s", sv)
	s.ensure(sv)
}

func (s *soak) stepUpdate() {
	sv := s.pick(func(sv *soakSvc) bool { return sv.exists })
	if sv == nil {
		s.stepCreate()
		return
	}
	s.counts["update"]++
	var what string
	switch r := s.rng.IntN(10); {
	case r < 4:
		sv.ports, what = s.randomPorts(), "ports"
	case r < 6 && !sv.nlb:
		what = "TLS Secret"
		switch sv.tls {
		case "":
			sv.tls = "tls-a"
			if !slices.Contains(sv.ports, 443) {
				sv.ports = append(sv.ports, 443)
				slices.Sort(sv.ports)
			}
		case "tls-a":
			sv.tls = "tls-b"
		default:
			sv.tls = ""
		}
	case r < 8 && !sv.nlb:
		what = "shape"
		sv.flexMax = 300 - sv.flexMax
	case r < 9 && !sv.nlb:
		what = "security-rule mode"
		sv.nsg = !sv.nsg
	default:
		what = "product"
		sv.nlb = !sv.nlb
		if sv.nlb {
			sv.tls, sv.nsg = "", false
		}
	}
	s.logf("update %s: %s", what, sv)
	s.ensure(sv)
}

func (s *soak) stepDelete() {
	sv := s.pick(func(sv *soakSvc) bool { return sv.exists })
	if sv == nil {
		s.stepCreate()
		return
	}
	s.counts["delete"]++
	sv.exists, sv.deleted = false, true
	s.logf("delete %s", sv)
	s.remove(sv)
}

// nodesChanged is the service controller's node sync: every Service with a load balancer.
func (s *soak) nodesChanged() {
	for _, sv := range s.svcs {
		if sv.exists && !sv.dirty {
			s.update(sv)
		}
	}
}

func (s *soak) stepAddNode() {
	if len(s.nodes) >= 6 {
		s.stepRemoveNode()
		return
	}
	s.counts["add node"]++
	s.nodeCount++
	name := fmt.Sprintf("node-%d", s.nodeCount)
	in := s.srv.AddInstance(ocitest.Instance{
		Instance: core.Instance{DisplayName: common.String(name), CompartmentId: &s.seeded.Compartment},
		VNICs:    []core.Vnic{{SubnetId: common.String(s.seeded.Subnets["nodes"])}},
	})
	n := soakNode{name: name, id: *in.Id, ip: *s.srv.InstanceVNICs(*in.Id)[0].PrivateIp}
	s.logf("add %s (%s)", name, n.ip)
	// The node controller initialises the Node from InstancesV2.
	began := s.clock.Now()
	meta, err := s.nodesV.InstanceMetadata(s.ctx, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeSpec{ProviderID: "oci://" + n.id}})
	if s.judge("InstanceMetadata "+name, began, err) == nil && meta.ProviderID != "oci://"+n.id {
		s.failures = append(s.failures, fmt.Sprintf("step %d: InstanceMetadata of %s: provider ID %q", s.step, name, meta.ProviderID))
	}
	s.nodes = append(s.nodes, n)
	s.nodesChanged()
}

func (s *soak) stepRemoveNode() {
	if len(s.nodes) <= 1 {
		s.stepAddNode()
		return
	}
	s.counts["remove node"]++
	i := s.rng.IntN(len(s.nodes))
	n := s.nodes[i]
	s.nodes = slices.Delete(s.nodes, i, i+1)
	s.logf("remove %s (%s): instance terminated", n.name, n.ip)
	s.srv.RemoveInstance(n.id)
	// The node lifecycle controller asks whether the instance still exists.
	// instances answers an error rather than false when it cannot tell a terminated instance from
	// one the policy hides (instances/README.md): the Node stays, which is its documented
	// choice, so that answer is logged, not judged; "exists" would be wrong.
	exists, err := s.nodesV.InstanceExists(s.ctx, n.object())
	switch {
	case err != nil:
		s.logf("  InstanceExists %s: not proven absent: %v", n.name, err)
	case exists:
		s.failf("InstanceExists of terminated %s: true", n.name)
	default:
		s.logf("  InstanceExists %s: false", n.name)
	}
	s.nodesChanged()
}

// soakFaultOps are the operations a fault may hit: the writes and reads a sync makes.
var soakFaultOps = []string{
	"CreateLoadBalancer", "DeleteLoadBalancer", "GetLoadBalancer", "ListLoadBalancers", "GetWorkRequest",
	"CreateListener", "UpdateListener", "DeleteListener", "CreateBackendSet", "UpdateBackendSet", "DeleteBackendSet",
	"CreateCertificate", "DeleteCertificate", "UpdateLoadBalancerShape", "UpdateNetworkSecurityGroups",
	ocitest.NLB("CreateNetworkLoadBalancer"), ocitest.NLB("DeleteNetworkLoadBalancer"), ocitest.NLB("GetNetworkLoadBalancer"),
	ocitest.NLB("ListNetworkLoadBalancers"), ocitest.NLB("GetWorkRequest"), ocitest.NLB("CreateListener"), ocitest.NLB("DeleteListener"),
	ocitest.NLB("CreateBackendSet"), ocitest.NLB("UpdateBackendSet"), ocitest.NLB("DeleteBackendSet"),
	"GetSecurityList", "UpdateSecurityList", "ListNetworkSecurityGroups", "CreateNetworkSecurityGroup", "DeleteNetworkSecurityGroup",
	"AddNetworkSecurityGroupSecurityRules", "RemoveNetworkSecurityGroupSecurityRules", "ListNetworkSecurityGroupSecurityRules",
	"GetInstance", "ListVnicAttachments", "GetVnic", "GetSubnet", "ListPrivateIps",
}

// stepFault injects one transient fault, then makes a sync that may meet it.
func (s *soak) stepFault() {
	s.counts["fault"]++
	op := soakFaultOps[s.rng.IntN(len(soakFaultOps))]
	var remove func()
	switch k := s.rng.IntN(6); k {
	case 0:
		times := 1 + s.rng.IntN(3)
		s.faultWhat = fmt.Sprintf("429 ×%d on %s", times, op)
		remove = s.srv.InjectFault(ocitest.Fault{Operation: op, Status: 429, RetryAfter: "1", Times: times})
	case 1:
		times := 1 + s.rng.IntN(2)
		s.faultWhat = fmt.Sprintf("500 ×%d on %s", times, op)
		remove = s.srv.InjectFault(ocitest.Fault{Operation: op, Status: 500, Times: times})
	case 2:
		s.faultWhat = "503 on every write ×3"
		remove = s.srv.InjectFault(ocitest.Fault{Class: ocitest.ClassWrite, Status: 503, Times: 3})
	case 3:
		s.faultWhat = "dropped connection (timeout) on " + op
		remove = s.srv.InjectFault(ocitest.Fault{Operation: op, DropConnection: true, Times: 1})
	case 4:
		s.faultWhat = "500 after applying " + op
		remove = s.srv.InjectFault(ocitest.Fault{Operation: op, Status: 500, AfterHandler: true, Times: 1})
	default:
		var n atomic.Int32
		s.faultWhat = "the next work request FAILS"
		remove = s.srv.FailWorkRequests(func(ocitest.WorkRequestInfo) bool { return n.Add(1) == 1 }, "injected: OCI failed the work request")
	}
	s.faulted = true
	s.logf("fault: %s", s.faultWhat)
	defer remove()
	// The sync that meets it.
	switch r := s.rng.IntN(10); {
	case r < 5:
		s.stepUpdate()
	case r < 7:
		s.stepCreate()
	case r < 8:
		s.stepDelete()
	default:
		if s.rng.IntN(2) == 0 {
			s.stepAddNode()
		} else {
			s.stepRemoveNode()
		}
	}
	s.resync()
}

// soakWithdrawable are grants of the default policy a step may withdraw.
var soakWithdrawable = []string{"manage load-balancers", "manage network-load-balancers", "manage security-lists",
	"manage network-security-groups", "read instance-family"}

// stepPolicy sets a new policy: a rewording granting nothing less (no sync may fail while it
// propagates), a withdrawal of one grant, or, with one withdrawn, the default policy back (it
// propagates for the policy delay, syncs are excused until then).
func (s *soak) stepPolicy() {
	s.counts["policy"]++
	var statements []string
	restore := false
	switch {
	case s.withdrawn != "" && s.rng.IntN(2) == 0:
		statements = ocitest.DefaultPolicy()
		restore = true
	case s.withdrawn == "" && s.rng.IntN(3) == 0:
		grant := soakWithdrawable[s.rng.IntN(len(soakWithdrawable))]
		for _, st := range ocitest.DefaultPolicy() {
			if !strings.Contains(st, " to "+grant+" ") {
				statements = append(statements, st)
			}
		}
		s.withdrawn = "; withdrawn: " + grant
		s.withdrawnUntil = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
		s.logf("policy: withdraw %q", grant)
	case s.withdrawn == "":
		// The same grants, reworded and reordered, plus one more: while it propagates every
		// call the old policy allowed stays allowed.
		statements = ocitest.DefaultPolicy()
		s.rng.Shuffle(len(statements), func(i, j int) { statements[i], statements[j] = statements[j], statements[i] })
		for i, st := range statements {
			statements[i] = strings.Replace(st, "Allow", "allow", 1)
		}
		statements = append(statements, "Allow dynamic-group ccm to inspect all-resources in compartment cluster")
		s.logf("policy: reworded, one grant more (propagating for %s)", ocitest.DefaultPolicyDelay)
	default:
		s.logf("policy: unchanged (%s still withdrawn)", s.withdrawn)
		return
	}
	if err := s.srv.SetPolicy(statements...); err != nil {
		s.t.Fatalf("step %d: SetPolicy: %v", s.step, err)
	}
	if restore {
		// Read after SetPolicy: a wait in the background (a deletion lb left running) may move
		// the shared clock between a read before it and the server's own, and the excuse must
		// last at least as long as the server's delay does.
		s.withdrawnUntil = s.clock.Now().Add(ocitest.DefaultPolicyDelay)
		s.logf("policy: the default back (%s propagates until %s)", s.withdrawn, s.withdrawnUntil.Format("15:04:05.000"))
		s.withdrawn = ""
	}
	// Something to sync while it propagates.
	if s.rng.IntN(2) == 0 {
		s.stepUpdate()
	}
}

// owned lists, by Service key, what OCI holds for each kind.
type soakOwned struct {
	lbs, nlbs, nsgs map[string][]string // Service key → OCIDs
}

func (s *soak) owned() soakOwned {
	o := soakOwned{lbs: map[string][]string{}, nlbs: map[string][]string{}, nsgs: map[string][]string{}}
	for _, l := range s.srv.LoadBalancers() {
		if l.FreeformTags[model.TagCluster] == soakCluster {
			k := l.FreeformTags[model.TagService]
			o.lbs[k] = append(o.lbs[k], *l.Id)
		}
	}
	for _, l := range s.srv.NetworkLoadBalancers() {
		if l.FreeformTags[model.TagCluster] == soakCluster {
			k := l.FreeformTags[model.TagService]
			o.nlbs[k] = append(o.nlbs[k], *l.Id)
		}
	}
	for _, g := range s.srv.NetworkSecurityGroups() {
		if s.initialNSGs[*g.Id] || g.LifecycleState == core.NetworkSecurityGroupLifecycleStateTerminated {
			continue
		}
		k := g.FreeformTags[model.TagService]
		if k == "" {
			k = "(untagged " + *g.Id + ")"
		}
		o.nsgs[k] = append(o.nsgs[k], *g.Id)
	}
	return o
}

func (s *soak) failf(format string, args ...any) {
	msg := fmt.Sprintf("step %d: ", s.step) + fmt.Sprintf(format, args...)
	s.failures = append(s.failures, msg)
	s.logf("CHECK FAILED: %s", fmt.Sprintf(format, args...))
}

// checkpoint asserts the invariants that hold between any two steps.
func (s *soak) checkpoint() {
	o := s.owned()
	for kind, m := range map[string]map[string][]string{"load balancers": o.lbs, "network load balancers": o.nlbs, "frontend NSGs": o.nsgs} {
		for k, ids := range m {
			if len(ids) > 1 {
				s.failf("duplicate %s for %s: %v", kind, k, ids)
			}
		}
	}
	for _, sv := range s.svcs {
		if sv.exists || sv.deleted {
			continue
		}
		for kind, m := range map[string]map[string][]string{"load balancer": o.lbs, "network load balancer": o.nlbs, "frontend NSG": o.nsgs} {
			if ids := m[sv.key()]; len(ids) > 0 {
				s.failf("orphan %s of deleted %s: %v", kind, sv.name, ids)
			}
		}
	}
	s.logf("checkpoint: %d load balancers, %d network load balancers, %d NSGs, %d nodes", len(o.lbs), len(o.nlbs), len(o.nsgs), len(s.nodes))
}

// quiesce ends every fault and withdrawn grant and lets the policy propagate.
func (s *soak) quiesce() {
	s.srv.ClearFaults()
	s.faulted, s.faultWhat = false, ""
	if s.withdrawn != "" {
		if err := s.srv.SetPolicy(ocitest.DefaultPolicy()...); err != nil {
			s.t.Fatal(err)
		}
		s.logf("policy: the default back")
		s.withdrawn = ""
	}
	s.clock.Advance(ocitest.DefaultPolicyDelay + time.Second)
	s.withdrawnUntil = time.Time{}
}

// converge stops the faults and reconciles every Service until it matches its desired state.
func (s *soak) converge() {
	s.quiesce()
	s.logf("converge: faults off, policy in force")
	var pending []*soakSvc
	for round := 1; round <= soakRounds; round++ {
		pending = nil
		for _, sv := range s.svcs {
			switch {
			case sv.deleted:
				s.remove(sv)
				if sv.deleted {
					pending = append(pending, sv)
				}
			case sv.exists:
				s.ensure(sv)
				if sv.dirty {
					pending = append(pending, sv)
				} else if err := s.matches(sv); err != nil {
					s.logf("  %s not yet as desired: %v", sv.name, err)
					pending = append(pending, sv)
				}
			}
		}
		if len(pending) == 0 {
			s.logf("converged in %d round(s)", round)
			break
		}
		// Work left to the background ends; the service controller syncs again.
		s.clock.Advance(time.Minute)
	}
	for _, sv := range pending {
		err := s.matches(sv)
		s.failf("%s did not converge in %d reconciles: %v", sv, soakRounds, err)
	}
	s.checkpoint()
}

// deleteAll deletes every Service, reconciles once more, and asserts nothing is left.
func (s *soak) deleteAll() {
	for _, sv := range s.svcs {
		if sv.exists {
			sv.exists, sv.deleted = false, true
		}
	}
	s.logf("delete every Service")
	for round := 1; round <= soakRounds; round++ {
		left := 0
		for _, sv := range s.svcs {
			if sv.deleted {
				s.remove(sv)
				if sv.deleted {
					left++
				}
			}
		}
		if left == 0 {
			break
		}
		s.clock.Advance(time.Minute)
	}
	// A final reconcile: every Service's deletion once more, as after a restart.
	for _, sv := range s.svcs {
		if sv.gen > 0 {
			s.remove(sv)
		}
	}
	s.clock.Advance(time.Hour) // past NLBs' DELETED retention
	o := s.owned()
	for kind, m := range map[string]map[string][]string{"load balancer": o.lbs, "network load balancer": o.nlbs, "NSG": o.nsgs} {
		for k, ids := range m {
			s.failf("orphan %s of %s after every Service was deleted: %v", kind, k, ids)
		}
	}
	for _, l := range s.srv.LoadBalancers() {
		if len(l.Certificates) > 0 {
			s.failf("orphan certificates on %s", *l.Id)
		}
	}
	for id, want := range s.initialRules {
		if got := s.rules(id); !slices.Equal(got, want) {
			s.failf("security list %s holds other rules than seeded after every Service was deleted:\n got %v\nwant %v", id, got, want)
		}
	}
}

// rules are a security list's rules, as sorted JSON.
func (s *soak) rules(id string) []string {
	l, ok := s.srv.SecurityList(id)
	if !ok {
		s.t.Fatalf("security list %s not found", id)
	}
	var out []string
	for _, r := range l.IngressSecurityRules {
		b, _ := json.Marshal(r)
		out = append(out, "in "+string(b))
	}
	for _, r := range l.EgressSecurityRules {
		b, _ := json.Marshal(r)
		out = append(out, "out "+string(b))
	}
	sort.Strings(out)
	return out
}

// matches compares what OCI holds for sv with its desired state.
func (s *soak) matches(sv *soakSvc) error {
	o := s.owned()
	want := map[int32]map[string]bool{}
	for _, p := range sv.ports {
		want[p] = map[string]bool{}
		for _, n := range s.nodes {
			want[p][fmt.Sprintf("%s:%d", n.ip, 30000+p)] = true
		}
	}
	lbs, nlbs, nsgs := o.lbs[sv.key()], o.nlbs[sv.key()], o.nsgs[sv.key()]
	wantNSGs := 0
	if sv.nsg {
		wantNSGs = 1
	}
	if len(nsgs) != wantNSGs {
		return fmt.Errorf("%d frontend NSGs %v, want %d", len(nsgs), nsgs, wantNSGs)
	}
	if sv.nlb {
		if len(lbs) != 0 || len(nlbs) != 1 {
			return fmt.Errorf("%d load balancers and %d network load balancers, want 0 and 1", len(lbs), len(nlbs))
		}
		n, _ := s.srv.NetworkLoadBalancer(nlbs[0])
		if n.LifecycleState != "ACTIVE" {
			return fmt.Errorf("network load balancer %s", n.LifecycleState)
		}
		got := map[int32]map[string]bool{}
		for _, l := range n.Listeners {
			set := map[string]bool{}
			for _, b := range n.BackendSets[*l.DefaultBackendSetName].Backends {
				set[fmt.Sprintf("%s:%d", *b.IpAddress, *b.Port)] = true
			}
			got[int32(*l.Port)] = set
		}
		return compareBackends(got, want)
	}
	if len(lbs) != 1 || len(nlbs) != 0 {
		return fmt.Errorf("%d load balancers and %d network load balancers, want 1 and 0", len(lbs), len(nlbs))
	}
	for _, x := range s.srv.LoadBalancers() {
		if *x.Id != lbs[0] {
			continue
		}
		if x.LifecycleState != "ACTIVE" {
			return fmt.Errorf("load balancer %s", x.LifecycleState)
		}
		if x.ShapeDetails == nil || *x.ShapeDetails.MaximumBandwidthInMbps != sv.flexMax {
			return fmt.Errorf("shape %+v, want flex-max %d", x.ShapeDetails, sv.flexMax)
		}
		got := map[int32]map[string]bool{}
		tlsListeners := 0
		for _, li := range x.Listeners {
			set := map[string]bool{}
			for _, b := range x.BackendSets[*li.DefaultBackendSetName].Backends {
				set[fmt.Sprintf("%s:%d", *b.IpAddress, *b.Port)] = true
			}
			got[int32(*li.Port)] = set
			if li.SslConfiguration != nil {
				tlsListeners++
			}
		}
		wantTLS := 0
		if sv.tls != "" && slices.Contains(sv.ports, 443) {
			wantTLS = 1
		}
		if tlsListeners != wantTLS || len(x.Certificates) != wantTLS {
			return fmt.Errorf("%d TLS listeners and %d certificates, want %d", tlsListeners, len(x.Certificates), wantTLS)
		}
		if err := compareBackends(got, want); err != nil {
			return err
		}
		if len(x.BackendSets) != len(sv.ports) {
			return fmt.Errorf("%d backend sets for %d ports", len(x.BackendSets), len(sv.ports))
		}
		return nil
	}
	return fmt.Errorf("load balancer %s not found", lbs[0])
}

func compareBackends(got, want map[int32]map[string]bool) error {
	if len(got) != len(want) {
		return fmt.Errorf("listeners on ports %v, want %v", mapKeys(got), mapKeys(want))
	}
	for p, w := range want {
		g, ok := got[p]
		if !ok {
			return fmt.Errorf("no listener on port %d", p)
		}
		if len(g) != len(w) {
			return fmt.Errorf("port %d: backends %v, want %v", p, mapKeys(g), mapKeys(w))
		}
		for b := range w {
			if !g[b] {
				return fmt.Errorf("port %d: backends %v, want %v", p, mapKeys(g), mapKeys(w))
			}
		}
	}
	return nil
}

func mapKeys[K interface{ ~int32 | ~string }, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
