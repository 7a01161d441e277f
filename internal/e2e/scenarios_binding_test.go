// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/oci-ccm/oci-ccm/ccm/binding/v1alpha1"
)

// The load balancer a platform team made with Terraform: listener "https" (TLS, certificate
// tfCert) on backend set tfNodeSet, which holds tfBackend, a backend Terraform put there, and
// listener "api" on the empty backend set tfPodSet.
const (
	tfCert        = "shop-cert"
	tfNodeSet     = "nodes"
	tfPodSet      = "pods"
	tfBackendIP   = "10.0.10.200"
	tfBackendPort = 8080
	tfBackend     = "10.0.10.200:8080"

	// boundService is the Service both bindings follow: type NodePort, port "http" 80 → 8080.
	boundService = "bound-web"
	// nodeBinding binds tfNodeSet to the Service's Nodes (narrowed to two by its nodeSelector),
	// podBinding binds tfPodSet to its Pods, whose readiness gate waits for it.
	nodeBinding = "bound-nodes"
	podBinding  = "bound-pods"
)

// testBackendSetBindings (issue 32): two BackendSetBindings keep two backend sets of a load
// balancer made outside Kubernetes in step with a Service, one with its Nodes, one with its Pods
// through a Deployment's scale-up, scale-down and rolling update, and change nothing else.
//   - The load balancer is made with the SDK, as Terraform makes it: a TLS listener and its
//     certificate, a TCP listener, two backend sets with their own policy, health check and
//     session persistence, and one backend of Terraform's.
//   - The node binding holds exactly the Nodes its nodeSelector picks, at the nodePort, beside
//     Terraform's backend.
//   - The ip binding follows the Pods: a new Pod (listing the binding's readiness gate, its
//     containers ready) becomes a backend before it is Ready; the controller sets its gate True
//     once OCI reports the backend OK; a terminating Pod's backend drains, a deleted one's goes.
//     Sampled every ~100 ms, the pod set always has a backend that is not draining and that OCI
//     reports OK (from the first Pods' Ready on), and a Pod's backend never leaves it while the Pod
//     is not terminating, also in the second between the Pod's Ready and its endpoint's (the
//     EndpointSlice controller's lag, played here).
//   - The listeners, the certificate, both sets' other fields and Terraform's backend stay byte
//     for byte as they were (the SDK structs compared, the bindings' own backends left out);
//     deleting both bindings leaves the load balancer exactly as Terraform made it.
func testBackendSetBindings(t *testing.T, s *suite) {
	before := s.createTerraformLB(t)
	lbID := deref(before.Id)

	svc, err := s.kube.CoreV1().Services(testNamespace).Create(s.ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: boundService, Namespace: testNamespace},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeNodePort,
			Selector: map[string]string{"app": boundService},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), Protocol: corev1.ProtocolTCP}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nodePort := svc.Spec.Ports[0].NodePort
	if err := s.ensureDefaultServiceAccount(); err != nil {
		t.Fatal(err)
	}
	w := &workload{s: s, ns: testNamespace, service: boundService, label: boundService, gate: v1alpha1.ReadinessGatePrefix + podBinding,
		port: 8080, portName: "http", node: initialNodes[0]}
	w.start(t)
	p1, p2 := w.add(t), w.add(t)

	ref := v1alpha1.ServiceReference{Name: boundService, Port: intstr.FromString("http")}
	s.createBinding(t, &v1alpha1.BackendSetBinding{
		ObjectMeta: metav1.ObjectMeta{Name: nodeBinding, Namespace: testNamespace},
		Spec: v1alpha1.BackendSetBindingSpec{LoadBalancerID: lbID, BackendSetName: tfNodeSet, ServiceRef: ref,
			TargetType: v1alpha1.TargetTypeNode,
			NodeSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: corev1.LabelHostname, Operator: metav1.LabelSelectorOpIn, Values: initialNodes[:2]}}}},
	})
	s.createBinding(t, &v1alpha1.BackendSetBinding{
		ObjectMeta: metav1.ObjectMeta{Name: podBinding, Namespace: testNamespace},
		Spec:       v1alpha1.BackendSetBindingSpec{LoadBalancerID: lbID, BackendSetName: tfPodSet, ServiceRef: ref, TargetType: v1alpha1.TargetTypeIP},
	})

	// The node binding: the two selected Nodes at the nodePort, beside Terraform's backend.
	var nodeBackends []string
	for _, n := range initialNodes[:2] {
		node, err := s.kube.CoreV1().Nodes().Get(s.ctx, n, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ip := observedFacts(node).InternalIP
		if ip == "" {
			t.Fatalf("Node %s has no InternalIP", n)
		}
		nodeBackends = append(nodeBackends, fmt.Sprintf("%s:%d", ip, nodePort))
	}
	slices.Sort(nodeBackends)
	s.waitBoundSet(t, "the node binding holds the selected Nodes", lbID, nodeBinding, tfNodeSet, nodeBackends, []string{tfBackend})
	// Their security rules (mode All): the load balancer's subnets reach the nodePort on the
	// Nodes' subnet; no Service has that port.
	s.waitRules(t, "security rules for the node binding's backends", s.backendRules(int(nodePort)), nil)

	avail := s.watchAvailability(lbID, tfPodSet)
	defer avail.stop() // on a failure before the check below

	// The first two Pods come up through their readiness gate; from then on the set must always
	// have an OK backend.
	s.bringUp(t, w, lbID, avail, p1, p2)
	s.waitBoundSet(t, "two Pods", lbID, podBinding, tfPodSet, []string{w.backend(p1), w.backend(p2)}, nil)
	s.unchangedButBound(t, lbID, before)
	avail.arm()

	// Scale up to three.
	p3 := w.add(t)
	s.bringUp(t, w, lbID, avail, p3)
	s.waitBoundSet(t, "scaled up to three Pods", lbID, podBinding, tfPodSet, []string{w.backend(p1), w.backend(p2), w.backend(p3)}, nil)

	// A readiness-probe blip: p3's containers are not ready for a moment, then are again. Its
	// backend may go and come back, but it stays the binding's own (status.ownedBackends), or
	// deleting the binding would leave it behind.
	avail.release(w.backend(p3))
	w.blip(t, p3, 300*time.Millisecond)
	if open, _, err := w.gateTrue(s.ctx, p3); err != nil {
		t.Fatal(err)
	} else if !open {
		s.openGate(t, w, lbID, p3) // the controller closed the gate meanwhile: through it again
	}
	s.waitBoundSet(t, "after a readiness blip of one Pod", lbID, podBinding, tfPodSet, []string{w.backend(p1), w.backend(p2), w.backend(p3)}, nil)
	avail.keep(w.backend(p3))

	// Scale down to one: the two Pods terminate (their backends drain), then go.
	avail.release(w.backend(p2))
	avail.release(w.backend(p3))
	w.terminate(t, p2)
	w.terminate(t, p3)
	s.waitBoundSet(t, "scaling down: two Pods terminating, drained", lbID, podBinding, tfPodSet,
		[]string{w.backend(p1), w.backend(p2) + " drain", w.backend(p3) + " drain"}, nil)
	w.remove(t, p2)
	w.remove(t, p3)
	s.waitBoundSet(t, "scaled down to one Pod", lbID, podBinding, tfPodSet, []string{w.backend(p1)}, nil)

	// A rolling update: the new Pod is up (gate True, Ready) before the old one terminates.
	p4 := w.add(t)
	s.bringUp(t, w, lbID, avail, p4)
	s.waitBoundSet(t, "rolling: the new Pod beside the old one", lbID, podBinding, tfPodSet, []string{w.backend(p1), w.backend(p4)}, nil)
	avail.release(w.backend(p1))
	w.terminate(t, p1)
	s.waitBoundSet(t, "rolling: the old Pod terminating, drained", lbID, podBinding, tfPodSet, []string{w.backend(p1) + " drain", w.backend(p4)}, nil)
	w.remove(t, p1)
	s.waitBoundSet(t, "rolled: only the new Pod", lbID, podBinding, tfPodSet, []string{w.backend(p4)}, nil)

	samples, gaps, flaps, errs := avail.stop()
	t.Logf("pod set sampled %d times from the first Pods to the end of the roll (%d reads failed)", samples, errs)
	if len(gaps) > 0 {
		t.Errorf("the pod set was without a non-draining OK backend %d time(s); first ones:\n%s", len(gaps), strings.Join(gaps[:min(len(gaps), 5)], "\n"))
	}
	if len(flaps) > 0 {
		t.Errorf("a backend of a Pod that was not terminating left the set %d time(s) (its health starts over when it is added again); first ones:\n%s",
			len(flaps), strings.Join(flaps[:min(len(flaps), 5)], "\n"))
	}
	if samples < 10 {
		t.Errorf("the pod set was sampled only %d times: the availability check proves little", samples)
	}
	s.unchangedButBound(t, lbID, before)

	for _, name := range []string{nodeBinding, podBinding} {
		events, err := s.bindingEvents(s.ctx, testNamespace, name)
		if err != nil {
			t.Fatal(err)
		}
		if eventCount(events, "BackendsUpdated") == 0 {
			t.Errorf("no BackendsUpdated Event on %s: %s", name, describeEvents(events))
		}
		for _, e := range events {
			if e.Type == corev1.EventTypeWarning {
				t.Errorf("Warning Event on %s: %s %s", name, e.Reason, e.Message)
			}
		}
	}

	// Deleting the bindings removes exactly their backends: the load balancer is as Terraform left it.
	s.deleteBinding(t, testNamespace, nodeBinding)
	s.deleteBinding(t, testNamespace, podBinding)
	after, err := s.oci.getLoadBalancer(s.ctx, lbID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after, sameLB); diff != "" {
		t.Errorf("the load balancer after both bindings are deleted differs from Terraform's (-before +after):\n%s", diff)
	}
	s.waitRules(t, "the node binding's security rules go with it", nil, []int{int(nodePort)})

	w.remove(t, p4)
	if err := s.kube.CoreV1().Services(testNamespace).Delete(s.ctx, boundService, metav1.DeleteOptions{}); err != nil {
		t.Error(err)
	}
	if err := s.kube.DiscoveryV1().EndpointSlices(testNamespace).Delete(s.ctx, w.slice.Name, metav1.DeleteOptions{}); err != nil {
		t.Error(err)
	}
	s.deleteTerraformLB(t, lbID)
}

