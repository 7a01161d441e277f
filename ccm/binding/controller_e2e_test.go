// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package binding_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/oci-ccm/oci-ccm/ccm/binding"
	api "github.com/oci-ccm/oci-ccm/ccm/binding/v1alpha1"
	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/internal/testcluster"
	lbbinding "github.com/oci-ccm/oci-ccm/lb/binding"
	"github.com/oci-ccm/oci-ccm/ociclient"
	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

const (
	crdFile   = "../../examples/deploy/backendsetbinding-crd.yaml"
	namespace = "default"
	nodePort  = 30080
	// terraformWeb and terraformAPI are the backends Terraform put in the two sets.
	terraformWeb = "10.0.10.9:8080"
	terraformAPI = "10.0.10.8:9000"
)

// world is a real kube-apiserver with the CRD, ocitest with a load balancer made as Terraform
// would (listener "http" on set "web", a second set "api", a backend of Terraform's in each), and
// the controller running against both.
type world struct {
	kube     kubernetes.Interface
	dyn      dynamic.Interface
	bindings dynamic.NamespaceableResourceInterface
	srv      *ocitest.Server
	oci      *ociclient.Client
	lbID     string
}

func newWorld(t *testing.T, tune ...func(*binding.Options)) *world {
	t.Helper()
	w := newIdleWorld(t)
	w.run(t, tune...)
	return w
}

// newIdleWorld is the world before any controller runs.
func newIdleWorld(t *testing.T) *world {
	t.Helper()
	ctx := t.Context()
	cluster, err := testcluster.Start(ctx, testcluster.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	if err := cluster.ApplyCRD(ctx, crdFile); err != nil {
		t.Fatal(err)
	}
	w := &world{}
	if w.kube, err = kubernetes.NewForConfig(cluster.AdminConfig()); err != nil {
		t.Fatal(err)
	}
	if w.dyn, err = dynamic.NewForConfig(cluster.AdminConfig()); err != nil {
		t.Fatal(err)
	}
	w.bindings = w.dyn.Resource(api.GroupVersionResource)

	w.srv = ocitest.New(ocitest.Options{WorkRequestDuration: 5 * time.Millisecond, PolicyDelay: ocitest.NoLag})
	t.Cleanup(w.srv.Close)
	if w.oci, err = ociclient.New(ociclient.Options{
		Provider: w.srv.ConfigurationProvider(), Region: w.srv.Region(), Host: w.srv.URL(), HTTPClient: w.srv.HTTPClient(),
		RateLimit: config.RateLimiter{Disabled: true},
		Poll:      ociclient.PollPolicy{Initial: 2 * time.Millisecond, Max: 20 * time.Millisecond, Factor: 2},
	}); err != nil {
		t.Fatal(err)
	}
	w.lbID = w.terraform(t)
	return w
}

// run starts a controller (a CCM process) with its own informers; the returned function stops it.
func (w *world) run(t *testing.T, tune ...func(*binding.Options)) (stop func()) {
	t.Helper()
	factory := informers.NewSharedInformerFactory(w.kube, 0)
	opts := binding.Options{Kube: w.kube, Dynamic: w.dyn, Informers: factory, HealthPoll: 100 * time.Millisecond,
		Syncer: lbbinding.NewSyncer(lbbinding.Options{LoadBalancers: w.oci.LoadBalancers, NetworkLoadBalancers: w.oci.NetworkLoadBalancers, ClusterID: "e2e"})}
	for _, f := range tune {
		f(&opts)
	}
	c, err := binding.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	factory.Start(runCtx.Done())
	go c.Run(runCtx, 2)
	return cancel
}

// terraform creates the load balancer as a platform team's Terraform would.
func (w *world) terraform(t *testing.T) string {
	t.Helper()
	seeded := w.srv.Seeded()
	wr, err := w.oci.LoadBalancers.CreateLoadBalancer(t.Context(), loadbalancer.CreateLoadBalancerDetails{
		CompartmentId: &seeded.Compartment, DisplayName: common.String("terraform-shop"), ShapeName: common.String("flexible"),
		ShapeDetails: &loadbalancer.ShapeDetails{MinimumBandwidthInMbps: common.Int(10), MaximumBandwidthInMbps: common.Int(100)},
		SubnetIds:    seeded.LoadBalancerSubnets,
		Listeners: map[string]loadbalancer.ListenerDetails{
			"http": {DefaultBackendSetName: common.String("web"), Port: common.Int(80), Protocol: common.String("TCP")},
		},
		BackendSets: map[string]loadbalancer.BackendSetDetails{
			"web": {Policy: common.String("LEAST_CONNECTIONS"),
				HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("HTTP"), Port: common.Int(10256), UrlPath: common.String("/healthz")},
				Backends:      []loadbalancer.BackendDetails{{IpAddress: common.String("10.0.10.9"), Port: common.Int(8080)}}},
			"api": {Policy: common.String("ROUND_ROBIN"),
				HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("TCP"), Port: common.Int(9000)},
				Backends:      []loadbalancer.BackendDetails{{IpAddress: common.String("10.0.10.8"), Port: common.Int(9000)}}},
		},
	}, "terraform-shop")
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	id, err := w.oci.LoadBalancers.WaitForWorkRequestResource(t.Context(), wr)
	if err != nil {
		t.Fatalf("creating the load balancer: %v", err)
	}
	return id
}

