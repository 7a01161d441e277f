// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	api "github.com/oci-ccm/oci-ccm/ccm/binding/v1alpha1"
	lbbinding "github.com/oci-ccm/oci-ccm/lb/binding"
)

// The reasons of the bindings' conditions and Events.
const (
	ReasonInSync           = "InSync"
	ReasonBackendsUpdated  = "BackendsUpdated"
	ReasonServiceNotFound  = "ServiceNotFound"
	ReasonInvalidService   = "InvalidServicePort"
	ReasonConflict         = "Conflict"
	ReasonRefused          = "Refused"
	ReasonSyncFailed       = "SyncFailed"
	ReasonReleaseFailed    = "ReleaseFailed"
	ReasonBackendsReleased = "BackendsReleased"
)

// sync syncs the binding key ("namespace/name"); a positive duration asks for another sync then
// (health of gated Pods, or the periodic resync).
func (c *Controller) sync(ctx context.Context, key string) (time.Duration, error) {
	obj, exists, err := c.bindings.GetIndexer().GetByKey(key)
	if err != nil || !exists {
		return 0, err
	}
	u := obj.(*unstructured.Unstructured)
	var b api.BackendSetBinding
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &b); err != nil {
		return 0, fmt.Errorf("binding %s: %w", key, err)
	}
	ctx = klog.NewContext(ctx, klog.FromContext(ctx).WithValues("binding", key))
	lb := lbBinding(&b)
	cached := b.DeepCopy() // the status as the informer has it, to compare the new one with
	if o, ok := c.owned.Load(b.UID); ok {
		b.Status.OwnedBackends = o.([]string) // newer than the cache may be
	}
	if b.DeletionTimestamp != nil {
		return 0, c.finalize(ctx, u, &b, lb)
	}
	if !slices.Contains(b.Finalizers, Finalizer) {
		b.Finalizers = append(b.Finalizers, Finalizer)
		if err := c.update(ctx, &b); err != nil {
			return 0, err
		}
		return 0, nil // the update's event syncs it again, with the stored object
	}
	status := new(api.BackendSetBindingStatus)
	b.Status.DeepCopyInto(status)
	status.ObservedGeneration = b.Generation
	after, err := c.reconcile(ctx, u, &b, lb, status)
	c.owned.Store(b.UID, slices.Clone(status.OwnedBackends))
	// The status says how the sync ended, also when it ran out of time.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statusTimeout)
	defer cancel()
	if serr := c.writeStatus(wctx, cached, status); serr != nil && err == nil {
		err = serr
	}
	return after, err
}

// statusTimeout bounds the status write that ends a sync, which runs after the sync's own deadline
// when that is what ended it.
const statusTimeout = 30 * time.Second

