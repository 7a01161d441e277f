// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"

	"github.com/oci-ccm/oci-ccm/ccm/binding/v1alpha1"
)

// bindingFinalizer is the finalizer the backend-set-binding controller puts on every binding.
const bindingFinalizer = "oci-ccm.github.io/backend-set-binding"

// --- BackendSetBindings, through the dynamic client ---

func (s *suite) createBinding(t *testing.T, b *v1alpha1.BackendSetBinding) {
	t.Helper()
	b.APIVersion, b.Kind = v1alpha1.SchemeGroupVersion.String(), v1alpha1.Kind
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.dyn.Resource(v1alpha1.GroupVersionResource).Namespace(b.Namespace).Create(s.ctx,
		&unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create BackendSetBinding %s/%s: %v", b.Namespace, b.Name, err)
	}
}

// getBinding reads a binding; found is false when it does not exist.
func (s *suite) getBinding(ctx context.Context, ns, name string) (b *v1alpha1.BackendSetBinding, found bool, err error) {
	u, err := s.dyn.Resource(v1alpha1.GroupVersionResource).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	b = &v1alpha1.BackendSetBinding{}
	return b, true, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, b)
}

// deleteBinding deletes a binding and waits until it is gone: the controller has released its
// backends (or kept them, as its deletion policy says) and dropped its finalizer.
func (s *suite) deleteBinding(t *testing.T, ns, name string) {
	t.Helper()
	if err := s.dyn.Resource(v1alpha1.GroupVersionResource).Namespace(ns).Delete(s.ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete BackendSetBinding %s/%s: %v", ns, name, err)
	}
	eventually(t, s.ctx, convergeTimeout, "BackendSetBinding "+ns+"/"+name+" gone (finalizer removed)", func(ctx context.Context) (bool, string, error) {
		b, found, err := s.getBinding(ctx, ns, name)
		if err != nil || !found {
			return !found, "", err
		}
		return false, describeBinding(b), nil
	})
}

// describeBinding renders a binding's finalizers and status for failure messages.
func describeBinding(b *v1alpha1.BackendSetBinding) string {
	var w strings.Builder
	fmt.Fprintf(&w, "%s/%s generation %d finalizers %v: observedGeneration %d, backends %d, owned %v",
		b.Namespace, b.Name, b.Generation, b.Finalizers, b.Status.ObservedGeneration, b.Status.Backends, b.Status.OwnedBackends)
	for _, c := range b.Status.Conditions {
		fmt.Fprintf(&w, "\n  %s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message)
	}
	return w.String()
}

// bindingSettled reports whether the controller has seen the binding's current spec, holds its
// finalizer and says Ready and not Degraded.
func bindingSettled(b *v1alpha1.BackendSetBinding) bool {
	return b.Status.ObservedGeneration == b.Generation && slices.Contains(b.Finalizers, bindingFinalizer) &&
		meta.IsStatusConditionTrue(b.Status.Conditions, v1alpha1.ConditionReady) &&
		!meta.IsStatusConditionTrue(b.Status.Conditions, v1alpha1.ConditionDegraded)
}

// bindingEvents lists the Events recorded for a binding.
func (s *suite) bindingEvents(ctx context.Context, ns, name string) ([]corev1.Event, error) {
	sel := fields.Set{"involvedObject.kind": v1alpha1.Kind, "involvedObject.name": name}.AsSelector().String()
	list, err := s.kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// --- a Deployment's Pods and their EndpointSlice, played by the test ---

// workload plays, for one Service, what this cluster lacks: it runs no kubelet and no
// kube-controller-manager, so nothing else would create Pods, report their state or list them
// as endpoints. The test is the Deployment and ReplicaSet controllers (it creates and deletes
// the Pods), the kubelet (podIP, ContainersReady, and Ready only once every readiness gate is
// True, as the kubelet computes it) and the EndpointSlice controller (one slice whose endpoints
// follow the Pods: ready while the Pod is Ready, serving and terminating while a Ready Pod is
// being deleted).
type workload struct {
	s                  *suite
	ns, service, label string
	// gate is the readiness gate every Pod lists (empty: none).
	gate string
	// port is the container port, named portName in the slice as in the Service.
	port     int32
	portName string
	node     string
	slice    *discoveryv1.EndpointSlice
	// next numbers the Pods, which are named and addressed after it.
	next int
}

// pod is one Pod of a workload.
type pod struct {
	name, ip string
}

// backend is the pod's backend name in OCI, "ip:port".
func (w *workload) backend(p pod) string { return fmt.Sprintf("%s:%d", p.ip, w.port) }

// start creates the workload's (empty) EndpointSlice.
func (w *workload) start(t *testing.T) {
	t.Helper()
	proto := corev1.ProtocolTCP
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: w.service + "-bsb01", Namespace: w.ns,
			Labels: map[string]string{discoveryv1.LabelServiceName: w.service}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &w.portName, Port: &w.port, Protocol: &proto}},
	}
	var err error
	if w.slice, err = w.s.kube.DiscoveryV1().EndpointSlices(w.ns).Create(w.s.ctx, slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// add creates a Pod whose containers are ready: Ready is False until its readiness gate is True
// (kubelet's reason ReadinessGatesNotReady), and its endpoint is not ready.
func (w *workload) add(t *testing.T) pod {
	t.Helper()
	w.next++
	p := pod{name: fmt.Sprintf("%s-%d", w.service, w.next), ip: fmt.Sprintf("10.244.1.%d", w.next)}
	spec := corev1.PodSpec{
		NodeName:                     w.node,
		AutomountServiceAccountToken: new(false),
		Containers: []corev1.Container{{Name: "web", Image: "nginx",
			Ports: []corev1.ContainerPort{{Name: w.portName, ContainerPort: w.port}}}},
	}
	if w.gate != "" {
		spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: corev1.PodConditionType(w.gate)}}
	}
	obj := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: w.ns, Labels: map[string]string{"app": w.label}}, Spec: spec}
	if _, err := w.s.kube.CoreV1().Pods(w.ns).Create(w.s.ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.updatePodStatus(t, p.name, func(st *corev1.PodStatus) {
		st.Phase = corev1.PodRunning
		st.PodIP, st.PodIPs = p.ip, []corev1.PodIP{{IP: p.ip}}
		st.HostIP = "10.0.10.2"
		setPodCondition(st, corev1.PodScheduled, corev1.ConditionTrue, "")
		setPodCondition(st, corev1.PodInitialized, corev1.ConditionTrue, "")
		setPodCondition(st, corev1.ContainersReady, corev1.ConditionTrue, "")
		setPodCondition(st, corev1.PodReady, corev1.ConditionFalse, "ReadinessGatesNotReady")
	})
	w.setEndpoint(t, p, new(false), new(false), new(false))
	return p
}