func (w *world) lb(t *testing.T) loadbalancer.LoadBalancer {
	t.Helper()
	l, err := w.oci.LoadBalancers.GetLoadBalancer(t.Context(), w.lbID)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// backends lists a set's backends as "ip:port", with " drain" for a draining one, sorted.
func (w *world) backends(t *testing.T, set string) []string {
	t.Helper()
	var out []string
	for _, b := range w.lb(t).BackendSets[set].Backends {
		s := fmt.Sprintf("%s:%d", *b.IpAddress, *b.Port)
		if b.Drain != nil && *b.Drain {
			s += " drain"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// eventually waits until check returns "" (what is still wrong otherwise).
func eventually(t *testing.T, what string, check func() string) {
	t.Helper()
	last := ""
	if err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		last = check()
		return last == "", nil
	}); err != nil {
		t.Fatalf("%s: %s", what, last)
	}
}

func (w *world) create(t *testing.T, b *api.BackendSetBinding) {
	t.Helper()
	b.Namespace = namespace
	b.TypeMeta = metav1.TypeMeta{APIVersion: api.SchemeGroupVersion.String(), Kind: api.Kind}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.bindings.Namespace(namespace).Create(t.Context(), &unstructured.Unstructured{Object: m}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// get reads a binding; nil once it is gone.
func (w *world) get(t *testing.T, name string) *api.BackendSetBinding {
	t.Helper()
	u, err := w.bindings.Namespace(namespace).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	var b api.BackendSetBinding
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &b); err != nil {
		t.Fatal(err)
	}
	return &b
}

func (w *world) node(t *testing.T, name, ip string) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: "oci://ocid1.instance.oc1.phx." + name}}
	n, err := w.kube.CoreV1().Nodes().Create(t.Context(), n, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}}
	if _, err := w.kube.CoreV1().Nodes().UpdateStatus(t.Context(), n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func (w *world) service(t *testing.T) {
	t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), NodePort: nodePort}}}}
	if _, err := w.kube.CoreV1().Services(namespace).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// labelService labels Service web: a change that leaves every binding's targets as they were.