// reconcile syncs the backend set of b and fills status; it records the Events.
func (c *Controller) reconcile(ctx context.Context, u *unstructured.Unstructured, b *api.BackendSetBinding, lb lbbinding.Binding,
	status *api.BackendSetBindingStatus) (time.Duration, error) {
	if other := c.claimant(b); other != "" {
		c.degraded(u, status, ReasonConflict, fmt.Sprintf("binding %s, older, already binds backend set %q of %s; this one waits until it goes",
			other, b.Spec.BackendSetName, b.Spec.LoadBalancerID), corev1.EventTypeWarning)
		return c.opts.Resync, nil
	}
	svc, err := c.services.Services(b.Namespace).Get(b.Spec.ServiceRef.Name)
	if apierrors.IsNotFound(err) {
		c.degraded(u, status, ReasonServiceNotFound, fmt.Sprintf("Service %s/%s does not exist; the backends stay as they are until it does",
			b.Namespace, b.Spec.ServiceRef.Name), corev1.EventTypeWarning)
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	port, err := lbbinding.ServicePort(svc, b.Spec.ServiceRef.Port)
	if err != nil {
		c.degraded(u, status, ReasonInvalidService, "spec.serviceRef.port: "+err.Error(), corev1.EventTypeWarning)
		return 0, nil
	}
	want, pods, err := c.targets(b, svc, port)
	if err != nil {
		c.degraded(u, status, ReasonInvalidService, err.Error(), corev1.EventTypeWarning)
		return 0, nil
	}

	in := inputs{generation: b.Generation, protocol: port.Protocol, want: want, owned: b.Status.OwnedBackends}
	if last, ok := c.unchanged(b.UID, in); ok {
		last.status.DeepCopyInto(status)
		if last.refused {
			return c.resyncBy(last, c.opts.Resync), nil // as refused as it was
		}
		// The backends and their rules are as the last sync left them; only the health is new.
		after, err := c.gate(ctx, b, lb, pods, want)
		return c.resyncBy(last, after), err
	}
	c.lastSync.Delete(b.UID)

	res, err := c.opts.Syncer.Sync(ctx, lb, want, b.Status.OwnedBackends)
	status.OwnedBackends = res.Owned // kept whatever the outcome (lb/binding's Result)
	var refused *lbbinding.RefusedError
	switch {
	case errors.As(err, &refused):
		c.degraded(u, status, ReasonRefused, fmt.Sprintf("%s: %s", refused.Reason, refused.Detail), corev1.EventTypeWarning)
		c.remember(b.UID, in, status, true)
		return c.opts.Resync, nil // a Node or Service change may lift it; else retry at the resync
	case err != nil:
		c.degraded(u, status, ReasonSyncFailed, err.Error(), corev1.EventTypeWarning)
		return 0, err
	}
	status.Backends = int32(len(res.Backends))
	if err := c.syncRules(ctx, b, res, port.Protocol); err != nil {
		c.degraded(u, status, ReasonSecurityRules, fmt.Sprintf("the backends are in backend set %q, but their security rules could not be written: %v",
			b.Spec.BackendSetName, err), corev1.EventTypeWarning)
		return 0, err
	}
	if n := len(res.Added) + len(res.Removed) + len(res.Updated); n > 0 {
		c.events.Event(u, corev1.EventTypeNormal, ReasonBackendsUpdated, changeSummary(res.Change))
		klog.FromContext(ctx).Info("Updated the bound backend set", "added", res.Added, "removed", res.Removed,
			"updated", res.Updated, "drained", res.Drained, "backends", len(res.Backends), "workRequest", res.WorkRequest)
	}
	msg := fmt.Sprintf("%d backends of the binding in backend set %q (%d in all)", len(res.Owned), b.Spec.BackendSetName, len(res.Backends))
	if len(res.Owned) < res.Eligible && lb.Subset {
		msg += fmt.Sprintf("; a subset of the %d eligible Nodes, as OCI's backend limits take no more", res.Eligible)
	}
	if len(res.Theirs) > 0 {
		msg += fmt.Sprintf("; %d targets are backends someone else added, left theirs: %s", len(res.Theirs), strings.Join(res.Theirs, ", "))
	}
	setCondition(status, api.ConditionReady, metav1.ConditionTrue, ReasonInSync, msg)
	setCondition(status, api.ConditionDegraded, metav1.ConditionFalse, ReasonInSync, "")

	c.remember(b.UID, in, status, false)
	return c.gate(ctx, b, lb, pods, want)
}

// gate sets the readiness gates of pods, the gated Pods of b, from OCI's health of their
// backends, and says when to sync b again: after HealthPoll while one of them waits for OCI.
func (c *Controller) gate(ctx context.Context, b *api.BackendSetBinding, lb lbbinding.Binding, pods []*corev1.Pod,
	want []lbbinding.Target) (time.Duration, error) {
	if len(pods) == 0 {
		return c.opts.Resync, nil
	}
	health, err := c.opts.Syncer.Health(ctx, lb)
	if err != nil {
		return 0, err
	}
	waiting, err := c.setGates(ctx, b.Namespace, b.Name, pods, want, health)
	if err != nil || !waiting {
		return c.opts.Resync, err
	}
	return c.opts.HealthPoll, nil
}

// targets returns what b wants in the backend set, and (ip bindings) the Pods that list its
// readiness gate.
func (c *Controller) targets(b *api.BackendSetBinding, svc *corev1.Service, port corev1.ServicePort) ([]lbbinding.Target, []*corev1.Pod, error) {
	if b.Spec.TargetType == api.TargetTypeIP {
		sel := labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: svc.Name})
		endpointSlices, err := c.slices.EndpointSlices(b.Namespace).List(sel)
		if err != nil {
			return nil, nil, err
		}
		pods := c.gatedPods(b.Namespace, b.Name)
		gated := map[string]bool{}
		for _, p := range pods {
			if gatedTarget(p) {
				gated[p.Name] = true
			}
		}
		return lbbinding.EndpointTargets(withGatedReady(endpointSlices, gated), port), pods, nil
	}
	if port.NodePort == 0 {
		return nil, nil, fmt.Errorf("spec.serviceRef.port: port %s of Service %s/%s has no nodePort (targetType node needs a Service of type NodePort or LoadBalancer)",
			b.Spec.ServiceRef.Port.String(), svc.Namespace, svc.Name)
	}
	selector := labels.Everything()
	if b.Spec.NodeSelector != nil {
		s, err := metav1.LabelSelectorAsSelector(b.Spec.NodeSelector)
		if err != nil {
			return nil, nil, fmt.Errorf("spec.nodeSelector: %w", err)
		}
		selector = s
	}
	nodes, err := c.nodes.List(labels.Everything())
	if err != nil {
		return nil, nil, err
	}
	return lbbinding.NodeTargets(nodes, int(port.NodePort), selector), nil, nil
}

