// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"context"
	"encoding/json"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	api "github.com/oci-ccm/oci-ccm/ccm/binding/v1alpha1"
	lbbinding "github.com/oci-ccm/oci-ccm/lb/binding"
)

// This file is the Pod readiness gates of ip bindings. A Pod that lists the condition type
// api.ReadinessGatePrefix + <binding name> in spec.readinessGates is Ready only once that
// condition is True, which the controller sets when OCI reports the Pod's backend OK: so a
// rolling update (which waits for new Pods to be Ready before it removes old ones) never leaves
// the backend set without a healthy backend. Until then the Pod's endpoint is not ready, so the
// controller takes as a target a gated Pod whose containers are ready, which is not Ready only
// because of the gate (as other clouds' controllers do).

// byGate indexes gated Pods by "namespace/binding".
const byGate = "gate"

// newGatedPodInformer watches Pods, keeping of each only what readiness gates need (name,
// namespace, gates, IPs, conditions, deletion): a cluster's Pods are many, and most of a Pod is
// of no use here.
func newGatedPodInformer(kube kubernetes.Interface) cache.SharedIndexInformer {
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return kube.CoreV1().Pods(metav1.NamespaceAll).Watch(ctx, o)
		},
	}
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{byGate: func(o any) ([]string, error) {
		p, ok := o.(*corev1.Pod)
		if !ok {
			return nil, nil
		}
		var keys []string
		for _, name := range gatesOf(p) {
			keys = append(keys, p.Namespace+"/"+name)
		}
		return keys, nil
	}})
	_ = inf.SetTransform(trimPod)
	return inf
}

// trimPod keeps what readiness gates need of a Pod.
func trimPod(o any) (any, error) {
	p, ok := o.(*corev1.Pod)
	if !ok {
		return o, nil
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID, ResourceVersion: p.ResourceVersion,
			DeletionTimestamp: p.DeletionTimestamp},
		Spec:   corev1.PodSpec{ReadinessGates: p.Spec.ReadinessGates},
		Status: corev1.PodStatus{PodIP: p.Status.PodIP, PodIPs: p.Status.PodIPs, Conditions: p.Status.Conditions},
	}, nil
}

// gatesOf returns the names of the bindings whose readiness gate p lists.
func gatesOf(p *corev1.Pod) []string {
	var names []string
	for _, g := range p.Spec.ReadinessGates {
		if name, ok := strings.CutPrefix(string(g.ConditionType), api.ReadinessGatePrefix); ok && name != "" {
			names = append(names, name)
		}
	}
	return names
}

// gatedPods returns the Pods that list binding namespace/name's gate.
func (c *Controller) gatedPods(namespace, name string) []*corev1.Pod {
	objs, _ := c.pods.GetIndexer().ByIndex(byGate, namespace+"/"+name)
	pods := make([]*corev1.Pod, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			pods = append(pods, p)
		}
	}
	return pods
}

// gatedTarget reports whether a gated Pod p is a target whatever its endpoint says: its containers are
// ready and it is not being deleted. That covers a Pod not Ready only because of its gate, and a
// Pod Ready already whose endpoint the EndpointSlice controller has not marked ready yet (a second
// or so later): in between, its backend must not leave the set (it would come back UNKNOWN).
func gatedTarget(p *corev1.Pod) bool {
	return p.DeletionTimestamp == nil && conditionTrue(p, corev1.ContainersReady)
}

func conditionTrue(p *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// withGatedReady returns slices with the endpoints of the Pods named in gated (Pods of the
// slices' namespace, gatedTarget) marked ready, in copies (the informer's objects stay as they are), so
// EndpointTargets takes them as targets.
func withGatedReady(slices []*discoveryv1.EndpointSlice, gated map[string]bool) []*discoveryv1.EndpointSlice {
	if len(gated) == 0 {
		return slices
	}
	out := make([]*discoveryv1.EndpointSlice, len(slices))
	for i, s := range slices {
		out[i] = s
		for j, e := range s.Endpoints {
			ref := e.TargetRef
			if ref == nil || ref.Kind != "Pod" || !gated[ref.Name] {
				continue
			}
			if out[i] == s {
				out[i] = s.DeepCopy()
			}
			ready, serving, terminating := true, true, false
			out[i].Endpoints[j].Conditions = discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating}
		}
	}
	return out
}

// setGates sets the gate condition of each gated Pod of binding namespace/name from the health
// of its backend (target by Pod IP), patching only the Pods whose condition changes. It reports
// whether some gated Pod's backend is not OK yet: whether OCI's next health report may let a Pod
// through. A gated Pod that is no backend yet waits for Kubernetes, not OCI (its containers to be
// ready, or its endpoint), and the change that makes it one syncs the binding.
func (c *Controller) setGates(ctx context.Context, namespace, name string, pods []*corev1.Pod, targets []lbbinding.Target,
	health map[string]lbbinding.Health) (waiting bool, err error) {
	gate := corev1.PodConditionType(api.ReadinessGatePrefix + name)
	byIP := map[string]string{}
	for _, t := range targets {
		byIP[t.IP] = t.Name()
	}
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue // leaving: its gate no longer matters
		}
		backend := ""
		for _, ip := range podIPs(p) {
			if n, ok := byIP[ip]; ok {
				backend = n
				break
			}
		}
		h := health[backend]
		status, reason, message := corev1.ConditionFalse, "BackendNotHealthy", "OCI reports backend "+backend+" "+string(h)
		switch {
		case backend == "":
			reason, message = "NotABackend", "the Pod is not a backend of the binding yet"
		case h == lbbinding.HealthOK:
			status, reason, message = corev1.ConditionTrue, "BackendHealthy", "OCI reports backend "+backend+" OK"
		case h == "":
			message = "OCI reports no health for backend " + backend + " yet"
		}
		if status != corev1.ConditionTrue && backend != "" {
			waiting = true
		}
		if current(p, gate) == status {
			continue
		}
		patch, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": []corev1.PodCondition{{
			Type: gate, Status: status, Reason: reason, Message: message, LastTransitionTime: metav1.Now()}}}})
		if _, err := c.opts.Kube.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.StrategicMergePatchType, patch,
			metav1.PatchOptions{FieldManager: ControllerName}, "status"); err != nil {
			return waiting, err
		}
	}
	return waiting, nil
}

// current is the status of p's condition t ("" when it has none).
func current(p *corev1.Pod, t corev1.PodConditionType) corev1.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}

func podIPs(p *corev1.Pod) []string {
	ips := []string{p.Status.PodIP}
	for _, ip := range p.Status.PodIPs {
		ips = append(ips, ip.IP)
	}
	return ips
}