// testBindingRefusedOnServiceLB: a binding to the load balancer of a LoadBalancer Service of this
// cluster (ServiceCreated's "web", whose reconciles replace its sets' backends) is refused: the
// binding is Degraded with a Warning Event, owns nothing, and the load balancer is unchanged;
// deleting the binding changes nothing either. With it and a binding to a load balancer OCI
// answers 404 for (refused too, each time with a new request ID in its message), the CCM at rest
// leaves the load balancers alone (atRest).
func testBindingRefusedOnServiceLB(t *testing.T, s *suite) {
	const name = "on-web"
	svc, err := s.kube.CoreV1().Services(testNamespace).Get(s.ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l, ok, err := s.oci.loadBalancerNamed(s.ctx, string(svc.UID))
	if err != nil || !ok {
		t.Fatalf("no load balancer for Service web (err %v)", err)
	}
	before, err := s.oci.getLoadBalancer(s.ctx, deref(l.Id))
	if err != nil {
		t.Fatal(err)
	}
	var set string
	for n := range before.BackendSets {
		set = n
	}
	s.refusedBinding(t, "the binding to web's load balancer", name, deref(before.Id), set, "")
	eventually(t, s.ctx, convergeTimeout, "a Warning Refused Event on the binding", func(ctx context.Context) (bool, string, error) {
		events, err := s.bindingEvents(ctx, testNamespace, name)
		if err != nil {
			return false, "", err
		}
		for _, e := range events {
			if e.Type == corev1.EventTypeWarning && e.Reason == "Refused" {
				return true, "", nil
			}
		}
		return false, describeEvents(events), nil
	})
	if after, err := s.oci.getLoadBalancer(s.ctx, deref(before.Id)); err != nil {
		t.Error(err)
	} else if diff := cmp.Diff(before, after, sameLB); diff != "" {
		t.Errorf("web's load balancer changed under a refused binding (-before +after):\n%s", diff)
	}
	const nowhere = "to-nowhere"
	id := deref(before.Id)
	s.refusedBinding(t, "the binding to a load balancer OCI answers 404 for", nowhere, id[:strings.LastIndexByte(id, '.')+1]+"gone", set, "NoLoadBalancer")
	s.atRest(t, "with two refused bindings")
	s.deleteBinding(t, testNamespace, nowhere)
	s.deleteBinding(t, testNamespace, name)
	if after, err := s.oci.getLoadBalancer(s.ctx, deref(before.Id)); err != nil {
		t.Error(err)
	} else if diff := cmp.Diff(before, after, sameLB); diff != "" {
		t.Errorf("deleting the refused binding changed web's load balancer (-before +after):\n%s", diff)
	}
}

// refusedBinding creates binding name of Service web's port http to backend set set of load
// balancer lbID, and waits until it is Degraded (refused, its message saying says), owning nothing.
func (s *suite) refusedBinding(t *testing.T, what, name, lbID, set, says string) {
	t.Helper()
	s.createBinding(t, &v1alpha1.BackendSetBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace},
		Spec: v1alpha1.BackendSetBindingSpec{LoadBalancerID: lbID, BackendSetName: set,
			ServiceRef: v1alpha1.ServiceReference{Name: "web", Port: intstr.FromString("http")}, TargetType: v1alpha1.TargetTypeNode},
	})
	eventually(t, s.ctx, convergeTimeout, what+" is Degraded (refused)", func(ctx context.Context) (bool, string, error) {
		b, found, err := s.getBinding(ctx, testNamespace, name)
		if err != nil || !found {
			return false, "not found", err
		}
		c := meta.FindStatusCondition(b.Status.Conditions, v1alpha1.ConditionDegraded)
		refused := c != nil && c.Status == metav1.ConditionTrue && (c.Reason == "Refused" || c.Reason == "ManagedByService") &&
			strings.Contains(c.Message, says)
		return refused && b.Status.ObservedGeneration == b.Generation && len(b.Status.OwnedBackends) == 0 &&
			!meta.IsStatusConditionTrue(b.Status.Conditions, v1alpha1.ConditionReady), describeBinding(b), nil
	})
}