// gateTrue reports whether the Pod's readiness gate condition is True (set by the controller).
func (w *workload) gateTrue(ctx context.Context, p pod) (bool, string, error) {
	got, err := w.s.kube.CoreV1().Pods(w.ns).Get(ctx, p.name, metav1.GetOptions{})
	if err != nil {
		return false, "", err
	}
	for _, c := range got.Status.Conditions {
		if string(c.Type) == w.gate {
			return c.Status == corev1.ConditionTrue, fmt.Sprintf("pod %s: %s=%s %s %s", p.name, c.Type, c.Status, c.Reason, c.Message), nil
		}
	}
	return false, fmt.Sprintf("pod %s has no %s condition yet: %v", p.name, w.gate, got.Status.Conditions), nil
}

// endpointLag is how long after a Pod turns Ready the EndpointSlice controller marks its endpoint
// ready: it acts on the Pod's update, not with it (kube-controller-manager's
// --endpointslice-updates-batch-period can lengthen the wait), and a controller must not take
// that moment for the Pod's going.
const endpointLag = time.Second

// ready is the kubelet seeing every readiness gate True: the Pod turns Ready, and endpointLag
// later the EndpointSlice controller marks its endpoint ready.
func (w *workload) ready(t *testing.T, p pod) {
	t.Helper()
	w.updatePodStatus(t, p.name, func(st *corev1.PodStatus) { setPodCondition(st, corev1.PodReady, corev1.ConditionTrue, "") })
	time.Sleep(endpointLag)
	w.setEndpoint(t, p, new(true), new(true), new(false))
}

// blip is a readiness probe failing for d: the kubelet marks the containers and the Pod not
// ready, and the EndpointSlice controller the endpoint; then the probe passes again and the
// containers are ready, the Pod Ready only if its gate is still True (else the caller takes it
// through the gate again).
func (w *workload) blip(t *testing.T, p pod, d time.Duration) {
	t.Helper()
	w.updatePodStatus(t, p.name, func(st *corev1.PodStatus) {
		setPodCondition(st, corev1.ContainersReady, corev1.ConditionFalse, "ContainersNotReady")
		setPodCondition(st, corev1.PodReady, corev1.ConditionFalse, "ContainersNotReady")
	})
	w.setEndpoint(t, p, new(false), new(false), new(false))
	time.Sleep(d)
	gateOpen := false
	w.updatePodStatus(t, p.name, func(st *corev1.PodStatus) {
		setPodCondition(st, corev1.ContainersReady, corev1.ConditionTrue, "")
		gateOpen = false
		for _, c := range st.Conditions {
			gateOpen = gateOpen || string(c.Type) == w.gate && c.Status == corev1.ConditionTrue
		}
		if gateOpen {
			setPodCondition(st, corev1.PodReady, corev1.ConditionTrue, "")
		} else {
			setPodCondition(st, corev1.PodReady, corev1.ConditionFalse, "ReadinessGatesNotReady")
		}
	})
	if gateOpen {
		time.Sleep(endpointLag)
		w.setEndpoint(t, p, new(true), new(true), new(false))
	}
}