// claimant returns the key of an older binding of the same backend set ("" when b is the oldest):
// one backend set, one binding.
func (c *Controller) claimant(b *api.BackendSetBinding) string {
	objs, _ := c.bindings.GetIndexer().ByIndex(byBackendSet, backendSetKey(b.Spec.LoadBalancerID, b.Spec.BackendSetName))
	oldest := ""
	var when metav1.Time
	for _, o := range objs {
		u := o.(*unstructured.Unstructured)
		if u.GetUID() == b.UID {
			continue
		}
		t, key := u.GetCreationTimestamp(), u.GetNamespace()+"/"+u.GetName()
		older := t.Before(&b.CreationTimestamp) || t.Equal(&b.CreationTimestamp) && key < b.Namespace+"/"+b.Name
		if older && (oldest == "" || t.Before(&when)) {
			oldest, when = key, t
		}
	}
	return oldest
}

// finalize releases what b added (unless its deletionPolicy is Keep) and lets it go.
func (c *Controller) finalize(ctx context.Context, u *unstructured.Unstructured, b *api.BackendSetBinding, lb lbbinding.Binding) error {
	if !slices.Contains(b.Finalizers, Finalizer) {
		return nil
	}
	var released lbbinding.Result
	if b.Spec.DeletionPolicy != api.DeletionPolicyKeep && len(b.Status.OwnedBackends) > 0 && c.claimant(b) == "" {
		var err error
		if released, err = c.opts.Syncer.Release(ctx, lb, b.Status.OwnedBackends); err != nil {
			c.events.Event(u, corev1.EventTypeWarning, ReasonReleaseFailed, fmt.Sprintf(
				"Cannot remove the backends the binding added (%s); the binding stays until they are removed, or set spec.deletionPolicy: Keep to leave them: %v",
				strings.Join(b.Status.OwnedBackends, ", "), err))
			return err
		}
		c.events.Event(u, corev1.EventTypeNormal, ReasonBackendsReleased, fmt.Sprintf("Removed the %d backends the binding added: %s",
			len(b.Status.OwnedBackends), strings.Join(b.Status.OwnedBackends, ", ")))
		klog.FromContext(ctx).Info("Released the binding's backends", "backends", b.Status.OwnedBackends)
	}
	if err := c.deleteRules(ctx, b, released.Subnets); err != nil {
		c.events.Event(u, corev1.EventTypeWarning, ReasonSecurityRules, fmt.Sprintf(
			"Cannot remove the security rules of the binding's backends; the binding stays until they are removed: %v", err))
		return err
	}
	b.Finalizers = slices.DeleteFunc(b.Finalizers, func(f string) bool { return f == Finalizer })
	if err := c.update(ctx, b); err != nil {
		return err
	}
	c.owned.Delete(b.UID)
	c.lastSync.Delete(b.UID)
	return nil
}