// sameLB compares two reads of a load balancer field by field, taking an empty list for none: a
// backend set read with no backends may come back as null or as [] (the JSON of a list once
// written empty), which is no change anyone could see.
var sameLB = cmpopts.EquateEmpty()

// createTerraformLB makes the load balancer the way Terraform would, through the SDK under the
// suite's IAM policy, and returns it as read once it is ACTIVE.
func (s *suite) createTerraformLB(t *testing.T) loadbalancer.LoadBalancer {
	t.Helper()
	certPEM, keyPEM := selfSignedCert(t, "shop.example.com")
	resp, err := s.oci.lbs.CreateLoadBalancer(s.ctx, loadbalancer.CreateLoadBalancerRequest{CreateLoadBalancerDetails: loadbalancer.CreateLoadBalancerDetails{
		CompartmentId: &s.oci.seeded.Compartment, DisplayName: common.String("terraform-shop"), ShapeName: common.String("flexible"),
		ShapeDetails: &loadbalancer.ShapeDetails{MinimumBandwidthInMbps: common.Int(10), MaximumBandwidthInMbps: common.Int(100)},
		SubnetIds:    s.oci.seeded.LoadBalancerSubnets,
		Certificates: map[string]loadbalancer.CertificateDetails{tfCert: {CertificateName: common.String(tfCert),
			PublicCertificate: common.String(string(certPEM)), PrivateKey: common.String(string(keyPEM))}},
		Listeners: map[string]loadbalancer.ListenerDetails{
			"https": {DefaultBackendSetName: common.String(tfNodeSet), Port: common.Int(443), Protocol: common.String("HTTP"),
				SslConfiguration: &loadbalancer.SslConfigurationDetails{CertificateName: common.String(tfCert), VerifyPeerCertificate: common.Bool(false)}},
			"api": {DefaultBackendSetName: common.String(tfPodSet), Port: common.Int(8443), Protocol: common.String("TCP")},
		},
		BackendSets: map[string]loadbalancer.BackendSetDetails{
			tfNodeSet: {Policy: common.String("LEAST_CONNECTIONS"),
				HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("HTTP"), Port: common.Int(10256),
					UrlPath: common.String("/healthz"), ReturnCode: common.Int(200), IntervalInMillis: common.Int(5000), Retries: common.Int(2)},
				Backends: []loadbalancer.BackendDetails{{IpAddress: common.String(tfBackendIP), Port: common.Int(tfBackendPort), Weight: common.Int(3)}}},
			tfPodSet: {Policy: common.String("ROUND_ROBIN"), BackendMaxConnections: common.Int(1000),
				HealthChecker: &loadbalancer.HealthCheckerDetails{Protocol: common.String("HTTP"), Port: common.Int(8080),
					UrlPath: common.String("/ready"), ReturnCode: common.Int(204)},
				LbCookieSessionPersistenceConfiguration: &loadbalancer.LbCookieSessionPersistenceConfigurationDetails{
					CookieName: common.String("route"), MaxAgeInSeconds: common.Int(600), IsHttpOnly: common.Bool(true)}},
		},
		FreeformTags: map[string]string{"owner": "platform-team", "managed-by": "terraform"},
	}})
	if err != nil {
		t.Fatalf("CreateLoadBalancer: %v", err)
	}
	id, err := s.oci.waitWorkRequest(s.ctx, deref(resp.OpcWorkRequestId))
	if err != nil {
		t.Fatal(err)
	}
	lb, err := s.oci.getLoadBalancer(s.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if lb.LifecycleState != loadbalancer.LoadBalancerLifecycleStateActive {
		t.Fatalf("Terraform's load balancer is %s after its create", lb.LifecycleState)
	}
	return lb
}