func (w *world) labelService(t *testing.T) {
	t.Helper()
	svc, err := w.kube.CoreV1().Services(namespace).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Labels = map[string]string{"tier": "front"}
	if _, err := w.kube.CoreV1().Services(namespace).Update(t.Context(), svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func condition(b *api.BackendSetBinding, t string) string {
	if b == nil {
		return "(no binding)"
	}
	if c := meta.FindStatusCondition(b.Status.Conditions, t); c != nil {
		return string(c.Status) + " " + c.Reason + ": " + c.Message
	}
	return "(no condition)"
}

// TestANodeBindingFollowsTheNodesAndLeavesTheLoadBalancerAsItWas: a node binding on set "web"
// takes every Node at the node port, follows a Node that goes, leaves Terraform's backend, the
// listener and the other set alone; a second binding of the same set waits as a conflict and
// takes over when the first goes; deleting the bindings removes exactly what they added.
func TestANodeBindingFollowsTheNodesAndLeavesTheLoadBalancerAsItWas(t *testing.T) {
	w := newWorld(t)
	before := w.lb(t)
	w.service(t)
	for i := 1; i <= 3; i++ {
		w.node(t, fmt.Sprintf("node-%d", i), fmt.Sprintf("10.0.10.%d", 10+i))
	}
	w.create(t, &api.BackendSetBinding{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: api.BackendSetBindingSpec{
		LoadBalancerID: w.lbID, BackendSetName: "web", ServiceRef: api.ServiceReference{Name: "web", Port: intstr.FromString("http")}}})

	nodes := []string{"10.0.10.11:30080", "10.0.10.12:30080", "10.0.10.13:30080"}
	eventually(t, "the node binding is in sync", func() string {
		b := w.get(t, "web")
		if got := condition(b, api.ConditionReady); !strings.HasPrefix(got, "True") {
			return "Ready " + got
		}
		if diff := cmp.Diff(nodes, b.Status.OwnedBackends); diff != "" {
			return "ownedBackends (-want +got):\n" + diff
		}
		if !slices.Contains(b.Finalizers, binding.Finalizer) || b.Status.Backends != 4 {
			return fmt.Sprintf("finalizers %v, backends %d; want the controller's finalizer and 4", b.Finalizers, b.Status.Backends)
		}
		return ""
	})
	if diff := cmp.Diff(append(slices.Clone(nodes), terraformWeb), w.backends(t, "web")); diff != "" {
		t.Errorf("set web in OCI (-want +got):\n%s", diff)
	}

	// The Service's EndpointSlices and labels change: the binding is synced, and with nothing of
	// what its backends depend on changed, it reads nothing.
	calls := w.srv.Calls()
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: namespace, Name: "web-xyz", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.20.9"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
	}
	if _, err := w.kube.DiscoveryV1().EndpointSlices(namespace).Create(t.Context(), slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.labelService(t)
	time.Sleep(2 * time.Second) // a window to count in, not a wait for anything
	if got := w.srv.Calls().Since(calls); got.Total() > 0 {
		t.Errorf("OCI calls after changes a node binding does not depend on, want none:\n%v", got)
	}

	if err := w.kube.CoreV1().Nodes().Delete(t.Context(), "node-2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a Node that goes leaves the set", func() string {
		if diff := cmp.Diff([]string{"10.0.10.11:30080", "10.0.10.13:30080", terraformWeb}, w.backends(t, "web")); diff != "" {
			return "set web (-want +got):\n" + diff
		}
		return ""
	})

	w.create(t, &api.BackendSetBinding{ObjectMeta: metav1.ObjectMeta{Name: "web-again"}, Spec: api.BackendSetBindingSpec{
		LoadBalancerID: w.lbID, BackendSetName: "web", ServiceRef: api.ServiceReference{Name: "web", Port: intstr.FromInt32(80)}}})
	eventually(t, "a second binding of the set is a conflict", func() string {
		if got := condition(w.get(t, "web-again"), api.ConditionDegraded); !strings.HasPrefix(got, "True Conflict") {
			return "Degraded " + got
		}
		return ""
	})

	// The older binding goes: it releases its backends, and the one that waited takes the set.
	if err := w.bindings.Namespace(namespace).Delete(t.Context(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the waiting binding takes over once the older one goes", func() string {
		b := w.get(t, "web-again")
		if w.get(t, "web") != nil {
			return "binding web is still there"
		}
		if got := condition(b, api.ConditionReady); !strings.HasPrefix(got, "True") {
			return "web-again Ready " + got
		}
		if diff := cmp.Diff([]string{"10.0.10.11:30080", "10.0.10.13:30080"}, b.Status.OwnedBackends); diff != "" {
			return "web-again ownedBackends (-want +got):\n" + diff
		}
		return ""
	})
	if err := w.bindings.Namespace(namespace).Delete(t.Context(), "web-again", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "deleted bindings let go", func() string {
		if w.get(t, "web-again") != nil {
			return "binding web-again is still there"
		}
		return ""
	})
	if diff := cmp.Diff(before, w.lb(t)); diff != "" {
		t.Errorf("the load balancer after the bindings went differs from before them (-before +after):\n%s", diff)
	}
}

// TestAnIPBindingGatesItsPodsOnOCIsHealth: a Pod that lists the binding's readiness gate and
// whose containers are ready becomes a backend before it is Ready, and the controller lets its
// gate through only once OCI reports the backend OK; a terminating Pod drains; Keep leaves the
// backends when the binding goes (and their security rules in the Pods' subnet go with it). There
// is no kubelet or EndpointSlice controller here: the test writes the Pod's status and the
// EndpointSlice as they would; the Pod's address is in ocitest's pod subnet.
func TestAnIPBindingGatesItsPodsOnOCIsHealth(t *testing.T) {
	w := newIdleWorld(t)
	_, rules := w.rulesOf(t)
	w.run(t, rules)
	w.service(t)
	const name = "api"
	gate := corev1.PodConditionType(api.ReadinessGatePrefix + name)
	w.create(t, &api.BackendSetBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: api.BackendSetBindingSpec{
		LoadBalancerID: w.lbID, BackendSetName: "api", TargetType: api.TargetTypeIP, DeletionPolicy: api.DeletionPolicyKeep,
		ServiceRef: api.ServiceReference{Name: "web", Port: intstr.FromString("http")}}})

	// No ServiceAccount controller runs here to make the namespace's "default".
	if _, err := w.kube.CoreV1().ServiceAccounts(namespace).Create(t.Context(),
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "web-1", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web"}},
			ReadinessGates: []corev1.PodReadinessGate{{ConditionType: gate}}}}
	pod, err := w.kube.CoreV1().Pods(namespace).Create(t.Context(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.PodIP, pod.Status.PodIPs = "10.0.20.5", []corev1.PodIP{{IP: "10.0.20.5"}}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.ContainersReady, Status: corev1.ConditionTrue},
		{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ReadinessGatesNotReady"}}
	if _, err := w.kube.CoreV1().Pods(namespace).UpdateStatus(t.Context(), pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: namespace, Name: "web-abc", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8080), Protocol: ptr.To(corev1.ProtocolTCP)}},
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.20.5"}, TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: namespace, Name: "web-1"},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(false), Serving: ptr.To(false), Terminating: ptr.To(false)}}},
	}
	if slice, err = w.kube.DiscoveryV1().EndpointSlices(namespace).Create(t.Context(), slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	gateOf := func() corev1.ConditionStatus {
		p, err := w.kube.CoreV1().Pods(namespace).Get(t.Context(), "web-1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range p.Status.Conditions {
			if c.Type == gate {
				return c.Status
			}
		}
		return ""
	}
	eventually(t, "a gated Pod whose containers are ready is a backend, its gate closed", func() string {
		if diff := cmp.Diff([]string{terraformAPI, "10.0.20.5:8080"}, w.backends(t, "api")); diff != "" {
			return "set api (-want +got):\n" + diff
		}
		if g := gateOf(); g != corev1.ConditionFalse {
			return fmt.Sprintf("gate %q, want False while OCI reports the backend UNKNOWN", g)
		}
		return ""
	})
	// Its security rules: the load balancer's subnets reach the Pod's port, and the port set api's
	// health checker probes (9000), in the Pods' subnet.
	eventually(t, "the Pod's backend has its security rules", func() string {
		want := []string{"ingress 10.0.1.0/24 8080-8080", "ingress 10.0.1.0/24 9000-9000", "ingress 10.0.2.0/24 8080-8080", "ingress 10.0.2.0/24 9000-9000"}
		if diff := cmp.Diff(want, w.owned(t, "pods")); diff != "" {
			return "pods (-want +got):\n" + diff
		}
		if diff := cmp.Diff([]string{"egress 10.0.20.0/24 8080-8080", "egress 10.0.20.0/24 9000-9000"}, w.owned(t, "lb-2")); diff != "" {
			return "lb-2 (-want +got):\n" + diff
		}
		return ""
	})
	// While the gate waits, each health poll (every 100 ms here) reads the set's health and
	// nothing else: the backends and rules are as the last sync left them.
	calls := w.srv.Calls()
	eventually(t, "five health polls", func() string {
		if n := w.srv.Calls().Since(calls).Op("GetBackendSetHealth"); n < 5 {
			return fmt.Sprintf("%d reads of the set's health", n)
		}
		return ""
	})
	polls := w.srv.Calls().Since(calls)
	if n := polls.Class(ocitest.ClassRead) - polls.Op("GetBackendSetHealth"); n > 0 {
		t.Errorf("%d reads besides the health while the gate waited (%d health reads), want none:\n%v", n, polls.Op("GetBackendSetHealth"), polls)
	}
	if err := w.srv.SetBackendHealth(w.lbID, "api", "10.0.20.5:8080", ocitest.BackendHealthOK); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the gate opens once OCI reports the backend OK", func() string {
		if g := gateOf(); g != corev1.ConditionTrue {
			return fmt.Sprintf("gate %q, want True", g)
		}
		return ""
	})

	slice.Endpoints[0].Conditions = discoveryv1.EndpointConditions{Ready: ptr.To(false), Serving: ptr.To(true), Terminating: ptr.To(true)}
	if _, err := w.kube.DiscoveryV1().EndpointSlices(namespace).Update(t.Context(), slice, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := w.kube.CoreV1().Pods(namespace).Delete(t.Context(), "web-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a terminating Pod drains", func() string {
		if diff := cmp.Diff([]string{terraformAPI, "10.0.20.5:8080 drain"}, w.backends(t, "api")); diff != "" {
			return "set api (-want +got):\n" + diff
		}
		return ""
	})

	if err := w.bindings.Namespace(namespace).Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a binding with deletionPolicy Keep goes and leaves its backends", func() string {
		if w.get(t, name) != nil {
			return "the binding is still there"
		}
		return ""
	})
	if diff := cmp.Diff([]string{terraformAPI, "10.0.20.5:8080 drain"}, w.backends(t, "api")); diff != "" {
		t.Errorf("set api after a Keep binding went (-want +got):\n%s", diff)
	}
	if got := w.owned(t, "pods"); len(got) != 0 {
		t.Errorf("the binding's security rules stayed after it went: %v", got)
	}
}