// terminate deletes the Pod gracefully: with no kubelet to end it, it stays terminating (its
// deletionTimestamp set) and its endpoint serving and terminating, until remove.
func (w *workload) terminate(t *testing.T, p pod) {
	t.Helper()
	if err := w.s.kube.CoreV1().Pods(w.ns).Delete(w.s.ctx, p.name, metav1.DeleteOptions{GracePeriodSeconds: new(int64(600))}); err != nil {
		t.Fatal(err)
	}
	w.setEndpoint(t, p, new(false), new(true), new(true))
}

// remove is the kubelet confirming the Pod's end: the Pod is gone and so is its endpoint.
func (w *workload) remove(t *testing.T, p pod) {
	t.Helper()
	err := w.s.kube.CoreV1().Pods(w.ns).Delete(w.s.ctx, p.name, metav1.DeleteOptions{GracePeriodSeconds: new(int64(0))})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	w.setEndpoint(t, p, nil, nil, nil)
}

// setEndpoint writes the Pod's endpoint with these conditions; ready nil removes it.
func (w *workload) setEndpoint(t *testing.T, p pod, ready, serving, terminating *bool) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		slice, err := w.s.kube.DiscoveryV1().EndpointSlices(w.ns).Get(w.s.ctx, w.slice.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		slice.Endpoints = slices.DeleteFunc(slice.Endpoints, func(e discoveryv1.Endpoint) bool { return e.TargetRef != nil && e.TargetRef.Name == p.name })
		if ready != nil {
			slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{
				Addresses:  []string{p.ip},
				Conditions: discoveryv1.EndpointConditions{Ready: ready, Serving: serving, Terminating: terminating},
				NodeName:   &w.node,
				TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: w.ns, Name: p.name},
			})
		}
		w.slice, err = w.s.kube.DiscoveryV1().EndpointSlices(w.ns).Update(w.s.ctx, slice, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// updatePodStatus changes the Pod's status, retrying on conflicts with the controller, which
// writes the readiness gate's condition into the same status.
func (w *workload) updatePodStatus(t *testing.T, name string, change func(*corev1.PodStatus)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		got, err := w.s.kube.CoreV1().Pods(w.ns).Get(w.s.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(&got.Status)
		_, err = w.s.kube.CoreV1().Pods(w.ns).UpdateStatus(w.s.ctx, got, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func setPodCondition(st *corev1.PodStatus, typ corev1.PodConditionType, status corev1.ConditionStatus, reason string) {
	c := corev1.PodCondition{Type: typ, Status: status, Reason: reason, LastTransitionTime: metav1.Now()}
	for i := range st.Conditions {
		if st.Conditions[i].Type == typ {
			st.Conditions[i] = c
			return
		}
	}
	st.Conditions = append(st.Conditions, c)
}

// --- OCI: the load balancer as Terraform makes it, health, reads ---

// getLoadBalancer reads a load balancer whole, as the SDK returns it.
func (v *ociView) getLoadBalancer(ctx context.Context, id string) (loadbalancer.LoadBalancer, error) {
	resp, err := v.lbs.GetLoadBalancer(ctx, loadbalancer.GetLoadBalancerRequest{LoadBalancerId: &id})
	return resp.LoadBalancer, err
}

// waitWorkRequest polls a load balancer work request until it succeeds and returns its load
// balancer's OCID.
func (v *ociView) waitWorkRequest(ctx context.Context, id string) (string, error) {
	for {
		resp, err := v.lbs.GetWorkRequest(ctx, loadbalancer.GetWorkRequestRequest{WorkRequestId: &id})
		if err != nil {
			return "", err
		}
		switch resp.LifecycleState {
		case loadbalancer.WorkRequestLifecycleStateSucceeded:
			return deref(resp.LoadBalancerId), nil
		case loadbalancer.WorkRequestLifecycleStateFailed:
			return "", fmt.Errorf("work request %s failed: %+v", id, resp.ErrorDetails)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// setBackendHealth tells ocitest what the health checks of a backend found (ocitest runs none:
// a backend stays UNKNOWN until told).
func (v *ociView) setBackendHealth(ctx context.Context, lbID, set, backend, status string) error {
	return v.admin(ctx, http.MethodPut, "/ocitest/health", map[string]string{
		"id": lbID, "backendSet": set, "backend": backend, "status": status,
	}, nil)
}

// backendHealth reads one backend's health as OCI reports it; a backend that is gone is not OK.
func (v *ociView) backendHealth(ctx context.Context, lbID, set, backend string) (loadbalancer.BackendHealthStatusEnum, error) {
	resp, err := v.lbs.GetBackendHealth(ctx, loadbalancer.GetBackendHealthRequest{
		LoadBalancerId: &lbID, BackendSetName: &set, BackendName: common.String(backend),
	})
	return resp.Status, err
}

// backendStates lists a set's backends as "ip:port", with " drain" for a draining one, sorted.
func backendStates(bs loadbalancer.BackendSet) []string {
	var out []string
	for _, b := range bs.Backends {
		n := fmt.Sprintf("%s:%d", deref(b.IpAddress), derefInt(b.Port))
		if b.Drain != nil && *b.Drain {
			n += " drain"
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