// deleteTerraformLB deletes it again, as `terraform destroy` would.
func (s *suite) deleteTerraformLB(t *testing.T, id string) {
	t.Helper()
	resp, err := s.oci.lbs.DeleteLoadBalancer(s.ctx, loadbalancer.DeleteLoadBalancerRequest{LoadBalancerId: &id})
	if err != nil {
		t.Errorf("DeleteLoadBalancer: %v", err)
		return
	}
	if _, err := s.oci.waitWorkRequest(s.ctx, deref(resp.OpcWorkRequestId)); err != nil {
		t.Error(err)
	}
}

// ensureDefaultServiceAccount creates the namespace's "default" ServiceAccount, which the
// ServiceAccount admission plugin wants for every Pod; kube-controller-manager, which would make
// it, does not run here.
func (s *suite) ensureDefaultServiceAccount() error {
	_, err := s.kube.CoreV1().ServiceAccounts(testNamespace).Create(s.ctx, &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: testNamespace},
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// gateHeld is how long a new Pod's gate must stay not True while OCI reports its backend
// UNKNOWN: longer than the controller's health re-check period (about 2 s).
const gateHeld = 5 * time.Second

// bringUp takes new Pods through their readiness gate: once the controller has added a Pod's
// backend (before the Pod is Ready, since only the gate holds it back), the gate stays not True
// for gateHeld while OCI reports the backend UNKNOWN; then the test reports its health OK in
// ocitest, as OCI's health checks would find, the controller sets the gate True, and the kubelet
// (the test) makes the Pod Ready and its endpoint ready.
func (s *suite) bringUp(t *testing.T, w *workload, lbID string, avail *availability, pods ...pod) {
	t.Helper()
	for _, p := range pods {
		eventually(t, s.ctx, convergeTimeout, "the not-yet-Ready Pod "+p.name+" is a backend", func(ctx context.Context) (bool, string, error) {
			l, err := s.oci.getLoadBalancer(ctx, lbID)
			if err != nil {
				return false, "", err
			}
			got := backendStates(l.BackendSets[tfPodSet])
			return slices.Contains(got, w.backend(p)), fmt.Sprintf("%s: %v", tfPodSet, got), nil
		})
		avail.keep(w.backend(p))
	}
	for deadline := time.Now().Add(gateHeld); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		for _, p := range pods {
			if open, state, err := w.gateTrue(s.ctx, p); err != nil {
				t.Fatal(err)
			} else if open {
				t.Fatalf("the readiness gate of Pod %s is True while OCI reports its backend UNKNOWN: %s", p.name, state)
			}
		}
	}
	for _, p := range pods {
		if err := s.oci.setBackendHealth(s.ctx, lbID, tfPodSet, w.backend(p), "OK"); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range pods {
		eventually(t, s.ctx, convergeTimeout, "the controller sets Pod "+p.name+"'s readiness gate True", func(ctx context.Context) (bool, string, error) {
			return w.gateTrue(ctx, p)
		})
		w.ready(t, p)
	}
}

// openGate takes a Pod whose containers are ready but whose gate the controller closed back
// through it: its backend is there (again), OCI reports it OK, the gate turns True, the Pod Ready.
func (s *suite) openGate(t *testing.T, w *workload, lbID string, p pod) {
	t.Helper()
	eventually(t, s.ctx, convergeTimeout, "Pod "+p.name+" is a backend again", func(ctx context.Context) (bool, string, error) {
		l, err := s.oci.getLoadBalancer(ctx, lbID)
		if err != nil {
			return false, "", err
		}
		got := backendStates(l.BackendSets[tfPodSet])
		return slices.Contains(got, w.backend(p)), fmt.Sprintf("%s: %v", tfPodSet, got), nil
	})
	if err := s.oci.setBackendHealth(s.ctx, lbID, tfPodSet, w.backend(p), "OK"); err != nil {
		t.Fatal(err)
	}
	eventually(t, s.ctx, convergeTimeout, "the controller sets Pod "+p.name+"'s readiness gate True again", func(ctx context.Context) (bool, string, error) {
		return w.gateTrue(ctx, p)
	})
	w.ready(t, p)
}

// waitBoundSet waits until the binding has settled (its spec seen, Ready, not Degraded) with
// exactly owned as its backends, and the set holds owned plus theirs (" drain" marks a
// draining backend, as backendStates writes it).
func (s *suite) waitBoundSet(t *testing.T, what, lbID, binding, set string, owned, theirs []string) {
	t.Helper()
	want := slices.Sorted(slices.Values(append(slices.Clone(owned), theirs...)))
	var names []string
	for _, o := range owned {
		names = append(names, strings.TrimSuffix(o, " drain"))
	}
	slices.Sort(names)
	eventually(t, s.ctx, convergeTimeout, what, func(ctx context.Context) (bool, string, error) {
		b, found, err := s.getBinding(ctx, testNamespace, binding)
		if err != nil || !found {
			return false, "binding not found", err
		}
		l, err := s.oci.getLoadBalancer(ctx, lbID)
		if err != nil {
			return false, "", err
		}
		got := backendStates(l.BackendSets[set])
		ownedNow := slices.Sorted(slices.Values(b.Status.OwnedBackends))
		done := bindingSettled(b) && slices.Equal(got, want) && slices.Equal(ownedNow, names) && int(b.Status.Backends) == len(want)
		return done, fmt.Sprintf("set %s: %v, want %v\nbinding %s", set, got, want, describeBinding(b)), nil
	})
}

// unchangedButBound checks that the load balancer is as it was before the bindings, but for the
// backends the two bindings own (their status says which): listeners, certificate, both sets'
// other fields and Terraform's backend byte for byte.
func (s *suite) unchangedButBound(t *testing.T, lbID string, before loadbalancer.LoadBalancer) {
	t.Helper()
	owned := map[string]bool{}
	for _, name := range []string{nodeBinding, podBinding} {
		b, found, err := s.getBinding(s.ctx, testNamespace, name)
		if err != nil || !found {
			t.Fatalf("binding %s: found %v, err %v", name, found, err)
		}
		for _, o := range b.Status.OwnedBackends {
			owned[o] = true
		}
	}
	now, err := s.oci.getLoadBalancer(s.ctx, lbID)
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string]loadbalancer.BackendSet{}
	for name, bs := range now.BackendSets {
		if name == tfNodeSet || name == tfPodSet {
			bs.Backends = slices.DeleteFunc(slices.Clone(bs.Backends), func(b loadbalancer.Backend) bool { return owned[deref(b.Name)] })
		}
		sets[name] = bs
	}
	now.BackendSets = sets
	if diff := cmp.Diff(before, now, sameLB); diff != "" {
		t.Errorf("Terraform's load balancer changed beyond the bindings' own backends (-before +now):\n%s", diff)
	}
}