// degraded records a problem: Degraded True, Ready False (the backends stay as they were), an
// Event when the condition is new or its message changed.
func (c *Controller) degraded(u *unstructured.Unstructured, status *api.BackendSetBindingStatus, reason, message, eventType string) {
	if old := meta.FindStatusCondition(status.Conditions, api.ConditionDegraded); old == nil || old.Status != metav1.ConditionTrue || old.Message != message {
		c.events.Event(u, eventType, reason, message)
	}
	setCondition(status, api.ConditionDegraded, metav1.ConditionTrue, reason, message)
	setCondition(status, api.ConditionReady, metav1.ConditionFalse, reason, message)
}

func setCondition(status *api.BackendSetBindingStatus, t string, s metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&status.Conditions, metav1.Condition{Type: t, Status: s, Reason: reason, Message: message,
		ObservedGeneration: status.ObservedGeneration})
}

// changeSummary says what a Sync changed, in an Event's words.
func changeSummary(ch lbbinding.Change) string {
	var parts []string
	for _, p := range []struct {
		verb  string
		names []string
	}{{"added", ch.Added}, {"removed", ch.Removed}, {"updated", ch.Updated}} {
		if len(p.names) > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", p.verb, strings.Join(p.names, ", ")))
		}
	}
	if len(ch.Drained) > 0 {
		parts = append(parts, "draining "+strings.Join(ch.Drained, ", "))
	}
	return fmt.Sprintf("Backends %s (%d in the set)", strings.Join(parts, "; "), len(ch.Backends))
}

// lbBinding is what lb/binding needs of b.
func lbBinding(b *api.BackendSetBinding) lbbinding.Binding {
	lb := lbbinding.Binding{Name: b.Namespace + "/" + b.Name, LoadBalancerID: b.Spec.LoadBalancerID, BackendSet: b.Spec.BackendSetName,
		Backup: b.Spec.Backup, Subset: b.Spec.TargetType != api.TargetTypeIP} // Nodes are interchangeable, Pods are not
	if b.Spec.Weight != nil {
		lb.Weight = int(*b.Spec.Weight)
	}
	if b.Spec.MaxConnections != nil {
		lb.MaxConnections = int(*b.Spec.MaxConnections)
	}
	return lb
}

// update writes b's metadata and spec (its finalizers).
func (c *Controller) update(ctx context.Context, b *api.BackendSetBinding) error {
	u, err := toUnstructured(b)
	if err != nil {
		return err
	}
	_, err = c.opts.Dynamic.Resource(api.GroupVersionResource).Namespace(b.Namespace).Update(ctx, u, metav1.UpdateOptions{FieldManager: ControllerName})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// writeStatus writes status when it differs from b's.
func (c *Controller) writeStatus(ctx context.Context, b *api.BackendSetBinding, status *api.BackendSetBindingStatus) error {
	if equalStatus(&b.Status, status) {
		return nil
	}
	next := b.DeepCopy()
	next.Status = *status
	u, err := toUnstructured(next)
	if err != nil {
		return err
	}
	_, err = c.opts.Dynamic.Resource(api.GroupVersionResource).Namespace(b.Namespace).UpdateStatus(ctx, u, metav1.UpdateOptions{FieldManager: ControllerName})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func toUnstructured(b *api.BackendSetBinding) (*unstructured.Unstructured, error) {
	b.TypeMeta = metav1.TypeMeta{APIVersion: api.SchemeGroupVersion.String(), Kind: api.Kind}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(b)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// equalStatus compares two statuses, conditions by type, status, reason and message (a rewrite
// with only new timestamps is no change).
func equalStatus(a, b *api.BackendSetBindingStatus) bool {
	if a.ObservedGeneration != b.ObservedGeneration || a.Backends != b.Backends || !slices.Equal(a.OwnedBackends, b.OwnedBackends) ||
		len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for _, ca := range a.Conditions {
		cb := meta.FindStatusCondition(b.Conditions, ca.Type)
		if cb == nil || cb.Status != ca.Status || cb.Reason != ca.Reason || cb.Message != ca.Message || cb.ObservedGeneration != ca.ObservedGeneration {
			return false
		}
	}
	return true
}