// TestASyncWaitingForAWorkRequestThatNeverEndsGivesUpAtItsTimeout: OCI has been seen to leave a
// work request running for ever; the sync gives up at Options.Timeout and says so in the
// binding's status, instead of holding a worker for ever.
func TestASyncWaitingForAWorkRequestThatNeverEndsGivesUpAtItsTimeout(t *testing.T) {
	w := newWorld(t, func(o *binding.Options) { o.Timeout = 2 * time.Second })
	w.srv.HoldWorkRequests(func(wr ocitest.WorkRequestInfo) bool { return wr.Operation == "UpdateBackendSet" })
	w.service(t)
	w.node(t, "node-1", "10.0.10.11")
	w.create(t, &api.BackendSetBinding{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: api.BackendSetBindingSpec{
		LoadBalancerID: w.lbID, BackendSetName: "web", ServiceRef: api.ServiceReference{Name: "web", Port: intstr.FromString("http")}}})
	eventually(t, "the sync gives up at its timeout and says so", func() string {
		got := condition(w.get(t, "web"), api.ConditionDegraded)
		if !strings.HasPrefix(got, "True "+binding.ReasonSyncFailed) || !strings.Contains(got, "deadline exceeded") {
			return "Degraded " + got
		}
		return ""
	})
	// What the held write adds is the binding's, whatever OCI does with it later.
	if owned := w.get(t, "web").Status.OwnedBackends; !slices.Contains(owned, "10.0.10.11:30080") {
		t.Errorf("ownedBackends %v after the write that timed out; want it to name 10.0.10.11:30080", owned)
	}
}