// availability samples a backend set every ~100 ms until stopped, for two things:
//   - once armed, that the set has a non-draining backend OCI reports OK (each sample reads the
//     set, then the health of its non-draining backends until one is OK): a sample without one is
//     a gap;
//   - that a backend of a Pod that is not terminating, once there, stays there (live names it):
//     a sample missing one is a flap (removed, and if added again, its health starts over).
type availability struct {
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once

	mu    sync.Mutex
	armed bool
	live  map[string]bool

	samples, errs int
	gaps, flaps   []string
}

func (s *suite) watchAvailability(lbID, set string) *availability {
	ctx, cancel := context.WithCancel(s.ctx)
	a := &availability{cancel: cancel, done: make(chan struct{}), live: map[string]bool{}}
	go func() {
		defer close(a.done)
		for ctx.Err() == nil {
			a.sample(ctx, s, lbID, set)
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return a
}

// arm starts checking for gaps: from now on the set must always have an OK backend.
func (a *availability) arm() { a.mu.Lock(); a.armed = true; a.mu.Unlock() }

// keep says that backend belongs to a Pod that is not terminating and is in the set: it must stay.
func (a *availability) keep(backend string) { a.mu.Lock(); a.live[backend] = true; a.mu.Unlock() }

// release says that backend's Pod is about to terminate: it may drain and go.
func (a *availability) release(backend string) { a.mu.Lock(); delete(a.live, backend); a.mu.Unlock() }

// stop ends the sampling and returns what it saw; later calls return the same.
func (a *availability) stop() (samples int, gaps, flaps []string, errs int) {
	a.once.Do(func() { a.cancel(); <-a.done })
	return a.samples, a.gaps, a.flaps, a.errs
}

func (a *availability) sample(ctx context.Context, s *suite, lbID, set string) {
	a.mu.Lock()
	armed, live := a.armed, make([]string, 0, len(a.live))
	for b := range a.live {
		live = append(live, b)
	}
	a.mu.Unlock()
	l, err := s.oci.getLoadBalancer(ctx, lbID)
	if err != nil {
		if ctx.Err() == nil {
			a.errs++
		}
		return
	}
	states := backendStates(l.BackendSets[set])
	now := time.Now().UTC().Format("15:04:05.000")
	for _, b := range live {
		if !slices.Contains(states, b) {
			a.flaps = append(a.flaps, fmt.Sprintf("%s %s missing (not draining) from %v", now, b, states))
		}
	}
	a.samples++
	if !armed {
		return
	}
	var health []string
	for _, b := range l.BackendSets[set].Backends {
		if b.Drain != nil && *b.Drain {
			continue
		}
		h, err := s.oci.backendHealth(ctx, lbID, set, deref(b.Name))
		if err == nil && h == loadbalancer.BackendHealthStatusOk {
			return
		}
		health = append(health, fmt.Sprintf("%s=%s (err %v)", deref(b.Name), h, err))
	}
	if ctx.Err() == nil {
		a.gaps = append(a.gaps, fmt.Sprintf("%s backends %v, health of the non-draining ones %v", now, states, health))
	}
}