// TestBadBindingsAreDegradedWithAnEventAndWriteNothing: a binding naming a load balancer OCI
// answers 404 for, and one naming a port its Service does not have, each get Degraded with a reason
// and message that say what is wrong, a Warning Event, and no write to OCI.
func TestBadBindingsAreDegradedWithAnEventAndWriteNothing(t *testing.T) {
	w := newWorld(t)
	w.service(t)
	w.node(t, "node-1", "10.0.10.11")
	calls := w.srv.Calls()
	gone := w.lbID[:strings.LastIndexByte(w.lbID, '.')+1] + "gone"
	w.create(t, &api.BackendSetBinding{ObjectMeta: metav1.ObjectMeta{Name: "nowhere"}, Spec: api.BackendSetBindingSpec{
		LoadBalancerID: gone, BackendSetName: "web", ServiceRef: api.ServiceReference{Name: "web", Port: intstr.FromString("http")}}})
	w.create(t, &api.BackendSetBinding{ObjectMeta: metav1.ObjectMeta{Name: "wrong-port"}, Spec: api.BackendSetBindingSpec{
		LoadBalancerID: w.lbID, BackendSetName: "web", ServiceRef: api.ServiceReference{Name: "web", Port: intstr.FromInt32(8443)}}})

	for name, want := range map[string][]string{
		"nowhere":    {"True Refused: NoLoadBalancer: ", "OCI answers 404", `backend set "web"`},
		"wrong-port": {"True InvalidServicePort: spec.serviceRef.port: ", "8443"},
	} {
		eventually(t, name+" is Degraded, saying why, with an Event", func() string {
			got := condition(w.get(t, name), api.ConditionDegraded)
			for _, s := range want {
				if !strings.Contains(got, s) {
					return fmt.Sprintf("Degraded %q does not say %q", got, s)
				}
			}
			if ready := condition(w.get(t, name), api.ConditionReady); !strings.HasPrefix(ready, "False") {
				return "Ready " + ready
			}
			events, err := w.kube.CoreV1().Events(namespace).List(t.Context(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + name})
			if err != nil {
				return err.Error()
			}
			for _, e := range events.Items {
				if e.Type == corev1.EventTypeWarning && strings.Contains(got, e.Reason) && strings.Contains(got, e.Message) {
					return ""
				}
			}
			return fmt.Sprintf("no Warning Event with the condition's reason and message among %d", len(events.Items))
		})
	}
	if n := w.srv.Calls().Since(calls).Class(ocitest.ClassWrite); n != 0 {
		t.Errorf("%d writes to OCI for bad bindings; want none", n)
	}
	// A refused binding is synced again at the resync or when something it depends on changes,
	// not because its own status changed: the refusal's message names OCI's request, different
	// each time, and a status write that woke the controller would read OCI again at once, for ever.
	// Nor does a change of its Service that leaves its targets as they were (a label here, a busy
	// Service's EndpointSlices in a real cluster) read the load balancer to be refused again.
	calls = w.srv.Calls()
	w.labelService(t)
	time.Sleep(2 * time.Second) // a window to count in, not a wait for anything
	if n := w.srv.Calls().Since(calls).Op("GetLoadBalancer"); n > 0 {
		t.Errorf("%d reads of the load balancers in 2 s after both bindings were Degraded; want none", n)
	}
}
